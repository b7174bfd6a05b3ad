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

// EditDistance is the optimal string alignment distance of a and b, in
// bytes: insertions, deletions, substitutions and transpositions of two
// neighbours ("actoin" is one edit from "action"), each one edit.
func EditDistance(a, b string) int {
	prev2 := make([]int, len(b)+1)
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
			if i > 1 && j > 1 && a[i-1] == b[j-2] && a[i-2] == b[j-1] {
				cur[j] = min(cur[j], prev2[j-2]+1)
			}
		}
		prev2, prev, cur = prev, cur, prev2
	}
	return prev[len(b)]
}
