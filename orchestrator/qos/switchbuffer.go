package qos

import "fmt"

// SwitchBuffer is the shared buffer of the switch labctl assumes for a
// SONiC switch when the lab does not size it (qos.buffer_pool_bytes): the
// NVIDIA Spectrum switch SONiC supports at the switch's fastest port
// speed, with the pools SONiC's own buffer template gives it. It is the
// same family as the HWSKU labctl deploys SONiC-VS with
// (Mellanox-SN4700-V64), and its lossless PG profile is the one labctl
// renders: dynamic_th 0, an ingress PG may hold as much as is free.
//
// The pool matters to every congestion figure: it bounds how deep a
// lossless queue grows before PFC pauses its senders (with dynamic_th 0,
// N congested ingresses stop near N/(N+1) of the pool), hence how long a
// DCQCN sender throttled by that queue's marks stays throttled. A 100G
// switch with a 400G-class buffer would hold a queue ten times deeper than
// real 100G switches do.
type SwitchBuffer struct {
	// Switch is the model and ASIC, SKU the SONiC HWSKU the figures come
	// from.
	Switch, SKU string
	// MaxSpeedGbps is the fastest port speed of this switch.
	MaxSpeedGbps int
	// IngressPoolBytes is ingress_lossless_pool's size: the shared buffer
	// the PGs draw on (headroom and reserves come on top of it). SONiC
	// gives the lossy pools the same size.
	IngressPoolBytes int64
}

// spectrumBuffers are the pools of sonic-buildimage's
// device/mellanox/<platform>/<SKU>/buffers_defaults_t1.j2 at commit
// 086b03bd70 (ingress_lossless_pool_size), slowest switch first.
var spectrumBuffers = []SwitchBuffer{
	{Switch: "NVIDIA SN2700 (Spectrum)", SKU: "ACS-MSN2700", MaxSpeedGbps: 100, IngressPoolBytes: 3302912},
	{Switch: "NVIDIA SN3700 (Spectrum-2)", SKU: "ACS-MSN3700", MaxSpeedGbps: 200, IngressPoolBytes: 11622400},
	{Switch: "NVIDIA SN4700 (Spectrum-3)", SKU: "ACS-MSN4700", MaxSpeedGbps: 400, IngressPoolBytes: 20627456},
	{Switch: "NVIDIA SN5600 (Spectrum-4)", SKU: "ACS-SN5600", MaxSpeedGbps: 800, IngressPoolBytes: 52161690},
}

// SwitchBufferFor returns the assumed switch for a switch whose fastest
// port runs at speedGbps: the smallest Spectrum switch with ports that
// fast (the largest for faster ports).
func SwitchBufferFor(speedGbps int) SwitchBuffer {
	for _, b := range spectrumBuffers {
		if speedGbps <= b.MaxSpeedGbps {
			return b
		}
	}
	return spectrumBuffers[len(spectrumBuffers)-1]
}

// String names the switch and its pool.
func (b SwitchBuffer) String() string {
	return fmt.Sprintf("%s, %d-byte ingress pool (SONiC %s)", b.Switch, b.IngressPoolBytes, b.SKU)
}

// poolBytes is the ingress pool of dev: the intent's when the lab sizes
// it, else the assumed switch's for dev's fastest data port.
func (b BufferIntent) poolBytes(dev Device) int64 {
	fastest := 0
	for _, p := range dev.Ports {
		if p.Fabric {
			fastest = max(fastest, p.SpeedGbps)
		}
	}
	return b.poolAt(fastest)
}

// PoolBytesFor is the ingress pool of a switch config that gives none (a
// config without buffer pools): the intent's when the lab sizes it, else
// the assumed switch's for the config's fastest port.
func (b BufferIntent) PoolBytesFor(dc *DeviceConfig) int64 {
	fastest := 0
	for _, p := range dc.Ports {
		fastest = max(fastest, p.SpeedGbps)
	}
	return b.poolAt(fastest)
}

// poolAt is the pool of a switch whose fastest port runs at fastestGbps.
func (b BufferIntent) poolAt(fastestGbps int) int64 {
	if b.SharedPoolBytes > 0 {
		return b.SharedPoolBytes
	}
	return SwitchBufferFor(fastestGbps).IngressPoolBytes
}
