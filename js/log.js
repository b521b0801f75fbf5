// log(): the commits reachable from a revision, newest first by committer
// date (git log's default order), as an async iterator. The core walks
// (wasm/exports_commit.c over core/odb's commit queue) and parses each
// commit; this file only asks for the next one. The walk reads in batches,
// each in its own call on the repository, so that a consumer that pauses
// between commits does not hold the repository (or, in a browser, its
// lock).

import { M, withStrings, takeObject, lastError, makeError } from './runtime.js';
import { withRepo } from './repo.js';

const BATCH = 64;
const FIELDS = 11;
const utf8 = new TextDecoder();

// A commit as wgjs_log_next gives it: 11 NUL-terminated fields (id, tree,
// parents, then name, email, timestamp and zone of author and committer),
// then the message.
function decodeCommit(data) {
  const f = [];
  let at = 0;
  while (f.length < FIELDS) {
    const end = data.indexOf(0, at);
    f.push(utf8.decode(data.subarray(at, end)));
    at = end + 1;
  }
  const ident = (i) => (f[i + 2] === '' ? null
    : { name: f[i], email: f[i + 1], timestamp: Number(f[i + 2]), timezone: f[i + 3] });
  return {
    oid: f[0],
    tree: f[1],
    parents: f[2] ? f[2].split(' ') : [],
    author: ident(3),
    committer: ident(7),
    message: utf8.decode(data.subarray(at)),
  };
}

/**
 * Yields { oid, tree, parents, author, committer, message } from `ref`
 * (default HEAD), at most `depth` commits (default: all). The boundary of
 * a shallow clone ends the walk quietly, as in git. Commits are never
 * fetched lazily: partial clones have them all.
 */
export async function* log({ dir, ref = 'HEAD', depth } = {}) {
  const limit = depth === undefined || depth === null ? Infinity : Number(depth);
  if (!(limit >= 0)) throw makeError('EINVALID', 'depth must be a number >= 0');
  let walk = 0;
  let yielded = 0;
  try {
    while (yielded < limit) {
      const out = await withRepo(dir, {}, (repo) => {
        if (!walk) {
          walk = withStrings([ref], (s) => M._wgjs_log_new(repo, s));
          if (!walk) throw lastError();
        }
        const batch = [];
        while (batch.length < BATCH && yielded + batch.length < limit) {
          const obj = M._wgjs_log_next(walk, repo);
          if (!obj) {
            if (M._wgjs_error_code() !== 0) throw lastError();
            break;
          }
          batch.push(decodeCommit(takeObject(obj).data));
        }
        return batch;
      });
      for (const c of out) {
        yield c;
        yielded++;
      }
      if (out.length === 0) return;
    }
  } finally {
    if (walk) M._wgjs_log_free(walk);
  }
}
