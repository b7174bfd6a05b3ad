package qos

import (
	"reflect"
	"testing"
)

// Removing a feature from rendered configs gives the same configs as
// rendering the variant's intent.
func TestWithoutMatchesVariantIntent(t *testing.T) {
	in, _ := Profile("roce-dcqcn")
	for _, dev := range TestDevices()[:2] {
		full, err := Apply(in, dev)
		if err != nil {
			t.Fatal(err)
		}
		for name, tc := range map[string]struct {
			got  DeviceConfig
			want Intent
		}{
			"ecn off":         {full.WithoutECN(), in.WithECN(false)},
			"pfc off":         {full.WithoutPFC(), in.WithPFC(false)},
			"ecn off pfc off": {full.WithoutECN().WithoutPFC(), in.WithECN(false).WithPFC(false)},
		} {
			want, err := Apply(tc.want, dev)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(tc.got, want) {
				t.Errorf("%s %s: %+v", dev.Name, name, Diff([]DeviceConfig{want}, []DeviceConfig{tc.got}))
			}
		}
		// The receiver is untouched.
		again, _ := Apply(in, dev)
		if !reflect.DeepEqual(full, again) {
			t.Errorf("%s: WithoutECN/WithoutPFC changed the receiver", dev.Name)
		}
	}
}
