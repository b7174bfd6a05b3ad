// Package naming decides what a name a user gives labctl may look like: a
// lab's, a scenario's and a scenario case's (at most MaxLen bytes), a
// baseline's and an imported record's (any length). Lower-case letters,
// digits and dashes, starting with a letter or digit, so that a name can
// become a folder, a file and part of a run id as it is.
//
// The check is written out rather than a regular expression: the bounded
// repetition of ^[a-z0-9][a-z0-9-]{0,39}$ compiled to a program of forty
// nested alternatives, about a millisecond on a small virtual machine,
// which every `labctl run` paid twice (the lab's name and the
// scenario's).
package naming

import "fmt"

// MaxLen is the longest name of a lab, a scenario or a scenario case.
const MaxLen = 40

// Rule says in words what Valid(s, maxLen) accepts, for the messages and
// documentation that state it.
func Rule(maxLen int) string {
	r := "lower-case letters, digits and dashes, starting with a letter or digit"
	if maxLen > 0 {
		r += fmt.Sprintf(", at most %d characters", maxLen)
	}
	return r
}

// Valid reports whether s is a name: one or more lower-case letters,
// digits and dashes, the first not a dash, at most maxLen bytes (no limit
// when maxLen is 0).
func Valid(s string, maxLen int) bool {
	if s == "" || s[0] == '-' || maxLen > 0 && len(s) > maxLen {
		return false
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; !('a' <= c && c <= 'z' || '0' <= c && c <= '9' || c == '-') {
			return false
		}
	}
	return true
}
