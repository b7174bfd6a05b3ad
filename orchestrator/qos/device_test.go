package qos

import (
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// TestFormatMap: FormatMap writes each entry as fmt's "%d:%d", keys
// ascending, one space between, for empty maps, negative numbers and maps
// larger than its 64-key buffer.
func TestFormatMap(t *testing.T) {
	reference := func(m map[int]int) string {
		var parts []string
		for _, k := range slices.Sorted(maps.Keys(m)) {
			parts = append(parts, fmt.Sprintf("%d:%d", k, m[k]))
		}
		return strings.Join(parts, " ")
	}
	rng := rand.New(rand.NewPCG(1, 2))
	cases := []map[int]int{nil, {}, {0: 0}, {-3: 7, 12: -1, 5: 5}, {1 << 40: -(1 << 40)}}
	for _, n := range []int{8, 64, 65, 200} {
		m := map[int]int{}
		for len(m) < n {
			m[rng.IntN(1000)-500] = rng.IntN(100) - 50
		}
		cases = append(cases, m)
	}
	for _, m := range cases {
		if got, want := FormatMap(m), reference(m); got != want {
			t.Errorf("FormatMap(%v) = %q, want %q", m, got, want)
		}
	}
}

// A class has the port's watchdog when PFC runs on it and the watchdog
// watches it: nil priorities watch every PFC priority, a list only its own.
func TestClassWatchdogWatchesItsPriorities(t *testing.T) {
	w := &PortWatchdog{DetectionMs: 200, RestorationMs: 200, Action: "drop"}
	p := &PortConfig{PFCPriorities: []int{3, 4}, Watchdog: w}
	for _, tc := range []struct {
		prios []int
		want  map[int]bool
	}{
		{nil, map[int]bool{3: true, 4: true}},
		{[]int{4}, map[int]bool{4: true}},
		{[]int{}, map[int]bool{}},
		{[]int{3, 4, 5}, map[int]bool{3: true, 4: true}}, // 5 has no PFC
	} {
		w.Priorities = tc.prios
		for prio := range NumTC {
			if got := p.Class(prio).Watchdog != nil; got != tc.want[prio] {
				t.Errorf("watchdog priorities %v: class %d watched %v, want %v", tc.prios, prio, got, tc.want[prio])
			}
		}
	}
}
