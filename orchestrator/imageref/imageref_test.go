package imageref

import (
	// labctl links crypto/sha512 (TLS does), and go-digest takes a
	// sha384 or sha512 digest only where it is linked.
	_ "crypto/sha512"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/distribution/reference"
)

// TestSameVerdictAsDistribution holds Check to distribution/reference's
// ParseNormalizedNamed, which Docker uses: the same references accepted,
// and for the others the same message, over references written to probe
// each rule and many more made by mutating them at random.
func TestSameVerdictAsDistribution(t *testing.T) {
	seeds := []string{
		"docker-sonic-vs:latest", "ceos:4.32.0F", "labctl/host:latest", "ubuntu", "library/ubuntu:22.04",
		"ghcr.io/nokia/srlinux:24.3.1", "localhost:5000/foo/bar:tag", "localhost/foo", "127.0.0.1:5000/x",
		"[::1]:5000/foo", "[fe80::1]/x:y", "registry.example.com/a/b/c", "index.docker.io/library/busybox",
		"a__b", "a___b", "a--b", "a-", "-a", "a.b", "a..b", "a_b", "a/b/", "/a", "a//b", "",
		"Uppercase", "example.com/Upper/x", "Example.com/x", "x:Tag_1.0-rc", "x:-tag", "x:" + strings.Repeat("t", 128),
		"x:" + strings.Repeat("t", 129), "x@sha256:" + strings.Repeat("a", 64), "x@sha256:" + strings.Repeat("A", 64),
		"x@sha256:" + strings.Repeat("a", 63), "x@sha512:" + strings.Repeat("b", 128), "x@md5:" + strings.Repeat("c", 32),
		"x:1@sha256:" + strings.Repeat("d", 64), strings.Repeat("e", 64), strings.Repeat("e", 65),
		strings.Repeat("a", 250) + "/b", strings.Repeat("a", 260), "a b", "a\tb", "é", "a:b:c", "a@b", "host:port/x",
		"host:80x/y", "docker.io/x", "docker.io/library/x:1", "DOCKER.IO/x", "a.B/c", "sha256:" + strings.Repeat("f", 64),
	}
	rng := rand.New(rand.NewPCG(1, 2))
	alphabet := "abAB09_.-:/@[]"
	cases := append([]string{}, seeds...)
	for range 20000 {
		s := []byte(seeds[rng.IntN(len(seeds))])
		for range 1 + rng.IntN(3) {
			c := alphabet[rng.IntN(len(alphabet))]
			switch i := rng.IntN(len(s) + 1); rng.IntN(3) {
			case 0:
				s = append(s[:i], append([]byte{c}, s[i:]...)...)
			case 1:
				if i < len(s) {
					s[i] = c
				}
			default:
				if i < len(s) {
					s = append(s[:i], s[i+1:]...)
				}
			}
		}
		cases = append(cases, string(s))
	}
	accepted := 0
	for _, ref := range cases {
		_, want := reference.ParseNormalizedNamed(ref)
		got := Check(ref)
		switch {
		case (want == nil) != (got == nil):
			t.Errorf("%q: Check %v, distribution/reference %v", ref, got, want)
		case want != nil && got.Error() != want.Error():
			t.Errorf("%q: Check says %q, distribution/reference %q", ref, got, want)
		case want == nil:
			accepted++
		}
	}
	if accepted < len(cases)/10 {
		t.Errorf("only %d of %d references accepted: the cases probe too little of what Docker takes", accepted, len(cases))
	}
}
