#!/usr/bin/env bash
# bench/compare.sh: labctl's packet-level simulator side by side with htsim's
# RoCE model (github.com/Broadcom/csg-htsim, sim/datacenter/htsim_roce) on the
# same three cases, timed the same way: the user+sys CPU time and the wall
# time of each whole process, runs interleaved (labctl, htsim, labctl, ...)
# so that other load on the machine hits both alike, medians of REPS runs.
#
#   HTSIM=/path/to/htsim_roce [REPS=5] [CASES="incast perm128 perm1024"] \
#     [LABCTL_ARGS="--threads 1"] bench/compare.sh
#
# LABCTL_ARGS go to every `labctl run` (word-split): by default labctl runs
# as a user runs it, on as many threads as it picks (the record says which).
#
# The cases and how they match htsim's are in bench/compare/README.md. This
# script builds labctl (make build, as the Makefile builds it) and nothing
# else; it writes the htsim topologies and connection matrices it needs into
# a temporary directory, removed at the end (KEEP=1 keeps it and says where).
set -euo pipefail

usage_htsim() {
	cat >&2 <<'EOF'
bench/compare.sh: HTSIM must name htsim's RoCE simulator binary (htsim_roce),
the program labctl is compared with. It is not part of this repository; build
it once from github.com/Broadcom/csg-htsim (plain C++, no dependencies):

  git clone https://github.com/Broadcom/csg-htsim && cd csg-htsim
  git checkout 841d9e7b    # the commit docs/fidelity.md and the README figures used
  cd sim && make libhtsim.a && make -C datacenter htsim_roce

then run: make bench-compare HTSIM=$PWD/datacenter/htsim_roce
EOF
}

if [ -z "${HTSIM:-}" ]; then
	echo "bench/compare.sh: HTSIM is not set." >&2
	usage_htsim
	exit 2
fi
if [ ! -f "$HTSIM" ] || [ ! -x "$HTSIM" ]; then
	echo "bench/compare.sh: HTSIM=$HTSIM is not an executable file." >&2
	usage_htsim
	exit 2
