// Where repositories live, per runtime, and when they are saved. One
// storage object is chosen once (the runtime's, or the one init({ storage })
// names); each implements the same small interface:
//
//   name                        'node' | 'idb' | 'memory' (what storage() says)
//   key(dir)                    the repository's identity (an absolute path);
//                               throws EINVALID (or EACCES) for what this
//                               storage cannot hold
//   run(key, opts, fn)          fn(path, state) with the repository at `path`
//                               in the module's file system (opts: create,
//                               write; see withDir)
//   list(looksLikeRepo)         the repositories it holds
//   remove(key, looksLikeRepo)  delete one
//
// The storages:
//   node    (Node; Deno and Bun through their Node compatibility) `dir` is
//           a host path; the host directory is mounted (NODEFS) inside the
//           module's file system for the duration of each call, so the
//           repository is an ordinary one that real git opens and the next
//           process finds. Deno needs --allow-read and --allow-write for it:
//           without them a call fails with EACCES before touching anything,
//           it never falls back to memory.
//   idb     (browsers: pages and Workers) `dir` is an absolute path such as
//           "/repos/app"; each repository is its own IndexedDB database
//           (IDBFS mounted at `dir`, database name = `dir`), loaded on first
//           use and saved at the end of every call that changed it, never in
//           the middle of one. IDBFS saves in one IndexedDB transaction, so
//           a reload or a crashed tab finds the last complete state. A call
//           that fails reloads the saved state, so nothing half-done stays
//           in memory either. Several tabs and Workers may use one
//           repository: each call holds a Web Lock named after it
//           (navigator.locks) around its load-modify-save, and first
//           reloads what another context saved since this one last loaded
//           or saved (a save stamp, see below).
//   memory  `dir` is a path in the module's in-memory file system (MEMFS),
//           gone with the instance. Only when asked for (init({ storage:
//           'memory' })), or where the runtime has no file system at all
//           (workerd and other edge runtimes).
//
// Calls on one repository run one at a time in this instance (a queue per
// key): the core is synchronous, but a network operation spans many
// awaits, and a save or a second operation must not see another's
// half-written state.

import { M, node, host, hostMounts, makeError } from './runtime.js';

const queues = new Map();     // key -> tail of its call queue
let chosen = null;            // the storage object in use
let scratchSeq = 0;

// One call at a time per key.
async function exclusive(key, fn) {
  const prev = queues.get(key) || Promise.resolve();
  let release;
  const mine = new Promise((r) => { release = r; });
  const tail = prev.then(() => mine);
  queues.set(key, tail);
  await prev;
  try {
    return await fn();
  } finally {
    release();
    if (queues.get(key) === tail) queues.delete(key);
  }
}

// "/repos/app" as given, checked: absolute, no "." or ".." or empty parts.
function modulePath(dir) {
  if (typeof dir !== 'string' || !dir) throw makeError('EINVALID', 'dir is required');
  const path = dir.length > 1 ? dir.replace(/\/+$/, '') : dir;
  const parts = path.split('/');
  if (parts[0] !== '' || parts.length < 2 ||
      parts.slice(1).some((p) => p === '' || p === '.' || p === '..')) {
    throw makeError('EINVALID', `dir must be an absolute path like "/repos/name": '${dir}'`);
  }
  return path;
}

function exists(path) {
  try {
    M.FS.stat(path);
    return true;
  } catch {
    return false;
  }
}

function isEmptyDir(path) {
  try {
    return M.FS.readdir(path).every((n) => n === '.' || n === '..');
  } catch {
    return true;
  }
}

/** Remove a tree of the module's file system (not crossing into mounts). */
export function removeTree(path) {
  let st;
  try {
    st = M.FS.lstat(path);
  } catch {
    return;
  }
  if (M.FS.isDir(st.mode)) {
    for (const name of M.FS.readdir(path)) {
      if (name !== '.' && name !== '..') removeTree(`${path}/${name}`);
    }
    M.FS.rmdir(path);
  } else {
    M.FS.unlink(path);
  }
}

// --- node: the host's disk --------------------------------------------------------------

let mountSeq = 0;

// Deno grants file access per path: ask before anything touches the disk,
// so that a missing permission is one clear error, not a failure in the
// middle of a write (or a prompt the caller never sees).
function denoAllows(name, path) {
  const perms = globalThis.Deno?.permissions;
  if (!perms || typeof perms.querySync !== 'function') return true;
  let state = perms.querySync({ name, path }).state;
  if (state === 'prompt' && typeof perms.requestSync === 'function') {
    state = perms.requestSync({ name, path }).state;   // a prompt on a terminal, else denied
  }
  return state === 'granted';
}

