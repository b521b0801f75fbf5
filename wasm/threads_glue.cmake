# cmake -DDIR=<dir> -DNAME=<name> -P threads_glue.cmake: after the threaded
# module links (wasm/wasm.cmake), rename Emscripten's <NAME>.worker.js to
# <NAME>.worker.cjs and the glue's two references to it. The script is
# CommonJS (require, __filename) and the package is "type": "module", so
# Node would load a .js one as an ES module and fail. Emscripten 3.1.6
# writes the name exactly twice (a new URL() for bundlers, a locateFile()
# call); anything else fails the build rather than shipping a glue that
# cannot start its threads.
file(READ "${DIR}/${NAME}.mjs" glue)
string(REPLACE "\"${NAME}.worker.js\"" "\"${NAME}.worker.cjs\"" patched "${glue}")
string(REGEX MATCHALL "\"${NAME}\\.worker\\.cjs\"" refs "${patched}")
list(LENGTH refs n)
if(NOT n EQUAL 2)
  message(FATAL_ERROR "threads_glue: expected 2 references to ${NAME}.worker.js in ${NAME}.mjs, found ${n}")
endif()
file(WRITE "${DIR}/${NAME}.mjs" "${patched}")
file(RENAME "${DIR}/${NAME}.worker.js" "${DIR}/${NAME}.worker.cjs")
