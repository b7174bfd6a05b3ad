package main

import "testing"

func TestParseGbps(t *testing.T) {
	good := map[string]int{"400": 400, "400G": 400, "400g": 400, " 400 Gb/s": 400, "100gbps": 100, "1.6T": 1600, "1.6Tb/s": 1600, "0.8t": 800, "25G": 25, "0": 0}
	for in, want := range good {
		if got, err := parseGbps(in); err != nil || got != want {
			t.Errorf("parseGbps(%q) = %d, %v; want %d", in, got, err, want)
		}
	}
	for _, in := range []string{"", "G", "400X", "-400G", "400M", "1.5G", "400GG", "NaN", "Inf", "1e400"} {
		if got, err := parseGbps(in); err == nil {
			t.Errorf("parseGbps(%q) = %d, want an error", in, got)
		}
	}
}
