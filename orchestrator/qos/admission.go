package qos

import "math"

// Admission is a buffer profile as the switch applies it to one ingress
// priority group or egress queue: SAI's meaning of SONiC's BUFFER_PROFILE
// fields, decided here once for lint, the simulator and `config show`.
type Admission struct {
	// Pool is the pool the shared part comes from ("" none: no limit).
	Pool string `json:"pool,omitempty"`
	// ReservedBytes is guaranteed before the shared pool is touched.
	ReservedBytes int64 `json:"reserved_bytes"`
	// The shared use is capped at StaticBytes, or at Alpha times the
	// pool's free space; NoShared admits nothing shared (alpha 0).
	StaticBytes int64   `json:"static_bytes,omitempty"`
	Alpha       float64 `json:"alpha,omitempty"`
	NoShared    bool    `json:"no_shared,omitempty"`
	// Lossless PGs: HeadroomBytes absorb what arrives after XOFF, from the
	// pool's shared headroom pool when SharedHeadroom; XON follows once
	// the use is XonOffsetBytes below the XOFF point or at most XonBytes.
	HeadroomBytes  int64 `json:"headroom_bytes,omitempty"`
	SharedHeadroom bool  `json:"shared_headroom,omitempty"`
	XonBytes       int64 `json:"xon_bytes,omitempty"`
	XonOffsetBytes int64 `json:"xon_offset_bytes,omitempty"`
}

// Admit resolves a profile on this switch, as SAI defines the fields:
//   - size is the reserve (SAI RESERVED_BUFFER_SIZE). A lossless PG with
//     private headroom (no shared headroom pool, as on NVIDIA Spectrum,
//     where SONiC sets size = xon + xoff) holds its xoff inside it: the
//     headroom is xoff and the reserve the rest; a size below xoff leaves
//     only size for the headroom. With a shared headroom pool (an xoff
//     above 0 on the ingress pool: PoolConfig.HeadroomShared) size is the
//     reserve and xoff comes from the pool.
//   - static_th caps the shared use (0: the pool's size, no limit);
//     dynamic_th n gives alpha = 2^n of the pool's free space (-8: alpha
//     0, no shared buffer, as NVIDIA defines it). A profile with neither
//     has had the NOS's default filled in by its parser (Defaults).
func (d *DeviceConfig) Admit(b *BufferProfile) Admission {
	a := Admission{Pool: b.Pool, ReservedBytes: Val(b.SizeBytes)}
	pl := d.Pool(b.Pool)
	switch {
	case b.StaticThBytes != nil && *b.StaticThBytes > 0:
		a.StaticBytes = *b.StaticThBytes
	case b.StaticThBytes != nil:
		a.StaticBytes = unlimitedBytes(pl)
	case b.DynamicTh != nil && *b.DynamicTh <= DynamicThZero:
		a.NoShared = true
	case b.DynamicTh != nil:
		a.Alpha = math.Pow(2, float64(*b.DynamicTh))
	default:
		// No threshold at all: nothing shared is admitted. Parsers fill
		// in the NOS's default, so only a hand-built config gets here.
		a.NoShared = true
	}
	if LosslessProfile(b) {
		xoff := Val(b.XoffBytes) // 0 where the switch sizes it (SizedBySwitch)
		a.XonBytes, a.XonOffsetBytes = Val(b.XonBytes), Val(b.XonOffsetBytes)
		if pl.HeadroomShared() {
			a.HeadroomBytes, a.SharedHeadroom = xoff, true
		} else {
			a.HeadroomBytes = min(xoff, a.ReservedBytes)
			a.ReservedBytes -= a.HeadroomBytes
		}
	}
	return a
}

// unlimitedBytes is a static threshold no use can pass: the pool's size.
func unlimitedBytes(pl *PoolConfig) int64 {
	if pl == nil || pl.SizeBytes == 0 {
		return math.MaxInt64 / 4
	}
	return pl.SizeBytes
}

// SoleUseBytes is the most a PG or queue admits while it alone draws on
// its pool: its reserve plus the static cap, or, with a dynamic
// threshold, alpha/(1+alpha) of the pool (where the shared use meets
// alpha times the space left free). ok is false where that depends on
// what the config does not give (a dynamic threshold on a pool of unknown
// size).
func (d *DeviceConfig) SoleUseBytes(b *BufferProfile) (n int64, ok bool) {
	a := d.Admit(b)
	switch {
	case a.NoShared:
		return a.ReservedBytes, true
	case a.StaticBytes > 0:
		return a.ReservedBytes + a.StaticBytes, true
	case b.DynamicTh != nil:
		pl := d.Pool(b.Pool)
		if pl == nil || pl.SizeBytes <= 0 {
			return 0, false
		}
		return a.ReservedBytes + XoffTriggerBytes(pl.SizeBytes, *b.DynamicTh), true
	}
	return 0, false
}
