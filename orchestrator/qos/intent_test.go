package qos

import (
	"maps"
	"strings"
	"testing"

	"github.com/labctl/labctl/orchestrator/exitcode"
	"github.com/labctl/labctl/orchestrator/lab"
)

func TestHeadroomBytes(t *testing.T) {
	tests := []struct {
		name                        string
		speed, mtu, cable, respBits int
		want                        int64
	}{
		// Frames are the payload MTU plus 82 B on the wire: 2*4178 + 84 =
		// 8440; cable 5 m -> 2*25 ns * 100 Gb/s = 5000 bit; the switch's
		// pipeline 100 ns * 100 Gb/s = 10000 bit; response 3840 bit:
		// 18840 bit = 2355 B; 8440 + 2355 = 10795.
		{"100G 5m MTU4096", 100, 4096, 5, 3840, 10795},
		// 400G 100m: 2*500 ns * 400 Gb/s = 400000 bit, pipeline 40000:
		// 443840 bit = 55480 B; 8440 + 55480 = 63920.
		{"400G 100m MTU4096", 400, 4096, 100, 3840, 63920},
		// 25G 3m MTU 1500: 2*1582 + 84 = 3248; 750 + 2500 + 3840 = 7090
		// bit = 886.25 -> 887 B; 3248 + 887 = 4135.
		{"25G 3m MTU1500 rounds up", 25, 1500, 3, 3840, 4135},
		// 2*1106 + 84 = 2296; 10000 + 1 bit -> 1251 B.
		{"no cable, 1 bit of response", 100, 1024, 0, 1, 3547},
		// respBits 0: ports that obey at once (pause_response_quanta 0):
		// 15000 bit = 1875 B.
		{"100G 5m no response", 100, 4096, 5, 0, 10315},
		// The IEEE 802.3 PAUSE reaction bound of the speed, 394 quanta at
		// 100G = 201728 bit: 216728 bit = 27091 B; 8440 + 27091 = 35531.
		{"100G 5m IEEE response", 100, 4096, 5, ResponseBits(100), 35531},
		// 905 quanta at 400G = 463360 bit: 903360 bit = 112920 B.
		{"400G 100m IEEE response", 400, 4096, 100, ResponseBits(400), 121360},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := HeadroomBytes(tt.speed, tt.mtu, tt.cable, tt.respBits); got != tt.want {
				t.Errorf("HeadroomBytes(%d, %d, %d, %d) = %d, want %d", tt.speed, tt.mtu, tt.cable, tt.respBits, got, tt.want)
			}
		})
	}
}

func TestXoffTriggerBytes(t *testing.T) {
	for _, tt := range []struct {
		pool int64
		th   int
		want int64
	}{{1 << 20, 0, 1 << 19}, {900, 1, 600}, {900, -1, 300}, {0, 0, 0}} {
		if got := XoffTriggerBytes(tt.pool, tt.th); got != tt.want {
			t.Errorf("XoffTriggerBytes(%d, %d) = %d, want %d", tt.pool, tt.th, got, tt.want)
		}
	}
}

func TestProfiles(t *testing.T) {
	for _, name := range Profiles() {
		in, err := Profile(name)
		if err != nil {
			t.Fatalf("Profile(%q): %v", name, err)
		}
		if err := in.Validate(); err != nil {
			t.Errorf("profile %s does not validate: %v", name, err)
		}
		if in.DSCPToTC[26] != 3 || in.DSCPToTC[48] != CNPTC || len(in.DSCPToTC) != 64 {
			t.Errorf("profile %s: DSCP 26 -> %d, 48 -> %d, %d entries", name, in.DSCPToTC[26], in.DSCPToTC[48], len(in.DSCPToTC))
		}
	}
	dc, _ := Profile("")
	if dc.Profile != DefaultProfile || !dc.ECN.Enabled || !dc.PFC.Enabled {
		t.Errorf("default profile = %+v", dc)
	}
	_, err := Profile("nope")
	if err == nil || exitcode.Code(err) != exitcode.BadInput || !strings.Contains(err.Error(), "roce-dcqcn") {
		t.Errorf("unknown profile error = %v (code %d), want a usage error listing profiles", err, exitcode.Code(err))
	}
}

