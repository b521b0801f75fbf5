// blame(): which commit last brought each line of a file into its state at
// a revision, as git blame finds it. The core does all of it
// (core/history/blame.h through wasm/exports_blame.c); this file decodes
// the groups it lists, and drives the fetch a partial clone needs: the
// versions of the file along its history are listed from trees alone
// (core/history/blame_missing.h) and fetched in one request, again after
// each rename whose source only their contents tell, before the blame
// reads them.

import {
  M, withStrings, takeObject, lastError, records, makeError,
} from './runtime.js';
import { withRepo, lazily, fetchPromised, missingIds } from './repo.js';

const ident = (name, email, timestamp, timezone) => ({
  name, email, timestamp: Number(timestamp), timezone,
});

/**
 * Blame `path` at `ref` (default HEAD): the groups of lines in line order,
 * each { start, count, commit, origPath, origStart, boundary, author,
  * committer, summary, previous, previousPath } with start and origStart
  * 1-based (as in git blame --porcelain: origStart is the line in commit's
  * version of the file, which was called origPath there; previous is the
  * parent commit the lines were compared with, or null, and previousPath
  * the path there). Renames are followed; merges give each line to the
  * first parent that has it. moves: true (git blame -M) or the -M score;
  * copies: 1, 2 or 3 (-C given that many times: also from the files the
  * commit changed, from any file when the file is new, from any file
  * always; implies moves); copyScore: the -C score. Lines copied from
  * another file have it as origPath. No -w. In a partial clone the file's
  * versions are fetched first, in one request per rename along the way
  * (the remote options as for readFile; lazy: false fetches nothing); the
  * other files -M/-C read are fetched as they are met.
  *
  * worktree: true blames the working tree's version instead (git blame
  * <path> with no revision: what an editor has on disk, saved edits
  * included, with the check-in conversion applied); its lines not
  * committed yet come out with commit '0000000…' (all zeros), author
  * and committer "Not Committed Yet" now, and HEAD as previous. Not with
  * ref.
  */
export async function blame({
  dir, ref, path, worktree = false, moves = false, copies = 0, copyScore = 0, ...remote
} = {}) {
  const score = (v, what) => {
    if (!Number.isInteger(v) || v < 0 || v > 0x7fffffff) {
      throw new TypeError(`blame: ${what} must be a whole number from 0`);
    }
    return v;
  };
  if (typeof moves !== 'boolean') score(moves, 'moves');
  if (![0, 1, 2, 3].includes(copies)) throw new TypeError('blame: copies must be 0, 1, 2 or 3');
  score(copyScore, 'copyScore');
  if (worktree && ref !== undefined) throw makeError('EINVALID', 'blame: worktree blames the working tree\'s version: give no ref');
  const rev = worktree ? null : String(ref ?? 'HEAD');
  return withRepo(dir, {}, async (repo, state) => {
    try {
      await fetchMissing(repo, state, rev ?? 'HEAD', String(path), remote);
    } catch (e) {
      // a file new in the index has no history in HEAD to fetch
      if (!worktree || e.code !== 'ENOTFOUND') throw e;
    }
    const obj = await lazily(repo, state, remote, () => {
      const o = withStrings([rev, String(path)], (r, p) => M._wgjs_blame(repo, r, p,
        moves === false ? 0 : 1, typeof moves === 'number' ? moves : 0, copies, copyScore));
      if (!o) throw lastError();
      return o;
    });
    return records(takeObject(obj).data, 17).map((f) => ({
      start: Number(f[1]),
      count: Number(f[2]),
      commit: f[0],
      origPath: f[4],
      origStart: Number(f[3]),
      boundary: f[5] === '1',
      author: ident(f[6], f[7], f[8], f[9]),
      committer: ident(f[10], f[11], f[12], f[13]),
      summary: f[14],
      previous: f[15] || null,
      previousPath: f[15] ? f[16] : null,
    }));
  });
}

// The blobs the blame will read that a blob-less clone lacks: listed,
// fetched in one request, listed again (a rename's source is known once
// the candidates are there) until nothing is new. What the list could not
// foresee is left to the blame's own lazy reads.
async function fetchMissing(repo, state, ref, path, remote) {
  if (remote?.lazy === false || !M._wgjs_repo_promisor_remote(repo)) return;
  const tried = new Set();
  for (;;) {
    const obj = await lazily(repo, state, remote, () => {
      const o = withStrings([ref, path], (r, p) => M._wgjs_blame_missing(repo, r, p));
      if (!o) throw lastError();
      return o;
    });
    const missing = missingIds(obj).filter((h) => !tried.has(h));
    if (!missing.length) return;
    for (const h of missing) tried.add(h);
    await fetchPromised(repo, state, missing, remote);
  }
}
