// Package lazyregexp compiles a package-level regular expression the
// first time it is used instead of as its package is initialized. Every
// labctl command initializes every package the binary links, so a
// regular expression only some commands use (a parser's, a validator's)
// costs the others its compilation: for a bounded repetition such as
// {1,255} or a long alternation, tens to hundreds of KB and as many
// microseconds at every start.
package lazyregexp

import (
	"regexp"
	"sync"
)

// New returns a function that compiles expr on its first call, panicking
// as regexp.MustCompile does if it does not parse, and returns the same
// *regexp.Regexp on every call. The package-level
//
//	var nameRe = lazyregexp.New(`^[a-z]+$`)
//
// is used as nameRe().MatchString(s).
func New(expr string) func() *regexp.Regexp {
	return sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(expr) })
}
