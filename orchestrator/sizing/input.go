package sizing

import (
	"fmt"
	"math"
	"slices"
	"strings"
)

// Defaults are the seed's: 8 GPUs per server, one 200G NIC per GPU, 32x400G
// leaves and spines, non-blocking.
const (
	DefaultGPUsPerServer  = 8
	DefaultNICSpeedGbps   = 200
	DefaultSwitchPorts    = 32
	DefaultSwitchSpeedGbp = 400
	// MaxGPUs bounds the input so a typo cannot ask for a plan that takes
	// gigabytes to print.
	MaxGPUs = 1 << 20
	// MaxMinSpines bounds min_spines: a leaf has at most 1024 ports, so no
	// leaf reaches more spines.
	MaxMinSpines = 1024
)

// Speeds are the Ethernet port and NIC speeds labctl knows, in Gb/s.
var Speeds = []int{10, 25, 40, 50, 100, 200, 400, 800, 1600}

// breakoutFactors are the ways one switch port splits into equal lanes.
var breakoutFactors = []int{1, 2, 4, 8}

// InputError is a problem with one field of an Input. Field is the spec key
// (for example "nic_speed_gbps"); callers map it to a flag or a YAML place.
type InputError struct {
	Field string
	Msg   string
	Fix   string
}

func (e *InputError) Error() string {
	s := e.Field + ": " + e.Msg
	if e.Fix != "" {
		s += " (fix: " + e.Fix + ")"
	}
	return s
}

// Normalize fills zero fields with the seed's defaults.
func (in Input) Normalize() Input {
	if in.GPUsPerServer == 0 {
		in.GPUsPerServer = DefaultGPUsPerServer
	}
	if in.NICSpeedGbps == 0 {
		in.NICSpeedGbps = DefaultNICSpeedGbps
	}
	if in.LeafPorts == 0 {
		in.LeafPorts = DefaultSwitchPorts
	}
	if in.LeafSpeedGbps == 0 {
		in.LeafSpeedGbps = DefaultSwitchSpeedGbp
	}
	if in.SpinePorts == 0 {
		in.SpinePorts = DefaultSwitchPorts
	}
	if in.SpineSpeedGbps == 0 {
		in.SpineSpeedGbps = DefaultSwitchSpeedGbp
	}
	if in.Oversubscription == 0 {
		in.Oversubscription = 1
	}
	if in.Layout == "" {
		in.Layout = LayoutToR
	}
	return in
}

