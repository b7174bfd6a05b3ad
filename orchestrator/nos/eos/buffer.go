package eos

import (
	"github.com/labctl/labctl/orchestrator/qos"
)

// EOS running-configs carry no buffer settings: the switch uses its
// platform's. Arista publishes no default PG headroom, XOFF/XON
// thresholds or alpha for its EOS platforms, so labctl assumes what SONiC
// configures on the same Arista hardware: the Arista-7050CX3-32S-C32
// (Broadcom Trident3) BALANCED t1 profile of sonic-buildimage
// (device/arista/x86_64-arista_7050cx3_32s/Arista-7050CX3-32S-C32/BALANCED:
// buffers_defaults_t1.j2 and pg_profile_lookup.ini, at 086b03bd70). The
// simulator uses these for every EOS switch; lint says so (QOS000).
//
// But for the egress lossless pool: SONiC's profile gives it 32599040 B,
// less than what ingress admits to the lossless PGs (the ingress pool, its
// shared headroom pool and the PGs' reserves), so a fabric-wide PFC
// backlog (a 32:1 incast of 64 QPs a flow beside a permutation on 64gpu)
// filled it before ingress paused and the lossless queues dropped at
// egress: 33,187 packets a run, which no PFC config could prevent. labctl
// assumes that an EOS switch's lossless queues are not limited at egress
// (their queue profile's static_th is the pool, below), which only holds
// if the pool holds all that ingress admits: here the two pools, and
// qos.AttachTopology adds the reserves of the switch's ports once they
// are all known.
const (
	platformName            = "Arista 7050CX3 (Trident3) as SONiC's BALANCED t1 profile configures it, its egress lossless pool holding what ingress admits"
	platformIngressPool     = 32712448
	platformHeadroomPool    = 1622016
	platformEgressLossyPool = 24709632
	platformEgressLossless  = platformIngressPool + platformHeadroomPool
)

// platformPools are the pools of the assumed platform: an ingress pool
// with a shared headroom pool, and egress pools for lossy and lossless
// queues.
func platformPools() []qos.PoolConfig {
	return []qos.PoolConfig{
		{Name: qos.EgressLosslessPool, Type: "egress", Mode: "static", SizeBytes: platformEgressLossless},
		{Name: qos.EgressLossyPool, Type: "egress", Mode: "dynamic", SizeBytes: platformEgressLossyPool},
		{Name: qos.IngressLosslessPool, Type: "ingress", Mode: "dynamic", SizeBytes: platformIngressPool, HeadroomPoolBytes: qos.Ptr(int64(platformHeadroomPool))},
	}
}

// applyPlatformBuffer gives a parsed EOS config the assumed platform's
// buffer: lossless PGs (4608 B reserved = xon = xon_offset, 160000 B
// headroom from the shared headroom pool, dynamic_th 0) for the PFC
// priorities, the rest lossy (static_th the pool: not limited at
// ingress); lossless queues not limited at egress, lossy queues 1792 B
// reserved then dynamic_th 3.
func applyPlatformBuffer(dc *qos.DeviceConfig) {
	dc.Pools = platformPools()
	dc.PlatformBuffer = true
	lossyPG := qos.BufferProfile{Profile: "ingress_lossy_profile", Pool: qos.IngressLosslessPool, SizeBytes: qos.Ptr(int64(0)), StaticThBytes: qos.Ptr(int64(platformIngressPool))}
	losslessQ := qos.BufferProfile{Profile: "egress_lossless_profile", Pool: qos.EgressLosslessPool, SizeBytes: qos.Ptr(int64(0)), StaticThBytes: qos.Ptr(int64(platformEgressLossless))}
	lossyQ := qos.BufferProfile{Profile: "egress_lossy_profile", Pool: qos.EgressLossyPool, SizeBytes: qos.Ptr(int64(1792)), DynamicTh: qos.Ptr(3)}
	ports := make([]*qos.PortConfig, 0, len(dc.Ports)+1)
	for i := range dc.Ports {
		ports = append(ports, &dc.Ports[i])
	}
	if dc.DefaultPort != nil {
		ports = append(ports, dc.DefaultPort)
	}
	for _, p := range ports {
		lossless, losslessQueue := map[int]bool{}, map[int]bool{}
		for _, pr := range p.PFCPriorities {
			lossless[pr] = true
			losslessQueue[p.TCToQueue[pr]] = true
		}
		p.PGs = nil
		for pg := range qos.NumTC {
			if lossless[pg] {
				p.PGs = append(p.PGs, qos.PGConfig{PG: pg, Origin: "platform (" + platformName + ")", BufferProfile: qos.BufferProfile{
					Profile: "pg_lossless_platform_profile", Pool: qos.IngressLosslessPool,
					SizeBytes: qos.Ptr(int64(4608)), XonBytes: qos.Ptr(int64(4608)), XonOffsetBytes: qos.Ptr(int64(4608)),
					XoffBytes: qos.Ptr(int64(160000)), DynamicTh: qos.Ptr(0),
				}})
			} else {
				p.PGs = append(p.PGs, qos.PGConfig{PG: pg, Origin: "platform (" + platformName + ")", BufferProfile: lossyPG.Clone()})
			}
		}
		have := map[int]bool{}
		for j := range p.Queues {
			q := &p.Queues[j]
			have[q.Queue] = true
			q.Buffer = qos.Ptr(lossyQ.Clone())
			if losslessQueue[q.Queue] {
				q.Buffer = qos.Ptr(losslessQ.Clone())
			}
		}
		for q := range qos.NumTC {
			if !have[q] {
				b := lossyQ.Clone()
				if losslessQueue[q] {
					b = losslessQ.Clone()
				}
				p.Queues = append(p.Queues, qos.QueueConfig{Queue: q, Weight: 1, Buffer: &b})
			}
		}
	}
	dc.Defaults = append(dc.Defaults, qos.Default{Field: "buffer (pools, PG and queue profiles)", Value: "the platform defaults of an " + platformName + ": pools, PG headroom 160000 B, dynamic_th 0; a port's egress queue lossless (not limited) for the priorities its own PFC makes no-drop, every other queue lossy (1792 B, dynamic_th 3)",
		Source: "assumed: EOS configs carry no buffer settings, and Arista publishes none"})
}