function checkDenoAccess(path, write) {
  if (host !== 'deno') return;
  const missing = ['read', ...(write ? ['write'] : [])].filter((n) => !denoAllows(n, path));
  if (missing.length) {
    throw makeError('EACCES', `Deno has no ${missing.join(' or ')} permission for '${path}': ` +
      `run it with ${missing.map((n) => `--allow-${n}`).join(' ')} to keep repositories on disk, ` +
      'or call init({ storage: \'memory\' }) to keep them in memory (gone when the process exits)');
  }
}

// Mount the host directory for the duration of fn(path).
async function withHostDir(hostDir, fn) {
  const mp = `/host/${++mountSeq}`;
  M.FS.mkdirTree(mp);
  try {
    M.FS.mount(M.FS.filesystems.NODEFS, { root: hostDir }, mp);
  } catch (e) {
    M.FS.rmdir(mp);
    throw makeError('ENOTFOUND', `cannot access '${hostDir}': ${e.code || e.message}`);
  }
  hostMounts.set(mp, hostDir);
  try {
    return await fn(mp);
  } finally {
    hostMounts.delete(mp);
    M.FS.unmount(mp);
    M.FS.rmdir(mp);
  }
}

const nodeStorage = {
  name: 'node',
  key(dir) {
    if (typeof dir !== 'string' || !dir) throw makeError('EINVALID', 'dir is required');
    return node.path.resolve(dir);
  },
  run(abs, { create, write }, fn) {
    if (!create) {
      checkDenoAccess(abs, write);
      return withHostDir(abs, (mp) => fn(mp, {}));
    }
    // A repository that may not exist yet: mount its parent, created if
    // needed, as git clone creates leading directories.
    const parent = node.path.dirname(abs);
    checkDenoAccess(parent, true);
    node.fs.mkdirSync(parent, { recursive: true });
    return withHostDir(parent, (mp) => fn(abs === parent ? mp : `${mp}/${node.path.basename(abs)}`, {}));
  },
  async list() {
    throw makeError('EUNSUPPORTED', 'listRepos() lists browser and in-memory storage, not a disk');
  },
  async remove(abs, looksLikeRepo) {
    checkDenoAccess(abs, true);
    const ok = await withHostDir(abs, async (p) => looksLikeRepo(p));
    if (!ok) throw makeError('EINVALID', `not a git repository: '${abs}'`);
    node.fs.rmSync(abs, { recursive: true, force: true });
  },
};

// --- memory: the module's MEMFS -------------------------------------------------------------

const memoryStorage = {
  name: 'memory',
  key: modulePath,
  async run(path, { create }, fn) {
    if (!create && !exists(path)) throw makeError('ENOTFOUND', `not a git repository: '${path}'`);
    if (create) M.FS.mkdirTree(path.slice(0, path.lastIndexOf('/')) || '/');
    return fn(path, {});
  },
  async list(looksLikeRepo) {
    const found = [];
    const walk = (path, depth) => {
      let names;
      try {
        names = M.FS.readdir(path || '/');
      } catch {
        return;
      }
      for (const name of names) {
        if (name === '.' || name === '..' || (depth === 0 && ['dev', 'proc', 'tmp', 'home', 'host', '.webgit-scratch'].includes(name))) continue;
        const p = `${path}/${name}`;
        let st;
        try {
          st = M.FS.stat(p);
        } catch {
          continue;
        }
        if (!M.FS.isDir(st.mode)) continue;
        if (looksLikeRepo(p)) found.push(p);
        else if (depth < 2) walk(p, depth + 1);
      }
    };
    walk('', 0);
    return found.sort();
  },
  async remove(path) {
    if (!exists(path)) throw makeError('ENOTFOUND', `no repository at '${path}'`);
    removeTree(path);
  },
};

// --- idb: IndexedDB, shared by the tabs and Workers of an origin -------------------------------
//
// The save stamp: a record per repository in the database "webgit-stamps"
// (not a path, so listRepos() skips it), a fresh random value written by
// every save, before the save itself. A context remembers the stamp of what
// it last loaded or saved; at the start of a call (inside the Web Lock) it
// reads the record, and only when it differs reloads the repository from
// IndexedDB (IDBFS copies just the files whose timestamps changed and
// drops the deleted ones). Writing the stamp first means that a context
// that dies between the two writes costs the others a needless reload,
// never a stale copy.

const idbLoaded = new Map();   // dir -> the stamp of what this context holds
const STAMP_DB = 'webgit-stamps';
let stampDb = null;

function request(req) {
  return new Promise((resolve, reject) => {
    req.onsuccess = () => resolve(req.result);
    req.onerror = () => reject(req.error);
  });
}

