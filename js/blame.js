// blame(): which commit last brought each line of a file into its state at
// a revision, as git blame finds it. The core does all of it
// (core/history/blame.h through wasm/exports_blame.c); this file only
// decodes the groups it lists.

import { M, withStrings, takeObject, lastError, records } from './runtime.js';
import { withRepo } from './repo.js';

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
 * another file have it as origPath. No -w.
 */
export async function blame({ dir, ref = 'HEAD', path, moves = false, copies = 0, copyScore = 0 } = {}) {
  const score = (v, what) => {
    if (!Number.isInteger(v) || v < 0 || v > 0x7fffffff) {
      throw new TypeError(`blame: ${what} must be a whole number from 0`);
    }
    return v;
  };
  if (typeof moves !== 'boolean') score(moves, 'moves');
  if (![0, 1, 2, 3].includes(copies)) throw new TypeError('blame: copies must be 0, 1, 2 or 3');
  score(copyScore, 'copyScore');
  return withRepo(dir, {}, (repo) => {
    const obj = withStrings([ref, String(path)], (r, p) => M._wgjs_blame(repo, r, p,
      moves === false ? 0 : 1, typeof moves === 'number' ? moves : 0, copies, copyScore));
    if (!obj) throw lastError();
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
