package lab

import (
	"fmt"
	"strings"

	"github.com/labctl/labctl/orchestrator/naming"
	"github.com/labctl/labctl/orchestrator/readlimit"
	"github.com/labctl/labctl/orchestrator/server"
	"github.com/labctl/labctl/orchestrator/sizing"
	"github.com/labctl/labctl/orchestrator/specdoc"
	"github.com/labctl/labctl/orchestrator/transport"
)

// maxECNDepth is the bound on qos.ecn's kmin_kb and kmax_kb, which Load
// enforces: the largest buffer_pool_bytes, in KiB.
var maxECNDepth = fmt.Sprintf("at most %d (%s, the largest buffer_pool_bytes)", MaxECNDepthKB, readlimit.Size(MaxBufferPoolBytes))

// KeyDocs documents every key of a lab spec. The keys and their types come
// from Spec's yaml tags (orchestrator/specdoc walks them); this table says
// what each means and what leaving it out gives. A test fails when a key
// of Spec has no entry here, and docs/lab-spec.md and 'labctl explain lab'
// are generated from it.
var KeyDocs = specdoc.Table{
	"name":        {Doc: "The lab's name: the folder under topologies/, the containerlab lab name and part of run ids: " + naming.Rule(naming.MaxLen) + ". Required."},
	"description": {Doc: "Free text shown by 'labctl labs'."},
	"sizing":      {Doc: "What fabric to plan: GPUs, servers, NICs and switches (the seed's port math)."},
	"sizing.gpus": {Doc: "Number of GPUs (one NIC each), 1 to 1048576. Required."},
	"sizing.gpus_per_server": {Doc: "GPUs and NICs per server, 1 to 64; 0 is refused.",
		Default: "8"},
	"sizing.nic_speed_gbps": {Doc: "NIC speed in Gb/s: 10, 25, 40, 50, 100, 200, 400, 800 or 1600, and the leaf port speed divided by 1, 2, 4 or 8 (the breakout); 0 is refused.",
		Default: "200"},
	"sizing.leaf_ports": {Doc: "Ports per leaf switch, 4 to 1024; 0 is refused.",
		Default: "32"},
	"sizing.leaf_speed_gbps": {Doc: "Leaf port speed in Gb/s, one of the NIC speeds; 0 is refused.",
		Default: "400"},
	"sizing.spine_ports": {Doc: "Ports per spine (and super-spine) switch, 2 to 1024; 0 is refused.",
		Default: "32"},
	"sizing.spine_speed_gbps": {Doc: "Spine port speed in Gb/s, one of the NIC speeds, 1, 2, 4 or 8 times the leaf speed or the other way round; 0 is refused.",
		Default: "400"},
	"sizing.oversubscription": {Doc: "Target leaf oversubscription (downlink to uplink bandwidth), 1 (non-blocking) to 16; the plan reports the ratio it reached. 0 is refused.",
		Default: "1"},
	"sizing.layout": {Doc: "NIC placement: tor (a server's NICs on one leaf, servers in order, spread evenly over the fewest leaves) or rail (NIC i of every server on rail i's leaves). A leaf's uplinks are sized for the NICs it holds, so servers added later to a leaf's spare ports raise its oversubscription: plan for the GPUs the fabric will have.",
		Default: "tor"},
	"sizing.tiers": {Doc: "Force 1 (a single switch: every NIC on leaf1, no spine), 2 or 3 tiers (3 adds super-spines); 0 or absent picks the fewest spine-leaf tiers that hold the GPUs.",
		Default: "the fewest that fit"},
	"sizing.min_spines": {Doc: "Plan at least this many spines (per pod in 3 tiers), 1 to 1024, so that no single spine carries every leaf uplink: each leaf's uplinks split evenly over them, at the same oversubscription where they divide evenly (else they round up to a multiple of the spine count, which lowers it, and the plan says so). Without it the plan warns of a lone spine. The --min-spines flag of labctl plan overrides it.",
		Default: "the fewest that fit"},
	"transport": {Doc: transport.NameDoc, Default: transport.RoCE},
	"nos": {Doc: "Switch network OS: sonic (SONiC config_db JSON) or eos (Arista EOS CLI). The --nos flag overrides it.",
		Default: "sonic"},
	"images":       {Doc: "Container images of a containerlab lab (--runtime clab); the simulator does not use them."},
	"images.sonic": {Doc: "SONiC-VS image for switches when nos is sonic.", Default: DefaultSONiCImage},
	"images.eos":   {Doc: "cEOS-lab image for switches when nos is eos.", Default: DefaultEOSImage},
	"images.host":  {Doc: "Linux host image with rdma-core and perftest ('labctl image build' makes it).", Default: DefaultHostImage},
	"qos":          {Doc: "The RoCE QoS intent every switch config is rendered from: a named profile, overridden key by key."},
	"qos.profile": {Doc: "Built-in QoS profile: roce-dcqcn (PFC on priority 3, ECN/DCQCN on TC3, CNPs strict on TC6, PFC watchdog), roce-pfc-only (without ECN) or roce-ecn-only (without PFC).",
		Default: DefaultQoSProfile},
	"qos.lossless_priorities": {Doc: "PFC priorities (= traffic classes) that carry lossless RoCE, each 1 to 7 but not 6 (the CNP class): 0 is the best-effort class every unmarked packet takes; the RoCE DSCP maps to the first.",
		Default: "[3]"},
	"qos.roce_dscp": {Doc: "DSCP of RoCE data packets, 0 to 63, different from cnp_dscp.",
		Default: "26"},
	"qos.cnp_dscp": {Doc: "DSCP of congestion notification packets (CNPs), 0 to 63; CNPs go to strict-priority TC6.",
		Default: "48"},
	"qos.mtu": {Doc: "Payload MTU in bytes: 256, 512, 1024, 2048 or 4096 for RoCE and InfiniBand (an IBA path MTU: a RoCE packet carries at most 4096 bytes whatever the Ethernet MTU), 256 to 9216 for UET; sizes PFC headroom and the simulator's packets. The switches' fabric ports are rendered at it plus 60 bytes of headers where that exceeds their 9100: up and plan refuse a lab whose ports would then exceed the MTU its NOS takes (a qos.mtu above 9134 on EOS, whose lab switches, cEOS, take at most 9194, and 9156 on SONiC), which the switches would refuse.",
		Default: "4096"},
	"qos.cable_length_m": {Doc: "Cable length in metres, 1 to 40000, for ports whose length the fabric does not give; sizes PFC headroom.",
		Default: "5"},
	"qos.pause_response_quanta": {Doc: "How long the lab's ports (NICs and switches) take to obey a PFC frame that has reached them, in pause quanta of 512 bit times, 0 to 65535: the lossless profiles' headroom is sized for it, lint checks configs against it and the simulator's ports take it (a switch then decides XOFF at the byte that crosses its threshold, as an ASIC's cell accounting does). 0: at once, as HPCC's ns-3 and htsim model ports (for comparisons with them).",
		Default: "each speed's IEEE 802.3 Annex 31B bound (394 quanta at 100G, 453 at 200G, 905 at 400G and above)"},
	"qos.buffer_pool_bytes": {Doc: "Every switch's shared buffer pool in bytes (SONiC's ingress_lossless_pool and the lossy pools; headroom and reserves come on top), " + fmt.Sprintf("%d to %d", MinBufferPoolBytes, MaxBufferPoolBytes) + ". It bounds how deep a lossless queue grows before PFC pauses, which sets how long DCQCN keeps a sender throttled.",
		Default: "the pool SONiC gives the NVIDIA Spectrum switch of the switch's fastest port speed: 3302912 (SN2700, 100G), 11622400 (SN3700, 200G), 20627456 (SN4700, 400G), 52161690 (SN5600, 800G); on EOS, whose configs carry no buffer, the assumed platform's (an Arista 7050CX3, Trident3: 32712448, whatever the speed; 'labctl config show' names it)"},
	"qos.ecn":         {Doc: "ECN marking (WRED in ECN mode) on the lossless queues: what DCQCN reacts to."},
	"qos.ecn.enabled": {Doc: "Mark ECN on the lossless queues.", Default: "true (false in roce-pfc-only)"},
	"qos.ecn.kmin_kb": {Doc: "Queue depth in KiB where marking starts, above 0 and below kmax_kb, " + maxECNDepth + "; set both kmin_kb and kmax_kb, or neither.",
		Default: "4 KiB per Gb/s of port speed"},
	"qos.ecn.kmax_kb": {Doc: "Queue depth in KiB where the marking probability reaches pmax, above kmin_kb, " + maxECNDepth + ".",
		Default: "16 KiB per Gb/s of port speed"},
	"qos.ecn.pmax": {Doc: "Marking probability at kmax_kb, a whole percent from 0.01 to 1 (switches set it in whole percents, so 0.125 is refused).",
		Default: "0.2"},
	"qos.pfc":          {Doc: "Priority flow control on the lossless priorities."},
	"qos.pfc.enabled":  {Doc: "Send and honour PFC pause frames on the lossless priorities.", Default: "true (false in roce-ecn-only)"},
	"qos.pfc_watchdog": {Doc: "The PFC watchdog: detects a priority paused too long (a pause storm) and acts on it."},
	"qos.pfc_watchdog.enabled": {Doc: "Run the PFC watchdog on the lossless priorities.",
		Default: "true"},
	"qos.pfc_watchdog.detection_ms": {Doc: "How long a queue may stay paused before the watchdog acts, 100 to 5000 ms (SONiC's range).",
		Default: "200"},
	"qos.pfc_watchdog.restoration_ms": {Doc: "How long the watchdog's action lasts before the queue is restored, 100 to 60000 ms.",
		Default: "200"},
	"qos.pfc_watchdog.action": {Doc: "What the watchdog does to a stormed queue: drop, forward or alert (EOS configs write them drop, no-drop and notify-only).",
		Default: "drop"},
	"qos.ets_weights": {Doc: "DWRR weights of the non-strict queues, traffic class (0 to 7) to weight (1 to 100), summing to at most 100 (EOS takes them as bandwidth percent); replaces the profile's map, so it must give RoCE's class (the first lossless priority) its weight, and none to the CNP class 6, whose queue is strict.",
		Default: "{0: 20, 1: 5, 2: 5, 3: 50, 4: 5, 5: 5, 7: 10}, RoCE's 50 on its queue: with lossless_priorities whose first is not 3, that queue's weight and queue 3's swap"},
	"server": {Doc: "The GPU servers as the fabric sees them: the scale-up domain joining a server's GPUs (transfers between GPUs of one server take it and never touch the fabric) and the PCIe link each NIC sits behind, which bounds what the NIC can send. 'labctl plan' shows both, with a warning when a NIC is PCIe-bound; its --scale-up, --scale-up-gbyte-s, --pcie-gen and --pcie-lanes flags override these keys. The defaults follow sizing.nic_speed_gbps."},
	"server.scale_up": {Doc: fmt.Sprintf("The GPU interconnect: nvlink3 (A100, %g GB/s per GPU), nvlink4 (H100/H200, %g GB/s), nvlink5 (B200/B300, %g GB/s), nvlink6 (Rubin, %g GB/s), each through NVSwitch (%.1f µs a transfer step, as NCCL's cost model takes it), or pcie (no NVLink: GPUs copy over PCIe links like their NICs', %.1f µs a step).",
		server.NVLinkGBps(server.NVLink3), server.NVLinkGBps(server.NVLink4), server.NVLinkGBps(server.NVLink5), server.NVLinkGBps(server.NVLink6), float64(server.NVLinkLatencyNs)/1000, float64(server.PCIeLatencyNs)/1000),
		Default: "by NIC speed: " + serverDefault(func(up string, _, _ int) string { return up })},
	"server.scale_up_gbyte_s": {Doc: fmt.Sprintf("Per-GPU scale-up bandwidth in GB/s, both directions together as NVIDIA quotes it (a GPU sends half of it each way), above 0 and at most %d; overrides the generation's figure.", server.MaxScaleUpGBps),
		Default: "the generation's figure (for pcie: twice the PCIe link's payload rate)"},
	"server.pcie_gen": {Doc: fmt.Sprintf("PCIe generation of each NIC's link: 3, 4, 5 or 6 (8, 16, 32, 64 GT/s per lane). Its payload rate per direction is %.1f%% of the raw rate for 3 to 5 (the 128b/130b code and 24 bytes of framing, header and CRC per 256-byte TLP) and %.1f%% for 6 (FLIT mode): %.1f Gb/s for PCIe 4.0 x16, %.1f for 5.0 x16, %.1f for 6.0 x16. PCIe carries the payload, not the packets' headers: a NIC whose link carries less payload than its port (its line rate less its transport's bytes a packet, 196.1 Gb/s of a 200G port for RoCE at MTU 4096) is PCIe-bound, and sends the link's payload rate. 0 is refused.",
		100*server.PCIePayloadShare(3), 100*server.PCIePayloadShare(6), server.PCIeGbps(4, 16), server.PCIeGbps(5, 16), server.PCIeGbps(6, 16)),
		Default: "by NIC speed: " + serverDefault(func(_ string, gen, _ int) string { return fmt.Sprint(gen) })},
	"server.pcie_lanes": {Doc: "PCIe lanes of each NIC's link: 1, 2, 4, 8 or 16, or 32 for a NIC fed by two x16 links (NVIDIA's Socket Direct and Multi-Host NICs). 0 is refused.",
		Default: "by NIC speed: " + serverDefault(func(_ string, _, lanes int) string { return fmt.Sprint(lanes) })},
	"bgp": {Doc: "The eBGP underlay (RFC 7938): every switch speaks eBGP on every fabric link, leaves have one ASN each, and routing (labctl trace, the simulator) follows what BGP converges to: the shortest AS path, ECMP over every equal one, and no path that holds a switch's own ASN."},
	"bgp.spine_asn": {Doc: "The spines' ASNs: shared (the spines of a pod, or of the whole fabric in two tiers, share one ASN, and super-spines another: RFC 7938's design, in which no route goes down to a leaf and up again, so failures that cut a leaf off from every spine its peer still reaches partition the fabric) or per-spine (every spine its own ASN, a common misconfiguration: after failures eBGP then accepts valley paths leaf-spine-leaf-spine-leaf, which can loop while routes converge and deadlock under PFC).",
		Default: SpineASNShared},
	"runtime": {Doc: "Runtime 'labctl up' uses when --runtime is not given: sim (the embedded packet-level simulator) or clab (containerlab).",
		Default: "sim"},
}.With("nic", NICKeyDocs).With("infiniband", transport.IBKeyDocs).With("uet", transport.UETKeyDocs)