async function stamps(mode) {
  if (!stampDb) {
    const req = indexedDB.open(STAMP_DB, 1);
    req.onupgradeneeded = () => req.result.createObjectStore('stamps');
    let db;
    try {
      db = await request(req);
    } catch (e) {
      throw makeError('EIO', `cannot open IndexedDB database '${STAMP_DB}': ${e?.message || e}`);
    }
    db.onversionchange = () => {
      db.close();
      if (stampDb === db) stampDb = null;
    };
    stampDb = db;
  }
  return stampDb.transaction('stamps', mode).objectStore('stamps');
}

async function stampOp(what, dir, fn) {
  try {
    return await fn();
  } catch (e) {
    if (e.code === 'EIO') throw e;
    throw makeError('EIO', `cannot ${what} the save stamp of '${dir}': ${e?.message || e}`);
  }
}

const readStamp = (dir) => stampOp('read', dir, async () => (await request((await stamps('readonly')).get(dir))) ?? null);
const writeStamp = (dir, value) => stampOp('write', dir, async () => request((await stamps('readwrite')).put(value, dir)));
const deleteStamp = (dir) => stampOp('delete', dir, async () => request((await stamps('readwrite')).delete(dir)));

function newStamp() {
  const r = new Uint32Array(2);
  crypto.getRandomValues(r);
  return `${Date.now().toString(36)}-${r[0].toString(36)}${r[1].toString(36)}`;
}

// Hold the Web Lock of repository `dir` (shared by the origin's pages and
// Workers) for the duration of fn(); `signal` aborts the wait for it.
// Without navigator.locks (an insecure context, an old browser), or where
// the page may not use it (an opaque origin: SecurityError), calls of
// different contexts are not excluded; the save stamp still reloads what
// another saved before a call starts.
async function crossContext(dir, fn, signal) {
  const locks = globalThis.navigator?.locks;
  if (!locks || typeof locks.request !== 'function') return fn();
  let entered = false;
  try {
    return await locks.request(`webgit:${dir}`, { mode: 'exclusive', signal }, () => {
      entered = true;
      return fn();
    });
  } catch (e) {
    if (!entered && e?.name === 'SecurityError') return fn();
    throw e;
  }
}

function syncMount(dir, populate) {
  const { mount } = M.FS.lookupPath(dir).node;
  return new Promise((resolve, reject) => {
    M.IDBFS.syncfs(mount, populate, (err) => {
      if (err) {
        reject(makeError('EIO', `IndexedDB ${populate ? 'load' : 'save'} of '${dir}' failed: ${err.message || err}`));
      } else {
        resolve();
      }
    });
  });
}

// Let another context delete the database: close this one's connection when
// asked (IDBFS opens it again at the next load).
function yieldConnection(dir) {
  const db = M.IDBFS.dbs?.[dir];
  if (!db || db.onversionchange) return;
  db.onversionchange = () => {
    db.close();
    if (M.IDBFS.dbs[dir] === db) delete M.IDBFS.dbs[dir];
  };
}

// Bring this context's copy of `dir` up to date: mount and load it on first
// use, reload it when another context saved since.
async function idbFresh(dir) {
  const stamp = await readStamp(dir);
  if (!idbLoaded.has(dir)) {
    M.FS.mkdirTree(dir);
    M.FS.mount(M.IDBFS, {}, dir);
    try {
      await syncMount(dir, true);
    } catch (e) {
      M.FS.unmount(dir);
      throw e;
    }
    idbLoaded.set(dir, stamp);
  } else if (idbLoaded.get(dir) !== stamp) {
    await syncMount(dir, true);
    idbLoaded.set(dir, stamp);
  }
  yieldConnection(dir);
}

async function idbSave(dir) {
  const stamp = newStamp();
  await writeStamp(dir, stamp);
  await syncMount(dir, false);
  idbLoaded.set(dir, stamp);
}

function idbDeleteDatabase(dir) {
  const cached = M.IDBFS.dbs?.[dir];
  if (cached) {
    cached.close();
    delete M.IDBFS.dbs[dir];
  }
  return new Promise((resolve, reject) => {
    const req = indexedDB.deleteDatabase(dir);
    req.onsuccess = () => resolve();
    req.onerror = () => reject(makeError('EIO', `cannot delete IndexedDB database '${dir}'`));
    req.onblocked = () => resolve();   // deleted once other connections close
  });
}

async function idbDrop(dir) {
  if (idbLoaded.has(dir)) {
    M.FS.unmount(dir);
    idbLoaded.delete(dir);
  }
  removeTree(dir);
  await idbDeleteDatabase(dir);
}

