// log(): git log's revision walk as an async iterator, and the history
// queries beside it (mergeBase, isAncestor, aheadBehind). The core walks
// (wasm/exports_log.c over core/history) and parses each commit; this
// file only asks for the next one. The walk reads in batches,
// each in its own call on the repository, so that a consumer that pauses
// between commits does not hold the repository (or, in a browser, its
// lock).

import {
  M, nulFields, str, withStrings, withStringArray, takeObject, lastError, makeError, countOption,
} from './runtime.js';
import { withRepo, lazily, fetchPromised, missingIds } from './repo.js';

// The first batch is small (a page shows its first commits soon); each
// next one doubles, up to MAX_BATCH, since every batch opens the
// repository (its pack indexes) again.
const BATCH = 64;
const MAX_BATCH = 4096;
const FIELDS = 12;
const utf8 = new TextDecoder();

// A commit as wgjs_log_next gives it: 12 NUL-terminated fields (id, tree,
// parents, then name, email, timestamp and zone of author and committer,
// then the message's length in bytes), then the message, then with
// patch the commit's patch.
function decodeCommit(data, patch) {
  const { fields: f, at } = nulFields(data, FIELDS);
  const ident = (i) => (f[i + 2] === '' ? null
    : { name: f[i], email: f[i + 1], timestamp: Number(f[i + 2]), timezone: f[i + 3] });
  const end = at + Number(f[11]);
  const c = {
    oid: f[0],
    tree: f[1],
    parents: f[2] ? f[2].split(' ') : [],
    author: ident(3),
    committer: ident(7),
    message: utf8.decode(data.subarray(at, end)),
  };
  if (patch) c.patch = utf8.decode(data.subarray(end));
  return c;
}

const FLAGS = {
  firstParent: 1, reverse: 2, topo: 4, date: 8, noMerges: 16, merges: 32, fullHistory: 64,
  follow: 128, patch: 256,
};

// log --follow or log -p in a blob-less clone: the commit whose source
// search or patch lacked blobs failed; fetch every blob it reads in one
// request (git prefetches them too) and let the walk try that commit
// again. false when there is nothing to fetch (the error stands).
function fetchWalkBlobs(repo, state, walk, remote) {
  return fetchPromised(repo, state, missingIds(M._wgjs_log_missing(walk)), remote);
}

function revisionList(ref, range) {
  const revs = [];
  for (const r of [].concat(range ?? ref ?? [])) {
    if (typeof r !== 'string' || !r) throw makeError('EINVALID', 'revisions must be non-empty strings');
    revs.push(r);
  }
  return revs;
}

/**
 * Yields { oid, tree, parents, author, committer, message } as `git log`
 * lists them: from `ref` (default HEAD) or the revisions of `range`
 * ('a..b', 'a...b', '^x', or an array of them), in git's default order or
 * order: 'topo' | 'date', reversed with reverse, following only first
 * parents with firstParent, merges left out with noMerges (only merges:
 * merges), limited to commits that changed `paths` (git pathspecs from
 * the top; history simplified as git's default, fullHistory to keep every
 * merge's sides), skipping `skip` and at most `depth` of them. The
 * boundary of a shallow clone ends the walk quietly, as in git. Commits
 * are never fetched lazily: partial clones have them all (path-limited
 * walks read trees, which blob-less clones have too).
 *
 * follow: git log --follow for the one path of `paths`: its renames (and
 * copies) followed backwards, as git finds them (with its quirks: one
 * switch of the path for the whole walk, in the order commits are
 * yielded; merges are yielded only with firstParent; with reverse,
 * `depth` counts the commits walked, not those yielded). In a blob-less
 * clone the blobs a source search compares are fetched in one request
 * when it needs them.
 *
 * patch: git log -p: each commit also has `patch`, git's patch text of
 * its changes against its first parent ('' for a merge, as git log -p,
 * unless firstParent), limited to `paths`, made with diff()'s options
 * renames, contextLines, interHunkContext and algorithm. In a blob-less
 * clone the blobs of a commit's patch are fetched in one request when
 * it is reached. One walk does it all: much cheaper than a diff() call
 * per commit.
 */
