package qos

import "testing"

// A pool's xoff of 0 is SAI's default XOFF_SIZE: no shared headroom pool,
// so a lossless PG holds its headroom inside its own size, as with no
// xoff at all (it was taken for a shared headroom pool of 0 bytes, and
// lint found every lossless PG's headroom short).
func TestHeadroomPoolOfZeroIsNone(t *testing.T) {
	pg := BufferProfile{Pool: IngressLosslessPool, SizeBytes: Ptr(int64(60000)), XoffBytes: Ptr(int64(50000)), XonBytes: Ptr(int64(8192)), DynamicTh: Ptr(0)}
	for _, xoff := range []*int64{nil, Ptr(int64(0))} {
		d := DeviceConfig{Pools: []PoolConfig{{Name: IngressLosslessPool, Type: "ingress", Mode: "dynamic", SizeBytes: 1 << 24, HeadroomPoolBytes: xoff}}}
		a := d.Admit(&pg)
		if a.SharedHeadroom || a.HeadroomBytes != 50000 || a.ReservedBytes != 10000 {
			t.Errorf("pool xoff %v: admission %+v, want 50000 bytes of private headroom and 10000 reserved", xoff, a)
		}
	}
	d := DeviceConfig{Pools: []PoolConfig{{Name: IngressLosslessPool, Type: "ingress", Mode: "dynamic", SizeBytes: 1 << 24, HeadroomPoolBytes: Ptr(int64(1 << 20))}}}
	if a := d.Admit(&pg); !a.SharedHeadroom || a.HeadroomBytes != 50000 || a.ReservedBytes != 60000 {
		t.Errorf("pool xoff 1 MiB: admission %+v, want the headroom from the shared pool", a)
	}
}
