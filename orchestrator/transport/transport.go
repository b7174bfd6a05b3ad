// Package transport says which transport a lab's NICs and switches run,
// RoCE v2 (the default), InfiniBand or the Ultra Ethernet transport
// (UET), and holds the settings of the latter two, named as their
// specifications and reference implementations name them, with cited
// defaults. Like package nic it imports nothing of labctl but leaves: lab
// specs, scenarios and the simulator's runtime share these definitions,
// and each setting's meaning is decided here once.
package transport

import (
	"errors"
	"fmt"
	"slices"
	"strings"
)

// The transports.
const (
	// RoCE is RoCE v2 over Ethernet: PFC and ECN/DCQCN as the lab's
	// switch configs and NIC settings say.
	RoCE = "roce"
	// InfiniBand is an InfiniBand fabric: credit-based link-level flow
	// control per virtual lane, routes as a subnet manager computes them,
	// IB congestion control (FECN/BECN); the switches take no vendor QoS
	// config.
	InfiniBand = "infiniband"
	// UET is the Ultra Ethernet transport over Ethernet switches: packet
	// spraying, reliable unordered delivery with selective
	// acknowledgement, packet trimming, NSCC and RCCC.
	UET = "uet"
)

// Names lists the transports, the default first.
var Names = []string{RoCE, InfiniBand, UET}

// NameDoc documents the transport key of lab specs and scenarios.
const NameDoc = "What the NICs and switches run: roce (RoCE v2: PFC, ECN and DCQCN as the switch configs and the nic section say), infiniband (an InfiniBand fabric: credit-based flow control per virtual lane instead of PFC, routes as the subnet manager computes them, IB congestion control instead of ECN/DCQCN; the switches' vendor configs are not used, the infiniband section is) or uet (the Ultra Ethernet transport over the same Ethernet switches and configs: packet spraying, selective retransmission, packet trimming, NSCC, as the uet section says). infiniband and uet run on the sim runtime only. On them the matrix's ecn dimension turns the transport's congestion signal on or off (IB's FECN/BECN, UET's ECN marks) and pfc the switches' PFC (uet; InfiniBand's credits are always on, so pfc=off is refused for it)."

// PathMTUs are the payload MTUs an InfiniBand path can have (IBA's path
// MTU, 256 to 4096 bytes), which RoCE v2 NICs use as well: a RoCE packet
// carries at most 4096 bytes of payload, whatever the Ethernet MTU.
var PathMTUs = []int{256, 512, 1024, 2048, 4096}

// MinMTU and MaxMTU bound the payload MTU labctl simulates at all (a lab's
// qos.mtu): the least IBA path MTU, and a jumbo frame's payload, which
// UET may use.
const (
	MinMTU = 256
	MaxMTU = 9216
)

// CheckMTU checks a payload MTU (a lab's qos.mtu) against the transport:
// RoCE and InfiniBand take an IBA path MTU; UET any size from 256 to 9216
// bytes (the range labctl simulates).
func CheckMTU(name string, mtu int) error {
	if name == UET {
		if mtu < MinMTU || mtu > MaxMTU {
			return fmt.Errorf("MTU %d is outside the %d-%d bytes UET packets are simulated at", mtu, MinMTU, MaxMTU)
		}
		return nil
	}
	if !slices.Contains(PathMTUs, mtu) {
		what := "RoCE"
		if name == InfiniBand {
			what = "InfiniBand"
		}
		return fmt.Errorf("MTU %d is not a path MTU %s can use: its packets carry 256, 512, 1024, 2048 or 4096 bytes of payload (a 9000-byte Ethernet MTU still carries 4096)", mtu, what)
	}
	return nil
}

// Settings are a lab's transport once the lab's and a scenario's sections
// are applied to the defaults. Only the chosen transport's section is
// filled.
type Settings struct {
	Name       string       `json:"name"`
	InfiniBand *IBSettings  `json:"infiniband,omitempty"`
	UET        *UETSettings `json:"uet,omitempty"`
}

// FieldError is a bad value of one key: Field is its path within the
// section ("routing", "cc.ccti_limit"; Resolve prefixes the section), Msg
// what is wrong and Fix what to write instead. ResolveIB and ResolveUET
// return one, so lab specs and scenarios report the key's line and column.
type FieldError struct {
	Field, Msg, Fix string
}

func (e *FieldError) Error() string {
	if e.Fix == "" {
		return e.Field + ": " + e.Msg
	}
	return e.Field + ": " + e.Msg + ": " + e.Fix
}

// inSection prefixes a section's name to a field error's path (any other
// error becomes one of the section itself).
func inSection(section string, err error) error {
	var fe *FieldError
	if errors.As(err, &fe) {
		return &FieldError{Field: section + "." + fe.Field, Msg: fe.Msg, Fix: fe.Fix}
	}
	return &FieldError{Field: section, Msg: err.Error()}
}

// Resolve checks name (empty means RoCE) and resolves the sections, a
// lab's first and a scenario's over it. Every section is checked, the
// chosen transport's or not, so a mistake in one is reported before a
// matrix reaches the variant that uses it.
func Resolve(name string, ib []*IBSpec, uet []*UETSpec) (Settings, error) {
	if name == "" {
		name = RoCE
	}
	if !slices.Contains(Names, name) {
		return Settings{}, &FieldError{Field: "transport", Msg: fmt.Sprintf("unknown transport %q", name), Fix: "use " + strings.Join(Names, ", ") + " (roce is the default)"}
	}
	ibs, err := ResolveIB(ib...)
	if err != nil {
		return Settings{}, inSection("infiniband", err)
	}
	uets, err := ResolveUET(uet...)
	if err != nil {
		return Settings{}, inSection("uet", err)
	}
	st := Settings{Name: name}
	switch name {
	case InfiniBand:
		st.InfiniBand = &ibs
	case UET:
		st.UET = &uets
	}
	return st, nil
}

// set applies a section's key to a setting when the key is given (nil
// keeps what lies underneath).
func set[T any](dst *T, v *T) {
	if v != nil {
		*dst = *v
	}
}
