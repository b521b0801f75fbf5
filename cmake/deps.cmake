# Third-party libraries: sha1dc always from Git's source tree; zlib and
# BearSSL from the system natively (Debian -dev packages) and from their
# Debian source packages, compiled with emcc, for WebAssembly.

# sha1collisiondetection, as Git ships it in sha1dc/ (MIT).
add_library(wg_sha1dc STATIC
  "${WG_DEPS_DIR}/git/sha1dc/sha1.c"
  "${WG_DEPS_DIR}/git/sha1dc/ubc_check.c")
target_include_directories(wg_sha1dc SYSTEM PUBLIC "${WG_DEPS_DIR}/git/sha1dc")
target_compile_options(wg_sha1dc PRIVATE -O2 -w)
# Git builds it with the safe-hash default off, so a detected collision is
# reported while the digest stays plain SHA-1. We do the same at run time
# (SHA1DCSetSafeHash); the define keeps a fresh context consistent too.
target_compile_definitions(wg_sha1dc PRIVATE SHA1DC_INIT_SAFE_HASH_DEFAULT=0)
if(WG_SANITIZE OR WG_FUZZ)
  # On x86 sha1dc reads 32-bit words from unaligned input (blob data after
  # the "blob N\0" header), which UBSan rightly reports and aborts on. Git
  # builds it this way for its SANITIZE builds too.
  target_compile_definitions(wg_sha1dc PRIVATE SHA1DC_FORCE_ALIGNED_ACCESS)
endif()
if(EMSCRIPTEN)
  # WebAssembly is little-endian by definition. sha1dc guesses byte order
  # from compiler and libc macros; do not leave a hash to a guess.
  target_compile_definitions(wg_sha1dc PRIVATE SHA1DC_FORCE_LITTLEENDIAN)
endif()

if(EMSCRIPTEN)
  set(WG_ZLIB_DIR "${WG_DEPS_DIR}/zlib")
  set(WG_BEARSSL_DIR "${WG_DEPS_DIR}/bearssl")
  foreach(dir "${WG_ZLIB_DIR}" "${WG_BEARSSL_DIR}")
    if(NOT EXISTS "${dir}")
      message(FATAL_ERROR "${dir} missing: run scripts/bootstrap.sh")
    endif()
  endforeach()
  set(zfiles adler32 compress crc32 deflate gzclose gzlib gzread gzwrite infback
      inffast inflate inftrees trees uncompr zutil)
  list(TRANSFORM zfiles PREPEND "${WG_ZLIB_DIR}/")
  list(TRANSFORM zfiles APPEND ".c")
  add_library(wg_zlib STATIC ${zfiles})
  target_include_directories(wg_zlib SYSTEM PUBLIC "${WG_ZLIB_DIR}")
  # DYNAMIC_CRC_TABLE: the CRC-32 tables (5 KB of random bytes, which gzip
  # cannot shrink: a page downloads them whole) are computed on first use
  # instead, once, behind zlib's C11-atomic once() (the threaded module
  # calls crc32 from several workers).
  target_compile_definitions(wg_zlib PRIVATE Z_HAVE_UNISTD_H DYNAMIC_CRC_TABLE)
  target_compile_options(wg_zlib PRIVATE -O3 -w)
  # Compressing runs once per object we write (a commit, a push's pack),
  # never per object received: size over speed.
  if(WG_WASM_SIZE)
    set_source_files_properties("${WG_ZLIB_DIR}/deflate.c" "${WG_ZLIB_DIR}/trees.c"
      PROPERTIES COMPILE_OPTIONS -Oz)
  endif()

  # Two libraries: the hash functions the core uses (SHA-256), all the JS
  # package needs, and the rest (TLS, for the CLI's HTTPS under Node), so
  # that a build of the package alone compiles 16 of BearSSL's 277 files.
  file(GLOB bhash "${WG_BEARSSL_DIR}/src/hash/sha2*.c" "${WG_BEARSSL_DIR}/src/codec/*.c")
  file(GLOB_RECURSE bfiles "${WG_BEARSSL_DIR}/src/*.c")
  list(REMOVE_ITEM bfiles ${bhash})
  add_library(wg_bearssl_hash STATIC ${bhash})
  add_library(wg_bearssl STATIC ${bfiles})
  target_link_libraries(wg_bearssl PUBLIC wg_bearssl_hash)
  foreach(lib wg_bearssl_hash wg_bearssl)
    target_include_directories(${lib} SYSTEM PUBLIC "${WG_BEARSSL_DIR}/inc")
    target_include_directories(${lib} PRIVATE "${WG_BEARSSL_DIR}/src")
    # Emscripten defines __unix__ but not __linux__, so BearSSL would find
    # no system seeder; urandom maps to crypto.getRandomValues.
    target_compile_definitions(${lib} PRIVATE BR_USE_URANDOM=1)
    target_compile_options(${lib} PRIVATE -O3 -w)
  endforeach()
else()
  find_package(ZLIB REQUIRED)
  add_library(wg_zlib INTERFACE)
  target_link_libraries(wg_zlib INTERFACE ZLIB::ZLIB)
  find_path(BEARSSL_INCLUDE_DIR bearssl_hash.h PATH_SUFFIXES bearssl REQUIRED)
  find_library(BEARSSL_LIBRARY bearssl REQUIRED)
  add_library(wg_bearssl INTERFACE)
  target_include_directories(wg_bearssl SYSTEM INTERFACE "${BEARSSL_INCLUDE_DIR}")
  target_link_libraries(wg_bearssl INTERFACE "${BEARSSL_LIBRARY}")
  add_library(wg_bearssl_hash ALIAS wg_bearssl)
endif()
