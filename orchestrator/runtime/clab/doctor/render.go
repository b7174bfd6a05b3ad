package doctor

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
)

// WriteText prints one line per check, its fix indented below it, the
// summary and the note.
func (r *Report) WriteText(w io.Writer) error {
	width := 0
	for _, c := range r.Checks {
		width = max(width, len(c.Name))
	}
	var b strings.Builder
	for _, c := range r.Checks {
		fmt.Fprintf(&b, "%-4s  %-*s  %s\n", c.Status, width, c.Name, c.Detail)
		if c.Fix != "" && c.Status != Pass {
			fmt.Fprintf(&b, "      %-*s  fix: %s\n", width, "", c.Fix)
		}
	}
	fmt.Fprintf(&b, "\n%s\n", r.Summary)
	if r.Note != "" {
		fmt.Fprintf(&b, "%s\n", r.Note)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// WriteJSON prints the report as JSON.
func (r *Report) WriteJSON(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(struct {
		SchemaVersion int `json:"schema_version"`
		*Report
	}{1, r})
}
