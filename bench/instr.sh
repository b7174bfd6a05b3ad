#!/usr/bin/env bash
# bench/instr.sh: counts the instructions and L1 data-cache misses of whole
# `labctl run` processes on bench/compare.sh's cases, under valgrind's
# cachegrind. Unlike CPU time, which moves by a fifth or more from run to
# run on a shared VM, the counts come out the same every run (to a few
# hundredths of a percent: the Go runtime's own threads), so an engine
# change of 2% shows in one run of each build.
#
#   [CASES="incast perm128"] [TOP=12] bench/instr.sh
#
# What it prints per case: instructions, instructions per simulated event
# (events from the run record), L1 data misses per event, and the TOP
# functions by instructions. cachegrind models the first-level caches and
# the last level only (not L2) and no hardware prefetch: a change that
# trades instructions for memory traffic still needs timing (bench/compare.sh,
# interleaved) at 1024 hosts, where the engine waits on memory.
#
# It builds labctl (make build) and needs valgrind (Debian: apt-get install
# valgrind). Under valgrind a run is some 50 times slower: the incast takes
# about 20 s, perm128 about a minute; perm1024 (some 20 minutes) is left out
# unless CASES names it.
set -euo pipefail

CASES=${CASES:-incast}
TOP=${TOP:-12}
# (The script's folder without dirname, which a bare PATH may lack.)
case $0 in */*) here=${0%/*} ;; *) here=. ;; esac
# shellcheck source=bench/cases.sh
. "$here/cases.sh"
check_cases bench/instr.sh
case $TOP in
'' | *[!0-9]*)
	echo "bench/instr.sh: TOP=$TOP must be a whole number of functions" >&2
	exit 2
	;;
esac

if ! command -v valgrind >/dev/null || ! command -v cg_annotate >/dev/null; then
	echo "bench/instr.sh: needs valgrind and cg_annotate on PATH (Debian: apt-get install valgrind)" >&2
	exit 2
fi

root=$(cd "$(dirname "$0")/.." && pwd)
cmp=$root/bench/compare
tmp=$(mktemp -d "${TMPDIR:-/tmp}/labctl-instr.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

build_labctl "$root" "$tmp/labctl"
commit=$(labctl_commit "$root")
work=$tmp/work
mkdir -p "$work"

# summary FILE KEY: a total from valgrind's summary lines ("==pid== I   refs:      1,234").
summary() { awk -v k="$2" 'index($0, k) { v = $0; sub(/.*: */, "", v); sub(/ .*/, "", v); gsub(",", "", v); print v; exit }' "$1"; }

echo "labctl $commit under cachegrind, one thread (GOMAXPROCS=1, --threads 1)"
for case in $CASES; do
	case $case in
	incast) lab=$cmp/incast-lab.yaml labname=bench-incast scenario=$cmp/incast.yaml ;;
	perm*) lab=$cmp/$case-lab.yaml labname=bench-$case scenario=$cmp/permutation.yaml ;;
	esac
	"$tmp/labctl" --dir "$work" up "$lab" >/dev/null
	echo "$case: running under cachegrind ..." >&2
	out=$tmp/$case.cachegrind
	# One thread, and no asynchronous preemption (valgrind serializes
	# threads; preemption signals only add runtime work that varies).
	# cpu.rdtscp=off: on a CPU with RDTSCP the Go runtime reads its clock
	# with it, an instruction valgrind 3.19 (Debian 12's) cannot decode
	# (SIGILL in runtime.cputicks); the runtime then uses RDTSC instead.
	GOMAXPROCS=1 GODEBUG=asyncpreemptoff=1,cpu.rdtscp=off valgrind --tool=cachegrind --cache-sim=yes \
		--cachegrind-out-file="$out" \
		"$tmp/labctl" --dir "$work" run "$scenario" --lab "$labname" --threads 1 >"$tmp/$case.out" 2>"$tmp/$case.err" || {
		echo "bench/instr.sh: labctl run $scenario --lab $labname failed under valgrind:" >&2
		tail -n 20 "$tmp/$case.err" >&2
		exit 1
	}
	ir=$(summary "$tmp/$case.err" "I   refs:")
	d1=$(summary "$tmp/$case.err" "D1  misses:")
	events=$(cost_field "$(newest_record "$work")" events)
	echo
	echo "$case: $ir instructions, $d1 L1 data misses, $events events"
	if [ -n "$events" ] && [ "$events" -gt 0 ]; then
		awk -v i="$ir" -v d="$d1" -v e="$events" 'BEGIN { printf "  per event (whole process): %.0f instructions, %.2f L1 data misses\n", i / e, d / e }'
	fi
	echo "  top $TOP functions by instructions:"
	# (awk stops counting rather than head closing the pipe: pipefail.)
	cg_annotate --show=Ir "$out" 2>/dev/null | awk -v top="$TOP" '/file:function/ { go = 1; next } go && NF >= 3 && /%\)/ && n++ < top' |
		sed -e 's|/[^ ]*/\([^/ ]*\.go\):| \1:|' -e 's|github.com/labctl/labctl/orchestrator/||' -e 's/^/    /'
done