func TestFromSpecOverrides(t *testing.T) {
	i := func(v int) *int { return &v }
	b := func(v bool) *bool { return &v }
	f := func(v float64) *float64 { return &v }
	s := func(v string) *string { return &v }
	in, err := FromSpec(lab.QoSSpec{
		Profile:            "roce-dcqcn",
		LosslessPriorities: []int{4, 3},
		RoCEDSCP:           i(24),
		CNPDSCP:            i(40),
		MTU:                i(1024),
		CableLengthM:       i(30),
		ECN:                &lab.ECNSpec{KminKB: i(150), KmaxKB: i(1500), Pmax: f(0.1)},
		PFCWatchdog:        &lab.WatchdogSpec{DetectionMs: i(400), Action: s("forward")},
		PFC:                &lab.PFCSpec{Enabled: b(true)},
		ETSWeights:         map[int]int{3: 60, 0: 40},
	})
	if err != nil {
		t.Fatal(err)
	}
	if got := FormatInts(in.LosslessPriorities); got != "3,4" {
		t.Errorf("lossless = %s", got)
	}
	if in.DSCPToTC[24] != 3 || in.DSCPToTC[26] != 0 || in.DSCPToTC[40] != CNPTC || in.DSCPToTC[48] != 0 {
		t.Errorf("dscp map not rebuilt: 24->%d 26->%d 40->%d 48->%d", in.DSCPToTC[24], in.DSCPToTC[26], in.DSCPToTC[40], in.DSCPToTC[48])
	}
	if in.TCToPG[4] != 4 || in.TCToPG[5] != 0 {
		t.Errorf("tc->pg = %v", in.TCToPG)
	}
	kmin, kmax := in.ECN.ECNThresholds(400)
	if kmin != 150*1024 || kmax != 1500*1024 || in.ECN.Pmax != 0.1 {
		t.Errorf("ecn = %d %d %g", kmin, kmax, in.ECN.Pmax)
	}
	if in.Watchdog.DetectionMs != 400 || in.Watchdog.RestorationMs != 200 || in.Watchdog.Action != "forward" {
		t.Errorf("watchdog = %+v", in.Watchdog)
	}
	if in.MTU != 1024 || in.CableLengthM != 30 || in.ETSWeights[3] != 60 || len(in.ETSWeights) != 2 {
		t.Errorf("mtu/cable/ets = %d %d %v", in.MTU, in.CableLengthM, in.ETSWeights)
	}

	bad := []struct {
		name string
		spec lab.QoSSpec
		want string
	}{
		{"unknown profile", lab.QoSSpec{Profile: "x"}, "unknown QoS profile"},
		{"kmin above kmax", lab.QoSSpec{ECN: &lab.ECNSpec{KminKB: i(200), KmaxKB: i(100)}}, "kmin_kb 200 must be below kmax_kb 100"},
		{"detection range", lab.QoSSpec{PFCWatchdog: &lab.WatchdogSpec{DetectionMs: i(50)}}, "detection_ms: 50"},
		{"priority range", lab.QoSSpec{LosslessPriorities: []int{9}}, "9 is not a priority"},
		{"same dscp", lab.QoSSpec{RoCEDSCP: i(48)}, "both 48"},
		{"weights", lab.QoSSpec{ETSWeights: map[int]int{3: 90, 0: 20}}, "sum to 110"},
		// The CNP class is strict: a weight for it is thrown away.
		{"weight of the strict CNP class", lab.QoSSpec{ETSWeights: map[int]int{3: 50, 6: 10}}, "traffic class 6 is the CNPs', whose queue is strict priority"},
		// Replacing the profile's map without RoCE's class leaves RoCE
		// weight 1 against the others.
		{"RoCE's class left out", lab.QoSSpec{ETSWeights: map[int]int{0: 50, 1: 10}}, "gives RoCE's traffic class 3 no weight"},
	}
	for _, tt := range bad {
		t.Run(tt.name, func(t *testing.T) {
			_, err := FromSpec(tt.spec)
			if err == nil || !strings.Contains(err.Error(), tt.want) || exitcode.Code(err) != exitcode.BadInput {
				t.Errorf("err = %v, want usage error containing %q", err, tt.want)
			}
		})
	}
}

// The profile's DWRR weights follow RoCE: with RoCE on another traffic
// class (the first lossless priority), that queue gets the profile's RoCE
// share and queue 3 the other's, so best effort (20) does not outweigh
// RoCE (5). Weights the spec gives are kept as given.
func TestFromSpecETSWeightsFollowRoCE(t *testing.T) {
	for _, tt := range []struct {
		lossless []int
		ets      map[int]int
		want     map[int]int
	}{
		{nil, nil, map[int]int{0: 20, 1: 5, 2: 5, 3: 50, 4: 5, 5: 5, 7: 10}},
		{[]int{4}, nil, map[int]int{0: 20, 1: 5, 2: 5, 3: 5, 4: 50, 5: 5, 7: 10}},
		{[]int{3, 4}, nil, map[int]int{0: 20, 1: 5, 2: 5, 3: 50, 4: 5, 5: 5, 7: 10}},
		{[]int{5, 2}, nil, map[int]int{0: 20, 1: 5, 2: 50, 3: 5, 4: 5, 5: 5, 7: 10}},
		{[]int{0}, nil, map[int]int{0: 50, 1: 5, 2: 5, 3: 20, 4: 5, 5: 5, 7: 10}},
		{[]int{4}, map[int]int{4: 60, 0: 40}, map[int]int{4: 60, 0: 40}},
	} {
		in, err := FromSpec(lab.QoSSpec{LosslessPriorities: tt.lossless, ETSWeights: tt.ets})
		if err != nil {
			t.Fatalf("lossless %v: %v", tt.lossless, err)
		}
		if !maps.Equal(in.ETSWeights, tt.want) {
			t.Errorf("lossless %v, ets_weights %v: weights %v, want %v", tt.lossless, tt.ets, in.ETSWeights, tt.want)
		}
	}
}

