package qos

import (
	"fmt"
	"slices"
	"strconv"
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
//
// A run never passes over a port number all leaves out: all may hold only
// the ports a config names (an EOS config names the interfaces it
// configures, "interface Ethernet1-3,6", not the switch's others), and
// "Ethernet1-6" would name Ethernet4 and 5, which it does not hold. Two
// ports that differ in their last number alone follow each other only
// where it steps by the least step between such ports of all (SONiC's
// Ethernet0, 4, 8: 4; EOS's Ethernet1, 2, 3: 1); ports that differ before
// it (Ethernet1/4, Ethernet2/1) run on as before.
func PortRanges(set, all []string) string {
	all = slices.DeleteFunc(slices.Clone(all), IsSubinterface)
	step := portSteps(all)
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
		for j+1 < len(all) && in[all[j+1]] && follows(all[j], all[j+1], step) {
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

// lastNumber splits a port name into what comes before its last number
// and that number ("Ethernet1/4": "Ethernet1/", 4); ok is false for a name
// that does not end in digits.
func lastNumber(name string) (prefix string, n int, ok bool) {
	i := len(name)
	for i > 0 && name[i-1] >= '0' && name[i-1] <= '9' {
		i--
	}
	if i == len(name) || len(name)-i > 9 {
		return name, 0, false
	}
	n, _ = strconv.Atoi(name[i:])
	return name[:i], n, true
}

// portSteps is, for each prefix of all's names (lastNumber), the least
// step between the last numbers of two ports with that prefix next to
// each other in all.
func portSteps(all []string) map[string]int {
	step := map[string]int{}
	for i := 1; i < len(all); i++ {
		pa, a, ok1 := lastNumber(all[i-1])
		pb, b, ok2 := lastNumber(all[i])
		if ok1 && ok2 && pa == pb && b > a && (step[pa] == 0 || b-a < step[pa]) {
			step[pa] = b - a
		}
	}
	return step
}

// follows says whether port b comes right after a, next in all, with no
// port number between them that all leaves out (portSteps).
func follows(a, b string, step map[string]int) bool {
	pa, x, ok1 := lastNumber(a)
	pb, y, ok2 := lastNumber(b)
	if !ok1 || !ok2 || pa != pb {
		return true
	}
	return y-x == step[pa]
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
