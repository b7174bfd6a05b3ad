#!/usr/bin/env bash
# bench/pgo.sh: writes cmd/labctl/default.pgo, the CPU profile Go's
# profile-guided optimization builds labctl with (go build, go run and
# go install pick it up by themselves: -pgo=auto). The profile is of the
# simulator's hot paths as users drive them: bench/compare.sh's 8:1 incast
# (many short runs, so set-up and reports weigh as in one), its
# permutations at 128 and 1024 hosts, the ECN x PFC matrix on 64gpu and a
# packet-level ring AllReduce on 128gpu. Under a minute on 2 cores.
#
# Re-run it (make pgo) after large changes to the engine and commit the
# result: a stale profile still builds, it only optimizes less.
set -euo pipefail

# (The script's folder without dirname, which a bare PATH may lack.)
case $0 in */*) here=${0%/*} ;; *) here=. ;; esac
# shellcheck source=bench/cases.sh
. "$here/cases.sh"

root=$(cd "$(dirname "$0")/.." && pwd)
tmp=$(mktemp -d "${TMPDIR:-/tmp}/labctl-pgo.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

build_labctl "$root" "$tmp/labctl"
l=$tmp/labctl
w=$tmp/work
mkdir -p "$w" "$tmp/prof"
cmp=$root/bench/compare

for lab in "$cmp/incast-lab.yaml" "$cmp/perm128-lab.yaml" "$cmp/perm1024-lab.yaml" 64gpu 128gpu; do
	"$l" --dir "$w" up "$lab" >/dev/null
done

n=0
profile() {
	n=$((n + 1))
	"$l" --dir "$w" --cpuprofile "$tmp/prof/$n.pprof" "$@" >/dev/null
}
echo "profiling: incast x40, perm128 x5, perm1024, ecn-pfc on 64gpu, allreduce on 128gpu ..." >&2
for _ in $(seq 40); do profile run "$cmp/incast.yaml" --lab bench-incast; done
for _ in $(seq 5); do profile run "$cmp/permutation.yaml" --lab bench-perm128; done
profile run "$cmp/permutation.yaml" --lab bench-perm1024
profile run ecn-pfc --lab 64gpu
profile run allreduce --lab 128gpu

go tool pprof -proto "$tmp"/prof/*.pprof >"$tmp/merged.pgo"
mv "$tmp/merged.pgo" "$root/cmd/labctl/default.pgo"
echo "wrote cmd/labctl/default.pgo ($(wc -c <"$root/cmd/labctl/default.pgo") bytes from $n profiles)" >&2
