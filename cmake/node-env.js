// --pre-js for webgit programs that run under Node (unit tests, the CLI and
// benchmarks built with -sENVIRONMENT=node -sNODERAWFS=1).
//
// Emscripten starts a program with a made-up environment (USER=web_user,
// HOME=/home/web_user, PWD=/, ...), so getenv() would not see TMPDIR, HOME,
// GIT_DIR or WG_TEST_DATA. Copy Node's real environment in before main(), so
// the WebAssembly build behaves like the native one. `ENV` exists only when
// the program uses the environment at all, hence the typeof guard.
Module['preRun'] = Module['preRun'] || [];
Module['preRun'].push(function () {
  if (typeof ENV !== 'undefined' && typeof process !== 'undefined') {
    Object.assign(ENV, process.env);
  }
});
