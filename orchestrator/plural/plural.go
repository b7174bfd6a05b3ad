// Package plural writes counts as a person reads them: "1 variant",
// "2 variants", "3 leaves". It is a leaf package, so that every message
// of every package counts the same way instead of writing "variant(s)".
package plural

import (
	"strconv"
	"strings"
)

// N is n and the noun, plural unless n is 1 or -1: N(1, "variant") is "1
// variant", N(0, "lint error") "0 lint errors", N(3, "leaf") "3 leaves".
// The noun's last word is the one that takes the plural.
func N(n int, noun string) string {
	return strconv.Itoa(n) + " " + Noun(n, noun)
}

// Noun is the noun alone in the number n asks for.
func Noun(n int, noun string) string {
	if n == 1 || n == -1 {
		return noun
	}
	return Of(noun)
}

// irregular are the plurals of the words labctl counts that the rules
// below get wrong.
var irregular = map[string]string{
	"leaf":   "leaves",
	"was":    "were",
	"is":     "are",
	"has":    "have",
	"child":  "children",
	"series": "series",
}

// Of is the plural of a noun (its last word): English's regular rules
// (-s, -es after s, x, z, ch and sh, -ies after a consonant and y) and
// the irregular words above.
func Of(noun string) string {
	head, word := "", noun
	if i := strings.LastIndexByte(noun, ' '); i >= 0 {
		head, word = noun[:i+1], noun[i+1:]
	}
	if p, ok := irregular[word]; ok {
		return head + p
	}
	switch {
	case word == "":
		return noun
	case strings.HasSuffix(word, "s"), strings.HasSuffix(word, "x"), strings.HasSuffix(word, "z"),
		strings.HasSuffix(word, "ch"), strings.HasSuffix(word, "sh"):
		return noun + "es"
	case len(word) > 1 && word[len(word)-1] == 'y' && !strings.ContainsRune("aeiou", rune(word[len(word)-2])):
		return head + word[:len(word)-1] + "ies"
	}
	return noun + "s"
}

// Some lists the first n of items joined by sep, and how many more there
// are: Some([a b c d e], 3, ", ") is "a, b, c and 2 more"; all of them
// where there are at most n.
func Some(items []string, n int, sep string) string {
	if len(items) <= n {
		return strings.Join(items, sep)
	}
	return strings.Join(items[:n], sep) + " and " + strconv.Itoa(len(items)-n) + " more"
}
