package qos

import (
	"fmt"
	"slices"
	"strings"
)

// PortRanges names a set of a device's ports compactly: runs of ports that
// follow each other in the device's port order become "Ethernet0-60"
// (first and last, the last's shared prefix dropped), the rest stay as
// they are, "Ethernet0-60, Ethernet68". all is the device's ports in
// order; ports not in it are listed as they are, after the runs, as are
// subinterfaces (Ethernet1.100), which join no run: between Ethernet1 and
// Ethernet2 in port order, "Ethernet1-2.100" would read as a range of
// ports.
func PortRanges(set, all []string) string {
	all = slices.DeleteFunc(slices.Clone(all), IsSubinterface)
	in := make(map[string]bool, len(set))
	for _, p := range set {
		in[p] = true
	}
	var parts []string
	seen := map[string]bool{}
	for i := 0; i < len(all); i++ {
		if !in[all[i]] {
			continue
		}
		j := i
		for j+1 < len(all) && in[all[j+1]] {
			j++
		}
		for k := i; k <= j; k++ {
			seen[all[k]] = true
		}
		switch {
		case j == i:
			parts = append(parts, all[i])
		case j == i+1:
			parts = append(parts, all[i], all[j])
		default:
			parts = append(parts, all[i]+"-"+shortEnd(all[i], all[j]))
		}
		i = j
	}
	var rest []string
	for _, p := range set {
		if !seen[p] {
			rest = append(rest, p)
			seen[p] = true
		}
	}
	sortPorts(rest)
	return strings.Join(append(parts, rest...), ", ")
}

// shortEnd drops from last the non-digit prefix it shares with first:
// ("Ethernet0", "Ethernet60") -> "60"; ("Ethernet1/1", "Ethernet2/4") ->
// "2/4".
func shortEnd(first, last string) string {
	i := 0
	for i < len(first) && i < len(last) && first[i] == last[i] && (last[i] < '0' || last[i] > '9') {
		i++
	}
	return last[i:]
}

// CountPorts is "1 port" or "N ports".
func CountPorts(n int) string {
	if n == 1 {
		return "1 port"
	}
	return fmt.Sprintf("%d ports", n)
}

// IsSubinterface says whether the port name is a subinterface's
// (Ethernet1.100): a logical port on a parent port, not a port of its own.
func IsSubinterface(name string) bool {
	_, ok := SubinterfaceParent(name)
	return ok
}

// SubinterfaceParent is the port a subinterface's name (Ethernet1.100)
// names before its dot, and ok false for a name without one.
func SubinterfaceParent(name string) (parent string, ok bool) {
	parent, _, ok = strings.Cut(name, ".")
	return parent, ok
}
