// The working tree: switching branches, status, and the files an editor
// reads and writes. The core decides and writes everything (worktree/
// switch.h, status.h, workfile.h); this file moves bytes and drives the
// fetch of blobs a partial clone lacks.

import {
  M, str, withStrings, withStringArray, withBytes, takeObject, records, check, lastError,
  makeError,
} from './runtime.js';
import { withRepo, lazily, fetchPromised, missingIds } from './repo.js';

const utf8in = new TextEncoder();

/**
 * Plan a switch with begin() (a wgjs_switch_begin call); trees a partial
 * clone lacks (tree:0) are fetched as the plan reads them, as git's lazy
 * fetch does.
 */
export function beginSwitch(repo, remote, begin) {
  return lazily(repo, {}, remote, () => {
    const sw = begin();
    if (!sw) throw lastError();
    return sw;
  });
}

/**
 * Fetch from the promisor remote, in one request, the blobs a plan needs
 * that a blob-less partial clone lacks (`listing`: a wgjs_*_missing
 * result).
 */
async function fetchMissing(repo, listing, remote) {
  const missing = missingIds(listing);
  if (missing.length && remote?.lazy === false && M._wgjs_repo_promisor_remote(repo)) {
    throw makeError('ENOTFOUND', `${missing.length} blobs to check out are not in the repository (lazy fetch is off)`);
  }
  await fetchPromised(repo, null, missing, remote);
}

/**
 * Carry out a planned switch `sw` (a wgjs_switch_begin result, freed
 * here): fetch the blobs it lacks, then write the working tree, the index
 * and the refs.
 */
export async function finishSwitch(repo, sw, remote) {
  try {
    await fetchMissing(repo, M._wgjs_switch_missing(sw), remote);
    check(M._wgjs_switch_finish(sw));
  } finally {
    M._wgjs_switch_free(sw);
  }
}

function headState(repo) {
  const obj = withStrings(['HEAD'], (h) => M._wgjs_ref_target(repo, h));
  let branch = null;
  if (obj) {
    const target = new TextDecoder().decode(takeObject(obj).data);
    if (target.startsWith('refs/heads/')) branch = target.slice(11);
  }
  const oid = withStrings(['HEAD'], (s) => str(M._wgjs_revparse(repo, s)));
  return { branch, oid };
}

async function switchTo(dir, { target = null, newBranch = null, forceCreate = false, detach = false, force = false, ...remote }) {
  return withRepo(dir, { write: true, signal: remote.signal }, async (repo) => {
    const sw = await beginSwitch(repo, remote, () => withStrings([target, newBranch], (t, b) =>
      M._wgjs_switch_begin(repo, t, b, forceCreate ? 1 : 0, detach ? 1 : 0, force ? 1 : 0)));
    await finishSwitch(repo, sw, remote);
    return headState(repo);
  });
}

/**
 * `git checkout <ref>`: a branch name switches to that branch; any other
 * revision detaches HEAD there (or always, with detach). A name that only
 * one remote has becomes a new branch tracking it, as git does. Local
 * changes that the switch would overwrite refuse it (code EEXISTS, git's
 * message listing the paths) unless `force`. Resolves with
 * { branch (null when detached), oid }.
 */
export async function checkout({ dir, ref, force = false, detach = false, ...remote } = {}) {
  if (typeof ref !== 'string' || !ref) throw makeError('EINVALID', 'ref is required');
  return switchTo(dir, { target: ref, force, detach, ...remote });
}

/**
 * `git switch <branch>`, or with create `git switch -c <branch>
 * [<startPoint>]` (forceCreate: -C, resetting an existing branch).
 */
export async function switchBranch({
  dir, branch, create = false, forceCreate = false, startPoint, force = false, ...remote
} = {}) {
  if (typeof branch !== 'string' || !branch) throw makeError('EINVALID', 'branch is required');
  if (create || forceCreate) {
    return switchTo(dir, { target: startPoint ?? null, newBranch: branch, forceCreate, force, ...remote });
  }
  return switchTo(dir, { target: branch, force, ...remote });
}

const UNTRACKED = { no: 0, normal: 1, all: 2 };

