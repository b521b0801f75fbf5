# The libFuzzer configuration (-DWG_FUZZ=ON, clang only), in its own build
# directory:
#
#   CC=clang cmake -S . -B build/fuzz -DWG_FUZZ=ON
#   cmake --build build/fuzz -j2 --target fuzz
#
# Every tests/fuzz/fuzz_<name>.c becomes an executable fuzz_<name> linked
# with -fsanitize=fuzzer,address,undefined against a core compiled with
# -fsanitize=fuzzer-no-link,address,undefined. scripts/fuzz.sh drives them.
# Included by the top-level CMakeLists.txt; does nothing unless WG_FUZZ is on.

option(WG_FUZZ "build the libFuzzer targets of tests/fuzz (clang only)" OFF)

set(WG_FUZZ_SANITIZERS "address,undefined")

# Compile flags for everything in this configuration: coverage
# instrumentation without libFuzzer's main, and the sanitizers. Called from
# the top-level file before any target is defined.
macro(wg_fuzz_flags)
  if(WG_FUZZ)
    if(EMSCRIPTEN OR NOT CMAKE_C_COMPILER_ID MATCHES "Clang")
      message(FATAL_ERROR "WG_FUZZ needs clang (CC=clang cmake -DWG_FUZZ=ON ...)")
    endif()
    add_compile_options(-fsanitize=fuzzer-no-link,${WG_FUZZ_SANITIZERS}
                        -fno-sanitize-recover=undefined -fno-omit-frame-pointer)
    add_link_options(-fsanitize=${WG_FUZZ_SANITIZERS})
  endif()
endmacro()

# The targets themselves; called once webgit_core exists.
function(wg_fuzz_targets)
  if(NOT WG_FUZZ)
    return()
  endif()
  file(GLOB srcs CONFIGURE_DEPENDS "${CMAKE_SOURCE_DIR}/tests/fuzz/fuzz_*.c")
  add_custom_target(fuzz)
  foreach(src ${srcs})
    get_filename_component(name "${src}" NAME_WE)
    add_executable(${name} "${src}")
    target_include_directories(${name} PRIVATE "${CMAKE_SOURCE_DIR}/tests/fuzz")
    target_link_libraries(${name} PRIVATE webgit_core)
    target_compile_options(${name} PRIVATE ${WG_WARNINGS} -Wno-missing-prototypes)
    target_link_options(${name} PRIVATE -fsanitize=fuzzer)
    add_dependencies(fuzz ${name})
  endforeach()
endfunction()
