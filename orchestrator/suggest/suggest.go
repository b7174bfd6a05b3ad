// Package suggest finds the word a user probably meant: the "did you
// mean" of labctl's errors about spec keys and vendor config keywords.
package suggest

// Nearest returns the key closest to s by edit distance, if close enough to
// be a likely typo: one edit in a key of up to four letters (two would
// turn "foo" into "nos"), else two or a quarter of its letters.
func Nearest(s string, keys []string) string {
	limit := max(2, len(s)/4)
	if len(s) <= 4 {
		limit = 1
	}
	best, bestD := "", limit+1
	for _, k := range keys {
		if d := EditDistance(s, k); d < bestD {
			best, bestD = k, d
		}
	}
	return best
}

// EditDistance is the Levenshtein distance of a and b, in bytes.
func EditDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
