# bench/cases.sh: what bench/compare.sh and bench/instr.sh share, sourced
# by both: the names of bench-compare's cases (bench/compare/README.md).
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