/**
 * `git status`: one entry per path that differs, tracked paths first (by
 * path), then untracked, then ignored (with ignored: true):
 *   { path, index, worktree, conflict, headMode, indexMode, worktreeMode,
 *     headOid, indexOid, from }
 * index is the staged change and worktree the unstaged one, as letters of
 * git's porcelain v2: '.' none, 'M' modified, 'T' type changed, 'A' added,
 * 'D' deleted ('U', 'A', 'D' in git's pairs for a conflict); an untracked
 * path has '?' in both, an ignored one '!' (a directory's path ends in
 * '/'). Modes are numbers (0: absent), ids null when absent. A staged
 * rename (index 'R', found as git status finds it) has `from`, the path
 * it came from (headMode and headOid are that path's), and `score`, the
 * similarity in percent; `from` is null otherwise. untracked: 'no' | 'normal' (a new directory as one entry,
 * git's default) | 'all'. Stat data refreshed by the walk is written back
 * to the index, as git status does.
 */
export async function status({ dir, untracked = 'normal', ignored = false } = {}) {
  if (!(untracked in UNTRACKED)) throw makeError('EINVALID', "untracked must be 'no', 'normal' or 'all'");
  return withRepo(dir, {}, (repo, state) => {
    const { data } = takeObject(M._wgjs_status(repo, UNTRACKED[untracked], ignored ? 1 : 0));
    if (M._wgjs_status_refreshed()) state.changed = true;
    return records(data, 11).map(([path, x, y, mh, mi, mw, ho, io, conflict, from, score]) => ({
      path,
      index: x,
      worktree: x === '?' || x === '!' ? x : y,
      conflict: conflict === '1',
      ...(x === '?' ? { untracked: true } : {}),
      ...(x === '!' ? { ignored: true } : {}),
      headMode: parseInt(mh, 8),
      indexMode: parseInt(mi, 8),
      worktreeMode: parseInt(mw, 8),
      headOid: ho || null,
      indexOid: io || null,
      from: from || null,
      ...(from ? { score: Number(score) } : {}),
    }));
  });
}

// --- staging ------------------------------------------------------------------------------

function pathList(paths) {
  const list = paths === undefined ? [] : [].concat(paths);
  for (const p of list) {
    if (typeof p !== 'string' || !p) throw makeError('EINVALID', 'paths must be non-empty strings');
  }
  return list;
}

/**
 * `git add <paths>...` (none: everything, as `git add -A`): files, whole
 * directories and git's pathspec globs; files gone from the working tree
 * leave the index. update: only what is tracked (`-u`); force: ignored
 * files too (`-f`). Ignored paths named here are left out and make the
 * call reject (EINVALID, git's list) after the rest was staged.
 */
export async function add({ dir, paths, force = false, update = false } = {}) {
  const list = pathList(paths);
  return withRepo(dir, { write: true }, (repo) => {
    check(withStringArray(list, (a, n) => M._wgjs_add(repo, a, n, force ? 1 : 0, update ? 1 : 0)));
  });
}

/**
 * `git rm [--cached] [-r] [-f] <paths>...`: the index entries go, and the
 * files unless cached. Local changes refuse it (EEXISTS, git's message)
 * unless force; a directory needs recursive.
 */
export async function remove({ dir, paths, cached = false, recursive = false, force = false } = {}) {
  const list = pathList(paths);
  if (!list.length) throw makeError('EINVALID', 'paths are required');
  return withRepo(dir, { write: true }, (repo) => {
    check(withStringArray(list, (a, n) =>
      M._wgjs_remove(repo, a, n, cached ? 1 : 0, recursive ? 1 : 0, force ? 1 : 0)));
  });
}

const RESET_MODES = { mixed: 0, soft: 1, hard: 2 };

/**
 * `git reset [--soft | --mixed | --hard] [<ref>]`: HEAD (and its branch)
 * moves to the commit `ref` names (default HEAD), ORIG_HEAD keeps where it
 * was; mixed (the default) makes the index the commit's tree, hard the
 * working tree too (local changes are lost, as in git), soft neither.
 * With paths, `git reset [<ref>] -- <paths>`: only those index entries
 * take the tree's, nothing else moves. Resolves with { oid } (HEAD after)
 * and, for a mixed reset, `unstaged`: [{ path, status }], git's
 * "Unstaged changes after reset" ('M', 'D', 'T', 'U').
 */
