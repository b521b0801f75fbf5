#!/usr/bin/env bash
# Build the libFuzzer targets, make their seed corpora and run them.
#
#   scripts/fuzz.sh [--list] [--no-build|--build-only] [-j N] [-p N] [TARGET] [SECONDS]
#
#   --list      print the target names (fuzz_<name>.c in tests/fuzz) and exit
#   --build-only  build the targets and make the seeds, run nothing
#               (scripts/test.sh builds them while other stages wait)
#   -j N        build jobs (default 2)
#   -p N        run N targets at a time (default 1)
#   TARGET      one target ("pktline" or "fuzz_pktline"); default: all
#   SECONDS     how long each target runs (default 60; 0: only replay the
#               seeds and the committed regression inputs)
#
# The build is build/fuzz (clang, -DWG_FUZZ=ON); seeds come from
# tests/fuzz/make-seeds.sh into build/fuzz/corpus/<target>, and libFuzzer
# adds what it finds there. tests/fuzz/regressions/<target>/ (crashes found
# before, now fixed) and tests/fuzz/<target>.dict are always used. Each
# target prints one line: executions, coverage (cov/ft, libFuzzer's final
# counts), crashes; crashing inputs are saved as
# build/fuzz/artifacts/<target>/crash-*. Exits non-zero if any target
# crashed (or failed to build).
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
cd "$ROOT"
BUILD=$ROOT/build/fuzz
list=0 build=1 run=1 jobs=2 par=1 target="" secs=60
while [ $# -gt 0 ]; do
	case "$1" in
	--list) list=1 ;;
	--no-build) build=0 ;;
	--build-only) run=0 ;;
	-j) jobs=$2; shift ;;
	-j*) jobs=${1#-j} ;;
	-p) par=$2; shift ;;
	-p*) par=${1#-p} ;;
	-h|--help) sed -n '2,23p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
	-*) echo "fuzz.sh: unknown option $1" >&2; exit 2 ;;
	*)
		if [ -z "$target" ] && ! [[ "$1" =~ ^[0-9]+$ ]]; then
			target=${1#fuzz_}
		else
			secs=$1
		fi
		;;
	esac
	shift
done

targets=()
for f in tests/fuzz/fuzz_*.c; do
	t=$(basename "$f" .c)
	targets+=("${t#fuzz_}")
done
if [ "$list" = 1 ]; then
	printf '%s\n' "${targets[@]}"
	exit 0
fi
if [ -n "$target" ]; then
	[ -f "tests/fuzz/fuzz_$target.c" ] || { echo "fuzz.sh: no target '$target' (see --list)" >&2; exit 2; }
	targets=("$target")
fi

if [ "$build" = 1 ]; then
	if [ ! -f "$BUILD/CMakeCache.txt" ]; then
		CC=clang cmake -S . -B "$BUILD" -DWG_FUZZ=ON -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
	fi
	# All of them as the one target "fuzz" (cmake/fuzz.cmake): make walks
	# the libraries once, where 32 targets named on the command line made
	# it walk them 32 times (75 s of CPU to find nothing to do, 7 s so).
	fuzzers=(fuzz)
	if [ -n "$target" ]; then fuzzers=("fuzz_$target"); fi
	mkdir -p "$BUILD/logs"
	if ! cmake --build "$BUILD" -j "$jobs" --target "${fuzzers[@]}" >"$BUILD/logs/build.log" 2>&1; then
		tail -n 40 "$BUILD/logs/build.log" >&2
		echo "fuzz.sh: the build failed (log: build/fuzz/logs/build.log)" >&2
		exit 1
	fi
	tests/fuzz/make-seeds.sh "$BUILD/corpus" >/dev/null
fi
[ "$run" = 1 ] || exit 0

# run_one TARGET: replay, fuzz, and write the target's row (and, after a
# crash, an excerpt of its log) to $BUILD/logs/TARGET.row.
run_one() {
	local t=$1 bin=$BUILD/fuzz_$1 corpus=$BUILD/corpus/$1 art=$BUILD/artifacts/$1
	local log=$BUILD/logs/$1.log row=$BUILD/logs/$1.row status=0 execs cov ft
	mkdir -p "$corpus" "$art"
	if [ ! -x "$bin" ]; then
		printf '%-18s %12s %8s %8s %8s\n' "$t" - - - "not built" >"$row"
		return
	fi
	local args=(-print_final_stats=1 -artifact_prefix="$art/" -rss_limit_mb=2560 -timeout=25)
	[ -f "tests/fuzz/$t.dict" ] && args+=(-dict="tests/fuzz/$t.dict")
	# The committed regression inputs first, every time.
	if [ -d "tests/fuzz/regressions/$t" ] && [ -n "$(ls -A "tests/fuzz/regressions/$t")" ]; then
		"$bin" "${args[@]}" tests/fuzz/regressions/"$t"/* >"$log.replay" 2>&1 || status=$?
	fi
	if [ "$status" = 0 ]; then
		if [ "$secs" -gt 0 ]; then
			"$bin" "${args[@]}" -max_total_time="$secs" "$corpus" >"$log" 2>&1 || status=$?
		else
			"$bin" "${args[@]}" -runs=0 "$corpus" >"$log" 2>&1 || status=$?
		fi
	else
		cp "$log.replay" "$log"
	fi
	execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n 1)
	cov=$(grep -o 'cov: [0-9]*' "$log" | tail -n 1 | cut -d' ' -f2)
	ft=$(grep -o 'ft: [0-9]*' "$log" | tail -n 1 | cut -d' ' -f2)
	{
		printf '%-18s %12s %8s %8s %8s\n' "$t" "${execs:-?}" "${cov:-?}" "${ft:-?}" \
			"$([ "$status" = 0 ] && echo 0 || echo 1)"
		if [ "$status" != 0 ]; then
			echo "---- $t: exit status $status (log: ${log#"$ROOT"/}) ----"
			grep -E -A12 '^==[0-9]+==ERROR|runtime error|deadly signal|Test unit written' "$log" |
				head -n 40 | sed 's/^/  /'
			echo "----"
		fi
	} >"$row"
}

mkdir -p "$BUILD/logs"
for t in "${targets[@]}"; do rm -f "$BUILD/logs/$t.row"; done
running=0
for t in "${targets[@]}"; do
	if [ "$running" -ge "$par" ]; then
		wait -n || true
		running=$((running - 1))
	fi
	run_one "$t" &
	running=$((running + 1))
done
wait || true

crashed=0
printf '%-18s %12s %8s %8s %8s\n' target executions cov ft crashes
for t in "${targets[@]}"; do
	row=$BUILD/logs/$t.row
	if [ ! -f "$row" ]; then
		printf '%-18s %12s %8s %8s %8s\n' "$t" - - - "no result"
		crashed=$((crashed + 1))
		continue
	fi
	cat "$row"
	[ "$(awk 'NR == 1 { print $5 }' "$row")" = 0 ] || crashed=$((crashed + 1))
done
[ "$crashed" -eq 0 ]
