package results

import (
	"bytes"
	"encoding/json"
	"sync"
)

// progressJSON encodes records in progress. The runner saves the whole
// record after every variant, so a run of n variants encoded 1+2+...+n of
// them: on 64gpu's transports (30 variants, a 23 MB record) encoding was a
// fifth of the CPU. A finished variant does not change, but for its
// assertions, which the runner evaluates again as later variants finish
// (one may name another): so each variant's JSON is kept, by name and
// repetition, and used again while its assertions encode the same.
//
// Only records in progress are encoded this way. The record of a finished,
// failed or interrupted run is encoded whole (json.Marshal), so whatever a
// later change might alter in a finished variant, the final record has it.
type progressJSON struct {
	mu       sync.Mutex
	runID    string
	variants map[variantKey]cachedVariant
	last     int // the length of the last encoding, to size the next
}

type variantKey struct {
	name       string
	repetition int
}

type cachedVariant struct {
	assertions []byte // json.Marshal of the variant's Assertions
	whole      []byte // json.Marshal of the variant
}

// variantsNull is how json.Marshal writes a Run's nil Variants.
var variantsNull = []byte(`"variants":null`)

// encode returns json.Marshal(run), byte for byte, encoding again only the
// variants that are new or whose assertions changed since the last call
// for the same run.
func (pj *progressJSON) encode(run *Run) ([]byte, error) {
	pj.mu.Lock()
	defer pj.mu.Unlock()
	if pj.runID != run.RunID || pj.variants == nil {
		pj.runID, pj.variants, pj.last = run.RunID, map[variantKey]cachedVariant{}, 0
	}
	if run.Variants == nil {
		return json.Marshal(run) // "variants":null, nothing to keep
	}
	head := *run
	head.Variants = nil
	top, err := json.Marshal(&head)
	if err != nil {
		return nil, err
	}
	at := topLevel(top, variantsNull)
	if at < 0 {
		return json.Marshal(run) // not the Run this was written for
	}
	out := make([]byte, 0, max(pj.last+pj.last/8, len(top)))
	out = append(out, top[:at]...)
	out = append(out, `"variants":[`...)
	seen := make(map[variantKey]bool, len(run.Variants))
	for i := range run.Variants {
		v := &run.Variants[i]
		if i > 0 {
			out = append(out, ',')
		}
		a, err := json.Marshal(v.Assertions)
		if err != nil {
			return nil, err
		}
		k := variantKey{v.Name, v.Repetition}
		c, ok := pj.variants[k]
		if !ok || seen[k] || !bytes.Equal(c.assertions, a) {
			w, err := json.Marshal(v)
			if err != nil {
				return nil, err
			}
			c = cachedVariant{assertions: a, whole: w}
			if !seen[k] {
				pj.variants[k] = c
			}
		}
		seen[k] = true
		out = append(out, c.whole...)
	}
	out = append(out, ']')
	out = append(out, top[at+len(variantsNull):]...)
	pj.last = len(out)
	return out, nil
}

// forget drops the kept variants (the run they belong to has ended).
func (pj *progressJSON) forget() {
	pj.mu.Lock()
	pj.runID, pj.variants, pj.last = "", nil, 0
	pj.mu.Unlock()
}

// topLevel is where member (`"key":value`) starts in the compact JSON
// object js as one of its own members, not inside a nested value or a
// string; -1 when it is not there.
func topLevel(js, member []byte) int {
	depth := 0
	for i := 0; i < len(js); i++ {
		switch c := js[i]; c {
		case '"':
			if depth == 1 && (js[i-1] == '{' || js[i-1] == ',') && bytes.HasPrefix(js[i:], member) {
				return i
			}
			for i++; i < len(js) && js[i] != '"'; i++ {
				if js[i] == '\\' {
					i++
				}
			}
		case '{', '[':
			depth++
		case '}', ']':
			depth--
		}
	}
	return -1
}
