# scripts/release-builds.sh — the optimized builds the README's commands use,
# in one place: sourced by scripts/demo.sh, which needs them, and by
# scripts/test.sh, which builds them too, so that a warning only an
# optimizing compiler gives (-O2's maybe-uninitialized...) fails the tests
# rather than the demo on a fresh machine. Warnings are errors (WG_WERROR).
#
#   wg_build_release_native ROOT   native CLI, Release (-O2), in ROOT/build/release
#                                  (scripts/demo.sh --cli)
#   wg_build_release_wasm ROOT     the WebAssembly JS package, Release, in
#                                  ROOT/build/demo-wasm (scripts/demo.sh)
#
# Both write the configure and build output to stdout and return the
# build's status; WG_JOBS sets the parallel jobs (default: nproc). The same
# build directories and options for both callers, so that one reuses what
# the other built.

wg_build_release_native() {
	local root=$1
	cmake -S "$root" -B "$root/build/release" -DCMAKE_BUILD_TYPE=Release -DWG_WERROR=ON &&
		cmake --build "$root/build/release" -j"${WG_JOBS:-$(nproc)}" --target webgit
}

wg_build_release_wasm() {
	local root=$1 build="$1/build/demo-wasm"
	# Emscripten's JS tools need Debian's node modules.
	export NODE_PATH=${NODE_PATH:-/usr/share/nodejs}
	if [ ! -f "$build/CMakeCache.txt" ]; then
		emcmake cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release -DWG_WERROR=ON \
			-DCMAKE_PROJECT_INCLUDE="$root/wasm/wasm.cmake" || return
	fi
	cmake --build "$build" -j"${WG_JOBS:-$(nproc)}" --target webgit_js_files
}
