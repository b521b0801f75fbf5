// The instantiated WebAssembly module and the helpers every other file of
// the API uses to call it: strings in and out of linear memory, byte
// buffers, errors.
//
// Layout: webgit.mjs (the Emscripten glue) and webgit.wasm sit next to this
// file, as in the package the build makes (<build>/js/ from wasm/wasm.cmake).
// The host always compiles the module and hands it to the glue
// (instantiateWasm), so the same code loads in a page, a Worker, Node, Deno
// and workerd (which can only import a precompiled WebAssembly.Module).

/** The instantiated module (a live binding: null until loaded). */
export let M = null;
/** What the core returns when an iteration or operation is over. */
export let ITEROVER = 0;
/** 4 bytes for out-parameters. */
export let scratch = 0;
/** { fs, path } where the runtime has Node's file-system API (Node, and
 * Deno and Bun through their Node compatibility), else null. */
export let node = null;

let loading = null;
// Bytes of pack indexes and read windows nobody holds that the module
// keeps for the next call (core/pack/pack_cache.h): 64 MiB holds the
// indexes of a few million objects.
const PACK_CACHE_BYTES = 64 * 1024 * 1024;
const progressFns = new Map();
let progressSeq = 0;

/** The JavaScript runtime: 'node', 'deno', 'bun', 'workerd', 'browser'
 * (a page or a Worker with IndexedDB) or 'other'. */
export const host = (() => {
  const g = globalThis;
  if (typeof g.Deno === 'object' && g.Deno !== null && typeof g.Deno.version?.deno === 'string') return 'deno';
  if (typeof g.Bun === 'object' && g.Bun !== null) return 'bun';
  if (g.navigator?.userAgent === 'Cloudflare-Workers') return 'workerd';
  if (typeof g.process === 'object' && g.process !== null && typeof g.process.versions?.node === 'string') return 'node';
  if (typeof g.indexedDB !== 'undefined' && g.indexedDB) return 'browser';
  return 'other';
})();

/** Node itself (not a runtime that imitates it). */
export const isNode = host === 'node';

/** Load and instantiate the module once; later calls share the promise. */
export function loadModule(options = {}) {
  if (!loading) {
    loading = load(options).catch((e) => {
      loading = null;
      throw e;
    });
  }
  return loading;
}

export async function ready() {
  if (!M) await loadModule();
}

// A Node built-in by a name bundlers do not see: a bundle made for a page
// (esbuild --platform=browser, Vite, webpack) must not try to resolve
// node:fs, which it cannot, and never loads it there.
const nodeBuiltin = (name) => import(/* @vite-ignore */ /* webpackIgnore: true */ `node:${name}`);

// Node's fs and path where the runtime has them and they work; null
// elsewhere (or when Deno cannot give them, e.g. a module loaded over
// https, which createRequire does not take).
async function loadNodeApi() {
  if (host !== 'node' && host !== 'deno' && host !== 'bun') return null;
  try {
    const [fs, path, mod] = await Promise.all([nodeBuiltin('fs'), nodeBuiltin('path'), nodeBuiltin('module')]);
    const require = (mod.default || mod).createRequire(import.meta.url);
    return { fs: fs.default || fs, path: path.default || path, require };
  } catch {
    return null;
  }
}

// The compiled module from what init()'s `wasm` option holds: a compiled
// WebAssembly.Module (workerd's Wasm import), the bytes, a Response (or a
// promise of one), or a URL or string (what a bundler's asset import
// gives: Vite's ?url, esbuild's file loader); else webgit.wasm beside this
// file.
async function compileWasm(wasm) {
  if (wasm instanceof WebAssembly.Module) return wasm;
  if (wasm && typeof wasm.then === 'function') wasm = await wasm;
  if (typeof Response === 'function' && wasm instanceof Response) return compileResponse(wasm);
  if (wasm && (ArrayBuffer.isView(wasm) || wasm instanceof ArrayBuffer)) return compileBytes(wasm);
  if (wasm && typeof wasm !== 'string' && !(wasm instanceof URL)) {
    throw Object.assign(new TypeError('init: wasm must be a WebAssembly.Module, bytes, a Response, a URL or a string'),
      { code: 'EINVALID' });
  }
  const base = typeof location === 'object' && location?.href ? location.href : import.meta.url;
  let url;
  try {
    url = wasm ? new URL(wasm, base) : new URL('./webgit.wasm', import.meta.url);
  } catch (e) {
    throw Object.assign(makeError('EINVALID', `init: wasm is not a URL: '${wasm}'`), { cause: e });
  }
  if (url.protocol === 'file:' && node) {
    let bytes;
    try {
      bytes = await node.fs.promises.readFile(url);
    } catch (e) {
      throw Object.assign(makeError(e.code === 'ENOENT' ? 'ENOTFOUND' : 'EIO',
        `init: reading the WebAssembly module ${url.pathname}: ${e.message}`), { cause: e });
    }
    return compileBytes(bytes);
  }
  let res;
  try {
    res = await fetch(url);
  } catch (e) {
    throw Object.assign(makeError('EIO', `init: fetching the WebAssembly module ${url.href}: ${e.message}`), { cause: e });
  }
  return compileResponse(res);
}

