# bench/cases.sh: what bench/compare.sh and bench/instr.sh share, sourced
# by both: the names of bench-compare's cases (bench/compare/README.md),
# which labctl they measured, and what its run records say.
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
