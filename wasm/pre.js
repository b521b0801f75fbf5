// --pre-js of the webgit ES module (wasm/wasm.cmake).
//
// The glue is built for web, worker and node so that Node (and Deno and
// Bun, through their Node compatibility) can mount host directories with
// NODEFS. Its Node code needs require() and __dirname, which an ES module
// does not have, so the host passes them in: js/runtime.js sets
// nodeRequire = createRequire(import.meta.url) where node:fs loads.
//
// The glue takes the Node path only when the host opted in that way:
// `process` is shadowed here, so a runtime that merely looks like Node
// (workerd with nodejs_compat) runs the web/worker code instead of
// failing on the missing require().
var require = Module['nodeRequire'];
var __dirname = Module['nodeDirname'] || '/';
var process = require ? globalThis.process : undefined;