// A module that does not compile (not WebAssembly, cut short) is ECORRUPT.
async function compileBytes(bytes) {
  try {
    return await WebAssembly.compile(bytes);
  } catch (e) {
    throw Object.assign(makeError('ECORRUPT', `init: the WebAssembly module does not compile: ${e.message}`), { cause: e });
  }
}

async function compileResponse(res) {
  if (!res.ok) {
    throw makeError(res.status === 404 ? 'ENOTFOUND' : 'EIO',
      `init: fetching the WebAssembly module: HTTP ${res.status} ${res.url || ''}`.trim());
  }
  // compileStreaming wants application/wasm; a host that serves the file
  // as something else still gets it compiled, from its bytes
  const type = res.headers.get('content-type') || '';
  if (typeof WebAssembly.compileStreaming === 'function' && type.split(';')[0].trim() === 'application/wasm') {
    try {
      return await WebAssembly.compileStreaming(res);
    } catch (e) {
      throw Object.assign(makeError('ECORRUPT', `init: the WebAssembly module does not compile: ${e.message}`), { cause: e });
    }
  }
  return compileBytes(await res.arrayBuffer());
}

// How many threads the threaded module may use: the cores the runtime
// reports (at most 4: each is a Worker holding an instance), or 0 where it
// has none to give. Threads need SharedArrayBuffer and Workers that can
// share it: Node, and pages or Workers that are cross-origin isolated
// (served with COOP and COEP headers). Deno, Bun and workerd get the
// single-threaded module.
function threadCount() {
  if (typeof SharedArrayBuffer !== 'function') return 0;
  let cores = 0;
  if (isNode && node) {
    try {
      const os = node.require('os');
      cores = typeof os.availableParallelism === 'function' ? os.availableParallelism() : os.cpus().length;
    } catch {
      cores = 0;
    }
  } else if (host === 'browser' && globalThis.crossOriginIsolated === true && typeof Worker === 'function') {
    cores = globalThis.navigator?.hardwareConcurrency || 0;
  }
  return cores >= 2 ? Math.min(cores, 4) : 0;
}

/** The threads the loaded module resolves deltas on: threadCount() for
 * the threaded module, 0 for the single-threaded one (memoryUsage()). */
export let threads = 0;

// The threaded module's files, beside this one. Named through a variable
// so that bundlers neither bundle its glue nor copy its 700 KB module into
// every app: a bundled page loads the single-threaded module (the import
// below fails there), an app that serves the package's files as they are
// (Node, the demo) gets threads.
const here = import.meta.url;
const mtGlue = 'webgit-mt.mjs';

async function load({ wasm, threads: want } = {}) {
  node = await loadNodeApi();
  const n = want === false || wasm !== undefined ? 0 : threadCount();
  if (n) {
    try {
      const mt = await import(/* @vite-ignore */ /* webpackIgnore: true */ new URL(mtGlue, here).href);
      const mod = await compileWasm(new URL('webgit-mt.wasm', here));
      await instantiate(mt.default, mod, n);
      return;
    } catch {
      // not there (a bundled page, a build without it) or refused: the
      // single-threaded module
    }
  }
  const glue = await import('./webgit.mjs');
  await instantiate(glue.default, await compileWasm(wasm), 0);
}

