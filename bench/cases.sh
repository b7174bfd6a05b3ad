# bench/cases.sh: what the bench scripts share, sourced by each: the names
# of bench-compare's cases (bench/compare/README.md), how labctl is built
# for them, which labctl they measured, what its run records say, and how
# a process is timed.
bench_cases="incast perm128 perm1024"

# check_cases SCRIPT: every case in $CASES is one of bench_cases, or SCRIPT
# says which is not and exits 2.
check_cases() {
	local c
	for c in $CASES; do
		case " $bench_cases " in
		*" $c "*) ;;
		*)
			echo "$1: unknown case $c in CASES (known: $bench_cases)" >&2
			exit 2
			;;
		esac
	done
}

# labctl_commit ROOT: the checkout's commit, "(modified)" after it when the
# work tree has changes, so that a figure says what code it measured.
labctl_commit() {
	local c
	c=$(git -C "$1" rev-parse --short HEAD 2>/dev/null || echo unknown)
	if [ -n "$(git -C "$1" status --porcelain 2>/dev/null | head -c1)" ]; then c="$c (modified)"; fi
	echo "$c"
}

# newest_record WORK: the run record labctl wrote last under WORK.
newest_record() { echo "$(ls -td "$1"/results/*/ | head -n 1)run.json"; }

# cost_field RUNJSON KEY: a number of the run record's per-variant "cost"
# object (events, events_per_s, threads), empty when the record has none.
cost_field() {
	awk -v key="$2" '
		/"cost": *\{/ { in_cost = 1 }
		in_cost && index($0, "\"" key "\":") {
			sub(".*\"" key "\": *", ""); sub(/[,}].*/, ""); print; exit
		}
		in_cost && /\}/ { in_cost = 0 }' "$1"
}

# check_timing SCRIPT: what measure needs, or SCRIPT says what is missing
# and exits 2: REPS a whole number of runs, 1 or more, and bash 5 or later
# (EPOCHREALTIME, its wall clock).
check_timing() {
	case $REPS in
	'' | *[!0-9]* | 0)
		echo "$1: REPS=$REPS must be a whole number of runs, 1 or more" >&2
		exit 2
		;;
	esac
	if [ -z "${EPOCHREALTIME:-}" ]; then
		echo "$1: needs bash 5 or later (EPOCHREALTIME); this is bash $BASH_VERSION" >&2
		exit 2
	fi
}

# build_labctl ROOT OUT: builds ROOT's labctl into OUT as the Makefile
# builds it (make build), so that a script measures that build.
build_labctl() {
	echo "building labctl ..." >&2
	make -C "$1" --no-print-directory build BIN="$2" >/dev/null
}

# machine_costs ROOT: what a page fault and a system call cost a process on
# this machine now (bench/machine), for the tables' header line: labctl's
# short runs take thousands of page faults where htsim's take a few
# hundred, so their ratio moves with the VM's fault cost.
machine_costs() {
	(cd "$1" && go run ./bench/machine 2>/dev/null) || echo "page fault and system call costs n/a"
}

# secs: bash's `times` figure (XmY.YYYs) in seconds.
secs() { awk -v t="$1" 'BEGIN { split(t, a, "m"); sub(/s$/, "", a[2]); printf "%.3f", a[1] * 60 + a[2] }'; }

# measure OUT CMD...: runs CMD with its output in OUT; sets cpu (user+sys of
# the process and its children) and wall, in seconds. The subshell's
# `times` reports its children only: CMD and nothing else.
measure() {
	local out=$1 t0 t1 rc=0
	shift
	t0=$EPOCHREALTIME
	(
		"$@" >"$out" 2>&1 || exit $?
		times >"$out.times"
	) || rc=$?
	t1=$EPOCHREALTIME
	if [ $rc != 0 ]; then
		echo "bench/${0##*/}: $* exited with $rc; its output:" >&2
		tail -n 20 "$out" >&2
		exit 1
	fi
	local u s
	read -r u s < <(sed -n 2p "$out.times")
	cpu=$(awk -v a="$(secs "$u")" -v b="$(secs "$s")" 'BEGIN { printf "%.3f", a + b }')
	wall=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.3f", b - a }')
}

median() { printf '%s\n' "$@" | sort -g | awk '{ v[NR] = $1 } END { if (NR % 2) printf "%.3f", v[(NR + 1) / 2]; else printf "%.3f", (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