// Validate checks a normalized Input field by field; it returns the first
// problem as an *InputError.
func (in Input) Validate() error {
	speedList := func() string {
		s := make([]string, len(Speeds))
		for i, v := range Speeds {
			s[i] = fmt.Sprint(v)
		}
		return strings.Join(s, ", ")
	}
	switch {
	case in.GPUs <= 0:
		return &InputError{"gpus", fmt.Sprintf("must be a positive number of GPUs, got %d", in.GPUs), "give at least 1, for example 64"}
	case in.GPUs > MaxGPUs:
		return &InputError{"gpus", fmt.Sprintf("%d GPUs is more than labctl plans (at most %d)", in.GPUs, MaxGPUs), "plan a smaller fabric"}
	case in.GPUsPerServer <= 0:
		return &InputError{"gpus_per_server", fmt.Sprintf("must be positive, got %d", in.GPUsPerServer), "use 8 for a typical GPU server"}
	case in.GPUsPerServer > 64:
		return &InputError{"gpus_per_server", fmt.Sprintf("%d GPUs per server is not a server labctl knows (at most 64)", in.GPUsPerServer), "use 4, 8 or 16"}
	case !slices.Contains(Speeds, in.NICSpeedGbps):
		return &InputError{"nic_speed_gbps", fmt.Sprintf("%d Gb/s is not an Ethernet NIC speed", in.NICSpeedGbps), "use one of " + speedList()}
	case !slices.Contains(Speeds, in.LeafSpeedGbps):
		return &InputError{"leaf_speed_gbps", fmt.Sprintf("%d Gb/s is not an Ethernet port speed", in.LeafSpeedGbps), "use one of " + speedList()}
	case !slices.Contains(Speeds, in.SpineSpeedGbps):
		return &InputError{"spine_speed_gbps", fmt.Sprintf("%d Gb/s is not an Ethernet port speed", in.SpineSpeedGbps), "use one of " + speedList()}
	case in.LeafPorts < 4 || in.LeafPorts > 1024:
		return &InputError{"leaf_ports", fmt.Sprintf("a leaf with %d ports is not buildable", in.LeafPorts), "use a port count between 4 and 1024, for example 32, 64 or 128"}
	case in.SpinePorts < 2 || in.SpinePorts > 1024:
		return &InputError{"spine_ports", fmt.Sprintf("a spine with %d ports is not buildable", in.SpinePorts), "use a port count between 2 and 1024, for example 32, 64 or 128"}
	case math.IsNaN(in.Oversubscription) || in.Oversubscription < 1 || in.Oversubscription > 16:
		return &InputError{"oversubscription", fmt.Sprintf("%g:1 is out of range", in.Oversubscription), "use a ratio from 1 (non-blocking) to 16"}
	case in.Layout != LayoutToR && in.Layout != LayoutRail:
		return &InputError{"layout", fmt.Sprintf("unknown layout %q", in.Layout), "use tor or rail"}
	case in.Tiers < 0 || in.Tiers > 3:
		return &InputError{"tiers", fmt.Sprintf("%d tiers is not supported", in.Tiers), "use 1 (a single switch), 2 or 3, or leave it out to pick the smallest spine-leaf fabric that fits"}
	case in.MinSpines < 0 || in.MinSpines > MaxMinSpines:
		return &InputError{"min_spines", fmt.Sprintf("%d is out of range", in.MinSpines), fmt.Sprintf("use 1 to %d (2 or more for no single spine), or leave it out for the fewest spines that fit", MaxMinSpines)}
	case in.MinSpines > 0 && in.Tiers == 1:
		return &InputError{"min_spines", fmt.Sprintf("a 1-tier fabric has no spine, so %d spines at least cannot be planned", in.MinSpines), "leave min_spines out, or plan 2 tiers"}
	}
	if _, err := breakout(in.LeafSpeedGbps, in.NICSpeedGbps); err != nil {
		return &InputError{"nic_speed_gbps", fmt.Sprintf("%d Gb/s NICs cannot attach evenly to %d Gb/s leaf ports: %v", in.NICSpeedGbps, in.LeafSpeedGbps, err), fmt.Sprintf("use a NIC speed that divides %d evenly (%s)", in.LeafSpeedGbps, strings.Join(divisorSpeeds(in.LeafSpeedGbps), ", "))}
	}
	hi, lo := max(in.LeafSpeedGbps, in.SpineSpeedGbps), min(in.LeafSpeedGbps, in.SpineSpeedGbps)
	if _, err := breakout(hi, lo); err != nil {
		return &InputError{"spine_speed_gbps", fmt.Sprintf("%d Gb/s spine ports and %d Gb/s leaf ports cannot be joined evenly: %v", in.SpineSpeedGbps, in.LeafSpeedGbps, err), "use spine and leaf speeds where one is 1, 2, 4 or 8 times the other"}
	}
	return nil
}

// breakout returns how many lanes of speed lane one port of speed port splits
// into, or an error when it cannot split evenly.
func breakout(port, lane int) (int, error) {
	if lane > port {
		return 0, fmt.Errorf("%dG is faster than the %dG port", lane, port)
	}
	if port%lane != 0 {
		return 0, fmt.Errorf("%dG does not divide into %dG lanes", port, lane)
	}
	f := port / lane
	if !slices.Contains(breakoutFactors, f) {
		return 0, fmt.Errorf("a %dG port does not break out into %d lanes (only 1, 2, 4 or 8)", port, f)
	}
	return f, nil
}

func divisorSpeeds(port int) []string {
	var out []string
	for _, s := range Speeds {
		if _, err := breakout(port, s); err == nil {
			out = append(out, fmt.Sprint(s))
		}
	}
	return out
}

// breakoutName is the conventional name of a breakout, e.g. "1x400G->2x200G".
func breakoutName(port, lane int) string {
	if port == lane {
		return "none"
	}
	return fmt.Sprintf("1x%dG->%dx%dG", port, port/lane, lane)
}