async function instantiate(factory, mod, nthreads) {
  let failInstantiate;
  const failed = new Promise((_, reject) => { failInstantiate = reject; });
  const moduleArg = {
    // The host compiles, the glue never loads the .wasm itself.
    instantiateWasm(imports, receive) {
      WebAssembly.instantiate(mod, imports).then((inst) => receive(inst, mod), failInstantiate);
      return {};
    },
    // the threaded module's Workers' script, beside this file
    locateFile: (p) => (nthreads ? new URL(p, here) : p),
    print: () => {},
    printErr: () => {},
    wgjsProgress: onProgress,
  };
  if (node) {
    // The glue's NODEFS needs require() (see wasm/pre.js); Deno's and Bun's
    // Node compatibility give it what Node does.
    moduleArg.nodeRequire = node.require;
    moduleArg.nodeDirname = node.path.dirname(new URL(import.meta.url).pathname);
    moduleArg.wgjsHostFs = hostFs;
  }
  if (nthreads) {
    moduleArg.wgjsThreads = nthreads;
    // each Worker imports the glue itself, from where this file is
    moduleArg.mainScriptUrlOrBlob = new URL(mtGlue, here).href;
  }
  const m = await Promise.race([factory(moduleArg), failed]);
  if (nthreads) threadedModule(m);
  threads = nthreads;
  fixSymlinks(m);
  if (node && process.platform !== 'win32') m._wgjs_host_fs_install();
  ITEROVER = m._wgjs_iterover();
  m._wgjs_set_umask(isNode ? process.umask() : 0o022);   // Deno's umask() is unstable
  // Pack indexes and windows kept between calls (each call opens the
  // repository).
  m._wgjs_set_pack_cache_budget(PACK_CACHE_BYTES);
  scratch = m._malloc(4);
  M = m;
}

// The threaded module's memory is shared: when a thread grows it, the
// glue's views on this thread still see the old length until the glue
// itself next looks. Every M.HEAPU8 / M.HEAPU32 the API reads is made
// current here. In Node, the pool's idle Workers must not keep the
// process alive.
function threadedModule(m) {
  for (const [name, View] of [['HEAPU8', Uint8Array], ['HEAPU32', Uint32Array]]) {
    let view = m[name];
    Object.defineProperty(m, name, {
      configurable: true,
      get() {
        const b = m.wasmMemory.buffer;
        if (view.buffer !== b) view = new View(b);
        return view;
      },
      set(v) { view = v; },
    });
  }
  if (isNode) {
    for (const w of m.PThread.unusedWorkers) if (typeof w.unref === 'function') w.unref();
  }
}

// Symbolic links as a working tree needs them. The glue's FS.readlink
// resolves a link's target to an absolute path, and its NODEFS rewrites it
// relative to the mount; git keeps the bytes readlink gives (what checkout
// wrote), so both return the target as stored. IndexedDB cannot keep a
// link (IDBFS saves files and directories only): symlink() fails there,
// and git init's probe then sets core.symlinks = false, so a checkout
// writes links as files holding their target, as git does on such
// file systems.
const EPERM = 63;
const ENOENT = 44;
const EINVAL = 28;
function fixSymlinks(m) {
  const { FS } = m;
  FS.readlink = (p) => {
    const link = FS.lookupPath(p).node;
    if (!link) throw new FS.ErrnoError(ENOENT);
    if (!link.node_ops.readlink) throw new FS.ErrnoError(EINVAL);
    return link.node_ops.readlink(link);
  };
  const symlink = FS.symlink;
  FS.symlink = (target, p) => {
    const parent = FS.lookupPath(p, { parent: true }).node;
    if (parent.mount.type === FS.filesystems.IDBFS) throw new FS.ErrnoError(EPERM);
    return symlink(target, p);
  };
  if (!node) return;
  const { NODEFS } = FS.filesystems;
  NODEFS.node_ops.readlink = (n) => {
    try {
      return node.fs.readlinkSync(NODEFS.realPath(n));
    } catch (e) {
      if (!e.code) throw e;
      throw new FS.ErrnoError(NODEFS.convertNodeCode(e));
    }
  };
  oneStatPerLookup(m, NODEFS);
}

