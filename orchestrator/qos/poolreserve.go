package qos

import (
	"cmp"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/labctl/labctl/orchestrator/plural"
)

// poolReserves (QOS028) flags a buffer pool smaller than the reserves of
// the priority groups and queues drawing on it. The switch takes every
// reserve out of the pool: SAI defines a pool's shared size as its size
// less the reserved buffers of the queues, ports and PGs on it
// (saibuffer.h, SAI_BUFFER_POOL_ATTR_SHARED_SIZE), and sonic-swss's
// bufferorch hands BUFFER_POOL size to SAI_BUFFER_POOL_ATTR_SIZE
// (processBufferPool) and a BUFFER_PROFILE's size to
// SAI_BUFFER_PROFILE_ATTR_BUFFER_SIZE, the reserve (processBufferProfile),
// checking neither against the other. Below its reserves a pool has
// nothing left to share: each PG or queue holds its reserve alone (a
// lossy queue's 1518 bytes, one packet), and what SAI does with reserves
// it cannot honour is the vendor's (the sources do not say; refusing the
// profile or oversubscribing, the queues lose their shared buffer
// either way). It is an error where the pool feeds a class RoCE needs
// (RoCE's, the CNPs' or a lossless one) that traffic reaches: the CNPs'
// queue drops their bursts, so senders are not slowed and PFC pauses
// instead; a warning where only best effort draws on it, which drops at
// its reserve. The simulator runs a pool's size as its shared part, the
// reserves beside it (sim.Pool), as SONiC sizes pools on Mellanox, whose
// pool is the memory less every reserve (sonic-net/SONiC
// doc/qos/reclaim-reserved-buffer.md): it runs such a pool with little
// shared buffer, not none, so its drops show the harm, less of it.
// Both readings are real: a stock Mellanox config_db (sonic-buildimage's
// buffers_defaults_t1.j2 for the SN2410, with the lossless PGs
// buffermgrd writes) reserves some 6 MB on a 3.3 MB lossless pool, as
// sized. So a pool below its reserves is a finding of its own severity
// only where it is small under both: less than one frame (the port's
// MTU, else RoCE's 4096) for each PG and queue drawing on it, which leaves no buffer to
// share on either; above that it is a note that names the two readings.
// The platform buffer labctl assumes for a NOS that states none (EOS) is
// not the config's and not checked.
func (l *linter) poolReserves(d *DeviceConfig) {
	if d.PlatformBuffer || len(d.Pools) == 0 {
		return
	}
	roce, cnp := l.roceDSCPs()
	type use struct {
		reserved int64
		frames   int64 // one frame of its port's MTU a PG or queue
		n        int
		profiles map[string]bool
		hurt     map[string]bool // "TC6 (queue 6)"
	}
	uses := map[string]*use{}
	// Whether some port of the switch classifies into each class, asked
	// once per class, not once per port: deviceReaches walks every port.
	devReached := map[int]bool{}
	devReaches := func(tc int) bool {
		r, ok := devReached[tc]
		if !ok {
			r = deviceReaches(d, tc)
			devReached[tc] = r
		}
		return r
	}
	draw := func(b *BufferProfile, what string, hurt []string, mtu int) {
		if b == nil || b.Pool == "" || Val(b.SizeBytes) <= 0 {
			return
		}
		u := uses[b.Pool]
		if u == nil {
			u = &use{profiles: map[string]bool{}, hurt: map[string]bool{}}
			uses[b.Pool] = u
		}
		u.reserved += Val(b.SizeBytes)
		u.frames += int64(mtu)
		u.n++
		u.profiles[cmp.Or(b.Profile, what)] = true
		for _, h := range hurt {
			u.hurt[h] = true
		}
	}
	for j := range d.Ports {
		p := &d.Ports[j]
		// The classes RoCE needs, by the PG and the queue they take on
		// this port: an ingress PG holds what its own port classifies
		// (reaches), an egress queue what any port of the switch sends
		// it (deviceReaches).
		byPG, byQueue := map[int][]string{}, map[int][]string{}
		for _, tc := range slices.Compact(slices.Sorted(slices.Values(roceClasses(p, roce, cnp)))) {
			c := p.Class(tc)
			if reaches(p, tc) {
				byPG[c.PG] = append(byPG[c.PG], fmt.Sprintf("TC%d (PG %d)", tc, c.PG))
			}
			if devReaches(tc) {
				byQueue[c.Queue] = append(byQueue[c.Queue], fmt.Sprintf("TC%d (queue %d)", tc, c.Queue))
			}
		}
		// A frame of the port: its MTU, else a RoCE frame's.
		frame := cmp.Or(p.EnforcedMTU(), roceMaxMTU)
		for k := range p.PGs {
			g := &p.PGs[k]
			draw(&g.BufferProfile, "PG", byPG[g.PG], frame)
		}
		for k := range p.Queues {
			q := &p.Queues[k]
			draw(q.Buffer, "queue", byQueue[q.Queue], frame)
		}
	}
	for _, name := range slices.Sorted(maps.Keys(uses)) {
		u, pl := uses[name], d.Pool(name)
		if pl == nil || pl.SizeBytes <= 0 || pl.SizeBytes >= u.reserved {
			continue // an undefined pool is QOS010's; size 0 the NOS's
		}
		what := "queues"
		if pl.Type == "ingress" {
			what = "priority groups"
		}
		where := "BUFFER_POOL|" + name
		profiles := plural.Noun(len(u.profiles), "profile") + " " + strings.Join(slices.Sorted(maps.Keys(u.profiles)), ", ")
		if pl.SizeBytes >= u.frames {
			l.addAt(RulePoolReserves, SevInfo, d.Device, "", where,
				fmt.Sprintf("check which your platform does; where its SAI takes the reserves out of the pool, make %s's size larger than the %d bytes reserved, by the shared buffer they need", where, u.reserved),
				"buffer pool %s is %d bytes, less than the %d bytes its %d %s reserve (%s): a switch whose SAI takes every reserve out of the pool (SAI_BUFFER_POOL_ATTR_SHARED_SIZE) has nothing left to share, one whose pool is the shared part alone (SONiC's Mellanox pools, as labctl's simulator runs every pool) shares all %d bytes",
				name, pl.SizeBytes, u.reserved, u.n, what, profiles, pl.SizeBytes)
			continue
		}
		sev, harm := SevWarning, "; only best effort draws on it, and it drops at its reserve"
		if len(u.hurt) > 0 {
			sev = SevError
			harm = fmt.Sprintf("; it holds %s, which RoCE needs (its data, its CNPs or a lossless class), and they drop at their reserve: a CNP lost leaves its sender unslowed, so PFC pauses in DCQCN's place", plural.Some(slices.Sorted(maps.Keys(u.hurt)), 4, ", "))
		}
		l.addAt(RulePoolReserves, sev, d.Device, "", where,
			fmt.Sprintf("make %s's size larger than the %d bytes its %s reserve, by the shared buffer they need, or lower their profiles' size", where, u.reserved, what),
			"buffer pool %s is %d bytes, less than the %d bytes its %d %s reserve (%s) and than one frame for each of them (%d bytes): whether the switch takes the reserves out of the pool (SAI's shared size, nothing left) or shares the pool beside them, each holds little more than its reserve%s",
			name, pl.SizeBytes, u.reserved, u.n, what, profiles, u.frames, harm)
	}
}
