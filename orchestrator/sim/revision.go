package sim

import "fmt"

// Revision numbers what a simulation yields for given inputs: the same
// lab, vendor configs, scenario and seed give the same figures under one
// revision, and may give others under the next. It covers this engine
// (packet-level and flow-level), the runtime that turns a lab's configs
// into its Config (orchestrator/runtime/sim) and the defaults a lab or
// scenario leaves to labctl. Every run record carries it (results.Run's
// sim_revision), so regress can tell figures a new labctl moved from
// figures a config change moved: with one seed and the same inputs, two
// records of different revisions are not the same simulation.
//
// Raise it, with a line in Revisions, in the commit that changes the
// figures of unchanged inputs. cmd/labctl's TestSimulatorRevision runs
// fixed inputs and fails when their figures move under an unchanged
// revision.
const Revision = 22

// RevisionNote says what a revision changed.
type RevisionNote struct {
	Revision int
	Date     string
	Change   string
}

// Revisions are the simulator's revisions, oldest first; the last is
// Revision.
var Revisions = []RevisionNote{
	{Revision: 1, Date: "2026-12-06", Change: "the first revision records carry. Since the simulator before it: ports obey a PFC frame after their PAUSE response (the IEEE 802.3 bound for the speed, or the lab's qos.pause_response_quanta) instead of at once, and switches decide XOFF at the byte that crosses the threshold (ecn-pfc's PFC-only variant on 64gpu: 210,591 pause frames before, 36,205 after); a ring all-reduce's steps carry their chunks' exact sizes; receivers that place packets out of order count goodput at arrival; a multi-QP flow's rate is its QPs' window bytes over its window"},
	{Revision: 2, Date: "2026-12-06", Change: "packets a NIC placed out of order (spraying or adaptive routing with nic.out_of_order) that the end of the run finds behind a gap still open count in the goodput window by their arrival, as the time series counts them (lb-compare's spraying with out-of-order NICs on 64gpu: 6224.3 Gb/s before, 6238.8 after)"},
	{Revision: 3, Date: "2026-12-06", Change: "an nccl collective's messages carry exactly the bytes NCCL moves, split by whole elements over channels and chunks, where each was rounded up to ceil(size / (ranks x channels)); only sizes that do not divide evenly move (64gpu nccl-allreduce at seed 8: the ring's 8-128 B rows, 8 B 94.295 to 94.227 us, fabric bytes at 8 B 1008 to 124)"},
	{Revision: 4, Date: "2026-12-06", Change: "EOS switches, whose buffer labctl assumes, have an egress lossless pool that holds all the lossless PGs can take at ingress (their pool and shared headroom, 34334464 B) where it had SONiC's 7050CX3 figure (32599040 B), so a fabric-wide PFC backlog no longer drops lossless packets at egress (a 32:1 incast of 64 QPs a flow beside a permutation on 64gpu: 33,187 drops and 4070 Gb/s before, none and 6223 Gb/s after)"},
	{Revision: 5, Date: "2026-12-06", Change: "EOS's egress lossless pool also holds the lossless PGs' reserves (4608 B each, outside the ingress pools) of every port the switch has, so that no port count lets ingress admit more than egress holds (32 ports with 2 lossless priorities: 294,912 B more)"},
	{Revision: 6, Date: "2026-12-06", Change: "switch queues that their configs shape (SONiC's SCHEDULER pir and pbs, metered in bytes; EOS's tx-queue shape rate in kb/s or a percent of the port) send no faster than the shaper, where they ran at line rate; the flow-level model caps flows by them too (64gpu ecn-pfc with RoCE's queue shaped to 100 Gb/s on every switch: 350.6 Gb/s before, 123.9 after, in the ECN and PFC variant); configs without a shaper give the same figures"},
	{Revision: 7, Date: "2026-12-06", Change: "switch ports that their configs shape as a whole (SONiC's PORT_QOS_MAP scheduler, its pir and pbs; EOS's interface or qos profile shape rate in kb/s or a percent) send no faster than the shaper, all their queues together, where they ran at line rate; the flow-level model caps such a port at its shaper (64gpu ecn-pfc on EOS with RoCE's queue shaped to 40 percent and the 400G ports to 30 percent: 92.4 Gb/s before, 97.3 after, in the ECN and PFC variant); configs without a port shaper give the same figures"},
	{Revision: 8, Date: "2026-12-06", Change: "a SONiC port whose PORT entry sets pfc_asym on obeys PFC frames for every priority, as portsorch's asymmetric PFC has it (SAI's separate mode), where it obeyed them for its pfc_enable priorities only; pfc_asym in PORT_QOS_MAP, which orchagent does not read, changes nothing, as before. Figures move only where a port receives PFC frames for a priority without PFC"},
	{Revision: 9, Date: "2026-12-06", Change: "a shaper's burst of more than about 1.15 GB (SONiC takes any pbs) overflowed the time it lets the queue run ahead, which held the queue almost for good (a 40 Gb/s queue with a 2 GB burst: 0 Gb/s); it is now a credit as long as it says, bounded at some 53 days"},
	{Revision: 10, Date: "2026-12-06", Change: "a SONiC port whose PORT_QOS_MAP names a PFC priority to PG map (PFC_PRIORITY_TO_PRIORITY_GROUP_MAP) sends each priority's pause frames from the PG the map gives it, where every PFC priority was paused by the PG its traffic fills: a map that sends priority 3's pauses from PG 0 leaves PG 3 filling its headroom unpaused, and it drops (an 8:1 incast at 100G: no drop before, 2,143 after); ports without such a map, and identity maps on identity TC-to-PG maps, give the same figures"},
	{Revision: 11, Date: "2026-12-06", Change: "packet-metered shapers run (SONiC's SCHEDULER meter_type packets, pir in packets per second and pbs in packets; EOS's shape rate in pps, in a tx-queue, an interface or a qos profile): the queue or port sends at most that many frames a second whatever their size, where it ran unshaped (a lossless queue metered at 1,000,000 frames a second on a 100G port: 32.8 Gb/s of goodput)"},
	{Revision: 12, Date: "2026-12-07", Change: "switch ports whose SONiC config binds a TC_TO_DSCP_MAP (PORT_QOS_MAP tc_to_dscp_map) write the map's DSCP into the packets of each traffic class they send, and the next switch classifies them by it, where every packet kept its DSCP; the flow-level model follows the rewritten DSCP to the shaped queues it meets (64gpu ecn-pfc with the spine remarking RoCE's class to DSCP 10: the ECN and PFC variant 350.6 Gb/s and no drop before, 243.8 Gb/s and 145,929 drops after, RoCE queued as best effort at the leaves); configs without such a map give the same figures"},
	{Revision: 13, Date: "2026-12-07", Change: "EOS ports that take a QoS policy-map (service-policy type qos input) classify RoCEv2 packets by its classes where its access-lists decide them (protocol, any address, destination port, DSCP), ahead of the trust mode and maps, where every port classified by its maps (64gpu ecn-pfc on EOS with every port's policy putting RoCE's DSCP 26 in lossy TC1: the ECN and PFC variant 354.0 Gb/s and no drop before, 243.0 Gb/s and 173,022 drops after); configs without one give the same figures"},
	{Revision: 14, Date: "2026-12-07", Change: "switch ports whose config sets an MTU (SONiC's PORT mtu, EOS's interface mtu) below what the lab's RoCE packets need (the payload MTU plus 60 bytes of headers, lint's QOS020) drop every such packet that arrives on them or would leave by them, counted as mtu_drops, where they passed them; the flow-level model gives flows over such a link no rate (64gpu ecn-pfc with PORT mtu 1500 on the leaf port of the incast's receiver: the ECN and PFC variant 350.6 Gb/s and no drop before, 182.6 Gb/s, 16,384 drops and the incast at 0 after); configs without a port MTU, or with one that fits, give the same figures"},
	{Revision: 15, Date: "2026-12-07", Change: "UET's retransmissions by cause (uet.nack_retransmits, sack_retransmits, rto_retransmits) count the copies sent, where they counted the packets queued for resending, some of which an ACK retired before they left; they now add up to the summary's retransmits. The simulation is the same, only these counters move (transports' UET link-failure case on the fixed 64-GPU inputs: rto_retransmits 24 before, 2 after, beside 443 on SACK gaps and 445 retransmits in all)"},
	{Revision: 16, Date: "2026-12-07", Change: "a NIC behind a PCIe link slower than its port (Config.NICCapGbps, a lab's server section) is charged its packets' payload against the link's payload rate, where it was charged their wire bytes, headers, preamble and gap that PCIe never carries: it sends the link's rate of payload, in the packet engine (RoCE, InfiniBand and UET) and in the flow-level model, and a flow's reported rate is the cap's wire rate (baseline-bw on a 16-GPU lab of 200G NICs on PCIe 3.0 x16: 112.97 Gb/s before, 115.22 after, of 115.23 the link carries; the flow-level model 112.967 before, 115.228 after); NICs that PCIe feeds at their port speed give the same figures"},
	{Revision: 17, Date: "2026-12-07", Change: "a SONiC switch whose PFC_WD|GLOBAL sets BIG_RED_SWITCH enable holds every port's pfcwd_sw_enable priorities in the PFC watchdog's drop action from the start of the run, as orchagent's enableBigRedSwitchMode does storm or not (PortQoS.WatchdogDrop): those ports ignore the priorities' pause frames, send none and drop every packet of them (watchdog_drops), and declare no storm; the flow-level model gives flows through such a port no rate. The field was ignored, and RoCE ran lossless through it; configs without it, or with disable, give the same figures"},
	{Revision: 18, Date: "2026-12-07", Change: "a SONiC WRED_PROFILE or SCHEDULER entry whose field throws in orchagent (a threshold or probability beyond std::stoi's int, an ecn or meter_type word it does not know, a cir, cbs, pir or pbs std::stoull cannot read, \"\" included) is never created, nor any entry of its table after it in key order, used or not (qosorch's queue stops at it on every pass), and the queues naming them keep the default scheduling and no WRED, where labctl created them all (an unknown ecn or meter_type on a named entry refused the config); configs without such a field give the same figures"},
	{Revision: 19, Date: "2026-12-07", Change: "a SONiC port whose PORT_QOS_MAP entry gives no pfcwd_sw_enable runs no PFC watchdog (and BIG_RED_SWITCH forces no drop on it), as orchagent holds its watchdog bitmap at 0 (handlePortQosMapTable sets it from the field alone) and pfcwdorch finds no lossless TC, where labctl watched its PFC priorities (a pause storm there is now never declared; lint's QOS008); configs that give the field give the same figures"},
	{Revision: 20, Date: "2026-12-07", Change: "an EOS port's watchdog polls its queues at its own port timer polling-interval (qos.PortWatchdog.PollMs; auto, and the global default's value, are the global's), where every port polled at the global default polling-interval (64gpu pfc-storm with polling-interval 1 on leaf1's ports: the storm declared at 223 ms and 195.3 Gb/s to the victim before, no storm in the run and 0 Gb/s after). Readings of EOS lines this revision's parser takes as the switch applies them, which move the figures of configs that have them: no mtu and default mtu are EOS's default MTU 1500 (they left the MTU before them), no qos cos and default qos cos remove the default CoS, default switchport makes a switchport (CoS trust without qos trust), a random-detect line with an abbreviated weight (max-mark-prob 20 w 4) marks ECN where it was passed over, interface defaults' mtu and ethernet shutdown apply to the interfaces that set neither (the block was read as an interface called defaults), and switchport default mode decides the mode, and so the default trust, of interfaces that say neither switchport nor no switchport. Configs without these lines give the same figures"},
	{Revision: 21, Date: "2026-12-07", Change: "a link whose two ends' SONiC configs set different FEC modes (PORT fec rs, fc or none; neither auto) runs down from the start of the run, as a link whose ends cannot decode each other never comes up (lint's QOS009), where the field was ignored and the link carried traffic; configs that leave fec out at either end, or set the same mode at both, give the same figures"},
	{Revision: 22, Date: "2026-12-07", Change: "a SONiC queue that several QUEUE entries cover (<port>|3 and <port>|3-4) takes each field from the last entry in key order that gives it and that orchagent applies, as qosorch's handleQueueTable changes only the fields an entry gives and applies an entry whose references do not resolve not at all, where the last entry was taken whole (a later entry with a scheduler alone took away the WRED profile, and one naming an undefined scheduler the earlier entry's scheduler and WRED); configs that cover each queue once give the same figures"},
}

// RevisionChanges says what changed between two revisions, one line per
// revision after the older up to the newer; 0 stands for a record made
// before records carried a revision, which may predate any of them.
func RevisionChanges(a, b int) []string {
	lo, hi := min(a, b), max(a, b)
	var out []string
	for _, r := range Revisions {
		if r.Revision > lo && r.Revision <= hi {
			out = append(out, fmt.Sprintf("revision %d (%s): %s", r.Revision, r.Date, r.Change))
		}
	}
	return out
}