// The glue's NODEFS takes two lstat() of the host for every path it meets
// the first time: one to make the node (lookup), one for the stat() that
// follows. A working tree's status is one stat() per file, so half of its
// time went there. The lookup's stat is kept and used by a getattr() of
// the same node that comes next, with no other NODEFS call in between
// (every other operation drops it), so no stat can be stale.
function oneStatPerLookup(m, NODEFS) {
  const { FS } = m;
  const ops = NODEFS.node_ops;
  let kept = null;   // { node, stat }
  for (const table of [NODEFS.node_ops, NODEFS.stream_ops]) {
    for (const [name, fn] of Object.entries(table)) {
      if (typeof fn !== 'function' || (table === ops && (name === 'lookup' || name === 'getattr'))) continue;
      table[name] = function dropKept(...args) {
        kept = null;
        return fn.apply(this, args);
      };
    }
  }
  ops.lookup = (parent, name) => {
    kept = null;
    let stat;
    try {
      stat = node.fs.lstatSync(`${NODEFS.realPath(parent)}/${name}`);
    } catch (e) {
      if (!e.code) throw e;
      throw new FS.ErrnoError(NODEFS.convertNodeCode(e));
    }
    const made = NODEFS.createNode(parent, name, stat.mode);
    kept = { node: made, stat };
    return made;
  };
  const getattr = ops.getattr;
  ops.getattr = (n) => {
    const k = kept;
    kept = null;
    if (!k || k.node !== n) return getattr(n);
    const { stat } = k;
    return {
      dev: stat.dev, ino: stat.ino, mode: stat.mode, nlink: stat.nlink, uid: stat.uid,
      gid: stat.gid, rdev: stat.rdev, size: stat.size, atime: stat.atime, mtime: stat.mtime,
      ctime: stat.ctime, blksize: stat.blksize, blocks: stat.blocks,
    };
  };
}

// --- the host's disk, without the glue's file system --------------------------------
//
// wasm/fs_host.c asks these for every call of the core's file-system seam:
// a path below a host directory mounted with NODEFS (storage.js registers
// each mount here), or a descriptor opened that way, goes straight to
// Node's fs, one call per call, instead of through the glue's path lookup
// and node table. Any other path (MEMFS, a path with a "." or ".."
// component, which the glue resolves in its own namespace) answers
// NOT_HOST: the glue's file system then does the call.

/** mount point (e.g. "/host/3") -> the host directory mounted there */
export const hostMounts = new Map();

const NOT_HOST = -1000;   // as in wasm/fs_host.c

// The host path behind a module path and its mount point, or null.
function hostPathOf(p) {
  if (!p.startsWith('/host/')) return null;
  const slash = p.indexOf('/', 6);
  const mount = slash < 0 ? p : p.slice(0, slash);
  const root = hostMounts.get(mount);
  if (root === undefined) return null;
  if (slash < 0) return { mount, path: root };
  const rest = p.slice(slash);
  // an empty, "." or ".." component, or a trailing slash
  if (/\/\.{0,2}(?:\/|$)/.test(rest)) return null;
  return { mount, path: root + rest };
}

function hostPath(p) {
  const hp = hostPathOf(p);
  return hp && hp.path;
}

const EIO = 29;
const EXDEV = 75;
const errno = (e) => {
  if (!e || typeof e.code !== 'string') throw e;
  return -(M.NODEFS.convertNodeCode(e) || EIO);
};
const statOpts = { throwIfNoEntry: false };

// fs_host.c's open flags -> the host's (the module's O_* are Linux's)
function nodeFlags(f) {
  const c = node.fs.constants;
  let n = f & 2 ? c.O_RDWR : f & 1 ? c.O_WRONLY : c.O_RDONLY;
  if (f & 4) n |= c.O_CREAT;
  if (f & 8) n |= c.O_EXCL;
  if (f & 16) n |= c.O_TRUNC;
  if (f & 32) n |= c.O_APPEND;
  if (f & 64) n |= c.O_DIRECTORY;
  if (f & 128) n |= c.O_NOFOLLOW;
  return n;
}

const position = (pos) => (pos < 0 ? null : pos);

// fs_host.c's calls, in the order of its enum host_op: each returns a
// number (undefined: 0); a path argument is already the host's.
const pathOps = [
  (p, _, flags, mode) => node.fs.openSync(p, nodeFlags(flags), mode),
  (p, _, mode) => node.fs.chmodSync(p, mode),
  (p) => node.fs.unlinkSync(p),
  (p, _, mode) => node.fs.mkdirSync(p, mode),
  (p) => node.fs.rmdirSync(p),
  (p, p2) => node.fs.renameSync(p, p2),
  (p, p2) => node.fs.linkSync(p, p2),
  (p, target) => node.fs.symlinkSync(target, p),
];
const fdOps = [
  (fd) => node.fs.closeSync(fd),
  (fd, at, len, pos) => node.fs.readSync(fd, M.HEAPU8, at >>> 0, len, position(pos)),
  (fd, at, len, pos) => node.fs.writeSync(fd, M.HEAPU8, at >>> 0, len, position(pos)),
  (fd) => node.fs.fsyncSync(fd),
  (fd, len) => node.fs.ftruncateSync(fd, len),
  (fd, mode) => node.fs.fchmodSync(fd, mode),
];
const OP_SYMLINK = 7;
const OP_OWNS = pathOps.length + fdOps.length;

