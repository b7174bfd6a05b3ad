package qos

// Use says what labctl does with one field of a NOS's config tables.
type Use string

const (
	// UseSimulated: the field changes what the simulator runs (and lint
	// checks it).
	UseSimulated Use = "simulated"
	// UseLint: lint checks the field, the simulator has nothing it could
	// change (a colour no simulated packet has, a field that only names).
	UseLint Use = "lint"
	// UseIgnored: neither lint nor the simulator reads it; Why says why
	// that is safe or what is lost.
	UseIgnored Use = "ignored"
)

// FieldUse is the statement that stands beside one field of a NOS's typed
// config tables: how labctl uses it. The NOS plug-ins keep one per field
// (a test fails on a field without one); lint's QOS011 findings and the
// field reference docs come from these statements.
type FieldUse struct {
	NOS string `json:"nos"`
	// Table is the config table or mode ("PORT_QOS_MAP", "interface");
	// Field the field or statement ("pfc_enable", "qos trust").
	Table string `json:"table"`
	Field string `json:"field"`
	Use   Use    `json:"use"`
	// Why says what the field drives (simulated) or why the simulator
	// does not run it (lint, ignored).
	Why string `json:"why"`
	// Risk, for a field the simulator does not run, says how setting it
	// changes what a real switch does to RoCE: a config that sets it gets
	// a lint warning (QOS017), since no simulated figure shows it.
	Risk string `json:"risk,omitempty"`
}

// Name is "TABLE field".
func (f FieldUse) Name() string { return f.Table + " " + f.Field }
