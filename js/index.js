// webgit: Git in WebAssembly, driven from JavaScript.
//
// The public API. The pieces:
//   runtime.js    loading the module; strings, bytes and errors across it
//   storage.js    where repositories live (one storage object per runtime:
//                 the disk, IndexedDB, memory) and when they are saved
//   transport.js  driving the core's sans-IO network operations with fetch()
//   repo.js       local reads (with a partial clone's lazy fetch) and writes
//   remote.js     listRemoteRefs, clone, fetch, push, reading without a clone
//   log.js        the commit walk and history queries (done by the core)
//   diff.js       diffs between revisions (computed and printed by the core)
//   blame.js      blame (placed by the core)
//   worktree.js   the working tree: checkout, status, files for editors
//   branches.js   branches and tags (git branch, git tag)
//   edit.js       history edits: reword, split (descendants rewritten)

import {
  loadModule, ready, check, withStrings, limitsSpec, currentLimits, M, threads,
} from './runtime.js';
import { setStorageMode, storageMode, listDirs, deleteDir } from './storage.js';
import {
  initRepo, looksLikeRepo, resolveRef, readObject, readFile as readLocalFile, readTree,
  listRefs, currentBranch, writeObject, writeTree, updateRef, commit,
} from './repo.js';
import { listRemoteRefs, clone, fetch, push, readRemoteFile } from './remote.js';
import { log, mergeBase, isAncestor, aheadBehind, lastModified } from './log.js';
import { diff } from './diff.js';
import { blame } from './blame.js';
import {
  checkout, switchBranch, status, add, remove, reset, restore, readWorkFile, writeWorkFile,
  removeWorkFile, listWorkDir,
} from './worktree.js';
import {
  branch, listBranches, deleteBranch, renameBranch, setUpstream, tag, deleteTag, listTags,
} from './branches.js';
import { reword, split } from './edit.js';

/**
 * Load the module (every call does it implicitly; call it to load early or
 * to pass options), and with `dir`, create a repository there (`git init`).
 *   wasm:    the module's bytes or a compiled WebAssembly.Module (workerd
 *            imports it); default: webgit.wasm next to this file.
 *   threads: false: the single-threaded module even where the threaded
 *            one would load (see index.d.ts).
 *   storage: 'node' | 'idb' | 'memory' (default: what the runtime has).
 *   dir, bare, objectFormat ('sha256' | 'sha1'), refFormat ('reftable' |
 *            'files'), defaultBranch ('main'): for `git init`.
 */
export async function init(options = {}) {
  await loadModule(options);
  setStorageMode(options.storage);
  if (options.dir !== undefined) await initRepo(options);
}

/** The contents of the file at `path` of revision `ref` (default HEAD): of
 * the repository `dir`, or, given `url` instead, of a remote repository
 * without cloning it (see readRemoteFile in remote.js). */
export function readFile(options = {}) {
  if (options.url !== undefined && options.dir === undefined) return readRemoteFile(options);
  return readLocalFile(options);
}

/** The repositories this runtime's storage holds (browsers: IndexedDB;
 * edge: memory). */
export async function listRepos() {
  await ready();
  return listDirs(looksLikeRepo);
}

/** Delete a repository from storage (in Node, from disk). */
export async function deleteRepo({ dir } = {}) {
  await ready();
  return deleteDir(dir, looksLikeRepo);
}

/** Which storage repositories use here: 'node', 'idb' or 'memory'. */
export function storage() {
  return storageMode();
}

/**
 * The limits on what a server (or a repository's files) may make webgit
 * do, for every later call: the built-in defaults with `limits` applied
 * ({} restores the defaults). Names and defaults: docs/limits.md, e.g.
 * { maxObjectSize: 256 * 2 ** 20, maxRefs: 10000, maxTreeDepth: 2048 };
 * values may be numbers or strings with a k/m/g suffix; 0 turns a check
 * off. Network calls also take a `limits` option for themselves alone.
 * Returns the limits now in force.
 */
export async function setLimits(limits = {}) {
  await ready();
  check(withStrings([limitsSpec(limits)], (s) => M._wgjs_limits_set(s)));
  return currentLimits();
}

/** The limits in force (see setLimits). */
export async function getLimits() {
  await ready();
  return currentLimits();
}

/** The WebAssembly instance's memory: heapBytes, the size of its linear
 * memory (which only grows, so it is the peak since loading); threads,
 * the threads of the threaded module (0: the single-threaded one). */
export async function memoryUsage() {
  await ready();
  return { heapBytes: M.HEAPU8.byteLength, threads };
}

/** readTree under its older name. */
export const listTree = readTree;

export {
  listRemoteRefs, clone, fetch, push, resolveRef, readObject, readTree, listRefs, currentBranch,
  writeObject, writeTree, updateRef, commit, log, mergeBase, isAncestor, aheadBehind, lastModified, diff, blame,
  checkout, switchBranch, status, add, remove, reset, restore, readWorkFile, writeWorkFile,
  removeWorkFile, listWorkDir,
  branch, listBranches, deleteBranch, renameBranch, setUpstream, tag, deleteTag, listTags,
  reword, split,
};