const hostFs = {
  // one call of fs_host.c: a result >= 0, -errno, or NOT_HOST
  call(op, p, p2, fd, a, b, c) {
    let hp = null;
    if (p !== null) {
      hp = hostPathOf(p);
      if (hp === null) return NOT_HOST;
      if (op === OP_OWNS) return 0;
      // a link's target is not a path of ours; rename and link stay in one mount
      if (p2 !== null && op !== OP_SYMLINK) {
        const hp2 = hostPathOf(p2);
        if (hp2 === null) return NOT_HOST;
        if (hp2.mount !== hp.mount) return -EXDEV;
        p2 = hp2.path;
      }
    }
    try {
      const r = hp ? pathOps[op](hp.path, p2, a, b) : fdOps[op - pathOps.length](fd, a, b, c);
      return r === undefined ? 0 : r;
    } catch (e) {
      return errno(e);
    }
  },
  // fs.Stats (or -errno, or NOT_HOST)
  stat(p, follow) {
    const hp = hostPath(p);
    if (hp === null) return NOT_HOST;
    try {
      const s = follow ? node.fs.statSync(hp, statOpts) : node.fs.lstatSync(hp, statOpts);
      return s === undefined ? -ENOENT : s;
    } catch (e) {
      return errno(e);
    }
  },
  fstat(fd) {
    try {
      return node.fs.fstatSync(fd);
    } catch (e) {
      return errno(e);
    }
  },
  // the entry names (or -errno, or NOT_HOST)
  readdir(p) {
    const hp = hostPath(p);
    if (hp === null) return NOT_HOST;
    try {
      // A missing directory is common (the loose objects' objects/xx of
      // an abbreviation's search) and an exception is costly in V8: ask
      // first, without one.
      if (node.fs.statSync(hp, statOpts) === undefined) return -ENOENT;
      return node.fs.readdirSync(hp);
    } catch (e) {
      return errno(e);
    }
  },
  // [the link's target] (or -errno, or NOT_HOST)
  readlink(p) {
    const hp = hostPath(p);
    if (hp === null) return NOT_HOST;
    try {
      return [node.fs.readlinkSync(hp)];
    } catch (e) {
      return errno(e);
    }
  },
};

// --- progress -------------------------------------------------------------------------

function onProgress(token, phase, done, total, bytes, finished, remote, line, warning, notice) {
  const fn = progressFns.get(token);
  if (!fn) return;
  try {
    fn({ phase, done, total, bytes, finished, remote, line, warning, notice });
  } catch {
    // a display callback must not break the transfer
  }
}

/** Run fn(token) with `callback` registered for the core's progress reports
 * under `token` (0 when there is no callback). */
export async function withProgress(callback, fn) {
  if (typeof callback !== 'function') return fn(0);
  const token = ++progressSeq;
  progressFns.set(token, callback);
  try {
    return await fn(token);
  } finally {
    progressFns.delete(token);
  }
}

// --- memory -------------------------------------------------------------------------

export function str(ptr) {
  return ptr ? M.UTF8ToString(ptr >>> 0) : null;
}

export function cstr(s) {
  if (s === null || s === undefined) return 0;
  const n = M.lengthBytesUTF8(s) + 1;
  const p = M._malloc(n);
  if (!p) throw makeError('ENOMEM', 'out of memory');
  M.stringToUTF8(s, p, n);
  return p;
}

/** Run fn with C copies of strings (null stays NULL), freed afterwards. */
export function withStrings(strings, fn) {
  const ptrs = [];
  try {
    for (const s of strings) ptrs.push(cstr(s));
    return fn(...ptrs);
  } finally {
    for (const p of ptrs) if (p) M._free(p);
  }
}

/** Run fn(array, n) with a C array of C strings, freed afterwards. */
export function withStringArray(strings, fn) {
  const list = strings ? [...strings] : [];
  const ptrs = [];
  let array = 0;
  try {
    for (const s of list) ptrs.push(cstr(String(s)));
    if (ptrs.length) {
      array = M._malloc(4 * ptrs.length);
      if (!array) throw makeError('ENOMEM', 'out of memory');
      ptrs.forEach((p, i) => { M.HEAPU32[(array >>> 2) + i] = p; });
    }
    return fn(array, ptrs.length);
  } finally {
    for (const p of ptrs) M._free(p);
    if (array) M._free(array);
  }
}

