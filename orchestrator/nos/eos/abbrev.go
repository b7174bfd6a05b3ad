package eos

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"
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

// cfgSyntax is a statement's syntax taken apart (cfgLiterals,
// cfgOptional). The results are shared: callers read them only.
type cfgSyntax struct {
	lits, opts  []string
	args, units bool
}

// cfgSyntaxes are the statements' syntaxes taken apart once: the
// expansion of a line labctl does not recognise (an interface's
// description, ip address) looked at every statement's, and taking them
// apart for each such line was most of an EOS parse's allocations.
// cfgSyntaxList holds them in the statements table's order, for the
// loops over the table (statementOf, cfgExpand) to index rather than hash
// each syntax: the lookups by syntax were half of an AVD interfaces
// config's parse (BenchmarkParseAVDInterfaces).
var cfgSyntaxList = sync.OnceValue(func() []cfgSyntax {
	out := make([]cfgSyntax, len(statements))
	for i, s := range statements {
		c := &out[i]
		c.lits, c.args = cfgParseLiterals(s.syntax)
		c.opts, c.units = cfgParseOptional(s.syntax)
	}
	return out
})

var cfgSyntaxes = sync.OnceValue(func() map[string]cfgSyntax {
	out := make(map[string]cfgSyntax, len(statements))
	for i, s := range statements {
		out[s.syntax] = cfgSyntaxList()[i]
	}
	return out
})

// cfgWholeWords are the fixed words of every statement (cfgExpand's whole
// keywords); with optional, their optional keywords too
// (cfgExpandOptional's).
var cfgWholeWords = sync.OnceValue(func() cfgWords {
	lits, withOpt := map[string]bool{}, map[string]bool{}
	for _, c := range cfgSyntaxList() {
		for _, w := range c.lits {
			lits[w], withOpt[w] = true, true
		}
		for _, w := range c.opts {
			withOpt[w] = true
		}
	}
	return cfgWords{lits: lits, withOpt: withOpt}
})

// cfgWords are the statements' fixed words (lits), and those with their
// optional keywords (withOpt).
type cfgWords struct{ lits, withOpt map[string]bool }

// cfgModeLiterals are the fixed words of each mode's statements, in the
// table's order.
var cfgModeLiterals = sync.OnceValue(func() map[string][][]string {
	out := map[string][][]string{}
	for _, s := range statements {
		lits, _ := cfgLiterals(s.syntax)
		out[s.mode] = append(out[s.mode], lits)
	}
	return out
})

// cfgLiterals are a statement's fixed words, and whether it takes
// arguments (statementOf's reading of its syntax).
func cfgLiterals(syntax string) (lits []string, args bool) {
	if c, ok := cfgSyntaxes()[syntax]; ok {
		return c.lits, c.args
	}
	return cfgParseLiterals(syntax)
}

