package plural

import "testing"

func TestN(t *testing.T) {
	for _, c := range []struct {
		n    int
		noun string
		want string
	}{
		{0, "variant", "0 variants"},
		{1, "variant", "1 variant"},
		{2, "variant", "2 variants"},
		{-1, "degree", "-1 degree"},
		{3, "leaf", "3 leaves"},
		{1, "leaf", "1 leaf"},
		{2, "switch", "2 switches"},
		{2, "priority", "2 priorities"},
		{2, "key", "2 keys"},
		{4, "lint error", "4 lint errors"},
		{2, "schedulable node", "2 schedulable nodes"},
		{2, "box", "2 boxes"},
		{2, "series", "2 series"},
	} {
		if got := N(c.n, c.noun); got != c.want {
			t.Errorf("N(%d, %q) = %q, want %q", c.n, c.noun, got, c.want)
		}
	}
}

func TestSome(t *testing.T) {
	for _, c := range []struct {
		items []string
		n     int
		want  string
	}{
		{nil, 3, ""},
		{[]string{"a", "b"}, 3, "a, b"},
		{[]string{"a", "b", "c"}, 3, "a, b, c"},
		{[]string{"a", "b", "c", "d", "e"}, 3, "a, b, c and 2 more"},
	} {
		if got := Some(c.items, c.n, ", "); got != c.want {
			t.Errorf("Some(%q, %d) = %q, want %q", c.items, c.n, got, c.want)
		}
	}
}
