# The JavaScript library's WebAssembly module: wasm/exports.c over core/,
# linked as one ES module (MODULARIZE + EXPORT_ES6) that every runtime loads
# the same way. Output, in the build directory:
#
#   <build>/js/webgit.mjs     the Emscripten glue (export default createWebgit)
#   <build>/js/webgit.wasm    the module
#   <build>/js/*.js, index.d.ts, package.json   copied from js/, so that
#                             <build>/js/ is the complete "webgit" package
#
# Target: webgit_js. Only in the Emscripten configuration; natively this
# file does nothing.
#
# Hook it into the top-level CMakeLists.txt with one line (anywhere after
# the project() call; it defers itself until webgit_core exists):
#
#   include(wasm/wasm.cmake)
#
# or, without touching CMakeLists.txt (what tests/js/run.sh does):
#
#   emcmake cmake -S . -B build/h-wasm -DCMAKE_PROJECT_INCLUDE=$PWD/wasm/wasm.cmake
#
# Settings (see /work/shared/notes/toolchain.md for why):
# - no NODERAWFS: the filesystem is the default MEMFS; Node, Deno and Bun
#   mount host directories with NODEFS (-lnodefs.js), browsers mount each
#   repository as its own IDBFS (-lidbfs.js) database, edge runtimes stay
#   in MEMFS.
# - ENVIRONMENT includes node only so that NODEFS is usable; an ES6 glue
#   cannot require() or see __dirname, so wasm/pre.js takes both from the
#   host (js/index.js passes them in Node only). The host always hands the
#   glue the compiled module (instantiateWasm), so the glue never loads the
#   .wasm itself.
# - the glue installs no process-wide handlers (NODEJS_CATCH_*=0) and never
#   exits the process (EXIT_RUNTIME=0, no main()).
# - no Asyncify, no eval (DYNAMIC_EXECUTION=0, for workerd); threads only
#   in the threaded variant (WG_WASM_THREADS, built into the same package
#   as <build>/mt unless WG_WASM_PACKAGE_THREADS is OFF).
include_guard(GLOBAL)

if(NOT EMSCRIPTEN)
  return()
endif()

# Compiling an object through emcc costs ~0.6 s of Python start-up before
# clang runs (Emscripten 3.1.6 as Debian packages it): over the build's ~580
# files, half of its time. `emcc -c` is clang with the flags `emcc
# --cflags` prints (its -v shows that very command), so objects are
# compiled by that clang directly, the same bytes out; linking still goes
# through emcc. -DWG_WASM_DIRECT_CLANG=OFF compiles through emcc again.
option(WG_WASM_DIRECT_CLANG "compile WebAssembly objects with emcc's clang directly" ON)
if(WG_WASM_DIRECT_CLANG)
  get_filename_component(wg_emsdk_bin "${CMAKE_C_COMPILER}" DIRECTORY)
  execute_process(COMMAND "${CMAKE_C_COMPILER}" --cflags
    OUTPUT_VARIABLE wg_emcc_cflags OUTPUT_STRIP_TRAILING_WHITESPACE RESULT_VARIABLE wg_rc1 ERROR_QUIET)
  execute_process(COMMAND "${wg_emsdk_bin}/em-config" LLVM_ROOT
    OUTPUT_VARIABLE wg_llvm_root OUTPUT_STRIP_TRAILING_WHITESPACE RESULT_VARIABLE wg_rc2 ERROR_QUIET)
  if(wg_rc1 EQUAL 0 AND wg_rc2 EQUAL 0 AND EXISTS "${wg_llvm_root}/clang" AND wg_emcc_cflags MATCHES "-target wasm32")
    set(CMAKE_C_COMPILE_OBJECT
      "\"${wg_llvm_root}/clang\" ${wg_emcc_cflags} <DEFINES> <INCLUDES> <FLAGS> -o <OBJECT> -c <SOURCE>")
  else()
    message(STATUS "WG_WASM_DIRECT_CLANG: emcc's clang not found; compiling through emcc")
  endif()
endif()