func cfgParseLiterals(syntax string) (lits []string, args bool) {
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
	if len(f) == 0 {
		return nil
	}
	mode = cfgMode(mode)
	if s, ok := statementOf(mode, f); ok {
		// The statement's keywords are whole; an optional keyword or a
		// unit may still be a prefix (max-mark-prob 20, 800 kb), or a
		// keyword of a longer statement (w 4: weight 4).
		if out := cfgExpandOptional(mode, s, f); !slices.Equal(out, f) {
			if _, ok := statementOf(mode, out); ok {
				return out
			}
		}
		return nil
	}
	all := cfgModeLiterals()[mode]
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
	whole := cfgWholeWords().lits
	var found []string
	syntaxes := cfgSyntaxList()
	for i, s := range statements {
		if s.mode != mode {
			continue
		}
		lits, args := syntaxes[i].lits, syntaxes[i].args
		if !args && len(lits) != len(f) {
			continue
		}
		// The expanded line is s only where its first word is s's
		// (statementOf, below): a line whose first word does not start
		// s's first keyword cannot become it.
		if len(lits) == 0 || !strings.HasPrefix(lits[0], f[0]) {
			continue
		}
		out := slices.Clone(f)
		i := 0
		for j, w := range f {
			if i >= len(lits) {
				break
			}
			if cfgNumber(w) {
				continue
			}
			if w == lits[i] || !whole[w] && strings.HasPrefix(lits[i], w) && unique(w, lits[:i]) {
				out[j] = lits[i]
				i++
			}
		}
		if i < len(lits) {
			continue
		}
		if out = cfgExpandOptional(mode, s, out); slices.Equal(out, f) {
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
// line (a line of an interface range is read once per interface). A line
// not a statement as written whose keywords are in another case
// (Priority-Flow-Control on, QOS TRUST DSCP) is read with them in lower
// case first (cfgFold), with a note.
func (p *cfgParser) expand(mode string, f []string, where cfgPos) []string {
	if g := cfgFold(f); g != nil {
		// Folded where the first word is a keyword in another case, or
		// the line folded is a statement (qos TRUST dscp): a description
		// or name that holds a keyword (description SFlow Interface) is
		// left as written.
		_, was := statementOfLine(mode, f)
		st, is := statementOfLine(mode, g)
		if !was && (g[0] != f[0] || is) {
			if is {
				g = cfgKeepNames(f, g, st)
			}
			f = p.fold(f, g, where)
		}
	}
	if g := cfgNoForm(mode, f); g != nil {
		return g
	}
	out := cfgExpand(mode, f)
	if out == nil {
		return f
	}
	p.noteOnce(where, fmt.Sprintf("%s: %q read as %q: EOS takes an unambiguous prefix of a keyword for the keyword, and labctl expands the prefixes of the keywords it reads; if the switch has another keyword with that prefix here, it rejects the line as ambiguous (fix: write the keywords in full, as the switch's running-config shows them)", where, strings.Join(f, " "), strings.Join(out, " ")))
	return out
}

// cfgFoldNote is the note on a line read with its keywords in lower case
// (where, the line, the line read).
const cfgFoldNote = "%s: %q read as %q: labctl reads EOS's keywords in any case, taking EOS's CLI to match keywords without regard to case (unverified: Arista's documentation found does not say, and EOS's running-config writes keywords in lower case); if the switch rejects the line, the setting is not applied (fix: write the keywords in lower case, as the switch's running-config shows them)"

// fold is g, f with keywords in lower case (cfgFold, cfgFoldOpener),
// noted, where g is not nil; else f.
func (p *cfgParser) fold(f, g []string, where cfgPos) []string {
	if g == nil {
		return f
	}
	p.noteOnce(where, fmt.Sprintf(cfgFoldNote, where, strings.Join(f, " "), strings.Join(g, " ")))
	return g
}

// cfgFoldOpener is f, a line that opens a block (interface, qos profile,
// tx-queue, policy-map, class-map, ip access-list), with its opening
// keywords in lower case where they are in another case (Interface
// Ethernet1, QOS PROFILE ROCE, Policy-Map Type QoS Pm), the name after
// them as written; nil for another line or one in lower case. It is read
// before the block is opened (cfgOpenPolicyBlock), which compares the
// keywords in lower case.
func cfgFoldOpener(f []string) []string {
	n := 0
	// kw says whether f[i] is word, and a word follows it (the name, which
	// keeps its case even where it is a keyword: class-map Match-Any).
	kw := func(i int, words ...string) bool {
		return i < len(f)-1 && slices.ContainsFunc(words, func(w string) bool { return strings.EqualFold(f[i], w) })
	}
	switch {
	case len(f) >= 2 && strings.EqualFold(f[0], "qos") && strings.EqualFold(f[1], "profile"):
		n = 2
	case strings.EqualFold(f[0], "interface"), strings.EqualFold(f[0], "tx-queue"), strings.EqualFold(f[0], "uc-tx-queue"), strings.EqualFold(f[0], "mc-tx-queue"):
		n = 1
	case strings.EqualFold(f[0], "policy-map"), strings.EqualFold(f[0], "class-map"):
		// policy-map [type quality-of-service|qos] NAME, class-map [type
		// qos] [match-any|match-all] NAME.
		n = 1
		if kw(n, "type") {
			n++
			if kw(n, "qos", "quality-of-service") {
				n++
			}
		}
		if strings.EqualFold(f[0], "class-map") && kw(n, "match-any", "match-all") {
			n++
		}
	case kw(0, "ip") && kw(1, "access-list"):
		// ip access-list [standard] NAME.
		n = 2
		if kw(n, "standard") {
			n++
		}
	}
	var out []string
	for i := range n {
		if lw := strings.ToLower(f[i]); lw != f[i] {
			if out == nil {
				out = slices.Clone(f)
			}
			out[i] = lw
		}
	}
	if n == 1 && len(f) == 2 && strings.EqualFold(f[1], "defaults") && f[1] != "defaults" {
		if out == nil {
			out = slices.Clone(f)
		}
		out[1] = "defaults"
	}
	return out
}

// noteOnce notes a line read otherwise than written, once per note and
// line (a line of an interface range is read once per interface).
func (p *cfgParser) noteOnce(where cfgPos, note string) {
	key := cfgNoted{where, note}
	if p.expanded[key] {
		return
	}
	if p.expanded == nil {
		p.expanded = map[cfgNoted]bool{}
	}
	p.expanded[key] = true
	p.notes = append(p.notes, note)
}

// cfgNoted is a note on a line (noteOnce).
type cfgNoted struct {
	where cfgPos
	note  string
}

// cfgFold is f with the words that are keywords of the statements labctl
// reads, or WRED units, but written in another case, in lower case; nil
// where there is none. Other words (a profile's or interface's name, a
// description) keep their case.
func cfgFold(f []string) []string {
	var out []string
	for i, w := range f {
		lw, ok := cfgLowerKeyword(w)
		if !ok {
			continue
		}
		if out == nil {
			out = slices.Clone(f)
		}
		out[i] = lw
	}
	return out
}

// cfgKeepNames is g, f folded into statement st, with the words of f
// that fill st's name slot as written: a name that is a keyword
// (Service-Profile QoS, AVD's profile QoS) is the name QoS, not qos. The
// statements that take a name take it last (<name>, <policy>,
// <class-map>, <acl>, <interfaces>; remark's <text>, every word after
// the keyword); a word matched to one of st's literal keywords, or an
// enumerated argument (qos trust DSCP, a threshold's KBytes), folds.
func cfgKeepNames(f, g []string, st statement) []string {
	slot := st.syntax[strings.LastIndexByte(st.syntax, ' ')+1:]
	slot = strings.TrimSuffix(strings.TrimPrefix(slot, "["), "]")
	c, ok := cfgSyntaxes()[st.syntax]
	if !ok {
		return g
	}
	// The last word matched to a literal keyword, as statementOf matches.
	lastLit, i := -1, 0
	for j, w := range g {
		if i < len(c.lits) && w == c.lits[i] {
			i, lastLit = i+1, j
		}
	}
	from := len(g)
	switch slot {
	case "<name>", "<policy>", "<class-map>", "<acl>", "<interfaces>":
		from = max(lastLit+1, len(g)-1)
	case "<text>":
		from = lastLit + 1
	}
	if from >= len(g) {
		return g
	}
	g = slices.Clone(g)
	copy(g[from:], f[from:])
	return g
}

// cfgLowerKeyword is w in lower case where w has an upper-case letter and
// is a keyword (cfgFold's) in lower case. It allocates only then: most
// lines' words with capitals are names and descriptions.
func cfgLowerKeyword(w string) (string, bool) {
	var buf [64]byte
	if len(w) > len(buf) {
		return "", false
	}
	upper := false
	for i := 0; i < len(w); i++ {
		c := w[i]
		if 'A' <= c && c <= 'Z' {
			c, upper = c+'a'-'A', true
		}
		buf[i] = c
	}
	b := buf[:len(w)]
	if !upper {
		return "", false
	}
	if cfgWholeWords().withOpt[string(b)] {
		return string(b), true
	}
	for _, u := range cfgWREDUnits {
		if string(b) == u {
			return u, true
		}
	}
	return "", false
}

// A no or default line may repeat its command's arguments (no
// random-detect ecn minimum-threshold 800 kbytes maximum-threshold 3200
// kbytes max-mark-probability 20, no qos trust dscp, no priority strict):
// EOS accepts it and removes the setting, as the short form does, and
// writes the short form in its running-config. cfgNoForm reads such a
// line as the short form the statement table has: the line without its
// no (or default) must be a statement of the mode, S, and the short form
// is the no (default) statement whose keywords are the longest prefix of
// both S's keywords and the line's. The table holds a no form of its own
// for every command that shares a prefix with a broader one (no
// priority-flow-control pause watchdog port action, not no
// priority-flow-control pause watchdog; no random-detect ecn count, not
// no random-detect ecn), and TestNoFormOfEveryStatement pins the form
// each statement's no and default lines are read as, so that a statement
// added without its own no form is decided, not read as a broader one.
// A no line is read as a no form only, a default line as a default form,
// or as a no form that does the same (cfgDefaultIsNo); where the two
// differ (default priority, default qos trust) the table has both. EOS's acceptance of the long forms is
// Arista's usual no-form grammar (confident for the forms listed; each
// platform's parser is not checked).
func cfgNoForm(mode string, f []string) []string {
	if len(f) < 2 || (f[0] != "no" && f[0] != "default") {
		return nil
	}
	if _, ok := statementOf(mode, f); ok {
		return nil
	}
	mode = cfgMode(mode)
	pos := f[1:]
	if e := cfgExpand(mode, pos); e != nil {
		pos = e
	}
	s, ok := statementOf(mode, pos)
	if !ok {
		return nil
	}
	slits, _ := cfgLiterals(s.syntax)
	if slits[0] == "no" || slits[0] == "default" {
		return nil
	}
	var best []string
	bestArgs := false
	for _, n := range statements {
		if n.mode != mode {
			continue
		}
		lits, args := cfgLiterals(n.syntax)
		if len(lits) < 2 || (lits[0] != "no" && lits[0] != "default") {
			continue
		}
		if lits[0] != f[0] && !(f[0] == "default" && cfgDefaultIsNo[n.syntax]) {
			continue
		}
		words := lits[1:]
		if len(words) > len(slits) || len(words) > len(pos) || !slices.Equal(words, slits[:len(words)]) || !slices.Equal(words, pos[:len(words)]) {
			continue
		}
		// The longest; of two as long, the one the line says (default
		// priority, not no priority).
		if len(lits) > len(best) || len(lits) == len(best) && lits[0] == f[0] {
			best, bestArgs = lits, args
		}
	}
	if best == nil {
		return nil
	}
	if bestArgs {
		// A no form that takes arguments (no random-detect drop
		// drop-precedence <dp> [...]) keeps the line's.
		return append([]string{best[0]}, pos...)
	}
	return slices.Clone(best)
}

// cfgDefaultIsNo are the no forms whose default form does the same (the
// setting removed has EOS's default for a value, which the no form
// gives): a default line of their command, for which the table has no
// default form, is read as them. Where default differs from no (default
// switchport is a switchport, default priority strict priority), the
// default line is left as it is, or has a row of its own.
var cfgDefaultIsNo = map[string]bool{
	"no priority-flow-control pause watchdog default <timeout|recovery-time|polling-interval> [<s>]": true,
	"no priority-flow-control pause watchdog action [<action>]":                                      true,
	"no priority-flow-control pause watchdog port action [<action>]":                                 true,
	"no priority-flow-control pause watchdog port timer [...]":                                       true,
	"no bandwidth percent [<n>]":                                                                     true,
	"no random-detect drop drop-precedence <dp> [...]":                                               true,
	"no random-detect ecn count":                                                                     true,
	"no bandwidth guaranteed [...]":                                                                  true,
	"no qos cos":                                                                                     true,
	"no channel-group [...]":                                                                         true,
	"no port-channel lacp fallback [...]":                                                            true,
	"no port-channel min-links [...]":                                                                true,
	"no mtu":                                                                                         true,
	"no vlan [...]":                                                                                  true,
	"no encapsulation vlan":                                                                          true,
	"no ip address [...]":                                                                            true,
	"no ipv6 address [...]":                                                                          true,
	"no ipv6 enable":                                                                                 true,
	"no switchport default [...]":                                                                    true,
}

// statementOfLine is statementOf, reading a no or default line that
// repeats its arguments as its short form (cfgNoForm).
func statementOfLine(mode string, f []string) (statement, bool) {
	if s, ok := statementOf(mode, f); ok {
		return s, ok
	}
	if g := cfgNoForm(mode, f); g != nil {
		return statementOf(mode, g)
	}
	return statement{}, false
}

// cfgOptional are a statement's optional keywords that take a value
// ([max-mark-probability <p>]), and whether it has threshold units
// (<unit>, cfgWREDUnits).
func cfgOptional(syntax string) (kws []string, units bool) {
	if c, ok := cfgSyntaxes()[syntax]; ok {
		return c.opts, c.units
	}
	return cfgParseOptional(syntax)
}

func cfgParseOptional(syntax string) (kws []string, units bool) {
	w := strings.Fields(syntax)
	for i, x := range w {
		if x == "<unit>" {
			units = true
		}
		if strings.HasPrefix(x, "[") && !strings.HasPrefix(x, "[<") && !strings.Contains(x, "|") && !strings.HasSuffix(x, "]") && i+1 < len(w) && strings.HasPrefix(w[i+1], "<") {
			kws = append(kws, strings.TrimPrefix(x, "["))
		}
	}
	return kws, units
}

// cfgExpandOptional writes in full, in a line of statement s, the
// prefixes cfgExpand's literal keywords do not cover: an optional keyword
// that takes a value (max-mark-prob 20: max-mark-probability), where
// the word starts exactly one keyword of the statements of the mode that
// begin as s does (max could be maximum-threshold, and is left), and a
// threshold's unit (800 kb: kbytes), where it starts exactly one of the
// units EOS takes (m could be mbytes, microseconds or milliseconds). A
// word left as it is meets its reader, which refuses what EOS rejects
// (cfgWRED).
func cfgExpandOptional(mode string, s statement, f []string) []string {
	opts, units := cfgOptional(s.syntax)
	if len(opts) == 0 && !units {
		return f
	}
	lits, _ := cfgLiterals(s.syntax)
	var kws []string
	whole := cfgWholeWords().withOpt
	for _, o := range statements {
		l, _ := cfgLiterals(o.syntax)
		op, _ := cfgOptional(o.syntax)
		if o.mode == mode && len(l) > 0 && l[0] == lits[0] {
			kws = append(kws, l...)
			kws = append(kws, op...)
		}
	}
	unique := func(w string, among []string) string {
		found := ""
		for _, k := range among {
			if strings.HasPrefix(k, w) && k != found {
				if found != "" {
					return ""
				}
				found = k
			}
		}
		return found
	}
	out := slices.Clone(f)
	for j, w := range out {
		if j == 0 || whole[w] || cfgNumber(w) {
			continue
		}
		if units && j >= 2 && cfgNumber(out[j-1]) && (out[j-2] == "minimum-threshold" || out[j-2] == "maximum-threshold") {
			if u := unique(w, cfgWREDUnits); u != "" {
				out[j] = u
			}
			continue
		}
		if j+1 < len(out) && cfgNumber(out[j+1]) {
			// A keyword the line has already is no candidate: each comes
			// once, so after maximum-threshold, max is
			// max-mark-probability (labctl's reading of EOS's
			// positional grammar, not checked on a switch).
			var left []string
			for _, k := range kws {
				if !slices.Contains(out[:j], k) {
					left = append(left, k)
				}
			}
			// A keyword of another statement that begins as s does is
			// one too (weight, after max-mark-prob 20, is the keyword of
			// the statement with weight): the expanded line is then that
			// statement, as the callers check, where expanding only s's
			// optional keywords left "w" to refuse a line EOS accepts.
			if k := unique(w, left); k != "" {
				out[j] = k
			}
		}
	}
	return out
}

// cfgNumber says whether w reads as a number (strconv.ParseFloat's),
// without the error value ParseFloat builds for each word that is not one,
// which was a fifth of an EOS parse's allocations.
func cfgNumber(w string) bool {
	if w == "" {
		return false
	}
	// A config's numbers start with a digit, a sign or a point (not
	// ParseFloat's Inf or NaN, words no statement takes as a number).
	switch c := w[0]; {
	case c >= '0' && c <= '9', c == '.', c == '+', c == '-':
		_, err := strconv.ParseFloat(w, 64)
		return err == nil
	}
	return false
}
