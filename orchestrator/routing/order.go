package routing

// PortLess orders interface names by their text with embedded numbers
// compared as numbers ("Ethernet4" < "Ethernet12", "Ethernet1/2" <
// "Ethernet1/10"), and a member of a merged lab link after its port and
// before the next port ("Ethernet0" < "Ethernet0.1" < "Ethernet4"). It is
// the one order of a switch's ports in labctl: the ECMP candidates of a
// route come out in it, so every caller that indexes them with a hash
// (labctl trace, the simulator) indexes the same list, and the QoS configs
// list their ports in it.
func PortLess(a, b string) bool {
	for a != "" && b != "" {
		na, ra := leadingNumber(a)
		nb, rb := leadingNumber(b)
		if na >= 0 && nb >= 0 {
			if na != nb {
				return na < nb
			}
			a, b = ra, rb
			continue
		}
		if a[0] != b[0] {
			return a[0] < b[0]
		}
		a, b = a[1:], b[1:]
	}
	return len(a) < len(b)
}

// leadingNumber reads the number s starts with (at most 9 digits, so it
// cannot overflow), or -1 when s starts with something else.
func leadingNumber(s string) (int, string) {
	i := 0
	n := 0
	for i < len(s) && s[i] >= '0' && s[i] <= '9' && i < 9 {
		n = n*10 + int(s[i]-'0')
		i++
	}
	if i == 0 {
		return -1, s
	}
	return n, s[i:]
}