set(WG_JS_SOURCE_DIR "${CMAKE_CURRENT_LIST_DIR}/../js")
get_filename_component(WG_JS_SOURCE_DIR "${WG_JS_SOURCE_DIR}" ABSOLUTE)
set(WG_WASM_DIR "${CMAKE_CURRENT_LIST_DIR}")

function(wg_wasm_js_target)
  if(TARGET webgit_js)
    return()
  endif()
  set(out "${CMAKE_BINARY_DIR}/js")
  file(GLOB wg_wasm_sources CONFIGURE_DEPENDS "${WG_WASM_DIR}/*.c")
  add_executable(webgit_js ${wg_wasm_sources})
  target_link_libraries(webgit_js PRIVATE webgit_core)
  target_compile_options(webgit_js PRIVATE -Wall -Wextra -Wshadow -Wstrict-prototypes
    -Wno-unused-parameter)
  # The exports have no header: their declarations are js/index.js.
  target_compile_options(webgit_js PRIVATE -Wno-missing-prototypes)
  if(WG_WERROR)
    target_compile_options(webgit_js PRIVATE -Werror)
  endif()
  # the exports run once per call from JS: cold (cmake/wasm.cmake)
  if(WG_WASM_SIZE)
    target_compile_options(webgit_js PRIVATE -Oz)
  endif()
  if(DEFINED WG_WASM_STACK_OPTION)
    set(stack "${WG_WASM_STACK_OPTION}")
  else()
    set(stack "-sTOTAL_STACK=4MB")
  endif()
  # The threaded variant (WG_WASM_THREADS) is webgit-mt.{mjs,wasm} plus
  # the Workers' script, for js/runtime.js to load beside the plain one.
  set(incoming instantiateWasm,wasmBinary,locateFile,print,printErr,nodeRequire,nodeDirname,wgjsProgress,wgjsHostFs)
  if(WG_WASM_THREADS)
    set(name webgit-mt)
    string(APPEND incoming ,wgjsThreads)
  else()
    set(name webgit)
  endif()
  set_target_properties(webgit_js PROPERTIES
    OUTPUT_NAME ${name} SUFFIX ".mjs" RUNTIME_OUTPUT_DIRECTORY "${out}")
  target_link_options(webgit_js PRIVATE
    -O2 -g0
    -sMODULARIZE=1 -sEXPORT_ES6=1 -sEXPORT_NAME=createWebgit
    -sENVIRONMENT=web,worker,node
    -sNODEJS_CATCH_EXIT=0 -sNODEJS_CATCH_REJECTION=0
    -sALLOW_MEMORY_GROWTH=1 ${stack}
    -sFILESYSTEM=1 -lnodefs.js -lidbfs.js -sDYNAMIC_EXECUTION=0
    -sEXIT_RUNTIME=0 -sINVOKE_RUN=0
    "-sEXPORTED_FUNCTIONS=_malloc,_free"
    "-sEXPORTED_RUNTIME_METHODS=FS,NODEFS,IDBFS,HEAPU8,HEAPU32,UTF8ToString,stringToUTF8,lengthBytesUTF8"
    "-sINCOMING_MODULE_JS_API=${incoming}"
    # printf without its float conversions (wasm/printf_no_float.c)
    -Wl,--wrap=snprintf -Wl,--wrap=vsnprintf
    "SHELL:--pre-js \"${WG_WASM_DIR}/pre.js\"")
  if(WG_WASM_THREADS)
    # A pool of Workers made at load, as many as the host asks for
    # (js/runtime.js: Module.wgjsThreads), each with the module compiled
    # once: a thread can only start while its creator returns to the event
    # loop otherwise, and the indexer's caller waits instead. A thread
    # beyond the pool is refused (the indexer does that work itself). The
    # pool loads in the background (DELAY_LOAD): init() does not wait for
    # it (150 ms in Node), and a thread whose Worker is not loaded yet is
    # refused too (core/util/thread.c).
    target_link_options(webgit_js PRIVATE
      "-sPTHREAD_POOL_SIZE=Module.wgjsThreads" -sPTHREAD_POOL_SIZE_STRICT=2
      -sPTHREAD_POOL_DELAY_LOAD=1)
    # The Workers' script is CommonJS in Node: .cjs, as the package is
    # "type": "module" (wasm/threads_glue.cmake renames it in the glue).
    add_custom_command(TARGET webgit_js POST_BUILD
      COMMAND "${CMAKE_COMMAND}" -DDIR=${out} -DNAME=${name} -P "${WG_WASM_DIR}/threads_glue.cmake")
  endif()
  # e.g. -DWG_WASM_EXTRA_LINK_OPTIONS=--profiling-funcs: function names in
  # profiles (node --cpu-prof).
  if(WG_WASM_EXTRA_LINK_OPTIONS)
    target_link_options(webgit_js PRIVATE ${WG_WASM_EXTRA_LINK_OPTIONS})
  endif()
  set_property(TARGET webgit_js APPEND PROPERTY LINK_DEPENDS "${WG_WASM_DIR}/pre.js")
  # Every file of js/ (the modules, their declarations, package.json, the
  # package's README and changelog) and the project's LICENSE.
  file(GLOB wg_js_files CONFIGURE_DEPENDS "${WG_JS_SOURCE_DIR}/*.js"
    "${WG_JS_SOURCE_DIR}/*.d.ts" "${WG_JS_SOURCE_DIR}/package.json" "${WG_JS_SOURCE_DIR}/*.md")
  list(APPEND wg_js_files "${WG_JS_SOURCE_DIR}/../LICENSE")
  add_custom_command(TARGET webgit_js POST_BUILD
    COMMAND "${CMAKE_COMMAND}" -E copy_if_different ${wg_js_files} "${out}/")
  # The threaded variant goes into the same package: configured and built
  # as a project of its own in <build>/mt (its objects are compiled with
  # -pthread and cannot share this build's), same build type, its three
  # files copied beside webgit.mjs. js/runtime.js picks one at load.
  set(mt_files)
  set(mt_target)
  if(NOT WG_WASM_THREADS AND WG_WASM_PACKAGE_THREADS)
    include(ExternalProject)
    set(mt "${CMAKE_BINARY_DIR}/mt")
    ExternalProject_Add(webgit_js_mt
      SOURCE_DIR "${CMAKE_SOURCE_DIR}"
      BINARY_DIR "${mt}"
      CMAKE_ARGS
        "-DCMAKE_TOOLCHAIN_FILE=${CMAKE_TOOLCHAIN_FILE}"
        "-DCMAKE_BUILD_TYPE=${CMAKE_BUILD_TYPE}"
        "-DCMAKE_PROJECT_INCLUDE=${WG_WASM_DIR}/wasm.cmake"
        "-DWG_DEPS_DIR=${WG_DEPS_DIR}" "-DWG_WERROR=${WG_WERROR}"
        "-DWG_NODE_PATH=${WG_NODE_PATH}" -DWG_WASM_THREADS=ON
      # the parent's make (and its jobs), this one target only
      BUILD_COMMAND $(MAKE) webgit_js
      INSTALL_COMMAND ""
      BUILD_ALWAYS ON)
    set(mt_files "${mt}/js/webgit-mt.mjs" "${mt}/js/webgit-mt.wasm" "${mt}/js/webgit-mt.worker.cjs")
    set(mt_target webgit_js_mt)
  endif()
  # The copies must follow edits of js/ even when the C did not change.
  add_custom_target(webgit_js_files ALL
    COMMAND "${CMAKE_COMMAND}" -E copy_if_different ${wg_js_files} ${mt_files} "${out}/"
    DEPENDS webgit_js ${mt_target}
    COMMENT "webgit JS package in ${out}")
endfunction()

if(TARGET webgit_core)
  wg_wasm_js_target()
else()
  # Included before core/ is defined (CMAKE_PROJECT_INCLUDE, or an include()
  # near the top): add the target once the top-level directory is read.
  cmake_language(DEFER DIRECTORY "${CMAKE_SOURCE_DIR}" CALL wg_wasm_js_target)
endif()