// NICKeyDocs documents the nic section, which lab specs and scenarios
// share (a scenario's overrides the lab's key by key). The parameters are
// the NIC's own names and units (mlx5 roce_rp/roce_np); defaults are the
// connectx preset's.
var NICKeyDocs = specdoc.Table{
	"":      {Doc: "The hosts' RDMA NICs: the DCQCN preset and parameters, and the QPs' loss recovery. A scenario's nic section overrides the lab's key by key."},
	"dcqcn": {Doc: "DCQCN as ConnectX NICs run it: a preset, and any parameter overridden by the NIC's name (the values the simulator uses are recorded with each variant)."},
	"dcqcn.preset": {Doc: "connectx (the defaults of NVIDIA ConnectX firmware) or paper (the DCQCN paper's parameters on the NIC's machinery); a scenario's dcqcn key is shorthand for it.",
		Default: "connectx"},
	"dcqcn.clamp_tgt_rate": {Doc: "Set the target rate to the current rate at every cut.", Default: "false (paper: true)"},
	"dcqcn.clamp_tgt_rate_after_time_inc": {Doc: "Clamp the target at a cut only when the timer raised the rate since the last cut.",
		Default: "true (paper: false)"},
	"dcqcn.rpg_time_reset":  {Doc: "Rate-increase timer in µs, 1 to 10000000.", Default: "300 (paper: 55)"},
	"dcqcn.rpg_byte_reset":  {Doc: "A rate-increase event per this many bytes sent; 0 turns the byte counter off.", Default: "32767 (paper: 10485760)"},
	"dcqcn.rpg_threshold":   {Doc: "Increase events spent in fast recovery before additive, then hyper increase, 0 to 31.", Default: "1 (paper: 5)"},
	"dcqcn.rpg_max_rate":    {Doc: "The rate in Mb/s a flow's rate limiter recovers to after CNPs cut it (0: line rate); reaching it releases the limiter, as ConnectX's rpg_max_rate does, so it bounds a flow only while DCQCN is limiting it, never one that gets no CNP.", Default: "0"},
	"dcqcn.rpg_ai_rate":     {Doc: "Additive increase step of the target rate in Mb/s.", Default: "5 (paper: 40 per 40 Gb/s of line rate)"},
	"dcqcn.rpg_hai_rate":    {Doc: "Hyper increase step of the target rate in Mb/s.", Default: "50 (paper: 200 per 40 Gb/s of line rate)"},
	"dcqcn.rpg_gd":          {Doc: "Cut depth: rate x (1 - alpha/2^(rpg_gd-10)), 1 to 15; 11 halves the rate at alpha 1.", Default: "11"},
	"dcqcn.rpg_min_dec_fac": {Doc: "Least share of the rate a cut keeps, 0 to 100 percent; 0 means no floor.", Default: "50 (paper: 0)"},
	"dcqcn.rpg_min_rate":    {Doc: "Lowest rate in Mb/s, above 0.", Default: "1 (paper: 100)"},
	"dcqcn.rate_to_set_on_first_cnp": {Doc: "Current and target rate in Mb/s when a flow's first CNP arrives; 0 means line rate.",
		Default: "0"},
	"dcqcn.dce_tcp_g":   {Doc: "Alpha gain in 1/1024 units, 0 to 1023: g = (1024 - dce_tcp_g)/1024.", Default: "1019 (paper: 1020, g = 1/256)"},
	"dcqcn.dce_tcp_rtt": {Doc: "Alpha's update period in µs, 1 to 10000000.", Default: "1 (paper: 55)"},
	"dcqcn.rate_reduce_monitor_period": {Doc: "At most one cut per this many µs, applied at the period's end; 0 cuts at every CNP.",
		Default: "4 (paper: 0)"},
	"dcqcn.initial_alpha_value":   {Doc: "Alpha at a flow's first CNP in 1/1024 units, 0 to 1024 (1024 is exactly 1).", Default: "1023 (paper: 1024)"},
	"dcqcn.min_time_between_cnps": {Doc: "Receiver's CNP pacing: at most one CNP per flow per this many µs, 0 to 10000000.", Default: "4 (paper: 50)"},
	"dcqcn.cnp_dscp":              {Doc: "DSCP of the CNPs the NIC sends, 0 to 63; switches classify CNPs by it.", Default: "the lab's qos.cnp_dscp"},
	"dcqcn.cnp_moderation":        {Doc: "What min_time_between_cnps paces: per_flow, each flow's CNPs (the DCQCN paper, HPCC's ns-3), or per_port, every CNP the port sends (ConnectX's ROCE_CC_CNP_MODERATION PER_PORT; which one a firmware uses by default is not documented).", Default: "per_flow"},
	"dcqcn.cnp_802p_prio":         {Doc: "802.1p priority of the CNPs, 0 to 7; recorded, not simulated (labctl's switches trust DSCP).", Default: "6"},
	"qp_timeout":                  {Doc: "QP local ACK timeout exponent, 1 to 31: a sender hearing nothing for 4.096 µs x 2^qp_timeout goes back to its first unacknowledged packet (perftest -u).", Default: "14 (67.1 ms)"},
	"retry_cnt":                   {Doc: "Retries a QP makes after local ACK timeouts in a row, 0 to 7; the timeout after the last fails the QP (0: the first timeout does).", Default: "7"},
	"out_of_order":                {Doc: "Receiving NICs place packets that arrive out of order (ConnectX-5 and later, out-of-order data placement), as switch adaptive routing and packet spraying need; false handles a reordered packet as a loss (go-back-N).", Default: "false"},
	"nak_repeat_us":               {Doc: "Repeat the NAK for a gap the sender has not filled after this many µs; 0 sends one NAK per gap (IBA, as RC QPs do). HPCC's ns-3 model repeats every 500.", Default: "0"},
}

// serverDefault describes a server key's default across the NIC speeds,
// from server.Defaults, so that the reference says what the code does:
// "nvlink3 up to 200G NICs, nvlink4 for 400G, ...".
func serverDefault(pick func(scaleUp string, gen, lanes int) string) string {
	var parts []string
	speeds := sizing.Speeds
	for i := 0; i < len(speeds); {
		up, gen, lanes, _ := server.Defaults(speeds[i])
		v := pick(up, gen, lanes)
		j := i + 1
		for j < len(speeds) {
			up, gen, lanes, _ := server.Defaults(speeds[j])
			if pick(up, gen, lanes) != v {
				break
			}
			j++
		}
		switch {
		case i == 0 && j == len(speeds):
			parts = append(parts, v+" for every NIC speed")
		case i == 0:
			parts = append(parts, fmt.Sprintf("%s up to %dG NICs", v, speeds[j-1]))
		case j-i == 1:
			parts = append(parts, fmt.Sprintf("%s for %dG", v, speeds[i]))
		default:
			parts = append(parts, fmt.Sprintf("%s for %dG to %dG", v, speeds[i], speeds[j-1]))
		}
		i = j
	}
	return strings.Join(parts, ", ")
}
