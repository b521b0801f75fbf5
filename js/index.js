// webgit: Git in WebAssembly, driven from JavaScript.
//
// The C core (core/, exported by wasm/exports.c) never does I/O on the
// network: each operation hands out the HTTP requests it wants made, and
// this file makes them with fetch() and streams the response bodies back in
// chunk by chunk (design rule 1). Repositories live in the module's file
// system: in Node a host directory is mounted there (NODEFS) for the
// duration of each call, so `dir` is an ordinary path on disk.
//
// Layout: this file expects the Emscripten glue webgit.mjs and the module
// webgit.wasm next to it, as in the package the build makes
// (<build>/js/ from wasm/wasm.cmake).

import createWebgit from './webgit.mjs';

let M = null;          // the instantiated module
let loading = null;    // init()'s promise
let node = null;       // { fs, path } in Node
let ITEROVER = 0;
let scratch = 0;       // 4 bytes for out-parameters
let feedBuf = 0, feedCap = 0;
let mountSeq = 0;
let progressSeq = 0;
const progressFns = new Map();

const isNode = typeof process === 'object' && process !== null &&
  typeof process.versions === 'object' && typeof process.versions.node === 'string' &&
  typeof Deno === 'undefined';

/**
 * Load and instantiate the WebAssembly module. Called implicitly by every
 * other function; call it yourself to pass the module or to load early.
 * `wasm`: the module's bytes or a compiled WebAssembly.Module. Default: the
 * file webgit.wasm next to this one (read from disk in Node, fetched
 * elsewhere).
 */
export function init(options = {}) {
  if (!loading) {
    loading = load(options).catch((e) => {
      loading = null;
      throw e;
    });
  }
  return loading;
}

async function load({ wasm } = {}) {
  if (isNode) {
    const [fs, path] = await Promise.all([import('node:fs'), import('node:path')]);
    node = { fs: fs.default || fs, path: path.default || path };
  }
  let mod;
  if (wasm instanceof WebAssembly.Module) {
    mod = wasm;
  } else if (wasm) {
    mod = await WebAssembly.compile(wasm);
  } else {
    const url = new URL('./webgit.wasm', import.meta.url);
    if (isNode) {
      mod = await WebAssembly.compile(await node.fs.promises.readFile(url));
    } else {
      mod = await WebAssembly.compileStreaming(fetch(url));
    }
  }
  let failInstantiate;
  const failed = new Promise((_, reject) => { failInstantiate = reject; });
  const moduleArg = {
    // The host compiles, the glue never loads the .wasm itself.
    instantiateWasm(imports, receive) {
      WebAssembly.instantiate(mod, imports).then((inst) => receive(inst, mod), failInstantiate);
      return {};
    },
    locateFile: (p) => p,
    print: () => {},
    printErr: () => {},
    wgjsProgress: onProgress,
  };
  if (isNode) {
    // The glue's NODEFS needs require() (see wasm/pre.js).
    const { createRequire } = await import('node:module');
    moduleArg.nodeRequire = createRequire(import.meta.url);
    moduleArg.nodeDirname = node.path.dirname(new URL(import.meta.url).pathname);
  }
  M = await Promise.race([createWebgit(moduleArg), failed]);
  ITEROVER = M._wgjs_iterover();
  M._wgjs_set_umask(isNode ? process.umask() : 0o022);
  scratch = M._malloc(4);
}

async function ready() {
  if (!M) await init();
}

// --- memory helpers ------------------------------------------------------------

function str(ptr) {
  return ptr ? M.UTF8ToString(ptr >>> 0) : null;
}

function cstr(s) {
  if (s === null || s === undefined) return 0;
  const n = M.lengthBytesUTF8(s) + 1;
  const p = M._malloc(n);
  if (!p) throw makeError('ENOMEM', 'out of memory');
  M.stringToUTF8(s, p, n);
  return p;
}

// Run fn with C copies of strings, freed afterwards.
function withStrings(strings, fn) {
  const ptrs = [];
  try {
    for (const s of strings) ptrs.push(cstr(s));
    return fn(...ptrs);
  } finally {
    for (const p of ptrs) if (p) M._free(p);
  }
}

