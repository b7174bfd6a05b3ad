#!/usr/bin/env bash
# bench/fixed.sh: what a labctl run costs besides its simulation, on
# bench/compare.sh's incast (bench/compare/README.md, "Where labctl's incast
# CPU goes"). It times whole processes as bench/compare.sh does (user+sys
# CPU, runs interleaved, medians of REPS runs) and counts their minor page
# faults (one more run each, under GNU time, when /usr/bin/time is there):
#
#   a Go program that prints one line   the floor of any Go process here
#   labctl version                      start-up: the runtime and every
#                                       package's initialization
#   labctl run, the incast, 4 KB flows  start-up and the run around an engine
#                                       with almost nothing to do (configs,
#                                       lint, record, index, reports)
#   labctl run, the incast              all of it, 100 MB flows
#
# so the third less the second is the work of a run around the engine, and
# the fourth less the third the engine and what grows with it.
#
#   [REPS=21] bench/fixed.sh
#
# It builds labctl (make build) and the one-line Go program in a temporary
# directory, removed at the end, and downloads nothing.
set -euo pipefail

# (The script's folder without dirname, which a bare PATH may lack.)
case $0 in */*) here=${0%/*} ;; *) here=. ;; esac
# shellcheck source=bench/cases.sh
. "$here/cases.sh"
REPS=${REPS:-21}
check_timing bench/fixed.sh

root=$(cd "$(dirname "$0")/.." && pwd)
cmp=$root/bench/compare
tmp=$(mktemp -d "${TMPDIR:-/tmp}/labctl-fixed.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

build_labctl "$root" "$tmp/labctl"
echo "building a one-line Go program ..." >&2
mkdir -p "$tmp/hello"
printf 'package main\n\nimport "fmt"\n\nfunc main() { fmt.Println("hello") }\n' >"$tmp/hello/main.go"
printf 'module hello\n' >"$tmp/hello/go.mod"
(cd "$tmp/hello" && CGO_ENABLED=0 ${GO:-go} build -o "$tmp/hello/hello" .)
labctl=$tmp/labctl
work=$tmp/work
mkdir -p "$work"
# The small run: the bench incast with 4 KB flows, the rest the same.
sed 's/^\(    bytes:\) 100MB$/\1 4KB/' "$cmp/incast.yaml" >"$tmp/small.yaml"
if cmp -s "$cmp/incast.yaml" "$tmp/small.yaml"; then
	echo "bench/fixed.sh: found no '    bytes: 100MB' line in $cmp/incast.yaml to shrink: make the two agree" >&2
	exit 1
fi
"$labctl" --dir "$work" up "$cmp/incast-lab.yaml" >/dev/null

names=("a one-line Go program" "labctl version" "labctl run, the incast with 4 KB flows" "labctl run, the incast (100 MB flows)")
cmds=(
	"$tmp/hello/hello"
	"$labctl version"
	"$labctl --dir $work run $tmp/small.yaml --lab bench-incast"
	"$labctl --dir $work run $cmp/incast.yaml --lab bench-incast"
)
declare -A cpus
for r in $(seq 1 "$REPS"); do
	echo "run $r of $REPS ..." >&2
	for i in "${!cmds[@]}"; do
		# shellcheck disable=SC2086 # each command is a word list, no spaces in paths
		measure "$tmp/out.$i" ${cmds[$i]}
		cpus[$i]="${cpus[$i]:-} $cpu"
	done
done

faults() {
	if [ -x /usr/bin/time ]; then
		# shellcheck disable=SC2086
		/usr/bin/time -f '%R' -o "$tmp/faults" ${cmds[$1]} >/dev/null 2>&1 && cat "$tmp/faults"
	else
		echo "n/a (no /usr/bin/time)"
	fi
}

echo
echo "labctl $(labctl_commit "$root"), $(date -u +%Y-%m-%d), $REPS runs each interleaved, $(nproc) CPUs, load average $(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || echo unknown)"
echo "This machine after the runs: $(machine_costs "$root")."
echo "CPU ms: user+sys of the whole process (bash's times, to the ms), median and min-max; page faults: minor, of one more run."
echo
echo "| process | CPU ms | min-max | minor page faults |"
echo "|---|---|---|---|"
for i in "${!cmds[@]}"; do
	# shellcheck disable=SC2086 # the runs' figures, one word each
	set -- ${cpus[$i]}
	m=$(median "$@")
	lo=$(printf '%s\n' "$@" | sort -g | head -n 1)
	hi=$(printf '%s\n' "$@" | sort -g | tail -n 1)
	awk -v n="${names[$i]}" -v m="$m" -v lo="$lo" -v hi="$hi" -v f="$(faults "$i")" \
		'BEGIN { printf "| %s | %.1f | %.1f-%.1f | %s |\n", n, m * 1000, lo * 1000, hi * 1000, f }'
done
