# WebAssembly (Emscripten) settings, and wg_node_program() which turns an
# executable into a program Node can run like a native one. Included by the
# top-level CMakeLists.txt in both configurations; natively wg_node_program()
# does nothing.
#
#   export NODE_PATH=/usr/share/nodejs
#   emcmake cmake -S . -B build/wasm \
#     -DCMAKE_CROSSCOMPILING_EMULATOR="/usr/bin/node;--no-experimental-fetch"
#   cmake --build build/wasm -j2 && ctest --test-dir build/wasm
#
# (The two settings above are also applied here when missing, so a bare
# `emcmake cmake -S . -B build/wasm` works too.)

option(WG_WASM_CHECKS "WASM unit tests: -sASSERTIONS, -sSTACK_OVERFLOW_CHECK=2, -sSAFE_HEAP" ON)
set(WG_WASM_STACK_SIZE "4MB" CACHE STRING "stack size of WebAssembly programs")
# The threaded variant of the JS package's module (wasm/wasm.cmake): every
# object compiled with -pthread (shared memory, atomics), the indexer's pool
# on Web Workers. A configuration of its own: such objects do not link into
# the single-threaded module.
option(WG_WASM_THREADS "WebAssembly build with threads (-pthread)" OFF)
# Whether the JS package (wasm/wasm.cmake) also holds the threaded module.
option(WG_WASM_PACKAGE_THREADS "build the threaded module into the JS package too" ON)

# What a page downloads is the module (issues 16 and 18: a payload budget),
# and most of its code runs once per user action: the layers a clone's
# per-object work does not go through are compiled for size (-Oz), the
# others (and zlib, sha1dc, BearSSL's hashes: cmake/deps.cmake) for speed.
# docs/benchmarks.md has what each choice cost and gave.
option(WG_WASM_SIZE "compile the cold layers of the WebAssembly build with -Oz" ON)
set(WG_WASM_FAST_LAYERS util hash object pack odb CACHE STRING
  "layers compiled for speed when WG_WASM_SIZE is ON")

function(wg_node_program target)
endfunction()

if(NOT EMSCRIPTEN)
  return()
endif()

# emcmake's default emulator, "node;--experimental-wasm-threads", is rejected
# by Node 20 ("bad option"), which makes every ctest test fail. Without
# --no-experimental-fetch the glue fetch()es its .wasm and fails in Node.
find_program(WG_NODE NAMES node nodejs REQUIRED)
if(NOT CMAKE_CROSSCOMPILING_EMULATOR OR CMAKE_CROSSCOMPILING_EMULATOR MATCHES "experimental-wasm-threads")
  set(CMAKE_CROSSCOMPILING_EMULATOR "${WG_NODE};--no-experimental-fetch")
endif()

# emcc's link step runs JS tools that need Debian's node modules (acorn):
# give the linker NODE_PATH even when the shell running the build has none.
if(DEFINED ENV{NODE_PATH})
  set(WG_NODE_PATH "$ENV{NODE_PATH}" CACHE PATH "NODE_PATH for emcc's JS tools")
else()
  set(WG_NODE_PATH "/usr/share/nodejs" CACHE PATH "NODE_PATH for emcc's JS tools")
endif()
set(CMAKE_C_LINKER_LAUNCHER "${CMAKE_COMMAND};-E;env;NODE_PATH=${WG_NODE_PATH}")

# The stack is not growable: 3.1.6 defaults to 5 MB, newer emcc to 64 KB, and
# the option was renamed from TOTAL_STACK to STACK_SIZE in 3.1.27.
if(EMSCRIPTEN_VERSION VERSION_GREATER_EQUAL 3.1.27)
  set(WG_WASM_STACK_OPTION "-sSTACK_SIZE=${WG_WASM_STACK_SIZE}")
else()
  set(WG_WASM_STACK_OPTION "-sTOTAL_STACK=${WG_WASM_STACK_SIZE}")
endif()

if(WG_WASM_THREADS)
  add_compile_options(-pthread)
  add_link_options(-pthread)
endif()

set(WG_NODE_ENV_JS "${CMAKE_CURRENT_LIST_DIR}/node-env.js")

# wg_node_program(TARGET [TEST]): link TARGET as a Node program that sees the
# host's files (NODERAWFS), environment (node-env.js) and exit status. TEST
# adds run-time checks that turn silent memory corruption into failures: a
# NULL or misaligned access (SAFE_HEAP; wasm would otherwise read address 0
# happily), stack overflow, and glue misuse (ASSERTIONS).
function(wg_node_program target)
  cmake_parse_arguments(arg "TEST" "" "" ${ARGN})
  target_link_options(${target} PRIVATE
    -sNODERAWFS=1 -sENVIRONMENT=node -sALLOW_MEMORY_GROWTH=1 -sEXIT_RUNTIME=1
    ${WG_WASM_STACK_OPTION} "SHELL:--pre-js \"${WG_NODE_ENV_JS}\"")
  set_property(TARGET ${target} APPEND PROPERTY LINK_DEPENDS "${WG_NODE_ENV_JS}")
  if(arg_TEST AND WG_WASM_CHECKS)
    target_link_options(${target} PRIVATE -sASSERTIONS=1 -sSTACK_OVERFLOW_CHECK=2 -sSAFE_HEAP=1)
  endif()
endfunction()
