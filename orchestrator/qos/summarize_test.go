package qos

import (
	"reflect"
	"testing"
)

// Summarize groups each port field by value: values in the order the
// ports first have them, each with its runs of consecutive ports, and
// expanding the summary gives back every port's flattened fields.
func TestSummarizeRuns(t *testing.T) {
	speeds := []int{100, 100, 400, 100, 400, 400}
	dev := Device{Name: "leaf1", Role: "leaf"}
	for i, sp := range speeds {
		dev.Ports = append(dev.Ports, Port{Name: "Ethernet" + string(rune('0'+i)), SpeedGbps: sp, CableM: 5, Fabric: true})
	}
	in, err := Profile("roce-dcqcn")
	if err != nil {
		t.Fatal(err)
	}
	dc, err := Apply(in, dev)
	if err != nil {
		t.Fatal(err)
	}
	s := Summarize(&dc)
	var got []Setting
	for _, f := range s.Fields {
		if f.Field == "speed_gbps" {
			got = append(got, f)
		}
	}
	want := []Setting{
		{Field: "speed_gbps", Value: "100", Runs: [][2]int{{0, 1}, {3, 3}}},
		{Field: "speed_gbps", Value: "400", Runs: [][2]int{{2, 2}, {4, 5}}},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("speed_gbps settings = %+v, want %+v", got, want)
	}
	exp := s.expand()
	for i := range dc.Ports {
		for k, v := range flattenPort(&dc.Ports[i]) {
			if exp[k][dc.Ports[i].Name] != v {
				t.Errorf("%s %s = %q in the summary, %q flattened", dc.Ports[i].Name, k, exp[k][dc.Ports[i].Name], v)
			}
		}
	}
}

// Settings.Pools reads back the pools flattenDevice writes, by name, a
// pool without a shared headroom pool with none.
func TestSettingsPoolsInverse(t *testing.T) {
	hr := int64(1622016)
	dc := DeviceConfig{Device: "spine1", Pools: []PoolConfig{
		{Name: "ingress_lossless_pool", Type: "ingress", Mode: "dynamic", SizeBytes: 32712448, HeadroomPoolBytes: &hr},
		{Name: "egress_lossy_pool", Type: "egress", Mode: "static", SizeBytes: 24709632},
	}}
	s := Summarize(&dc)
	want := []PoolSettings{
		{Name: "egress_lossy_pool", Type: "egress", Mode: "static", SizeBytes: "24709632"},
		{Name: "ingress_lossless_pool", Type: "ingress", Mode: "dynamic", SizeBytes: "32712448", HeadroomPoolBytes: "1622016"},
	}
	if got := s.Pools(); !reflect.DeepEqual(got, want) {
		t.Errorf("Pools() = %+v, want %+v", got, want)
	}
}
