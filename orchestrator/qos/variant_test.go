package qos

import (
	"reflect"
	"strings"
	"testing"

	"github.com/labctl/labctl/orchestrator/lab"
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

// A swept value applied on top of rendered configs gives what rendering
// the intent with that value gives: the edit changes exactly the field.
func TestWithOverridesMatchesIntent(t *testing.T) {
	base, _ := Profile("roce-dcqcn")
	kmin, kmax, pmax, det, act := 100, 1000, 0.5, 400, "forward"
	pool := int64(8 << 20)
	for name, tc := range map[string]struct {
		o    lab.QoSSpec
		want func(in *Intent)
	}{
		"ecn thresholds": {lab.QoSSpec{ECN: &lab.ECNSpec{KminKB: &kmin, KmaxKB: &kmax}}, func(in *Intent) { in.ECN.KminKB, in.ECN.KmaxKB = kmin, kmax }},
		"pmax":           {lab.QoSSpec{ECN: &lab.ECNSpec{Pmax: &pmax}}, func(in *Intent) { in.ECN.Pmax = pmax }},
		"watchdog":       {lab.QoSSpec{PFCWatchdog: &lab.WatchdogSpec{DetectionMs: &det, Action: &act}}, func(in *Intent) { in.Watchdog.DetectionMs, in.Watchdog.Action = det, act }},
		"buffer pool":    {lab.QoSSpec{BufferPoolBytes: &pool}, func(in *Intent) { in.Buffer.SharedPoolBytes = pool }},
	} {
		for _, dev := range TestDevices()[:2] {
			full, err := Apply(base, dev)
			if err != nil {
				t.Fatal(err)
			}
			got, reached, err := full.WithOverrides(tc.o)
			if err != nil {
				t.Fatalf("%s %s: %v", name, dev.Name, err)
			}
			if reached == 0 {
				t.Errorf("%s %s: reached nothing", name, dev.Name)
			}
			in := base.clone()
			tc.want(&in)
			want, err := Apply(in, dev)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("%s %s: %+v", name, dev.Name, Diff([]DeviceConfig{want}, []DeviceConfig{got}))
			}
			if again, _ := Apply(base, dev); !reflect.DeepEqual(full, again) {
				t.Errorf("%s %s: WithOverrides changed the receiver", name, dev.Name)
			}
		}
	}
}

// An edit the user made survives a swept value: Kmin changes, the edited
// Kmax and pmax of a queue stay.
func TestWithOverridesKeepsEdits(t *testing.T) {
	in, _ := Profile("roce-dcqcn")
	dc, err := Apply(in, TestDevices()[0])
	if err != nil {
		t.Fatal(err)
	}
	q := dc.Ports[0].Queue(3)
	q.ECN.MaxBytes, q.ECN.Pmax = 5_000_000, 0.7 // the user's edit
	kmin := 300
	got, _, err := dc.WithOverrides(lab.QoSSpec{ECN: &lab.ECNSpec{KminKB: &kmin}})
	if err != nil {
		t.Fatal(err)
	}
	e := got.Ports[0].Queue(3).ECN
	if e.MinBytes != 300*1024 || e.MaxBytes != 5_000_000 || e.Pmax != 0.7 {
		t.Errorf("edited queue after the sweep: %+v", *e)
	}
}

func TestWithOverridesRefuses(t *testing.T) {
	in, _ := Profile("roce-dcqcn")
	dc, _ := Apply(in, TestDevices()[0])
	big, mtu, dscp := 1<<20, 1024, 24
	for name, tc := range map[string]struct {
		dc   DeviceConfig
		o    lab.QoSSpec
		want string
	}{
		"kmin above kmax": {dc, lab.QoSSpec{ECN: &lab.ECNSpec{KminKB: &big}}, "Kmin must stay below Kmax"},
		"reshaping key":   {dc, lab.QoSSpec{RoCEDSCP: &dscp, LosslessPriorities: []int{3, 4}}, "qos lossless_priorities, roce_dscp cannot be applied"},
		"segments":        {segments(dc), lab.QoSSpec{ECN: &lab.ECNSpec{KminKB: &mtu}}, "in segments, not bytes"},
	} {
		if _, _, err := tc.dc.WithOverrides(tc.o); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: err %v, want %q", name, err, tc.want)
		}
	}
	// No queue marks: nothing is reached, which is no error here.
	if _, reached, err := dc.WithoutECN().WithOverrides(lab.QoSSpec{ECN: &lab.ECNSpec{KminKB: &mtu}}); err != nil || reached != 0 {
		t.Errorf("without ECN: reached %d, err %v", reached, err)
	}
	// mtu is the caller's: the config is unchanged.
	if got, reached, err := dc.WithOverrides(lab.QoSSpec{MTU: &mtu}); err != nil || reached != 0 || !reflect.DeepEqual(got, dc) {
		t.Errorf("mtu: reached %d err %v", reached, err)
	}
}

func segments(dc DeviceConfig) DeviceConfig {
	out := dc.Clone()
	for i := range out.Ports {
		for j := range out.Ports[i].Queues {
			if e := out.Ports[i].Queues[j].ECN; e != nil {
				e.Unit = "segments"
			}
		}
	}
	return out
}

// TestResizedPoolsKeepLosslessUnlimitedAtEgress: a resized buffer
// (qos.buffer_pool_bytes) leaves lossless queues unlimited at egress: the
// egress lossless pool holds at least what the ingress side can admit,
// the new ingress pool and its shared headroom, and keeps a larger margin
// it had. EOS's assumed platform pools (egress lossless 113 KB below the
// ingress pool, 1.6 MB of shared headroom) shrunk to 512 KiB left it at
// 512 KiB and the simulated switch dropped lossless packets at egress.
func TestResizedPoolsKeepLosslessUnlimitedAtEgress(t *testing.T) {
	const shallow = 512 << 10
	headroom := int64(1622016)
	for name, tc := range map[string]struct {
		pools []PoolConfig
		want  int64
	}{
		"shared headroom pool (EOS platform)": {[]PoolConfig{
			{Name: EgressLosslessPool, Type: "egress", Mode: "static", SizeBytes: 32599040},
			{Name: EgressLossyPool, Type: "egress", Mode: "dynamic", SizeBytes: 24709632},
			{Name: IngressLosslessPool, Type: "ingress", Mode: "dynamic", SizeBytes: 32712448, HeadroomPoolBytes: &headroom},
		}, shallow + headroom},
		"headroom in the margin (labctl's SONiC)": {[]PoolConfig{
			{Name: EgressLosslessPool, Type: "egress", Mode: "dynamic", SizeBytes: 23935296},
			{Name: EgressLossyPool, Type: "egress", Mode: "dynamic", SizeBytes: 20627456},
			{Name: IngressLosslessPool, Type: "ingress", Mode: "dynamic", SizeBytes: 20627456},
		}, shallow + 23935296 - 20627456},
	} {
		d := DeviceConfig{Pools: tc.pools}
		if n := d.ResizePools(shallow); n != 3 {
			t.Errorf("%s: %d pools resized, want 3", name, n)
		}
		if got := d.Pool(EgressLosslessPool).SizeBytes; got != tc.want {
			t.Errorf("%s: egress lossless pool %d bytes after resizing to %d, want %d", name, got, shallow, tc.want)
		}
		if in, eg := d.IngressPoolBytes(), d.Pool(EgressLossyPool).SizeBytes; in != shallow || eg != shallow {
			t.Errorf("%s: ingress %d, egress lossy %d, want both %d", name, in, eg, shallow)
		}
	}
}
