package qos

import (
	"fmt"
	"strings"
	"testing"

	"github.com/labctl/labctl/orchestrator/lab"
)

// Each port speed gets the pool SONiC gives the Spectrum switch of that
// speed, faster ports the largest.
func TestSwitchBufferFor(t *testing.T) {
	for _, tc := range []struct {
		gbps int
		sku  string
		pool int64
	}{
		{25, "ACS-MSN2700", 3302912},
		{100, "ACS-MSN2700", 3302912},
		{200, "ACS-MSN3700", 11622400},
		{400, "ACS-MSN4700", 20627456},
		{800, "ACS-SN5600", 52161690},
		{1600, "ACS-SN5600", 52161690},
	} {
		b := SwitchBufferFor(tc.gbps)
		if b.SKU != tc.sku || b.IngressPoolBytes != tc.pool {
			t.Errorf("%d Gb/s: %s, want %s with %d bytes", tc.gbps, b, tc.sku, tc.pool)
		}
	}
}

// A rendered switch's pools follow its fastest data port unless the lab
// sizes them; host-facing and fabric ports count alike, other ports not.
func TestApplySizesPoolsBySwitch(t *testing.T) {
	in, _ := Profile("roce-dcqcn")
	dev := func(speeds ...int) Device {
		d := Device{Name: "leaf1", Role: "leaf"}
		for i, s := range speeds {
			d.Ports = append(d.Ports, Port{Name: "Ethernet" + string(rune('0'+i)), SpeedGbps: s, Fabric: true})
		}
		// A management port at 1000G must not count.
		d.Ports = append(d.Ports, Port{Name: "eth0", SpeedGbps: 1000})
		return d
	}
	pool := func(in Intent, d Device) int64 {
		t.Helper()
		dc, err := Apply(in, d)
		if err != nil {
			t.Fatal(err)
		}
		ingress := dc.Pool(IngressLosslessPool).SizeBytes
		if el := dc.Pool(EgressLosslessPool).SizeBytes; el <= ingress {
			t.Errorf("egress lossless pool %d is not the whole buffer (ingress %d)", el, ingress)
		}
		return ingress
	}
	if got := pool(in, dev(100, 100)); got != 3302912 {
		t.Errorf("100G switch: pool %d, want SN2700's 3302912", got)
	}
	if got := pool(in, dev(200, 400)); got != 20627456 {
		t.Errorf("200G/400G switch: pool %d, want SN4700's 20627456", got)
	}
	in.Buffer.SharedPoolBytes = 8 << 20
	if got := pool(in, dev(100)); got != 8<<20 {
		t.Errorf("lab-sized pool: %d, want %d", got, 8<<20)
	}
}

// The lab spec's documentation of qos.buffer_pool_bytes lists the pool of
// every assumed switch.
func TestLabDocumentsEverySwitchBuffer(t *testing.T) {
	doc := lab.KeyDocs["qos.buffer_pool_bytes"].Default
	for _, b := range spectrumBuffers {
		if !strings.Contains(doc, fmt.Sprint(b.IngressPoolBytes)) {
			t.Errorf("lab.KeyDocs[qos.buffer_pool_bytes] does not give %s's pool %d: %q", b.SKU, b.IngressPoolBytes, doc)
		}
	}
}
