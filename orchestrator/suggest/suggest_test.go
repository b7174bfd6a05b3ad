package suggest

import "testing"

func TestEditDistance(t *testing.T) {
	for _, tc := range []struct {
		a, b string
		want int
	}{{"kitten", "sitting", 3}, {"", "abc", 3}, {"minimum-treshold", "minimum-threshold", 1}, {"same", "same", 0}, {"actoin", "action", 1}, {"ab", "ba", 1}, {"abc", "ca", 3}} {
		if d := EditDistance(tc.a, tc.b); d != tc.want {
			t.Errorf("EditDistance(%q, %q) = %d, want %d", tc.a, tc.b, d, tc.want)
		}
	}
}

// Nearest offers a key only within a typo's reach: one edit for short
// words, two or a quarter of the letters for longer ones.
func TestNearest(t *testing.T) {
	keys := []string{"nos", "gpus", "minimum-threshold", "priority"}
	for in, want := range map[string]string{
		"gpu": "gpus", "foo": "", "minimum-treshold": "minimum-threshold", "priorty": "priority", "prio": "",
	} {
		if got := Nearest(in, keys); got != want {
			t.Errorf("Nearest(%q) = %q, want %q", in, got, want)
		}
	}
}