export async function* log({
  dir, ref, range, depth, paths, firstParent = false, order, reverse = false,
  noMerges = false, merges = false, fullHistory = false, skip = 0, follow = false,
  patch = false, renames = true, contextLines = 3, interHunkContext = 0, algorithm = 'myers',
  ...remote
} = {}) {
  const limit = depth === undefined || depth === null ? -1 : Number(depth);
  if (limit !== -1 && !(limit >= 0 && limit <= 0x7fffffff)) throw makeError('EINVALID', 'depth must be a number >= 0');
  if (!(Number(skip) >= 0)) throw makeError('EINVALID', 'skip must be a number >= 0');
  if (order !== undefined && order !== 'topo' && order !== 'date' && order !== 'default') {
    throw makeError('EINVALID', "order must be 'default', 'topo' or 'date'");
  }
  const revs = revisionList(ref, range);
  const pathList = paths === undefined || paths === null ? [] : [].concat(paths).map(String);
  if (follow && pathList.length !== 1) throw makeError('EINVALID', 'follow requires exactly one path');
  const context = countOption(contextLines, 'contextLines');
  const interHunk = countOption(interHunkContext, 'interHunkContext');
  if (typeof algorithm !== 'string') throw makeError('EINVALID', 'algorithm must be a string');
  const flags = (firstParent ? FLAGS.firstParent : 0) | (reverse ? FLAGS.reverse : 0) |
    (order === 'topo' ? FLAGS.topo : 0) | (order === 'date' ? FLAGS.date : 0) |
    (noMerges ? FLAGS.noMerges : 0) | (merges ? FLAGS.merges : 0) |
    (fullHistory ? FLAGS.fullHistory : 0) | (follow ? FLAGS.follow : 0) | (patch ? FLAGS.patch : 0);
  let walk = 0;
  let size = BATCH;
  try {
    for (;;) {
      const out = await withRepo(dir, {}, async (repo, state) => {
        if (!walk) {
          walk = withStringArray(revs, (r, nr) => withStringArray(pathList, (p, np) =>
            M._wgjs_log_new(repo, r, nr, p, np, flags, Number(skip), limit)));
          if (!walk) throw lastError();
          if (patch && withStrings([algorithm], (alg) =>
            M._wgjs_log_patch(walk, renames ? 1 : 0, context, interHunk, alg))) throw lastError();
        }
        const batch = [];
        let fetched = false;
        while (batch.length < size) {
          const obj = M._wgjs_log_next(walk, repo);
          if (!obj) {
            if (M._wgjs_error_code() === 0) break;
            const e = lastError();
            // one fetch per commit: a second miss is a real error
            if (!(follow || patch) || e.code !== 'ENOTFOUND' || fetched ||
                !(await fetchWalkBlobs(repo, state, walk, remote))) throw e;
            fetched = true;
            continue;
          }
          fetched = false;
          batch.push(decodeCommit(takeObject(obj).data, patch));
        }
        return batch;
      });
      for (const c of out) yield c;
      if (out.length < size) return;
      size = Math.min(size * 2, MAX_BATCH);
    }
  } finally {
    if (walk) M._wgjs_log_free(walk);
  }
}

/**
 * The merge bases of the commits (git merge-base): the best one as a
 * string, or with all every one (an array, newest first); octopus: the
 * bases of all of them at once. null (all: []) when there is none.
 */
export async function mergeBase({ dir, commits, all = false, octopus = false } = {}) {
  const list = [].concat(commits ?? []).map(String);
  const text = await withRepo(dir, {}, (repo) => {
    const p = withStringArray(list, (a, n) => M._wgjs_merge_base(repo, a, n, all ? 1 : 0, octopus ? 1 : 0));
    if (!p) throw lastError();
    try { return str(p); } finally { M._free(p); }
  });
  const ids = text ? text.split('\n') : [];
  return all ? ids : (ids[0] ?? null);
}

/** Is `ancestor` reachable from `commit` (git merge-base --is-ancestor)? */
export async function isAncestor({ dir, ancestor, commit } = {}) {
  return withRepo(dir, {}, (repo) => {
    const r = withStrings([String(ancestor), String(commit)], (a, c) => M._wgjs_is_ancestor(repo, a, c));
    if (r < 0) throw lastError();
    return r === 1;
  });
}

/**
 * How far two commits have gone apart: { ahead, behind }, the commits
 * reachable from `ref` and not `base` and the other way round (git
 * rev-list --left-right --count ref...base).
 */
export async function aheadBehind({ dir, ref, base } = {}) {
  return withRepo(dir, {}, (repo) => {
    const counts = M._malloc(8);
    if (!counts) throw makeError('ENOMEM', 'out of memory');
    try {
      const r = withStrings([String(ref), String(base)], (a, b) => M._wgjs_ahead_behind(repo, a, b, counts));
      if (r < 0) throw lastError();
      return { ahead: M.HEAPU32[counts >>> 2], behind: M.HEAPU32[(counts >>> 2) + 1] };
    } finally {
      M._free(counts);
    }
  });
}

/**
 * git last-modified: for each entry of the tree of `ref` (default HEAD)
 * — the files below it with recursive, its trees too with showTrees —
 * the commit that last changed it, as [{ path, commit }] in git's order;
 * `paths` (pathspecs from the top) limit it. Reads commits and trees
 * only, so a blob-less clone fetches nothing; a clone that lacks trees
 * too fetches each as it is met (the remote options as for readFile).
 */
export async function lastModified({
  dir, ref = 'HEAD', paths, recursive = false, showTrees = false, ...remote
} = {}) {
  const pathList = paths === undefined || paths === null ? [] : [].concat(paths).map(String);
  return withRepo(dir, {}, async (repo, state) => {
    const obj = await lazily(repo, state, remote, () => {
      const o = withStrings([String(ref)], (r) => withStringArray(pathList, (p, n) =>
        M._wgjs_last_modified(repo, r, p, n, recursive ? 1 : 0, showTrees ? 1 : 0)));
      if (!o) throw lastError();
      return o;
    });
    const data = takeObject(obj).data;
    const out = [];
    const utf8 = new TextDecoder();
    for (let at = 0; at < data.length;) {
      const a = data.indexOf(0, at);
      const b = data.indexOf(0, a + 1);
      out.push({ path: utf8.decode(data.subarray(a + 1, b)), commit: utf8.decode(data.subarray(at, a)) });
      at = b + 1;
    }
    return out;
  });
}
