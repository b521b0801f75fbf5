#!/usr/bin/env bash
# bench-refs.sh: ref storage figures, webgit beside git 2.53 (not a test).
#
#   scripts/bench-refs.sh [N] [RUNS] [FORMAT...]
#       N refs (default 1000000), RUNS per timing (default 7), ref formats
#       (default: reftable files)
#
# For each ref format and tool, in a fresh SHA-1 repository: create N refs
# (refs/b/XXXX/rYYY, 1000 per directory) in ONE `update-ref --stdin`
# transaction, `pack-refs --all` them (packed-refs, or one compacted table),
# then time (median of RUNS):
#   update-one  `update-ref refs/b/0000/r0007 <other> <old>` among N packed refs
#   read-one    `show-ref --verify refs/b/<middle>`
#   revparse    `rev-parse refs/b/<middle>`
#   list-1000   `for-each-ref refs/b/<middle dir>/` (1000 refs)
# Builds webgit in release mode into /tmp/build-refs-release unless
# WEBGIT is set. Temporary repositories go under /tmp.
set -euo pipefail
N=${1:-1000000}
RUNS=${2:-7}
shift 2 2>/dev/null || shift $#
FORMATS=("$@")
[ ${#FORMATS[@]} -gt 0 ] || FORMATS=(reftable files)
ROOT=$(cd "$(dirname "$0")/.." && pwd)
GIT=${GIT:-$ROOT/.cache/git-ref/bin/git}
if [ -z "${WEBGIT:-}" ]; then
	cmake -S "$ROOT" -B /tmp/build-refs-release -DCMAKE_BUILD_TYPE=Release -DWG_WERROR=OFF >/dev/null
	cmake --build /tmp/build-refs-release -j2 --target webgit >/dev/null
	WEBGIT=/tmp/build-refs-release/webgit
fi
WORK=$(mktemp -d /tmp/bench-refs.XXXXXX)
trap 'rm -rf "$WORK"' EXIT
export GIT_COMMITTER_NAME=bench GIT_COMMITTER_EMAIL=bench@example.com GIT_AUTHOR_NAME=bench \
	GIT_AUTHOR_EMAIL=bench@example.com GIT_CONFIG_NOSYSTEM=1 HOME=$WORK

now() { date +%s%N; }
ms() { echo "scale=2; ($2 - $1) / 1000000" | bc; }
median() { sort -n | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }'; }

# time_runs CMD...: median milliseconds of RUNS runs
time_runs() {
	local i t0 t1
	for ((i = 0; i < RUNS; i++)); do
		t0=$(now); "$@" >/dev/null; t1=$(now); ms "$t0" "$t1"
	done | median
}

dirs=$(( (N + 999) / 1000 ))
mid=$(printf '%04d' $((dirs / 2)))
printf '# %d refs, median of %d runs, milliseconds\n' "$N" "$RUNS"
printf '%-9s %-8s %12s %10s %10s %10s %10s %10s\n' format tool create-all pack update-one read-one revparse list-1000
for fmt in "${FORMATS[@]}"; do
for tool in git webgit; do
	X=$GIT; [ $tool = webgit ] && X=$WEBGIT
	R=$WORK/$fmt-$tool
	"$GIT" init -q --object-format=sha1 --ref-format="$fmt" "$R"
	"$GIT" -C "$R" commit -q --allow-empty -m one
	"$GIT" -C "$R" commit -q --allow-empty -m two
	A=$("$GIT" -C "$R" rev-parse HEAD~1); B=$("$GIT" -C "$R" rev-parse HEAD)
	awk -v n="$N" -v c="$A" 'BEGIN { for (i = 0; i < n; i++) printf "create refs/b/%04d/r%03d %s\n", int(i / 1000), i % 1000, c }' >"$WORK/in.txt"
	t0=$(now); (cd "$R" && "$X" update-ref --stdin <"$WORK/in.txt"); t1=$(now); create=$(ms "$t0" "$t1")
	t0=$(now); (cd "$R" && "$X" pack-refs --all); t1=$(now); pack=$(ms "$t0" "$t1")
	cd "$R"
	flip() { "$X" update-ref refs/b/0000/r007 "$B" "$A" && "$X" update-ref refs/b/0000/r007 "$A" "$B"; }
	upd=$(time_runs flip); upd=$(echo "scale=2; $upd / 2" | bc)
	read1=$(time_runs "$X" show-ref --verify refs/b/$mid/r500)
	rp=$(time_runs "$X" rev-parse refs/b/$mid/r500)
	list=$(time_runs "$X" for-each-ref refs/b/$mid/)
	test "$("$X" for-each-ref refs/b/$mid/ | wc -l)" = 1000 || echo "warning: $tool listed a wrong count" >&2
	cd - >/dev/null
	printf '%-9s %-8s %12s %10s %10s %10s %10s %10s\n' $fmt $tool "$create" "$pack" "$upd" "$read1" "$rp" "$list"
	rm -rf "$R"
done
done
