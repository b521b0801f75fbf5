#!/usr/bin/env bash
# tests/js/run.sh — build the WebAssembly JS package and run the JS tests.
#
#   tests/js/run.sh [BUILD_DIR]
#
# BUILD_DIR (default $WEBGIT_WASM_BUILD, else build/h-wasm) is an Emscripten
# build configured like scripts/test.sh's build/wasm; it is configured here
# if needed, with -DCMAKE_PROJECT_INCLUDE=wasm/wasm.cmake so that it works
# whether or not the top-level CMakeLists.txt includes wasm/wasm.cmake.
# Builds the target webgit_js_files (webgit.mjs, webgit.wasm and js/ copied
# into BUILD_DIR/js), then runs `node --test tests/js/` against it and ends
# with one line "N passed, N failed". Exits non-zero if anything failed.
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/../.." && pwd)
cd "$ROOT"
build=${1:-${WEBGIT_WASM_BUILD:-build/h-wasm}}
export NODE_PATH=${NODE_PATH:-/usr/share/nodejs}
export GIT=${GIT:-$ROOT/.cache/git-ref/bin/git}
NODE=${NODE:-node}
jobs=$(nproc 2>/dev/null || echo 2)
mkdir -p "$build"
log="$build/js-tests.log"
tap="$build/js-tests.tap"

if [ ! -f "$build/CMakeCache.txt" ]; then
	if ! emcmake cmake -S . -B "$build" \
		-DCMAKE_CROSSCOMPILING_EMULATOR="$(command -v "$NODE");--no-experimental-fetch" \
		-DCMAKE_PROJECT_INCLUDE="$ROOT/wasm/wasm.cmake" >"$log" 2>&1; then
		tail -n 40 "$log"
		echo "0 passed, 1 failed"
		exit 1
	fi
fi
if ! cmake --build "$build" -j "$jobs" --target webgit_js_files >"$log" 2>&1; then
	tail -n 60 "$log"
	echo "0 passed, 1 failed"
	exit 1
fi

status=0
# Node 20 runs one test file at a time on two cores (its default is one
# less than the cores); most files wait on servers and browsers, so run
# as many as there are cores.
WEBGIT_JS_DIR="$ROOT/$build/js" "$NODE" --test --test-concurrency="${WG_JS_JOBS:-$jobs}" \
	--test-reporter=spec --test-reporter-destination=stdout \
	--test-reporter=tap --test-reporter-destination="$tap" \
	tests/js/ || status=$?

pass=$(sed -n 's/^# pass \([0-9]*\)$/\1/p' "$tap" | tail -n 1)
fail=$(sed -n 's/^# fail \([0-9]*\)$/\1/p' "$tap" | tail -n 1)
pass=${pass:-0}
fail=${fail:-0}
if [ "$status" -ne 0 ] && [ "$fail" -eq 0 ]; then
	fail=1   # node --test failed without a failing test (a crash, a bad file)
fi
echo "$pass passed, $fail failed"
[ "$status" -eq 0 ] && [ "$fail" -eq 0 ]
