// Package imageref checks container image references as Docker reads
// them (name[:tag][@digest], the name with an optional registry host and
// port), with the rules and messages of github.com/distribution/reference's
// ParseNormalizedNamed, which Docker, containerlab and Kubernetes use.
//
// labctl checks every lab spec's images, whatever runtime the lab starts
// on, so the check runs in every process that reads a lab. That package
// compiles its regular expressions as it is initialized, in every labctl
// process: 0.5 ms of CPU each on this machine (labctl version, 4 x 200
// runs interleaved: 5.05-5.15 against 4.55-4.70 ms), a percent of a short
// simulation. The grammar here is the same, compiled on first use; a test
// holds the two to the same verdict and message on every reference it
// tries (distribution/reference is a dependency of that test only).
package imageref

import (
	"fmt"
	"strings"

	"github.com/labctl/labctl/orchestrator/lazyregexp"
)

// The grammar of distribution/reference's regexp.go, piece by piece.
const (
	alphanumeric = `[a-z0-9]+`
	separator    = `(?:[._]|__|[-]+)`
	domainComp   = `(?:[a-zA-Z0-9]|[a-zA-Z0-9][a-zA-Z0-9-]*[a-zA-Z0-9])`
	domainName   = domainComp + `(?:\.` + domainComp + `)*`
	ipv6         = `\[(?:[a-fA-F0-9:]+)\]`
	host         = `(?:` + domainName + `|` + ipv6 + `)`
	domainPort   = host + `(?::[0-9]+)?`
	pathComp     = alphanumeric + `(?:` + separator + alphanumeric + `)*`
	remoteName   = pathComp + `(?:/` + pathComp + `)*`
	name         = `(?:` + domainPort + `/)?` + remoteName
	tag          = `[\w][\w.-]{0,127}`
	digest       = `[A-Za-z][A-Za-z0-9]*(?:[-_+.][A-Za-z][A-Za-z0-9]*)*[:][[:xdigit:]]{32,}`
)

var (
	referenceRe  = lazyregexp.New(`^(` + name + `)(?::(` + tag + `))?(?:@(` + digest + `))?$`)
	identifierRe = lazyregexp.New(`^[a-f0-9]{64}$`)
	// go-digest's DigestRegexp: what any digest looks like, whatever its
	// algorithm.
	anyDigestRe = lazyregexp.New(`^[a-z0-9]+(?:[.+_-][a-z0-9]+)*:[a-zA-Z0-9=_-]+$`)
)

// maxNameLen is the longest repository path (the name without its
// registry).
const maxNameLen = 255

// digestHexLen are the algorithms a digest may name and the length of the
// hex they take (go-digest's, the ones distribution/reference accepts).
var digestHexLen = map[string]int{"sha256": 64, "sha384": 96, "sha512": 128}

// Check reports whether ref is a reference Docker takes, and if not why,
// in distribution/reference's words ("invalid reference format", "must be
// lowercase", ...).
func Check(ref string) error {
	if identifierRe().MatchString(ref) {
		return fmt.Errorf("invalid repository name (%s), cannot specify 64-byte hexadecimal strings", ref)
	}
	domain, remainder := splitDomain(ref)
	// The repository name is what precedes the first colon of the rest
	// (a tag's, or a digest's after its algorithm).
	repo, _, _ := strings.Cut(remainder, ":")
	if strings.ToLower(repo) != repo {
		return fmt.Errorf("invalid reference format: repository name (%s) must be lowercase", repo)
	}
	return parse(domain, remainder)
}

// splitDomain splits a name into its registry and the rest as Docker
// does: the first component is a registry when it holds a dot or a colon,
// is localhost, or has an uppercase letter; otherwise the registry is
// docker.io (and a name of one component is under library/).
func splitDomain(ref string) (domain, remainder string) {
	i := strings.IndexRune(ref, '/')
	if i == -1 || (!strings.ContainsAny(ref[:i], ".:") && ref[:i] != "localhost" && strings.ToLower(ref[:i]) == ref[:i]) {
		domain, remainder = "docker.io", ref
	} else {
		domain, remainder = ref[:i], ref[i+1:]
	}
	if domain == "index.docker.io" {
		domain = "docker.io"
	}
	if domain == "docker.io" && !strings.ContainsRune(remainder, '/') {
		remainder = "library/" + remainder
	}
	return domain, remainder
}

// parse is distribution/reference's Parse of the normalized reference
// domain/remainder.
func parse(domain, remainder string) error {
	s := domain + "/" + remainder
	m := referenceRe().FindStringSubmatch(s)
	if m == nil {
		if s == "" {
			return fmt.Errorf("repository name must have at least one component")
		}
		if referenceRe().FindStringSubmatch(strings.ToLower(s)) != nil {
			return fmt.Errorf("repository name must be lowercase")
		}
		return fmt.Errorf("invalid reference format")
	}
	// The limit is the path's, the registry left out.
	if len(m[1])-len(domain)-1 > maxNameLen {
		return fmt.Errorf("repository name must not be more than %d characters", maxNameLen)
	}
	if d := m[3]; d != "" {
		alg, hex, _ := strings.Cut(d, ":")
		n, ok := digestHexLen[alg]
		switch {
		case !ok && !anyDigestRe().MatchString(d):
			return fmt.Errorf("invalid checksum digest format")
		case !ok:
			return fmt.Errorf("unsupported digest algorithm")
		case len(hex) != n:
			return fmt.Errorf("invalid checksum digest length")
		case strings.ToLower(hex) != hex:
			return fmt.Errorf("invalid checksum digest format")
		}
	}
	return nil
}