func TestVariants(t *testing.T) {
	base, _ := Profile("roce-dcqcn")
	devs := TestDevices()
	for _, ecn := range []bool{true, false} {
		for _, pfc := range []bool{true, false} {
			in := base.WithECN(ecn).WithPFC(pfc)
			cfgs, err := ApplyAll(in, devs)
			if err != nil {
				t.Fatal(err)
			}
			if len(cfgs) != 2 {
				t.Fatalf("want 2 switch configs (host skipped), got %d", len(cfgs))
			}
			for _, d := range cfgs {
				for _, p := range d.Ports {
					if got := len(p.PFCPriorities) > 0; got != pfc {
						t.Errorf("ecn=%v pfc=%v: %s %s pfc priorities %v", ecn, pfc, d.Device, p.Name, p.PFCPriorities)
					}
					headroom := false
					for _, pg := range p.PGs {
						headroom = headroom || LosslessProfile(&pg.BufferProfile)
					}
					if (p.Watchdog != nil) != pfc || headroom != pfc {
						t.Errorf("ecn=%v pfc=%v: %s %s watchdog/headroom present=%v/%v", ecn, pfc, d.Device, p.Name, p.Watchdog != nil, headroom)
					}
					// The buffer is the ASIC's either way: every queue has
					// its egress admission, lossless queues only with PFC.
					for _, q := range p.Queues {
						lossless := q.Queue == 3
						if q.Buffer == nil || isLosslessQueueProfile(q.Buffer) != (lossless && pfc) {
							t.Errorf("ecn=%v pfc=%v: %s %s queue %d buffer %+v", ecn, pfc, d.Device, p.Name, q.Queue, q.Buffer)
						}
					}
					marks := 0
					for _, q := range p.Queues {
						if q.ECN != nil {
							marks++
						}
					}
					if (marks > 0) != ecn {
						t.Errorf("ecn=%v pfc=%v: %s %s has %d marking queues", ecn, pfc, d.Device, p.Name, marks)
					}
				}
			}
		}
	}
	// The variants are copies: the base is untouched.
	if !base.ECN.Enabled || !base.PFC.Enabled {
		t.Error("WithECN/WithPFC changed the receiver")
	}
}

func TestApply(t *testing.T) {
	in, _ := Profile("roce-dcqcn")
	dc, err := Apply(in, TestDevices()[0])
	if err != nil {
		t.Fatal(err)
	}
	p := dc.Port("Ethernet0")
	if p == nil || p.SpeedGbps != 100 || p.CableM != 5 {
		t.Fatalf("Ethernet0 = %+v", p)
	}
	q3 := p.Queue(3)
	if q3.ECN == nil || q3.ECN.MinBytes != 400*1024 || q3.ECN.MaxBytes != 1600*1024 || q3.Weight != 50 {
		t.Errorf("queue 3 = %+v %+v", q3, q3.ECN)
	}
	if !p.Queue(6).Strict {
		t.Error("CNP queue 6 is not strict")
	}
	pg := p.PG(3)
	if pg == nil || Val(pg.XoffBytes) != 35531 || Val(pg.SizeBytes) != 35531+8192 {
		t.Errorf("PG 3 = %+v", pg)
	}
	if dc.Port("Ethernet8") != nil {
		t.Error("a non-fabric port got QoS")
	}
	// Uplink: 400G, 30 m cable from the device list.
	up := dc.Port("Ethernet4")
	if Val(up.PG(3).XoffBytes) != HeadroomBytes(400, 4096, 30, ResponseBits(400)) {
		t.Errorf("uplink headroom = %d", Val(up.PG(3).XoffBytes))
	}
	_, err = Apply(in, Device{Name: "x", Ports: []Port{{Name: "Ethernet0", Fabric: true}}})
	if err == nil || !strings.Contains(err.Error(), "Ethernet0") {
		t.Errorf("missing speed: err = %v", err)
	}
}

