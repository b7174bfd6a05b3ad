package hugepage

import "testing"

func TestParseMode(t *testing.T) {
	for in, want := range map[string]string{
		"always [madvise] never\n": "madvise",
		"[always] madvise never\n": "always",
		"always madvise [never]\n": "never",
		"":                         "",
		"always madvise never\n":   "",
		"] [":                      "",
	} {
		if got := parseMode([]byte(in)); got != want {
			t.Errorf("parseMode(%q) = %q, want %q", in, got, want)
		}
	}
}