/** Copy bytes into a fresh C buffer for fn(ptr, len); freed afterwards. */
export function withBytes(bytes, fn) {
  const n = bytes.byteLength;
  const p = M._malloc(n || 1);
  if (!p) throw makeError('ENOMEM', 'out of memory');
  try {
    M.HEAPU8.set(bytes, p >>> 0);   // re-read HEAPU8: memory may have grown
    return fn(p, n);
  } finally {
    M._free(p);
  }
}

/** A wgjs_object (bytes with a type) copied out and freed. */
/**
 * The first n NUL-terminated UTF-8 fields of bytes the core packed
 * (commits, diff files): { fields, at } where `at` is the offset after
 * the last NUL, where the rest begins.
 */
/** An option that must be an integer >= 0 (a count of lines...). */
export function countOption(value, name) {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0) throw makeError('EINVALID', `${name} must be an integer >= 0`);
  return n;
}

export function nulFields(data, n) {
  const fields = [];
  const utf8 = new TextDecoder();
  let at = 0;
  while (fields.length < n) {
    const end = data.indexOf(0, at);
    if (end < 0) throw makeError('ECORRUPT', 'a record from the core ends early');
    fields.push(utf8.decode(data.subarray(at, end)));
    at = end + 1;
  }
  return { fields, at };
}

export function takeObject(obj) {
  if (!obj) throw lastError();
  try {
    const p = M._wgjs_object_data(obj) >>> 0;
    const n = M._wgjs_object_size(obj) >>> 0;
    return { type: str(M._wgjs_object_type(obj)), data: M.HEAPU8.slice(p, p + n) };
  } finally {
    M._wgjs_object_free(obj);
  }
}

const utf8 = new TextDecoder();

/** Records of `width` NUL-terminated UTF-8 fields, as the listing exports
 * (refs, fetch updates, push results) return them. */
export function records(data, width) {
  const fields = [];
  let start = 0;
  for (let i = 0; i < data.length; i++) {
    if (data[i] !== 0) continue;
    fields.push(utf8.decode(data.subarray(start, i)));
    start = i + 1;
  }
  const out = [];
  for (let i = 0; i + width <= fields.length; i += width) out.push(fields.slice(i, i + width));
  return out;
}

// --- limits -----------------------------------------------------------------------------

/** The names of the core's limits (docs/limits.md), camelCase as the JS
 * API takes them, and snake_case as the core does. */
export const LIMIT_NAMES = [
  'maxObjectSize', 'maxInflateRatio', 'inflateRatioFloor', 'maxPackObjects', 'maxTreeDepth',
  'maxRefs', 'maxAdvertisementBytes',
];
const snake = (k) => k.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);

/** { maxRefs: 1000, maxObjectSize: '64m', ... } as the core's
 * "max_refs=1000,max_object_size=64m" (it checks names and values). */
export function limitsSpec(limits) {
  if (limits === null || typeof limits !== 'object') {
    throw makeError('EINVALID', 'limits must be an object such as { maxRefs: 1000 }');
  }
  return Object.entries(limits).filter(([, v]) => v !== undefined)
    .map(([k, v]) => `${snake(k)}=${String(v)}`).join(',');
}

/** The process-wide limits as an object of numbers. */
export function currentLimits() {
  const out = {};
  for (const k of LIMIT_NAMES) out[k] = withStrings([snake(k)], (n) => M._wgjs_limits_get(n));
  return out;
}

// --- errors ---------------------------------------------------------------------------

export function makeError(code, message) {
  const e = new Error(message || code);
  e.code = code;
  return e;
}

/** The core's last error, for a call that returned `rc` (a negative code)
 * or NULL (rc undefined). */
export function lastError(rc) {
  const code = rc === undefined ? M._wgjs_error_code() : rc;
  const name = str(M._wgjs_error_name(code)) || 'ERROR';
  return makeError(code === 0 ? 'ERROR' : name, str(M._wgjs_error_message()) || name);
}

export function check(rc) {
  if (rc < 0) throw lastError(rc);
  return rc;
}

export function abortError(signal) {
  return signal.reason !== undefined ? signal.reason
    : Object.assign(new Error('This operation was aborted'), { name: 'AbortError', code: 'ABORT_ERR' });
}

export function throwIfAborted(signal) {
  if (signal?.aborted) throw abortError(signal);
}