const idbStorage = {
  name: 'idb',
  key: modulePath,
  run(path, { create, write, signal }, fn) {
    return crossContext(path, async () => {
      await idbFresh(path);
      const existed = !isEmptyDir(path);
      if (!create && !existed) {
        await idbDrop(path);
        throw makeError('ENOTFOUND', `not a git repository: '${path}'`);
      }
      let result;
      const state = { changed: false };
      try {
        result = await fn(path, state);
      } catch (e) {
        if (!existed) {
          await idbDrop(path).catch(() => {});
        } else if (write || state.changed) {
          // Back to the last saved state: nothing half-done stays in memory.
          await syncMount(path, true).catch(() => {});
        }
        throw e;
      }
      if (write || create || state.changed) await idbSave(path);
      return result;
    }, signal);
  },
  async list() {
    if (typeof indexedDB.databases !== 'function') {
      throw makeError('EUNSUPPORTED', 'this browser cannot list IndexedDB databases');
    }
    const dbs = await indexedDB.databases();
    return dbs.map((d) => d.name).filter((n) => typeof n === 'string' && n.startsWith('/')).sort();
  },
  remove(path) {
    return crossContext(path, async () => {
      await idbDrop(path);
      await deleteStamp(path);
    });
  },
};

// --- choosing -----------------------------------------------------------------------------------

const hasIndexedDB = () => typeof indexedDB !== 'undefined' && !!indexedDB;

// What the runtime has: its disk, else IndexedDB, else (no file system at
// all: workerd, other edge runtimes) memory.
function runtimeDefault() {
  const disk = host === 'node' || host === 'deno' || host === 'bun';
  if (node || (disk && !M)) return nodeStorage;
  if (hasIndexedDB()) return idbStorage;
  if (disk) {
    // A runtime with a disk whose file-system API could not be loaded:
    // refuse rather than keep repositories where nobody expects them.
    return {
      ...memoryStorage,
      name: 'node',
      key() {
        throw makeError('EUNSUPPORTED', `${host}'s file system cannot be used here (node:fs did not load); ` +
          'call init({ storage: \'memory\' }) to keep repositories in memory');
      },
    };
  }
  return memoryStorage;
}

function current() {
  if (chosen) return chosen;
  const s = runtimeDefault();
  if (M) chosen = s;   // before the module is loaded, whether node:fs works is not known
  return s;
}

/** 'node', 'idb' or 'memory': the option given to init(), else what the
 * runtime has. */
export function storageMode() {
  return current().name;
}

export function setStorageMode(m) {
  if (m === undefined || m === null) return;
  if (m === 'node') {
    if (!node) throw makeError('EUNSUPPORTED', 'storage "node" needs a file system (Node, Deno or Bun)');
    chosen = nodeStorage;
  } else if (m === 'idb') {
    if (!hasIndexedDB()) throw makeError('EUNSUPPORTED', 'storage "idb" needs IndexedDB');
    chosen = idbStorage;
  } else if (m === 'memory') {
    chosen = memoryStorage;
  } else {
    throw makeError('EINVALID', `unknown storage "${m}" (one of "node", "idb", "memory")`);
  }
}

/**
 * Run fn(path, state) on the repository `dir`, with `path` its place in the
 * module's file system.
 *   create: the repository may not exist yet (clone, init); if fn fails,
 *           nothing of it stays behind.
 *   write:  fn changes the repository: save it afterwards (idb). A reader
 *           that changed it after all (a lazy fetch) sets state.changed.
 *   signal: aborts waiting for another tab's or Worker's call (idb).
 */
export function withDir(dir, { create = false, write = false, signal } = {}, fn) {
  const s = current();
  let key;
  try {
    key = s.key(dir);
  } catch (e) {
    return Promise.reject(e);
  }
  return exclusive(key, () => s.run(key, { create, write, signal }, fn));
}

/** Run fn(path) in a fresh directory of the in-memory file system, removed
 * afterwards (the edge reads' throwaway repositories). */
export async function withScratchDir(fn) {
  const path = `/.webgit-scratch/${++scratchSeq}`;
  M.FS.mkdirTree('/.webgit-scratch');
  try {
    return await fn(path);
  } finally {
    removeTree(path);
  }
}

/** The repositories this storage holds: idb, every saved one; memory, the
 * directories under "/" holding a repository (one level below too, as in
 * "/repos/name"). The disk has no such list. */
export function listDirs(looksLikeRepo) {
  return current().list(looksLikeRepo);
}

/** Delete the repository `dir` from this storage. */
export function deleteDir(dir, looksLikeRepo) {
  const s = current();
  let key;
  try {
    key = s.key(dir);
  } catch (e) {
    return Promise.reject(e);
  }
  return exclusive(key, () => s.remove(key, looksLikeRepo));
}