export async function reset({ dir, ref, mode = 'mixed', paths, ...remote } = {}) {
  if (!(mode in RESET_MODES)) throw makeError('EINVALID', "mode must be 'soft', 'mixed' or 'hard'");
  if (ref !== undefined && (typeof ref !== 'string' || !ref)) throw makeError('EINVALID', 'ref must be a non-empty string');
  const list = pathList(paths);
  if (list.length && mode !== 'mixed') throw makeError('EINVALID', `Cannot do ${mode} reset with paths.`);
  return withRepo(dir, { write: true, signal: remote.signal }, async (repo) => {
    let unstaged = [];
    if (list.length) {
      check(withStrings([ref ?? null], (r) =>
        withStringArray(list, (a, n) => M._wgjs_reset_paths(repo, r, a, n))));
    } else {
      const r = withStrings([ref ?? null], (s) => M._wgjs_reset_begin(repo, s, RESET_MODES[mode]));
      if (!r) throw lastError();
      try {
        await fetchMissing(repo, M._wgjs_reset_missing(r), remote);
        const done = M._wgjs_reset_finish(r);
        if (!done) throw lastError();
        unstaged = records(takeObject(done).data, 2).map(([status, path]) => ({ path, status }));
      } finally {
        M._wgjs_reset_free(r);
      }
    }
    return { oid: headState(repo).oid, unstaged };
  });
}

/**
 * `git restore [--staged] [--worktree] [--source=<ref>] -- <paths>`:
 * working-tree files from the index (default) or from `source`; with
 * staged, index entries from `source` (default HEAD), and with both, the
 * two. A path the source lacks is removed (git's no-overlay mode). A path
 * that matches nothing, or an unmerged one restored from the index,
 * rejects the whole call (ENOTFOUND, git's message) before anything is
 * written.
 */
export async function restore({ dir, paths, staged = false, worktree = !staged, source, ...remote } = {}) {
  const list = pathList(paths);
  if (!list.length) throw makeError('EINVALID', 'paths are required');
  if (source !== undefined && (typeof source !== 'string' || !source)) throw makeError('EINVALID', 'source must be a non-empty string');
  return withRepo(dir, { write: true, signal: remote.signal }, async (repo) => {
    const w = withStrings([source ?? null], (src) => withStringArray(list, (a, n) =>
      M._wgjs_restore_begin(repo, a, n, staged ? 1 : 0, worktree ? 1 : 0, src)));
    if (!w) throw lastError();
    try {
      await fetchMissing(repo, M._wgjs_restore_missing(w), remote);
      check(M._wgjs_restore_finish(w));
    } finally {
      M._wgjs_restore_free(w);
    }
  });
}

// --- working-tree files ---------------------------------------------------------------------

function relPath(path, what = 'path') {
  if (typeof path !== 'string') throw makeError('EINVALID', `${what} is required`);
  return path.replace(/^\/+/, '').replace(/\/+$/, '');
}

/** The bytes of a working-tree file (a symbolic link: its target), or
 * with encoding 'utf8' its text. */
export async function readWorkFile({ dir, path, encoding } = {}) {
  const p = relPath(path);
  return withRepo(dir, {}, (repo) => {
    const { data } = takeObject(withStrings([p], (s) => M._wgjs_workfile_read(repo, s)));
    return encoding === 'utf8' ? new TextDecoder().decode(data) : data;
  });
}

/** Create or replace a working-tree file (missing directories are made;
 * the old bytes or the new ones, never half). data: Uint8Array or string;
 * executable: true/false sets the bit, undefined keeps it. */
export async function writeWorkFile({ dir, path, data, executable } = {}) {
  const p = relPath(path);
  const bytes = typeof data === 'string' ? utf8in.encode(data) : data;
  if (!(bytes instanceof Uint8Array)) throw makeError('EINVALID', 'data must be a Uint8Array or a string');
  const mode = executable === undefined ? 0 : executable ? 0o100755 : 0o100644;
  return withRepo(dir, { write: true }, (repo) => {
    check(withStrings([p], (s) => withBytes(bytes, (d, n) => M._wgjs_workfile_write(repo, s, d, n, mode))));
  });
}

/** Remove a working-tree file (and the directories it leaves empty). */
export async function removeWorkFile({ dir, path } = {}) {
  const p = relPath(path);
  return withRepo(dir, { write: true }, (repo) => {
    check(withStrings([p], (s) => M._wgjs_workfile_remove(repo, s)));
  });
}

const KINDS = { f: 'file', x: 'file', l: 'symlink', d: 'dir' };

/** The entries of a working-tree directory (default: the top), sorted by
 * name, without .git: [{ name, type: 'file'|'dir'|'symlink', size,
 * executable }]. */
export async function listWorkDir({ dir, path = '' } = {}) {
  const p = relPath(path);
  return withRepo(dir, {}, (repo) => {
    const { data } = takeObject(withStrings([p], (s) => M._wgjs_workfile_list(repo, s)));
    return records(data, 3).map(([name, kind, size]) => ({
      name, type: KINDS[kind], size: Number(size), executable: kind === 'x',
    }));
  });
}
