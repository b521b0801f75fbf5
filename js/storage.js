// Where repositories live, per runtime, and when they are saved.
//
//   node    `dir` is a host path; the host directory is mounted (NODEFS)
//           inside the module's file system for the duration of each call,
//           so the repository is an ordinary one that real git opens.
//   idb     (browsers: pages and Workers) `dir` is an absolute path such as
//           "/repos/app"; each repository is its own IndexedDB database
//           (IDBFS mounted at `dir`, database name = `dir`), loaded on first
//           use and saved at the end of every call that changed it, never in
//           the middle of one. IDBFS saves in one IndexedDB transaction, so
//           a reload or a crashed tab finds the last complete state. A call
//           that fails reloads the saved state, so nothing half-done stays
//           in memory either.
//   memory  (edge runtimes: workerd, Deno without a disk) `dir` is a path
//           in the module's in-memory file system (MEMFS), gone with the
//           instance.
//
// Calls on one repository run one at a time (a queue per `dir`): the core
// is synchronous, but a network operation spans many awaits, and a save or
// a second operation must not see another's half-written state.

import { M, node, isNode, makeError } from './runtime.js';

let mode = null;
const queues = new Map();     // dir -> tail of its call queue
const idbLoaded = new Set();  // dirs mounted and loaded in this instance
let mountSeq = 0;
let scratchSeq = 0;

/** 'node', 'idb' or 'memory': the option given to init(), else what the
 * runtime has. */
export function storageMode() {
  if (!mode) {
    if (isNode) mode = 'node';
    else if (typeof indexedDB !== 'undefined' && indexedDB) mode = 'idb';
    else mode = 'memory';
  }
  return mode;
}

export function setStorageMode(m) {
  if (m === undefined || m === null) return;
  if (!['node', 'idb', 'memory'].includes(m)) throw makeError('EINVALID', `unknown storage "${m}"`);
  if (m === 'node' && !isNode) throw makeError('EUNSUPPORTED', 'storage "node" needs Node.js');
  if (m === 'idb' && typeof indexedDB === 'undefined') {
    throw makeError('EUNSUPPORTED', 'storage "idb" needs IndexedDB');
  }
  mode = m;
}

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

// --- node -----------------------------------------------------------------------------

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
  try {
    return await fn(mp);
  } finally {
    M.FS.unmount(mp);
    M.FS.rmdir(mp);
  }
}

async function withNodeDir(dir, create, fn) {
  const abs = node.path.resolve(dir);
  if (!create) return withHostDir(abs, (mp) => fn(mp, {}));
  // A repository that may not exist yet: mount its parent, created if
  // needed, as git clone creates leading directories.
  const parent = node.path.dirname(abs);
  node.fs.mkdirSync(parent, { recursive: true });
  return withHostDir(parent, (mp) => fn(abs === parent ? mp : `${mp}/${node.path.basename(abs)}`, {}));
}

// --- idb --------------------------------------------------------------------------------

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

async function idbLoad(dir) {
  if (idbLoaded.has(dir)) return;
  M.FS.mkdirTree(dir);
  M.FS.mount(M.IDBFS, {}, dir);
  try {
    await syncMount(dir, true);
  } catch (e) {
    M.FS.unmount(dir);
    throw e;
  }
  idbLoaded.add(dir);
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

// --- the interface ------------------------------------------------------------------------

/**
 * Run fn(path, state) on the repository `dir`, with `path` its place in the
 * module's file system.
 *   create: the repository may not exist yet (clone, init); if fn fails,
 *           nothing of it stays behind.
 *   write:  fn changes the repository: save it afterwards (idb). A reader
 *           that changed it after all (a lazy fetch) sets state.changed.
 */
export function withDir(dir, { create = false, write = false } = {}, fn) {
  const m = storageMode();
  if (m === 'node') {
    if (typeof dir !== 'string' || !dir) return Promise.reject(makeError('EINVALID', 'dir is required'));
    return exclusive(node.path.resolve(dir), () => withNodeDir(dir, create, fn));
  }
  let path;
  try {
    path = modulePath(dir);
  } catch (e) {
    return Promise.reject(e);
  }
  if (m === 'memory') {
    return exclusive(path, async () => {
      if (!create && !exists(path)) throw makeError('ENOTFOUND', `not a git repository: '${path}'`);
      if (create) M.FS.mkdirTree(path.slice(0, path.lastIndexOf('/')) || '/');
      return fn(path, {});
    });
  }
  return exclusive(path, async () => {
    await idbLoad(path);
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
    if (write || create || state.changed) await syncMount(path, false);
    return result;
  });
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
 * "/repos/name"). Node has no such list. */
export async function listDirs(looksLikeRepo) {
  const m = storageMode();
  if (m === 'node') throw makeError('EUNSUPPORTED', 'listRepos() lists browser and in-memory storage');
  if (m === 'idb') {
    if (typeof indexedDB.databases !== 'function') {
      throw makeError('EUNSUPPORTED', 'this browser cannot list IndexedDB databases');
    }
    const dbs = await indexedDB.databases();
    return dbs.map((d) => d.name).filter((n) => typeof n === 'string' && n.startsWith('/')).sort();
  }
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
}

/** Delete the repository `dir` from this storage. */
export function deleteDir(dir, looksLikeRepo) {
  const m = storageMode();
  if (m === 'node') {
    const abs = typeof dir === 'string' && dir ? node.path.resolve(dir) : null;
    if (!abs) return Promise.reject(makeError('EINVALID', 'dir is required'));
    return exclusive(abs, async () => {
      const ok = await withHostDir(abs, async (p) => looksLikeRepo(p));
      if (!ok) throw makeError('EINVALID', `not a git repository: '${abs}'`);
      node.fs.rmSync(abs, { recursive: true, force: true });
    });
  }
  let path;
  try {
    path = modulePath(dir);
  } catch (e) {
    return Promise.reject(e);
  }
  return exclusive(path, async () => {
    if (m === 'idb') return idbDrop(path);
    if (!exists(path)) throw makeError('ENOTFOUND', `no repository at '${path}'`);
    removeTree(path);
  });
}
