package transport

import "strings"

// unreadSettings are the lab and scenario settings a transport's
// simulation does not read, by the paths a scenario's matrix sweeps them
// at: whole sections (every key under "nic.dcqcn") and single keys, but
// for the keys of those sections it reads all the same.
type unreadSettings struct {
	sections, keys, butKeys []string
}

// unread is the one statement of what each transport ignores. The
// simulator's runtime (runtime/sim: ib.go, uet.go) is held to it by its
// TestTransportReads, which builds the simulation of every sweepable
// setting at two values under each transport; scenarios refuse variants
// that differ only in what their transport ignores.
var unread = map[string]unreadSettings{
	// The CNPs' 802.1p priority is recorded, not simulated: labctl's
	// switches classify by DSCP. No transport reads it.
	RoCE: {sections: []string{"infiniband", "uet"}, keys: []string{"nic.dcqcn.cnp_802p_prio"}},
	// An InfiniBand fabric's switches take no vendor QoS config (credits
	// are the flow control) and its HCAs run IB congestion control, not
	// DCQCN. The lab's DSCP map is still read: a flow's SL is its
	// priority through the sending host's DSCP map.
	InfiniBand: {
		sections: []string{"nic.dcqcn", "uet", "qos.ecn", "qos.pfc", "qos.pfc_watchdog"},
		keys:     []string{"qos.buffer_pool_bytes"},
	},
	// UET's NICs run NSCC, not DCQCN, but its trimmed headers, ACKs,
	// NACKs and pulls take the CNP's DSCP, so the switches serve them in
	// the CNP's class.
	UET: {
		sections: []string{"nic.dcqcn", "infiniband"},
		butKeys:  []string{"nic.dcqcn.cnp_dscp"},
	},
}

// Reads says whether a variant running transport name reads the setting
// at path ("qos.ecn.kmin_kb", "nic.dcqcn.rpg_ai_rate", "uet.evs"): two
// variants that differ only in settings it does not read run the same
// simulation. An empty name is RoCE, as in Resolve.
func Reads(name, path string) bool {
	if name == "" {
		name = RoCE
	}
	u := unread[name]
	for _, k := range u.butKeys {
		if path == k {
			return true
		}
	}
	for _, k := range u.keys {
		if path == k {
			return false
		}
	}
	for _, s := range u.sections {
		if strings.HasPrefix(path, s+".") {
			return false
		}
	}
	return true
}
