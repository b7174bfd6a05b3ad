package naming

import (
	"regexp"
	"strings"
	"testing"
)

// The regular expressions the check replaced: Valid must agree with them.
var (
	bounded   = regexp.MustCompile(`^[a-z0-9][a-z0-9-]{0,39}$`)
	unbounded = regexp.MustCompile(`^[a-z0-9][a-z0-9-]*$`)
)

func TestValid(t *testing.T) {
	for _, c := range []struct {
		s      string
		max    int
		wanted bool
	}{
		{"64gpu", MaxLen, true}, {"ecn-pfc", MaxLen, true}, {"a", MaxLen, true}, {"0-", MaxLen, true},
		{strings.Repeat("a", 40), MaxLen, true}, {strings.Repeat("a", 41), MaxLen, false}, {strings.Repeat("a", 41), 0, true},
		{"", MaxLen, false}, {"", 0, false}, {"-a", 0, false}, {"Lab", 0, false}, {"a_b", 0, false}, {"a.b", 0, false},
		{"a b", 0, false}, {"a/b", 0, false}, {"é", 0, false}, {"a\n", 0, false},
	} {
		if got := Valid(c.s, c.max); got != c.wanted {
			t.Errorf("Valid(%q, %d) = %v, want %v", c.s, c.max, got, c.wanted)
		}
	}
}

// FuzzValid: Valid agrees with the regular expressions it replaced.
func FuzzValid(f *testing.F) {
	for _, s := range []string{"64gpu", "-x", "A", strings.Repeat("z", 40), strings.Repeat("9", 41), "a-", "é", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := Valid(s, MaxLen), bounded.MatchString(s); got != want {
			t.Errorf("Valid(%q, %d) = %v, the pattern says %v", s, MaxLen, got, want)
		}
		if got, want := Valid(s, 0), unbounded.MatchString(s); got != want {
			t.Errorf("Valid(%q, 0) = %v, the pattern says %v", s, got, want)
		}
	})
}