function makeError(code, message) {
  const e = new Error(message || code);
  e.code = code;
  return e;
}

// The core's last error, for a call that returned `rc` (a negative code) or
// NULL (rc undefined).
function lastError(rc) {
  const code = rc === undefined ? M._wgjs_error_code() : rc;
  const name = str(M._wgjs_error_name(code)) || 'ERROR';
  return makeError(code === 0 ? 'ERROR' : name, str(M._wgjs_error_message()) || name);
}

function check(rc) {
  if (rc < 0) throw lastError(rc);
  return rc;
}

// --- host directories ---------------------------------------------------------------

// Mount the host directory `hostDir` (Node) inside the module's file system
// for the duration of fn(path). Elsewhere `hostDir` is already a path of
// the module's own file system (MEMFS, IDBFS...).
function withHostDir(hostDir, fn) {
  if (!isNode) return fn(hostDir);
  const mp = `/host/${++mountSeq}`;
  M.FS.mkdirTree(mp);
  try {
    M.FS.mount(M.FS.filesystems.NODEFS, { root: hostDir }, mp);
  } catch (e) {
    M.FS.rmdir(mp);
    throw makeError('ENOTFOUND', `cannot access '${hostDir}': ${e.code || e.message}`);
  }
  const done = () => {
    M.FS.unmount(mp);
    M.FS.rmdir(mp);
  };
  let result;
  try {
    result = fn(mp);
  } catch (e) {
    done();
    throw e;
  }
  if (result && typeof result.then === 'function') {
    return result.finally(done);
  }
  done();
  return result;
}

// A path for a repository that may not exist yet (clone): mount its parent,
// created if needed, as git clone creates leading directories.
function withNewHostDir(dir, fn) {
  if (!isNode) return fn(dir);
  const abs = node.path.resolve(dir);
  const parent = node.path.dirname(abs);
  node.fs.mkdirSync(parent, { recursive: true });
  return withHostDir(parent, (mp) => fn(abs === parent ? mp : `${mp}/${node.path.basename(abs)}`));
}

function withRepo(dir, fn) {
  if (typeof dir !== 'string' || !dir) throw makeError('EINVALID', 'dir is required');
  return withHostDir(isNode ? node.path.resolve(dir) : dir, (path) => {
    const repo = withStrings([path], (p) => M._wgjs_repo_open(p));
    if (!repo) throw lastError();
    try {
      return fn(repo);
    } finally {
      M._wgjs_repo_free(repo);
    }
  });
}

// --- driving an operation with fetch() -------------------------------------------------

function onProgress(token, phase, done, total, bytes, finished, remote, line) {
  const fn = progressFns.get(token);
  if (!fn) return;
  try {
    fn({ phase, done, total, bytes, finished, remote, line });
  } catch {
    // a display callback must not break the transfer
  }
}

function feed(op, chunk) {
  if (chunk.byteLength > feedCap) {
    if (feedBuf) M._free(feedBuf);
    feedCap = Math.max(chunk.byteLength, 64 * 1024);
    feedBuf = M._malloc(feedCap);
    if (!feedBuf) {
      feedCap = 0;
      throw makeError('ENOMEM', 'out of memory');
    }
  }
  M.HEAPU8.set(chunk, feedBuf >>> 0);   // re-read HEAPU8: memory may have grown
  check(M._wgjs_op_feed(op, feedBuf, chunk.byteLength));
}

function readRequest(req) {
  const method = str(M._wgjs_req_method(req));
  const url = str(M._wgjs_req_url(req));
  const headers = [];
  const n = M._wgjs_req_nheaders(req);
  for (let i = 0; i < n; i++) {
    const h = str(M._wgjs_req_header(req, i));
    const colon = h.indexOf(':');
    headers.push([h.slice(0, colon).trim(), h.slice(colon + 1).trim()]);
  }
  const len = M._wgjs_req_body_len(req) >>> 0;
  let body;
  if (len) {
    const p = M._wgjs_req_body(req) >>> 0;
    body = M.HEAPU8.slice(p, p + len);
  }
  return { method, url, headers, body };
}

