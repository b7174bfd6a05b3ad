// Package mutation is labctl's config mutation suite (its tests): every
// field of every NOS's typed config tables is changed, one change at a
// time, in the configs a catalog lab renders, with a harmful and a benign
// value. A harmful change must give a lint error or warning naming the
// device, the table or port and the fix and, where it changes what the
// switch does to the suite's traffic, a failing regress against the
// unchanged run; a benign change must change nothing (the same lint
// errors and warnings, the same figures). A field without mutations fails
// the suite, so a field added to a table comes with its statement
// (nos.NOS.Fields) and its mutations.
package mutation
