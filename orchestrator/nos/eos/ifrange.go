package eos

import (
	"fmt"
	"strconv"
	"strings"
)

// cfgInterfaceNames reads the interfaces an "interface" line names, as
// EOS's interface range syntax has them: one interface (Ethernet1), a
// range of the last number (Ethernet1-4, Ethernet3/1-4, Ethernet3/1-3/4),
// a comma-separated list of those, each after the first with or without
// the type (Ethernet1-4,6,Ethernet10-12), the type and the numbers apart
// (interface Ethernet 1-4) and the type in any case. EOS configures every
// interface of the range in the mode the line opens, as each on its own
// line: labctl gives each the statements that follow.
//
// A range whose ends differ in more than the last number (Ethernet1/1-4/1)
// covers the interfaces EOS has between them, which depend on the
// platform's ports and their breakout; the files do not say, so such a
// range is refused with the fix.
func cfgInterfaceNames(words []string) ([]string, error) {
	spec := strings.Join(words, "")
	if spec == "" {
		return nil, fmt.Errorf("interface names no interface")
	}
	var out []string
	typ := ""
	for _, item := range strings.Split(spec, ",") {
		if item == "" {
			return nil, fmt.Errorf("interface %q: an empty item in the list (fix: separate the interfaces by single commas, like Ethernet1-4,6)", spec)
		}
		t, nums := cfgSplitType(item)
		switch {
		case t != "":
			typ = t
		case typ == "":
			return nil, fmt.Errorf("interface %q: %q names no interface type (fix: write it like Ethernet1-4)", spec, item)
		}
		if nums == "" {
			// A name without numbers (Management, Loopback without one):
			// taken as written.
			out = append(out, typ)
			continue
		}
		lo, hi, isRange := strings.Cut(nums, "-")
		if !isRange {
			out = append(out, typ+nums)
			continue
		}
		loParts, hiParts := strings.Split(lo, "/"), strings.Split(hi, "/")
		if len(hiParts) == 1 && len(loParts) > 1 {
			// Ethernet3/1-4: the range of the last number.
			hiParts = append(append([]string{}, loParts[:len(loParts)-1]...), hiParts[0])
		}
		if len(loParts) != len(hiParts) || strings.Join(loParts[:len(loParts)-1], "/") != strings.Join(hiParts[:len(hiParts)-1], "/") {
			return nil, fmt.Errorf("interface %q: the range %s%s covers the interfaces EOS has between its ends, which depend on the platform's ports and their breakout, not in the files (fix: list the interfaces, like %s%s,%s)", spec, typ, nums, typ, lo, hi)
		}
		a, errA := strconv.Atoi(loParts[len(loParts)-1])
		b, errB := strconv.Atoi(hiParts[len(hiParts)-1])
		if errA != nil || errB != nil || a > b || b-a > 4096 {
			return nil, fmt.Errorf("interface %q: %q is no range of interface numbers (fix: write it like Ethernet1-4, the lower number first)", spec, item)
		}
		prefix := typ + strings.Join(loParts[:len(loParts)-1], "/")
		if len(loParts) > 1 {
			prefix += "/"
		}
		for n := a; n <= b; n++ {
			out = append(out, prefix+strconv.Itoa(n))
		}
	}
	return out, nil
}

// cfgTypes are the interface types as EOS writes them in a running-config,
// by the lower-case forms EOS accepts for them.
var cfgTypes = map[string]string{
	"ethernet": "Ethernet", "et": "Ethernet", "eth": "Ethernet",
	"port-channel": "Port-Channel", "po": "Port-Channel",
}

// cfgSplitType splits an interface item into its type (as EOS writes it,
// "" when the item starts with a number) and the numbers after it.
func cfgSplitType(item string) (typ, nums string) {
	i := strings.IndexAny(item, "0123456789")
	if i < 0 {
		return item, ""
	}
	if i == 0 {
		return "", item
	}
	t := item[:i]
	if canon, ok := cfgTypes[strings.ToLower(t)]; ok {
		t = canon
	}
	return t, item[i:]
}