func TestPortLess(t *testing.T) {
	in := []string{"Ethernet12", "Ethernet4", "Ethernet1/10", "Ethernet1/2", "Ethernet0", "Port-Channel3"}
	want := "Ethernet0 Ethernet1/2 Ethernet1/10 Ethernet4 Ethernet12 Port-Channel3"
	for i := range in {
		for j := i + 1; j < len(in); j++ {
			if PortLess(in[j], in[i]) {
				in[i], in[j] = in[j], in[i]
			}
		}
	}
	if got := strings.Join(in, " "); got != want {
		t.Errorf("sorted = %s", got)
	}
}

// The egress lossless pool holds everything ingress can admit (shared
// pool, every PG reserve and headroom, every queue reserve), so PFC, not
// an egress limit, bounds lossless traffic; it is the same with PFC off.
func TestEgressLosslessPoolIsTheWholeBuffer(t *testing.T) {
	in, _ := Profile("")
	for _, pfc := range []bool{true, false} {
		cfgs, err := ApplyAll(in.WithPFC(pfc), TestDevices())
		if err != nil {
			t.Fatal(err)
		}
		for _, dc := range cfgs {
			admitted := dc.IngressPoolBytes()
			for _, p := range dc.Ports {
				for _, pg := range p.PGs {
					admitted += Val(pg.SizeBytes)
				}
				for _, q := range p.Queues {
					admitted += Val(q.Buffer.SizeBytes)
				}
			}
			if got := dc.Pool(EgressLosslessPool).SizeBytes; got < admitted {
				t.Errorf("pfc %v %s: egress lossless pool %d B < %d B ingress can admit", pfc, dc.Device, got, admitted)
			}
		}
	}
}

// The PAUSE response the lab's ports take is one figure for lint, the
// rendered headroom and the simulator: the intent's, where it gives one
// (0 quanta: at once), else the speed's IEEE bound.
func TestPauseResponseBits(t *testing.T) {
	q := func(n int) *int { return &n }
	for _, tt := range []struct {
		name  string
		quant *int
		speed int
		want  int
	}{
		{"IEEE bound at 400G", nil, 400, 905 * 512},
		{"IEEE bound at 100G", nil, 100, 394 * 512},
		{"at once", q(0), 400, 0},
		{"the lab's, at any speed", q(100), 400, 100 * 512},
	} {
		in, err := FromSpec(lab.QoSSpec{Profile: "roce-dcqcn", PauseResponseQuanta: tt.quant})
		if err != nil {
			t.Fatal(err)
		}
		if got := PauseResponseBits(&in, tt.speed); got != tt.want {
			t.Errorf("%s: %d bit times, want %d", tt.name, got, tt.want)
		}
		// The rendered profile holds the headroom for that response.
		if got, want := Val(in.losslessPGProfile(tt.speed, 5).XoffBytes), HeadroomBytes(tt.speed, in.MTU, 5, tt.want); got != want {
			t.Errorf("%s: the rendered xoff is %d, want %d", tt.name, got, want)
		}
	}
	if got := PauseResponseBits(nil, 200); got != 453*512 {
		t.Errorf("no intent: %d, want the IEEE bound at 200G", got)
	}
}

// The lab's fabric ports are rendered at the fabric's MTU (DevicesFromGraph
// gives fabric.SwitchMTU), raised to what RoCE's packets need where the
// lab's MTU is larger, and routed: a config labctl renders relies on no
// NOS default for them (EOS's routed ports default to 1500). A port whose
// MTU the fabric does not give stays without one.
func TestApplyPortMTU(t *testing.T) {
	in, _ := Profile("roce-dcqcn")
	dev := Device{Name: "leaf1", Ports: []Port{
		{Name: "Ethernet0", SpeedGbps: 200, Fabric: true, MTU: 9100},
		{Name: "Ethernet1", SpeedGbps: 200, Fabric: true},
	}}
	for _, c := range []struct {
		labMTU, want0 int
	}{{4096, 9100}, {9216, 9216 + RoCEHeaderBytes}} {
		in.MTU = c.labMTU
		dc, err := Apply(in, dev)
		if err != nil {
			t.Fatal(err)
		}
		if p := dc.Port("Ethernet0"); p.MTU != c.want0 || !p.Routed {
			t.Errorf("lab MTU %d: the fabric's port at MTU %d, routed %v; want %d, routed", c.labMTU, p.MTU, p.Routed, c.want0)
		}
		if p := dc.Port("Ethernet1"); p.MTU != 0 || p.Routed {
			t.Errorf("lab MTU %d: a port without the fabric's MTU: MTU %d, routed %v", c.labMTU, p.MTU, p.Routed)
		}
	}
}