fi
# (The script's folder without dirname, which a bare PATH may lack.)
case $0 in */*) here=${0%/*} ;; *) here=. ;; esac
# shellcheck source=bench/cases.sh
. "$here/cases.sh"
REPS=${REPS:-5}
check_timing bench/compare.sh
CASES=${CASES:-$bench_cases}
check_cases bench/compare.sh

root=$(cd "$(dirname "$0")/.." && pwd)
cmp=$root/bench/compare
HTSIM=$(cd "$(dirname "$HTSIM")" && pwd)/$(basename "$HTSIM")
tmp=$(mktemp -d "${TMPDIR:-/tmp}/labctl-bench-compare.XXXXXX")
if [ "${KEEP:-}" = 1 ]; then
	trap 'echo "inputs, outputs and records kept in $tmp" >&2' EXIT
else
	trap 'rm -rf "$tmp"' EXIT
fi

build_labctl "$root" "$tmp/labctl"
labctl=$tmp/labctl
work=$tmp/work
mkdir -p "$work"

# --- the cases -------------------------------------------------------------
#
# One place for each case's parameters. The labctl side is the lab spec and
# scenario under bench/compare/; the htsim side is written from the values
# below, and check_plan holds them against labctl's own plan of the lab, so
# the two cannot drift apart silently.
#
#   lab, labname, scenario   labctl's inputs
#   nodes                    hosts (htsim) = NICs (labctl)
#   per_leaf, spines         NICs per leaf switch; spine switches (0: one switch)
#   gbps                     every link's speed
#   link_ns                  every link's propagation delay (labctl: 200 m of cable)
#   end_us                   htsim's end of simulation, µs
#   traffic                  incast (8 senders to host 0) or permutation
#   flow_bytes               bytes per flow (permutation: more than 1 ms carries)
set_case() {
	link_ns=1000
	mtu=4096
	case $1 in
	incast)
		lab=$cmp/incast-lab.yaml labname=bench-incast scenario=$cmp/incast.yaml
		nodes=9 per_leaf=9 spines=0 gbps=100 end_us=100000
		traffic=incast flow_bytes=100000000
		label="8:1 incast, 100 MB flows, one 100G switch, PFC only"
		;;
	perm128 | perm1024)
		nodes=${1#perm}
		lab=$cmp/perm$nodes-lab.yaml labname=bench-perm$nodes scenario=$cmp/permutation.yaml
		per_leaf=32 gbps=200 end_us=1000
		if [ "$nodes" = 128 ]; then spines=2; else spines=16; fi
		traffic=permutation flow_bytes=2000000000
		label="permutation of long flows, $nodes hosts at 200G, 1 ms, PFC only"
		;;
	esac
}

# plan_field FILE BLOCK KEY: a number from `labctl plan -o json`, either a
# top-level key (BLOCK "-") or a key of the top-level object BLOCK (leaf,
# spine). The plan is indented two spaces per level.
plan_field() {
	awk -v block="$2" -v key="$3" '
		/^  "[a-z_]+": / { top = $1; gsub(/[":]/, "", top) }
		{
			want = (block == "-") ? "  \"" key "\":" : "    \"" key "\":"
			if (index($0, want) == 1 && (block == "-" || top == block)) {
				v = $2; gsub(/,/, "", v); print v; exit
			}
		}' "$1"
}

# check_plan: labctl's plan of the lab must be the fabric htsim is given.
check_plan() {
	local plan=$tmp/plan-$labname.json want got
	"$labctl" plan "$lab" -o json >"$plan"
	local leaves=$((nodes / per_leaf)) tiers=2
	[ "$spines" = 0 ] && tiers=1
	for want in "- nics $nodes" "- nic_speed_gbps $gbps" "- tiers $tiers" \
		"leaf count $leaves" "leaf downlinks_per_leaf $per_leaf"; do
		set -- $want
		got=$(plan_field "$plan" "$1" "$2")
		if [ "$got" != "$3" ]; then
			echo "bench/compare.sh: $lab plans $1.$2 = $got, but the htsim side of case $case uses $3: make them agree" >&2
			exit 1
		fi
	done
	if [ "$spines" != 0 ]; then
		for want in "spine count $spines" "leaf uplink_speed_gbps $gbps" \
			"leaf links_per_spine $((per_leaf / spines))"; do
			set -- $want
			got=$(plan_field "$plan" "$1" "$2")
			if [ "$got" != "$3" ]; then
				echo "bench/compare.sh: $lab plans $1.$2 = $got, but the htsim side of case $case uses $3: make them agree" >&2
				exit 1
			fi
		done
	fi
}

# write_htsim_inputs: htsim's fat-tree topology file (FatTreeTopology::load's
# format) and connection matrix (ConnectionMatrix::load's) for the case.
write_htsim_inputs() {
	topo=$tmp/$case.topo cm=$tmp/$case.cm
	if [ "$spines" = 0 ]; then
		# htsim's fat tree has two tiers at least: the one switch is a ToR
		# holding every host with a single uplink (oversubscribed nodes:1)
		# to one aggregation switch that no flow uses.
		cat >"$topo" <<EOF
Nodes $nodes
Tiers 2
Podsize $nodes

Tier 0
Downlink_speed_Gbps $gbps
Radix_Down $nodes
Radix_Up 1
Oversubscribed $nodes
Downlink_Latency_ns $link_ns
Switch_Latency_ns 0

Tier 1
Downlink_speed_Gbps $gbps
Radix_Down 1
Downlink_Latency_ns $link_ns
Switch_Latency_ns 0
EOF
	else
		# Leaf-spine: per_leaf hosts per ToR, as many uplinks, bundled
		# per_leaf/spines to each spine (labctl's parallel leaf-spine links).
		cat >"$topo" <<EOF
Nodes $nodes
Tiers 2
Podsize $nodes

Tier 0
Downlink_speed_Gbps $gbps
Radix_Down $per_leaf
Radix_Up $per_leaf
Oversubscribed 1
Downlink_Latency_ns $link_ns
Switch_Latency_ns 0

Tier 1
Downlink_speed_Gbps $gbps
Radix_Down $((nodes / spines))
Bundle $((per_leaf / spines))
Downlink_Latency_ns $link_ns
Switch_Latency_ns 0
EOF
	fi
	# htsim puts host h on ToR h/per_leaf, as labctl fills leaves with NICs
	# in order. labctl's permutation sends NIC i of the leaf order to NIC
	# i + N/2 (shuffled within each leaf): every flow crosses the spines.
	awk -v n="$nodes" -v kind="$traffic" -v size="$flow_bytes" 'BEGIN {
		print "Nodes", n
		if (kind == "incast") {
			print "Connections", 8
			for (i = 1; i <= 8; i++) printf "%d->0 id %d start 0 size %d\n", i, i, size
		} else {
			print "Connections", n
			for (i = 0; i < n; i++) printf "%d->%d id %d start 0 size %d\n", i, (i + n / 2) % n, i + 1, size
		}
	}' >"$cm"
	htsim_args=(-topo "$topo" -tm "$cm" -nodes "$nodes" -strat ecmp_host -paths 1
		-mtu "$mtu" -q 8192 -end "$end_us" -o "$tmp/$case.htsim-log")
}

# --- timing ----------------------------------------------------------------

# check_htsim: each htsim run did the case's work (a failed or truncated run
# would make its time meaningless).
check_htsim() {
	# htsim's clock prints a dot every 50 ms simulated, without a newline.
	grep -Eq '^\.*Done$' "$1" || {
		echo "bench/compare.sh: htsim did not finish case $case (no Done line); see $1" >&2
		exit 1
	}
	if [ "$traffic" = incast ]; then
		local done
		done=$(grep -c 'finished at' "$1" || true)
		[ "$done" = 8 ] || {
			echo "bench/compare.sh: htsim finished $done of 8 incast flows in $end_us µs" >&2
			exit 1
		}
	fi
}

# --- run -------------------------------------------------------------------

commit=$(labctl_commit "$root")
htsim_commit=$(git -C "$(dirname "$HTSIM")" rev-parse --short HEAD 2>/dev/null || echo "not a git checkout")

# htsim writes idmap.txt into its working directory: keep it in $tmp.
cd "$tmp"
rows=()
events_seen=0
for case in $CASES; do
	set_case "$case"
	check_plan
	write_htsim_inputs
	"$labctl" --dir "$work" up "$lab" >/dev/null
	lc=() hc=() lw=() hw=() ev=() evs=() thr=()
	for r in $(seq 1 "$REPS"); do
		echo "$case run $r of $REPS: labctl ..." >&2
		# shellcheck disable=SC2086 # LABCTL_ARGS is a list of flags
		measure "$tmp/$case.labctl.$r.out" "$labctl" --dir "$work" run "$scenario" --lab "$labname" ${LABCTL_ARGS:-}
		lc+=("$cpu") lw+=("$wall")
		rec=$(newest_record "$work")
		e=$(cost_field "$rec" events)
		if [ -n "$e" ]; then
			ev+=("$e") evs+=("$(cost_field "$rec" events_per_s)") thr+=("$(cost_field "$rec" threads)")
		fi
		echo "$case run $r of $REPS: htsim ..." >&2
		measure "$tmp/$case.htsim.$r.out" "$HTSIM" "${htsim_args[@]}"
		check_htsim "$tmp/$case.htsim.$r.out"
		hc+=("$cpu") hw+=("$wall")
	done
	lm=$(median "${lc[@]}") hm=$(median "${hc[@]}")
	ratio=$(awk -v a="$lm" -v b="$hm" 'BEGIN { printf "%.2f", a / b }')
	# The median of each pair's own ratio as well: when the machine
	# changes speed during the runs, the two medians can come from
	# different phases, while a pair's two runs share one.
	pairs=()
	for i in "${!lc[@]}"; do
		pairs+=("$(awk -v a="${lc[$i]}" -v b="${hc[$i]}" 'BEGIN { printf "%.4f", a / b }')")
	done
	pair_ratio=$(median "${pairs[@]}" | awk '{ printf "%.2f", $1 }')
	row="| $label | $lm | ${lc[*]} | $hm | ${hc[*]} | $ratio | $pair_ratio | $(median "${lw[@]}") | $(median "${hw[@]}") |"
	if [ ${#ev[@]} -gt 0 ]; then
		events_seen=1
		# Events are the same in every run (same seed); events/s is of
		# the variant's wall time, as the record measures it.
		row="$row $(median "${ev[@]}" | sed 's/\.000$//') | $(median "${evs[@]}" | sed 's/\.000$//') | $(printf '%s\n' "${thr[@]}" | sort -u | paste -sd/ -) |"
	fi
	rows+=("$row")
done

echo
echo "labctl $commit vs htsim_roce ($htsim_commit), $(date -u +%Y-%m-%d), $REPS runs each interleaved, $(nproc) CPUs, load average $(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || echo unknown)"
echo "This machine after the runs: $(machine_costs "$root")."
[ -n "${LABCTL_ARGS:-}" ] && echo "labctl run flags: $LABCTL_ARGS"
echo "CPU s: user+sys of the whole process (labctl run: configs, engine, record and reports; htsim: set-up and simulation); wall s: medians."
echo
head="| case | labctl CPU s (median) | labctl CPU s (runs) | htsim CPU s (median) | htsim CPU s (runs) | labctl/htsim | pairs' median | labctl wall s | htsim wall s |"
sep="|---|---|---|---|---|---|---|---|---|"
if [ $events_seen = 1 ]; then
	head="$head labctl events | labctl events/s | labctl threads |"
	sep="$sep---|---|---|"
fi
echo "$head"
echo "$sep"
printf '%s\n' "${rows[@]}"
