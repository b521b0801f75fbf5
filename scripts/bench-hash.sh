#!/usr/bin/env bash
# Hashing benchmark: webgit's SHA-1DC and SHA-256 natively and as WASM under
# Node, against `git hash-object` of the reference git on the same file.
#
#   scripts/bench-hash.sh [MIB]        (default 256)
#
# Builds tests/bench/bench_hash.c in three release configurations:
#   build/release      clang -O2 (the native figure; see the toolchain notes)
#   build/release-gcc  gcc -O2, for comparison
#   build/wasm-release emcc -O3, run with node
# then creates a MIB-sized random file under /tmp (kept for re-runs), and
# prints a table of MB/s (10^6 bytes per second, best of 5 runs for webgit,
# best of 3 for git). A webgit "blob" figure is the hashing of the file's
# bytes as a blob, then in parentheses including the time to read the file;
# git's figure is the whole `git hash-object` process. It fails if any webgit blob id differs from git's.
# Build logs go to build/logs/bench-*.log.
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
cd "$ROOT"
MIB=${1:-256}
GIT="$ROOT/.cache/git-ref/bin/git"
DATA="/tmp/wg-bench-hash-${MIB}M.bin"
LOGS="$ROOT/build/logs"
export NODE_PATH=${NODE_PATH:-/usr/share/nodejs}
NODE=(node --no-experimental-fetch)
mkdir -p "$LOGS"

[ -x "$GIT" ] || { echo "reference git missing: run scripts/bootstrap.sh" >&2; exit 1; }

# build NAME CONFIGURE-COMMAND...: configure and build only bench_hash, so a
# half-written file elsewhere in the tree (cli/, tests/) cannot stop us.
# WG_WERROR is off: a benchmark is not a lint gate.
build() {
	local name=$1 log="$LOGS/bench-$1.log"
	shift
	if ! { "$@" -DWG_WERROR=OFF && cmake --build "build/$name" -j "$(nproc)" --target bench_hash; } \
			>"$log" 2>&1; then
		tail -n 40 "$log" >&2
		echo "build of build/$name failed (log: $log)" >&2
		exit 1
	fi
}
echo "building (logs in build/logs/bench-*.log) ..." >&2
build release env CC=clang cmake -S . -B build/release -DCMAKE_BUILD_TYPE=Release \
	-DCMAKE_C_FLAGS_RELEASE="-O2 -DNDEBUG"
build release-gcc env CC=gcc cmake -S . -B build/release-gcc -DCMAKE_BUILD_TYPE=Release \
	-DCMAKE_C_FLAGS_RELEASE="-O2 -DNDEBUG"
build wasm-release emcmake cmake -S . -B build/wasm-release -DCMAKE_BUILD_TYPE=Release \
	-DCMAKE_CROSSCOMPILING_EMULATOR="$(command -v node);--no-experimental-fetch"

# The data file: random bytes, made once.
if [ "$(stat -c %s "$DATA" 2>/dev/null || echo 0)" != $((MIB * 1024 * 1024)) ]; then
	echo "creating $DATA ($MIB MiB) ..." >&2
	head -c "$((MIB * 1024 * 1024))" /dev/urandom >"$DATA.tmp"
	mv "$DATA.tmp" "$DATA"
fi

# Reference ids and timings: git hash-object in a repository of each format
# (hash-object has no --object-format option; the repository decides).
REPOS=$(mktemp -d /tmp/wg-bench-repos.XXXXXX)
trap 'rm -rf "$REPOS"' EXIT
"$GIT" init -q --object-format=sha1 "$REPOS/sha1"
"$GIT" init -q --object-format=sha256 "$REPOS/sha256"
declare -A git_id git_mbps
for fmt in sha1 sha256; do
	best=
	for _ in 1 2 3; do
		t0=$(date +%s.%N)
		id=$("$GIT" -C "$REPOS/$fmt" hash-object --no-filters "$DATA")
		t1=$(date +%s.%N)
		best=$(echo "$t0 $t1 ${best:-999999}" | awk '{ t = $2 - $1; print (t < $3 ? t : $3) }')
	done
	git_id[$fmt]=$id
	git_mbps[$fmt]=$(awk -v b="$((MIB * 1024 * 1024))" -v t="$best" 'BEGIN { printf "%.1f", b / t / 1e6 }')
done

# run_bench LABEL CMD...: streaming and blob figures of one build; checks the
# blob ids against git's. Fills stream[LABEL/algo] and blob[LABEL/algo].
declare -A stream blob
mismatch=0
run_bench() {
	local label=$1 out line algo
	shift
	out=$("$@" --mib "$MIB" --runs 5 --file "$DATA")
	while read -r line; do
		set -- $line
		case "$1" in
		stream) stream[$label/$2]=${line##*, } ;;
		blob)   # blob ALGO ID PATH: N bytes, read R s, hash H s, M MB/s
			algo=$2
			blob[$label/$algo]="${line##*, } ($(awk -v b="$5" -v r="$8" -v h="${11}" \
				'BEGIN { printf "%.0f", b / (r + h) / 1e6 }') w/ read)"
			if [ "$3" != "${git_id[$algo]}" ]; then
				echo "MISMATCH: $label $algo blob id $3, git says ${git_id[$algo]}" >&2
				mismatch=1
			fi
			;;
		esac
	done <<<"$out"
}
echo "running ..." >&2
run_bench "webgit native (clang -O2)" build/release/bench_hash
run_bench "webgit native (gcc -O2)" build/release-gcc/bench_hash
run_bench "webgit WASM -O3 (Node $(node --version))" "${NODE[@]}" build/wasm-release/bench_hash.js

printf '\n%s MiB file %s; MB/s, best of 5 (webgit) or 3 (git)\n\n' "$MIB" "$DATA"
printf '| %-36s | %-22s | %-22s | %-22s | %-22s |\n' "" "SHA-1DC stream" "SHA-1DC blob" \
	"SHA-256 stream" "SHA-256 blob"
printf '|%s|%s|%s|%s|%s|\n' "$(printf -- '-%.0s' {1..38})" "$(printf -- '-%.0s' {1..24})" \
	"$(printf -- '-%.0s' {1..24})" "$(printf -- '-%.0s' {1..24})" "$(printf -- '-%.0s' {1..24})"
for label in "webgit native (clang -O2)" "webgit native (gcc -O2)" \
		"webgit WASM -O3 (Node $(node --version))"; do
	printf '| %-36s | %-22s | %-22s | %-22s | %-22s |\n' "$label" \
		"${stream[$label/sha1]}" "${blob[$label/sha1]}" \
		"${stream[$label/sha256]}" "${blob[$label/sha256]}"
done
printf '| %-36s | %-22s | %-22s | %-22s | %-22s |\n' "git $("$GIT" version | cut -d' ' -f3) hash-object" \
	"" "${git_mbps[sha1]} MB/s" "" "${git_mbps[sha256]} MB/s"
printf '\nblob ids (git): sha1 %s\n                sha256 %s\n' "${git_id[sha1]}" "${git_id[sha256]}"
if [ "$mismatch" = 1 ]; then
	echo "blob ids DIFFER from git's" >&2
	exit 1
fi
echo "blob ids of every webgit build equal git's"