function abortReason(signal) {
  return signal.reason !== undefined ? signal.reason
    : Object.assign(new Error('This operation was aborted'), { name: 'AbortError', code: 'ABORT_ERR' });
}

// Make the requests `op` asks for until it is complete. Throws on error or
// abort; the caller frees the op in every case.
async function drive(op, { fetch: fetchFn = globalThis.fetch, headers: extra, signal } = {}) {
  if (typeof fetchFn !== 'function') throw makeError('EINVALID', 'no fetch() available');
  for (;;) {
    if (signal?.aborted) throw abortReason(signal);
    const rc = M._wgjs_op_next_request(op, scratch);
    if (rc === ITEROVER) return;
    check(rc);
    const req = readRequest(M.HEAPU32[scratch >>> 2]);
    const headers = new Headers(extra || undefined);
    for (const [k, v] of req.headers) headers.set(k, v);
    let res;
    try {
      res = await fetchFn(req.url, { method: req.method, headers, body: req.body, signal });
    } catch (e) {
      if (signal?.aborted) throw abortReason(signal);
      throw Object.assign(makeError('EIO', `${req.method} ${req.url}: ${e.message}`), { cause: e });
    }
    const reader = res.body ? res.body.getReader() : null;
    try {
      check(withStrings([res.headers.get('content-type')],
        (ct) => M._wgjs_op_response_begin(op, res.status, ct)));
      if (reader) {
        for (;;) {
          let step;
          try {
            step = await reader.read();
          } catch (e) {
            if (signal?.aborted) throw abortReason(signal);
            throw Object.assign(makeError('EIO', `${req.method} ${req.url}: ${e.message}`), { cause: e });
          }
          if (step.done) break;
          feed(op, step.value);
          if (signal?.aborted) throw abortReason(signal);
        }
      }
      check(M._wgjs_op_response_end(op));
    } catch (e) {
      if (reader) reader.cancel().catch(() => {});
      throw e;
    }
  }
}

// --- the API ---------------------------------------------------------------------

/**
 * The refs of a remote repository, as `git ls-remote` lists them.
 * Returns [{ name, oid, target?, peeled?, unborn? }] in the server's order.
 */
export async function listRemoteRefs(url, { prefix, fetch, headers, signal } = {}) {
  await ready();
  const prefixes = prefix === undefined || prefix === null ? [] : [].concat(prefix);
  const ptrs = prefixes.map(cstr);
  const array = ptrs.length ? M._malloc(4 * ptrs.length) : 0;
  ptrs.forEach((p, i) => { M.HEAPU32[(array >>> 2) + i] = p; });
  let op;
  try {
    op = withStrings([url], (u) => M._wgjs_ls_remote_new(u, array, ptrs.length));
    if (!op) throw lastError();
  } finally {
    for (const p of ptrs) M._free(p);
    if (array) M._free(array);
  }
  try {
    await drive(op, { fetch, headers, signal });
    const refs = [];
    const n = M._wgjs_ls_remote_count(op);
    for (let i = 0; i < n; i++) {
      const ref = { name: str(M._wgjs_ls_remote_name(op, i)), oid: str(M._wgjs_ls_remote_oid(op, i)) };
      const target = str(M._wgjs_ls_remote_target(op, i));
      const peeled = str(M._wgjs_ls_remote_peeled(op, i));
      if (target !== null) ref.target = target;
      if (peeled !== null) ref.peeled = peeled;
      if (M._wgjs_ls_remote_unborn(op, i)) {
        ref.unborn = true;
        ref.oid = null;
      }
      refs.push(ref);
    }
    return refs;
  } finally {
    M._wgjs_op_free(op);
  }
}

/**
 * Clone `url` into `dir` (which must not exist, or be empty), like
 * `git clone --no-checkout`. Resolves when the repository is complete;
 * on error or abort nothing is left at `dir`.
 */
