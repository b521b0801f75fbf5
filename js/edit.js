// History edits as Jujutsu makes them (jj describe, jj split): a commit
// is rewritten and every commit of the local branches (and a detached
// HEAD) that descends from it is rewritten onto it, so nothing is left on
// the old history and there is no rebase to finish. The core does it all
// (core/worktree/history_edit.h); this file passes the arguments.
//
// Both resolve with what moved:
//   rewritten  [{ from, to }] for every commit rewritten, parents first
//              (the edited commit first)
//   refs       the refs moved ("refs/heads/main", "HEAD" when detached)
// Published history (a commit a remote-tracking branch or a tag holds)
// is refused with EINVALID unless allowPublished: rewriting it means a
// forced push.

import {
  M, withStrings, withStringArray, withBytes, takeObject, records, makeError,
} from './runtime.js';
import { withRepo, identText, revparse } from './repo.js';

const utf8in = new TextEncoder();

function commitId(repo, rev) {
  if (typeof rev !== 'string' || rev === '') throw makeError('EINVALID', 'commit must be a revision');
  return revparse(repo, `${rev}^{commit}`);
}

function optionalBytes(text, what, fn) {
  if (text === undefined || text === null) return fn(0, 0);
  if (typeof text !== 'string') throw makeError('EINVALID', `${what} must be a string`);
  return withBytes(utf8in.encode(text), fn);
}

// { path: [hunk numbers] } as wgjs_history_edit takes it: the paths,
// and for each its count of hunks then their numbers.
function hunkWords(hunks) {
  const words = [];
  for (const list of Object.values(hunks)) {
    if (!Array.isArray(list) || list.some((n) => !Number.isInteger(n) || n < 0 || n > 0xffffffff)) {
      throw makeError('EINVALID', 'hunks maps paths to arrays of hunk numbers');
    }
    words.push(list.length, ...list);
  }
  return new Uint8Array(new Uint32Array(words).buffer);
}

function edit(dir, {
  split, commit, message, firstMessage, paths, hunks = {}, committer, allowPublished,
}) {
  if (!committer) throw makeError('EINVALID', 'committer ({ name, email }) is required');
  const words = hunkWords(hunks);
  return withRepo(dir, { write: true }, (repo) => {
    const oid = commitId(repo, commit);
    const by = identText(committer, 'committer');
    const obj = optionalBytes(message, 'message', (m, len) =>
      optionalBytes(firstMessage, 'message', (f, flen) =>
        withStringArray(paths, (ps, n) => withStringArray(Object.keys(hunks), (hp, nh) =>
          withBytes(words, (hw, nbytes) => withStrings([oid, by], (c, w) =>
            M._wgjs_history_edit(repo, split ? 1 : 0, c, m, len, f, flen, ps, n, hp, nh, hw,
              nbytes / 4, w, allowPublished ? 1 : 0)))))));
    const out = { rewritten: [], refs: [] };
    for (const [kind, a, b] of records(takeObject(obj).data, 3)) {
      if (kind === 'commit') out.rewritten.push({ from: a, to: b });
      else if (kind === 'first') out.first = a;
      else if (kind === 'ref') out.refs.push(a);
    }
    return out;
  });
}

/**
 * Give `commit` (a revision; default HEAD) the message `message`, as git
 * commit -m cleans it; its descendants are rewritten onto it. Resolves
 * with { oid, rewritten, refs }: oid is the reworded commit's new id.
 */
export async function reword({
  dir, commit = 'HEAD', message, committer, allowPublished = false,
} = {}) {
  if (typeof message !== 'string') throw makeError('EINVALID', 'message is required');
  const out = await edit(dir, { split: false, commit, message, committer, allowPublished });
  return { oid: out.rewritten[0].to, ...out };
}

/**
 * Split `commit` (default HEAD; not a merge) in two: first its changes to
 * the files `paths` matches (pathspecs from the top, as git add takes
 * them) and the parts of files `hunks` names ({ path: [hunk numbers] },
 * numbered from 0 as diff() with contextLines: 0 lists them), with the
 * message `message` (default: the commit's own), then the rest, with
 * `secondMessage` (default: the commit's own). Descendants are rewritten
 * onto the second. Resolves with { first, second, rewritten, refs }.
 * EINVALID when nothing or everything is taken.
 */
export async function split({
  dir, commit = 'HEAD', paths = [], hunks = {}, message, secondMessage, committer,
  allowPublished = false,
} = {}) {
  if (!Array.isArray(paths) || paths.some((p) => typeof p !== 'string')) {
    throw makeError('EINVALID', 'paths must be an array of pathspecs');
  }
  if (hunks === null || typeof hunks !== 'object' || Array.isArray(hunks)) {
    throw makeError('EINVALID', 'hunks maps paths to arrays of hunk numbers');
  }
  if (!paths.length && !Object.keys(hunks).length) {
    throw makeError('EINVALID', 'split: give the paths or hunks of the first commit');
  }
  const out = await edit(dir, {
    split: true, commit, message: secondMessage, firstMessage: message, paths, hunks, committer,
    allowPublished,
  });
  return { first: out.first, second: out.rewritten[0].to, rewritten: out.rewritten, refs: out.refs };
}
