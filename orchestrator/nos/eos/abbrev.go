package eos

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// EOS's CLI takes an unambiguous prefix of a keyword for the keyword
// (priority-flow-control prio 3 drop), and writes the full keyword in its
// running-config; hand-written or templated configs may keep the prefix.
// labctl reads such a line as the statement it expands to, with a note
// saying so, rather than refusing it or passing over it: a prefix the
// switch accepts changes the switch (a PFC priority set to drop), so a
// line passed over would hide harm, and a refused one stop every
// check of the file. Expanding is safe only as far as labctl knows the
// keywords: a prefix is expanded only where it starts exactly one keyword
// that the statements labctl reads have at that place (prio: priority,
// while p could be priority or pause, and is left alone), and only
// where the expanded line is one of those statements; a word that is a
// whole keyword of some mode is not taken for a prefix. EOS knows keywords
// labctl does not; where one of them shares the prefix, the switch
// rejects the line as ambiguous, which the note tells the reader to rule
// out by writing the keyword in full.

// cfgLiterals are a statement's fixed words, and whether it takes
// arguments (statementOf's reading of its syntax).
func cfgLiterals(syntax string) (lits []string, args bool) {
	for _, w := range strings.Fields(syntax) {
		if strings.HasPrefix(w, "<") || strings.HasPrefix(w, "[") || strings.HasSuffix(w, "]") || w == "..." {
			args = true
			continue
		}
		lits = append(lits, w)
	}
	return lits, args
}

// cfgExpand reads a line of mode that is no statement labctl knows as the
// statement it is once prefixes of keywords are written in full (see
// above): the expanded line, or nil.
func cfgExpand(mode string, f []string) []string {
	if _, ok := statementOf(mode, f); ok || len(f) == 0 {
		return nil
	}
	if mode == "qos profile" {
		mode = "interface"
	}
	var all [][]string
	for _, s := range statements {
		if s.mode == mode {
			lits, _ := cfgLiterals(s.syntax)
			all = append(all, lits)
		}
	}
	// unique says whether w starts exactly one keyword that a statement
	// of the mode has after the keywords before (its k-th).
	unique := func(w string, before []string) bool {
		k := len(before)
		var kws []string
		for _, lits := range all {
			if len(lits) > k && slices.Equal(lits[:k], before) && strings.HasPrefix(lits[k], w) && !slices.Contains(kws, lits[k]) {
				kws = append(kws, lits[k])
			}
		}
		return len(kws) == 1
	}
	// A whole keyword of any mode is no prefix: a line of a sub-mode
	// labctl does not read (no priority under mc-tx-queue) reaches the
	// interface's reader, and must not become no priority-flow-control.
	whole := map[string]bool{}
	for _, s := range statements {
		lits, _ := cfgLiterals(s.syntax)
		for _, w := range lits {
			whole[w] = true
		}
	}
	var found []string
	for _, s := range statements {
		if s.mode != mode {
			continue
		}
		lits, args := cfgLiterals(s.syntax)
		if !args && len(lits) != len(f) {
			continue
		}
		out := slices.Clone(f)
		i := 0
		for j, w := range f {
			if i >= len(lits) {
				break
			}
			if _, err := strconv.ParseFloat(w, 64); err == nil {
				continue
			}
			if w == lits[i] || !whole[w] && strings.HasPrefix(lits[i], w) && unique(w, lits[:i]) {
				out[j] = lits[i]
				i++
			}
		}
		if i < len(lits) || slices.Equal(out, f) {
			continue
		}
		if st, ok := statementOf(mode, out); !ok || st.syntax != s.syntax {
			continue
		}
		if found != nil && !slices.Equal(found, out) {
			return nil // two readings: left as it is
		}
		found = out
	}
	return found
}

// expand is cfgExpand with the note a line read expanded gets, once per
// line (a line of an interface range is read once per interface).
func (p *cfgParser) expand(mode string, f []string, where cfgPos) []string {
	out := cfgExpand(mode, f)
	if out == nil {
		return f
	}
	if !p.expanded[where] {
		if p.expanded == nil {
			p.expanded = map[cfgPos]bool{}
		}
		p.expanded[where] = true
		p.notes = append(p.notes, fmt.Sprintf("%s: %q read as %q: EOS takes an unambiguous prefix of a keyword for the keyword, and labctl expands the prefixes of the keywords it reads; if the switch has another keyword with that prefix here, it rejects the line as ambiguous (fix: write the keywords in full, as the switch's running-config shows them)", where, strings.Join(f, " "), strings.Join(out, " ")))
	}
	return out
}