export async function clone({
  url, dir, ref, depth, filter, singleBranch, bare, headers, fetch, onProgress: progress, signal,
} = {}) {
  await ready();
  if (typeof url !== 'string' || !url) throw makeError('EINVALID', 'url is required');
  if (typeof dir !== 'string' || !dir) throw makeError('EINVALID', 'dir is required');
  if (signal?.aborted) throw abortReason(signal);
  const token = progress ? ++progressSeq : 0;
  if (token) progressFns.set(token, progress);
  try {
    await withNewHostDir(dir, async (path) => {
      const op = withStrings([url, path, ref, filter], (u, p, b, f) =>
        M._wgjs_clone_new(u, p, bare ? 1 : 0, b, singleBranch ? 1 : 0, depth | 0, f, token));
      if (!op) throw lastError();
      try {
        await drive(op, { fetch, headers, signal });
      } finally {
        // Before completion this removes the half-made repository.
        M._wgjs_op_free(op);
      }
    });
  } finally {
    if (token) progressFns.delete(token);
  }
}

/** The object id a revision (`main`, `v1.0^{commit}`, `HEAD~2`, ...) names. */
export async function resolveRef({ dir, ref = 'HEAD' } = {}) {
  await ready();
  return withRepo(dir, (repo) => {
    const oid = withStrings([ref], (s) => str(M._wgjs_revparse(repo, s)));
    if (oid === null) throw lastError();
    return oid;
  });
}

function takeObject(obj) {
  if (!obj) throw lastError();
  try {
    const p = M._wgjs_object_data(obj) >>> 0;
    const n = M._wgjs_object_size(obj) >>> 0;
    return { type: str(M._wgjs_object_type(obj)), data: M.HEAPU8.slice(p, p + n) };
  } finally {
    M._wgjs_object_free(obj);
  }
}

/** An object by full id: { type: "commit"|"tree"|"blob"|"tag", data }. */
export async function readObject({ dir, oid } = {}) {
  await ready();
  return withRepo(dir, (repo) => takeObject(withStrings([oid], (s) => M._wgjs_object_read(repo, s))));
}

/** The contents of the file at `path` in revision `ref` (default HEAD). */
export async function readFile({ dir, ref = 'HEAD', path } = {}) {
  await ready();
  if (typeof path !== 'string' || !path) throw makeError('EINVALID', 'path is required');
  return withRepo(dir, (repo) => {
    const spec = `${ref}:${path.replace(/^\/+/, '')}`;
    const oid = withStrings([spec], (s) => str(M._wgjs_revparse(repo, s)));
    if (oid === null) throw lastError();
    const obj = takeObject(withStrings([oid], (s) => M._wgjs_object_read(repo, s)));
    if (obj.type !== 'blob') throw makeError('EINVALID', `'${spec}' is a ${obj.type}, not a file`);
    return obj.data;
  });
}

/**
 * The entries of the tree at `path` (default: the root) in revision `ref`:
 * [{ mode: "100644", type: "blob"|"tree"|"commit", oid, name }].
 */
export async function listTree({ dir, ref = 'HEAD', path = '' } = {}) {
  await ready();
  return withRepo(dir, (repo) => {
    const p = path.replace(/^\/+|\/+$/g, '');
    const spec = p ? `${ref}:${p}` : `${ref}^{tree}`;
    const oid = withStrings([spec], (s) => str(M._wgjs_revparse(repo, s)));
    if (oid === null) throw lastError();
    const { data } = takeObject(withStrings([oid], (s) => M._wgjs_tree_list(repo, s)));
    const entries = [];
    const text = new TextDecoder();
    let start = 0;
    for (let i = 0; i < data.length; i++) {
      if (data[i] !== 0) continue;
      const line = data.subarray(start, i);
      const sp1 = line.indexOf(0x20);
      const sp2 = line.indexOf(0x20, sp1 + 1);
      const sp3 = line.indexOf(0x20, sp2 + 1);
      entries.push({
        mode: text.decode(line.subarray(0, sp1)).padStart(6, '0'),
        type: text.decode(line.subarray(sp1 + 1, sp2)),
        oid: text.decode(line.subarray(sp2 + 1, sp3)),
        name: text.decode(line.subarray(sp3 + 1)),
      });
      start = i + 1;
    }
    return entries;
  });
}
