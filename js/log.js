// log(): the commits reachable from a revision, newest first by committer
// date (git log's default order), as an async iterator. The walk reads in
// batches, each in its own call on the repository, so that a consumer that
// pauses between commits does not hold the repository's queue.

import { M, str, withStrings, takeObject, lastError, makeError } from './runtime.js';
import { withRepo } from './repo.js';
import { parseCommit } from './commit.js';

const BATCH = 64;

/**
 * Yields { oid, tree, parents, author, committer, message } from `ref`
 * (default HEAD), at most `depth` commits (default: all). The boundary of
 * a shallow clone ends the walk quietly, as in git.
 */
export async function* log({ dir, ref = 'HEAD', depth } = {}) {
  const limit = depth === undefined || depth === null ? Infinity : Number(depth);
  if (!(limit >= 0)) throw makeError('EINVALID', 'depth must be a number >= 0');
  const seen = new Set();
  const queue = [];    // commits read, not yet yielded, oldest first
  let pending = [];    // ids to read before the next commit is chosen
  let start = ref;
  let yielded = 0;

  const insert = (c) => {
    const t = c.committer ? c.committer.timestamp : 0;
    let i = queue.length;
    while (i > 0 && (queue[i - 1].committer?.timestamp ?? 0) > t) i--;
    queue.splice(i, 0, c);
  };

  while (yielded < limit) {
    // The next batch in order, in one call on the repository.
    // Commits are never fetched lazily: partial clones have them all, and
    // a shallow clone's missing parents are its boundary, not a gap.
    const out = await withRepo(dir, {}, async (repo) => {
      const read = (oid) => {
        const obj = takeObject(withStrings([oid], (s) => M._wgjs_object_read(repo, s)));
        insert(parseCommit(oid, obj.data));
      };
      if (start !== null) {
        const oid = withStrings([`${start}^{commit}`], (s) => str(M._wgjs_revparse(repo, s)));
        if (oid === null) throw lastError();
        start = null;
        seen.add(oid);
        read(oid);
      }
      const batch = [];
      while (batch.length < BATCH && yielded + batch.length < limit) {
        for (const oid of pending) {
          try {
            read(oid);
          } catch (e) {
            // A parent a shallow clone does not have: the walk's edge.
            if (e.code !== 'ENOTFOUND') throw e;
          }
        }
        pending = [];
        const next = queue.pop();
        if (!next) break;
        batch.push(next);
        for (const p of next.parents) {
          if (!seen.has(p)) {
            seen.add(p);
            pending.push(p);
          }
        }
      }
      return batch;
    });
    for (const c of out) {
      yield c;
      yielded++;
    }
    if (out.length === 0) return;
  }
}
