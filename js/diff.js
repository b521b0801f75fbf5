// diff(): what changed between two revisions, as git diff shows it, for
// previews of commits and comparisons. The core does all of it
// (wasm/exports_diff.c over core/diff/rev_diff.h): the tree diff, rename
// detection, the line diff and its hunks, and git's patch text. Each file
// comes over as its patch text plus records that point into that text,
// so the structured hunks are the printed ones, line for line. This file
// drives the fetch a partial clone needs: the blobs the diff reads are
// listed first and fetched in one request, before rename detection and
// binary checks read them.

import {
  M, nulFields, withStrings, withStringArray, takeObject, lastError, makeError, countOption,
} from './runtime.js';
import { withRepo, lazily, fetchPromised, missingIds } from './repo.js';

const FIELDS = 13;
const REC_WORDS = 7;
const REC_HUNK = 1;
const utf8 = new TextDecoder();

// One file as wgjs_diff_next gives it: 13 NUL-terminated fields, the
// patch text, then records of REC_WORDS little-endian u32s.
function decodeFile(data) {
  const { fields: f, at } = nulFields(data, FIELDS);
  const patchLen = Number(f[11]);
  const nrecs = Number(f[12]);
  const patch = data.subarray(at, at + patchLen);
  const view = new DataView(data.buffer, data.byteOffset + at + patchLen, nrecs * REC_WORDS * 4);
  const text = (off, len) => utf8.decode(patch.subarray(off, off + len));
  const binary = f[8] === '1';
  const hunks = [];
  for (let r = 0; r < nrecs; r++) {
    const w = (i) => view.getUint32((r * REC_WORDS + i) * 4, true);
    if (w(0) === REC_HUNK) {
      hunks.push({
        oldStart: w(1), oldLines: w(2), newStart: w(3), newLines: w(4),
        header: text(w(5), w(6)), lines: [],
      });
    } else {
      hunks[hunks.length - 1].lines.push({
        type: String.fromCharCode(w(0)),
        text: text(w(5), w(6)),
        oldLine: w(1) || null,
        newLine: w(2) || null,
        noNewlineAtEnd: w(3) === 1,
      });
    }
  }
  const file = {
    status: f[0],
    oldPath: f[1] || null,
    newPath: f[2] || null,
    oldMode: f[3] === '0' ? null : f[3].padStart(6, '0'),
    newMode: f[4] === '0' ? null : f[4].padStart(6, '0'),
    oldOid: f[5] || null,
    newOid: f[6] || null,
    similarity: f[7] === '' ? null : Number(f[7]),
    binary,
    additions: binary ? null : Number(f[9]),
    deletions: binary ? null : Number(f[10]),
    hunks,
  };
  return { file, patch };
}

// wgjs_diff_new_worktree's kinds
const WORKTREE_FILES = 0;
const WORKTREE_CACHED = 1;
const WORKTREE_TREE = 2;

/**
 * What changed from `from` to `to` (revisions naming commits or trees;
 * `to` defaults to HEAD, `from` to to's first parent, or the empty tree
 * for a root commit, as git show does), limited to `paths`. Returns the
 * files in git's order, structured (see index.d.ts), or with format
 * 'patch' git diff's text, byte for byte. In a partial clone the blobs
 * the diff reads are fetched first, all in one request.
 *
 * `staged: true` is git diff --cached [from]: `from` (default HEAD) to
 * the index. `worktree: true` is git diff [from]: the index (or `from`)
 * to the working tree. Neither takes `to`.
 */
export async function diff({
  dir, from, to, staged = false, worktree = false, paths = [], renames = true, copies = false,
  contextLines = 3, interHunkContext = 0, algorithm = 'myers', format = 'files', ...remote
} = {}) {
  if (staged && worktree) throw makeError('EINVALID', 'staged and worktree are two different diffs: give one');
  if ((staged || worktree) && to !== undefined) {
    throw makeError('EINVALID', `to is the ${staged ? 'index' : 'working tree'} here: give from only`);
  }
  const kind = staged ? WORKTREE_CACHED : !worktree ? null : from === undefined ? WORKTREE_FILES : WORKTREE_TREE;
  if (copies !== false && copies !== true && copies !== 'harder') {
    throw makeError('EINVALID', "copies must be false, true or 'harder'");
  }
  // the core's code: 0 none, 1 renames, 2 copies (-C), 3 harder (-C -C)
  const detect = !renames && !copies ? 0 : copies === 'harder' ? 3 : copies ? 2 : 1;
  const context = countOption(contextLines, 'contextLines');
  const interHunk = countOption(interHunkContext, 'interHunkContext');
  if (typeof algorithm !== 'string') throw makeError('EINVALID', 'algorithm must be a string');
  if (format !== 'files' && format !== 'patch') {
    throw makeError('EINVALID', `format must be 'files' or 'patch', not '${format}'`);
  }
  const pathList = typeof paths === 'string' ? [paths] : [...(paths ?? [])];
  if (pathList.some((p) => typeof p !== 'string')) throw makeError('EINVALID', 'paths must be strings');
  return withRepo(dir, {}, async (repo, state) => {
    let d = 0;
    try {
      d = await lazily(repo, state, remote, () => {
        const h = withStringArray(pathList, (a, n) => withStrings([from, to ?? 'HEAD', algorithm],
          (f, t, alg) => (kind === null
            ? M._wgjs_diff_new(repo, f, t, a, n, detect, context, interHunk, alg)
            : M._wgjs_diff_new_worktree(repo, kind, f, a, n, detect, context, interHunk, alg))));
        if (!h) throw lastError();
        return h;
      });
      await fetchMissing(repo, state, d, remote);
      await lazily(repo, state, remote, () => {
        if (M._wgjs_diff_renames(d, repo) < 0) throw lastError();
      });
      const files = [];
      const patches = [];
      for (;;) {
        const obj = await lazily(repo, state, remote, () => {
          const o = M._wgjs_diff_next(d, repo);
          if (!o && M._wgjs_error_code() !== 0) throw lastError();
          return o;
        });
        if (!obj) break;
        const { file, patch } = decodeFile(takeObject(obj).data);
        if (format === 'patch') patches.push(patch);
        else files.push(file);
      }
      if (format === 'files') return files;
      return patches.map((p) => utf8.decode(p)).join('');
    } finally {
      if (d) M._wgjs_diff_free(d);
    }
  });
}

// The blobs the diff reads that a blob-less clone lacks, in one request.
function fetchMissing(repo, state, d, remote) {
  return fetchPromised(repo, state, missingIds(M._wgjs_diff_missing(d, repo)), remote);
}
