package results

// UETSummary is a variant's Ultra Ethernet transport figures (present only
// for transport uet): what trimming, the selective retransmission and the
// packet spraying did. Its fields are the simulator's sim.UETStats, field
// for field: the sim runtime converts one into the other, so the compiler
// keeps the two lists equal.
type UETSummary struct {
	// Trimmed counts the data packets switches cut to their header instead
	// of dropping; NACKs the NACKs the senders received for them.
	Trimmed int64 `json:"trimmed"`
	NACKs   int64 `json:"nacks"`
	// Retransmissions sent, by what queued them: NACKed packets, SACK
	// gaps past the reorder tolerance, timeouts. They add up to the
	// summary's retransmits (records of labctl before simulator revision
	// 15 counted a packet when it was queued, some never resent).
	NACKRetransmits int64 `json:"nack_retransmits"`
	SACKRetransmits int64 `json:"sack_retransmits"`
	RTORetransmits  int64 `json:"rto_retransmits"`
	// MeanEntropies is the mean over flows of the distinct entropy values
	// their packets carried, MeanPaths of the distinct switch paths those
	// took (absent where the engine did not trace them: large runs).
	MeanEntropies float64  `json:"mean_entropies"`
	MeanPaths     *float64 `json:"mean_paths,omitempty"`
	// Pulls counts the receivers' credit grants (RCCC); absent without
	// receiver credit control.
	Pulls *int64 `json:"pulls,omitempty"`
}
