package main

import (
	"fmt"
	"strconv"
	"strings"
)

// gbpsFlag is a speed flag in Gb/s that takes the forms engineers write
// speeds in: 400, 400G, 400g, 400Gb/s, and 1.6T for 1600 (the mission's
// "200G NICs, 32x400G switches"). Whether the speed is one labctl plans
// with is sizing's check (sizing.Speeds), not the flag's: the flag only
// reads the number.
type gbpsFlag struct{ v *int }

func (f gbpsFlag) String() string {
	if f.v == nil {
		return "0"
	}
	return strconv.Itoa(*f.v)
}

// Type is what --help shows after the flag's name.
func (gbpsFlag) Type() string { return "gbps" }

func (f gbpsFlag) Set(s string) error {
	n, err := parseGbps(s)
	if err != nil {
		return err
	}
	*f.v = n
	return nil
}

// parseGbps reads a speed in Gb/s: a whole number with an optional unit G,
// Gb/s, Gbps (any case), or T, Tb/s, Tbps times 1000 (1.6T is 1600).
func parseGbps(s string) (int, error) {
	t := strings.ToLower(strings.TrimSpace(s))
	scale := 1.0
	for _, u := range []struct {
		suffix string
		scale  float64
	}{{"gb/s", 1}, {"gbps", 1}, {"g", 1}, {"tb/s", 1000}, {"tbps", 1000}, {"t", 1000}} {
		if num, ok := strings.CutSuffix(t, u.suffix); ok {
			t, scale = strings.TrimSpace(num), u.scale
			break
		}
	}
	x, err := strconv.ParseFloat(t, 64)
	n := int(x * scale)
	if err != nil || x < 0 || float64(n) != x*scale {
		return 0, fmt.Errorf("%q is not a speed in Gb/s (write it as 400 or 400G, 1.6T for 1600G)", s)
	}
	return n, nil
}
