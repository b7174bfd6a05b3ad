package scenario

import (
	"github.com/labctl/labctl/orchestrator/lab"
	"github.com/labctl/labctl/orchestrator/specdoc"
)

// KeyDocs documents every key of a scenario spec (the nic section's keys
// are the lab spec's, lab.NICKeyDocs). The keys and their types
// come from Spec's yaml tags (orchestrator/specdoc walks them); this table
// says what each means and what leaving it out gives. A test fails when a
// key of Spec has no entry here, and docs/scenario-spec.md and 'labctl
// explain scenario' are generated from it.
var KeyDocs = specdoc.Table{
	"name":        {Doc: "The scenario's name, part of run ids: lower-case letters, digits and dashes, at most 40 characters. Required."},
	"description": {Doc: "Free text shown in reports."},
	"matrix":      {Doc: "The variants to run: the cross product of the values of each dimension. On a dimension, on means the lab's vendor configs as they are (edits included) and off that feature removed from every switch."},
	"matrix.ecn":  {Doc: "ECN values to run, each on or off (true/false also work), each at most once.", Default: "[on, off]"},
	"matrix.pfc":  {Doc: "PFC values to run, each on or off (true/false also work), each at most once.", Default: "[on, off]"},
	"duration": {Doc: "How long traffic runs (simulated time on the sim runtime), a Go duration such as 5ms or 500us, above 0.",
		Default: DefaultDuration},
	"warmup": {Doc: "When the goodput window of long-lived flows starts, a duration shorter than duration, so rates are measured once converged.",
		Default: "0 (the whole run)"},
	"sample_every": {Doc: "Time-series sampling interval (queue depth, rates, pauses), a duration; 0 disables series; at most 100000 samples over the duration.",
		Default: DefaultSampleEvery},
	"dcqcn": {Doc: "The NICs' DCQCN preset for this scenario: connectx (the NIC's defaults) or paper; shorthand for nic.dcqcn.preset, with which it must agree.",
		Default: "the lab's (nic.dcqcn.preset, connectx when unset)"},
	"model": {Doc: "The simulator's model: packet (every packet: queues, PFC, ECN, DCQCN) or flow (a fast estimate of steady rates and ring AllReduce times without queues, PFC, ECN or DCQCN, named as such in every output); 'labctl run --model' overrides it.",
		Default: "packet"},
	"repetitions": {Doc: "Runs every variant this many times, 1 to 100, repetition r with seed+r; 0 is refused.",
		Default: "1"},
	"traffic":           {Doc: "The traffic patterns, started together, at most 64. A key a pattern does not use is an error."},
	"traffic[].pattern": {Doc: "pairs, permutation, incast, all-to-all or ring-allreduce. Required."},
	"traffic[].pairs": {Doc: "pairs: number of sender/receiver pairs, 1 or more; 0 is refused.",
		Default: "1"},
	"traffic[].senders": {Doc: "incast: N of an N:1 incast, 2 or more; 0 is refused.",
		Default: "8"},
	"traffic[].victim": {Doc: "incast: add a flow from the first sender's NIC to a NIC outside the incast, which shares the links PFC pauses but not the congested port (head-of-line blocking).",
		Default: "false"},
	"traffic[].ranks": {Doc: "permutation, all-to-all, ring-allreduce: number of NICs (or servers, with rank_per: server) taking part, 2 or more; 0 is refused.",
		Default: "all NICs (at most 64 for all-to-all)"},
	"traffic[].rank_per": {Doc: "ring-allreduce: what one rank is, nic (every NIC, in fabric order) or server (one rank per server on its first NIC: a ring over nodes).",
		Default: "nic"},
	"traffic[].cross_leaf": {Doc: "Place endpoints on different leaves, so traffic crosses the spines.",
		Default: "true when the lab has more than one leaf"},
	"traffic[].bytes": {Doc: "Bytes per flow, a size such as 1MiB or 64MB (B, KB, MB, GB, KiB, MiB, GiB); ring-allreduce: the buffer each rank reduces.",
		Default: "the whole duration (ring-allreduce: 64MiB)"},
	"traffic[].message_size": {Doc: "perftest -s: message size, 1 B to 1 GiB (pairs, permutation, incast, all-to-all).",
		Default: "64KiB"},
	"traffic[].qps": {Doc: "perftest -q: queue pairs per flow, 1 to 64 (pairs, permutation, incast, all-to-all); 0 is refused.",
		Default: "1"},
	"traffic[].traffic_class": {Doc: "perftest --tclass: the IP TOS byte, 0 to 255 (DSCP times 4 plus the ECN bits); a DSCP the lab does not map to a lossless class is simulated as best effort.",
		Default: "106 (DSCP 26 with ECT(0))"},
	"traffic[].start": {Doc: "Delay before the pattern's flows start, a duration shorter than duration.",
		Default: "0"},
	"assertions":        {Doc: "Checks on each variant's results, at most 256; a failed one makes the run fail (exit 1). Syntax in scenarios/README.md."},
	"assertions[].name": {Doc: "What the assertion checks, as reports show it.", Default: "the expression"},
	"assertions[].expr": {Doc: "An expression over the variant's record, such as summary.drops == 0 when pfc. Required."},
}.With("nic", lab.NICKeyDocs)
