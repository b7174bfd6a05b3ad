package sim

import (
	"fmt"
	"testing"
)

// Every depth falls in the bucket whose lower edge is at most 12.5% below
// it, and the buckets tile the range in order.
func TestDepthBuckets(t *testing.T) {
	for i := 1; i < depthBuckets; i++ {
		if depthLow(i) <= depthLow(i-1) {
			t.Fatalf("bucket %d starts at %d, not above bucket %d's %d", i, depthLow(i), i-1, depthLow(i-1))
		}
		if got := depthBucket(depthLow(i)); got != i {
			t.Fatalf("depth %d (bucket %d's lower edge) falls in bucket %d", depthLow(i), i, got)
		}
		if got := depthBucket(depthLow(i) - 1); got != i-1 {
			t.Fatalf("depth %d (just below bucket %d) falls in bucket %d", depthLow(i)-1, i, got)
		}
	}
	for _, v := range []int64{0, 1, 4095, 4096, 4178, 8191, 8192, 65536, 100_000, 1 << 20, 3_000_000, 52 << 20, 1<<28 - 1} {
		b := depthBucket(v)
		low := depthLow(b)
		if low > v || (v >= 4096 && float64(v-low) > 0.125*float64(v)) {
			t.Errorf("depth %d: bucket %d lower edge %d, want within 12.5%% below", v, b, low)
		}
		if v < 4096 && low != 0 {
			t.Errorf("depth %d below 4 KiB reads %d, want 0", v, low)
		}
	}
	if b := depthBucket(1 << 40); b != depthBuckets-1 {
		t.Errorf("1 TiB falls in bucket %d, want the last (%d)", b, depthBuckets-1)
	}
}

func TestDepthQuantile(t *testing.T) {
	var h depthHist
	if q := h.quantile(0.99, 0); q != 0 {
		t.Errorf("empty histogram p99 = %d, want 0", q)
	}
	// 90 arrivals find an empty queue, 10 find 1 MiB ahead.
	for range 90 {
		h.add(0)
	}
	for range 10 {
		h.add(1 << 20)
	}
	if p50, p99 := h.quantile(0.5, 1<<21), h.quantile(0.99, 1<<21); p50 != 0 || p99 != 1<<20 {
		t.Errorf("p50 %d p99 %d, want 0 and %d", p50, p99, 1<<20)
	}
	if q := h.quantile(0.99, 500_000); q != 500_000 {
		t.Errorf("p99 capped by a peak of 500000 = %d", q)
	}
}

// Two senders of P packets at line rate into one receiver, with a buffer
// that holds them all: the queue grows by one packet per two arrivals, so
// arrival k of 2P finds about k/2 packets ahead: p50 about P/2, p99 about
// 0.99 P, the peak P. The ports carrying ACKs back stay below one packet.
func TestQueueDepthPercentiles(t *testing.T) {
	const pkts = 1000
	cfg := Config{
		Topology:   star(3, 100),
		DefaultQoS: map[int]PortQoS{},
		DurationNs: 2_000_000,
		Seed:       1,
	}
	for i := 1; i <= 2; i++ {
		cfg.Flows = append(cfg.Flows, Flow{ID: fmt.Sprintf("f%d", i), Src: fmt.Sprintf("h%d", i), Dst: "h0", Bytes: pkts * DefaultMTU})
	}
	r := mustRun(t, cfg)
	wire := float64(DefaultMTU + WireOverheadBytes)
	var hot *PortStats
	for i := range r.Ports {
		p := &r.Ports[i]
		switch {
		case p.Node == "sw" && p.Port == "Ethernet0" && p.Priority == 3:
			hot = p
		case p.Node == "sw":
			if !p.Switch || p.QueueP99Bytes != 0 {
				t.Errorf("%s:%s prio %d: switch=%v queue p99 %d, want a switch port with nothing queued ahead beyond 4 KiB", p.Node, p.Port, p.Priority, p.Switch, p.QueueP99Bytes)
			}
		default:
			if p.Switch || p.QueueArrivals != 0 {
				t.Errorf("NIC port %s:%s: switch=%v arrivals %d, want no queue depth", p.Node, p.Port, p.Switch, p.QueueArrivals)
			}
		}
	}
	if hot == nil {
		t.Fatal("no counters for the receiver's switch port")
	}
	if hot.QueueArrivals != 2*pkts {
		t.Errorf("arrivals %d, want %d", hot.QueueArrivals, 2*pkts)
	}
	// The queue's depth ahead of arrival k is about k/2 packets; the
	// reading is a bucket's lower edge, up to 12.5% low.
	check := func(name string, got int64, want float64) {
		if g := float64(got); g < 0.8*want || g > 1.05*want {
			t.Errorf("%s = %d bytes, want about %.0f (-20%%..+5%%)", name, got, want)
		}
	}
	check("p50", hot.QueueP50Bytes, 0.5*pkts*wire)
	check("p99", hot.QueueP99Bytes, 0.99*pkts*wire)
	if hot.QueueP99Bytes > hot.MaxQueueBytes || float64(hot.MaxQueueBytes) < 0.95*pkts*wire {
		t.Errorf("max %d, p99 %d: want p99 <= max and max about %d packets", hot.MaxQueueBytes, hot.QueueP99Bytes, pkts)
	}
}
