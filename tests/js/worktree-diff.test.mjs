// diff() with the index or the working tree as a side, against git in the
// same directory (Node, disk storage): `worktree: true` is git diff,
// `worktree: true, from` git diff <commit>, `staged: true` git diff
// --cached [<commit>]. Each state below is made by git (and by the API's
// own file calls); the patch text must be git's byte for byte and the
// structured files must say the same (the working tree's ids are what
// git hash-object gives). Covered: unstaged and staged edits of one file,
// deletions from the index and from the disk, intent-to-add, executable
// bits, a file that became a link, a staged rename edited again, stat-only
// changes (touch), line-ending conversion on check-in (text + CRLF),
// paths, a repository without commits, a bare one, and a blob-less clone
// (the old side's blobs fetched in one request; the working tree's never).
//
//   WEBGIT_JS_DIR=build/wasm/js node --test tests/js/worktree-diff.test.mjs
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { loadWebgit, makeTmp, gitIn, startServerAt, writeFileIn } from './lib.mjs';

let wg;
let tmp;
let git;
let work;

const write = writeFileIn;
const lines = (n, tag) => Array.from({ length: n }, (_, i) => `${tag} line ${i + 1}\n`).join('');

before(async () => {
  wg = await loadWebgit();
  await wg.init();
  tmp = makeTmp('worktree-diff');
  git = gitIn(tmp);
  work = path.join(tmp, 'work');
  git(['init', '-q', '-b', 'main', work]);
  write(work, '.gitattributes', '*.txt text\n');
  write(work, 'a.txt', lines(30, 'a'));
  write(work, 'src/b.js', lines(40, 'b'));
  write(work, 'src/c.js', lines(12, 'c'));
  write(work, 'd.txt', lines(8, 'd'));
  write(work, 'moved.md', lines(25, 'moved'));
  write(work, 'run.sh', '#!/bin/sh\necho run\n');
  write(work, 'crlf.txt', 'one\ntwo\nthree\n');
  write(work, 'touched.txt', lines(5, 'touched'));
  write(work, 'to-link', 'a file that becomes a link\n');
  write(work, 'bin.dat', Buffer.from([0, 1, 2, 3, 250, 251]));
  git(['-C', work, 'add', '.']);
  git(['-C', work, 'commit', '-qm', 'first']);
  write(work, 'a.txt', lines(31, 'a'));
  git(['-C', work, 'commit', '-qam', 'second']);
});

after(() => {
  if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
});

// Our patch and git's for the same diff, and the structured files beside
// the patch: the same paths and statuses, worktree ids as git hashes them.
async function same(dir, label, ours, gitArgs) {
  const patch = await wg.diff({ dir, ...ours, format: 'patch' });
  assert.equal(patch, git(['-C', dir, 'diff', ...gitArgs]), `${label}: the patch`);
  const files = await wg.diff({ dir, ...ours });
  const nameStatus = git(['-C', dir, 'diff', '--name-status', '-z', ...gitArgs]).split('\0').filter(Boolean);
  const expected = [];
  for (let i = 0; i < nameStatus.length; i++) {
    const status = nameStatus[i];
    if (status[0] === 'R' || status[0] === 'C') {
      expected.push([status[0], nameStatus[i + 1], nameStatus[i + 2]]);
      i += 2;
    } else {
      expected.push([status[0], null, nameStatus[++i]]);
    }
  }
  assert.deepEqual(files.map((f) => [f.status, f.status === 'R' || f.status === 'C' ? f.oldPath : null,
    f.newPath ?? f.oldPath]), expected, `${label}: the files`);
  return files;
}

test('git diff, git diff --cached and git diff <commit>: unstaged and staged changes of every kind', async () => {
  // staged: an edit, an addition, a removal kept on disk, a rename
  write(work, 'src/b.js', lines(40, 'b').replace('b line 7\n', 'b line seven\n'));
  write(work, 'e.txt', lines(6, 'e'));
  git(['-C', work, 'add', 'src/b.js', 'e.txt']);
  git(['-C', work, 'rm', '-q', '--cached', 'd.txt']);
  git(['-C', work, 'mv', 'moved.md', 'renamed.md']);
  // unstaged on top: the staged file edited again, the renamed one too
  write(work, 'src/b.js', lines(40, 'b').replace('b line 7\n', 'b line seven\n').replace('b line 30\n', ''));
  write(work, 'renamed.md', `${lines(25, 'moved')}one more\n`);
  // unstaged: an edit through the API's own file call, a deletion, a new
  // executable bit, a file that became a link, an intent-to-add file
  await wg.writeWorkFile({ dir: work, path: 'a.txt', data: lines(31, 'a').replace('a line 2\n', 'a line two\n') });
  fs.rmSync(path.join(work, 'src/c.js'));
  fs.chmodSync(path.join(work, 'run.sh'), 0o755);
  fs.rmSync(path.join(work, 'to-link'));
  fs.symlinkSync('a.txt', path.join(work, 'to-link'));
  write(work, 'ita.txt', lines(3, 'ita'));
  git(['-C', work, 'add', '-N', 'ita.txt']);
  // no change: the same bytes with CRLF (text: converted on check-in),
  // and a file touched only
  write(work, 'crlf.txt', 'one\r\ntwo\r\nthree\r\n');
  const t = new Date(Date.now() + 5000);
  fs.utimesSync(path.join(work, 'touched.txt'), t, t);
  // untracked: never in a diff
  write(work, 'untracked.txt', 'nobody knows\n');

  const unstaged = await same(work, 'git diff', { worktree: true }, []);
  const a = unstaged.find((f) => f.newPath === 'a.txt');
  assert.equal(a.newOid, git(['-C', work, 'hash-object', 'a.txt']).trim(), 'the worktree side\'s id');
  assert.equal(a.oldOid, git(['-C', work, 'rev-parse', ':a.txt']).trim());
  assert.deepEqual([a.additions, a.deletions], [1, 1]);
  assert.equal(unstaged.find((f) => f.newPath === 'ita.txt').status, 'A');
  assert.equal(unstaged.find((f) => f.newPath === 'to-link').status, 'T');
  assert.ok(!unstaged.some((f) => ['crlf.txt', 'touched.txt', 'untracked.txt'].includes(f.newPath ?? f.oldPath)));

  await same(work, 'git diff --cached', { staged: true }, ['--cached']);
  await same(work, 'git diff --cached HEAD~1', { staged: true, from: 'HEAD~1' }, ['--cached', 'HEAD~1']);
  const vsHead = await same(work, 'git diff HEAD', { worktree: true, from: 'HEAD' }, ['HEAD']);
  const renamed = vsHead.find((f) => f.status === 'R');
  assert.equal(renamed.oldPath, 'moved.md');
  assert.equal(renamed.newOid, git(['-C', work, 'hash-object', 'renamed.md']).trim());
  await same(work, 'git diff HEAD~1', { worktree: true, from: 'HEAD~1' }, ['HEAD~1']);
  await same(work, 'git diff -- src', { worktree: true, paths: ['src'] }, ['--', 'src']);
  await same(work, 'git diff HEAD -- a.txt', { worktree: true, from: 'HEAD', paths: 'a.txt' }, ['HEAD', '--', 'a.txt']);
  await same(work, 'git diff --cached -U1 --no-renames', { staged: true, contextLines: 1, renames: false },
    ['--cached', '-U1', '--no-renames']);
  await same(work, 'git diff --histogram HEAD', { worktree: true, from: 'HEAD', algorithm: 'histogram' },
    ['--histogram', 'HEAD']);

  // nothing was written: no object for the working tree's versions
  assert.throws(() => git(['-C', work, 'cat-file', '-e', a.newOid], { stdio: 'ignore' }));
  assert.equal(git(['-C', work, 'status', '--porcelain']).includes('a.txt'), true);
  git(['-C', work, 'fsck', '--strict', '--no-progress']);
});

test('a repository without commits: --cached against the empty tree; bad input is refused', async () => {
  const fresh = path.join(tmp, 'fresh');
  git(['init', '-q', '-b', 'main', fresh]);
  write(fresh, 'x.txt', 'x\n');
  write(fresh, 'y/z.txt', 'z\n');
  git(['-C', fresh, 'add', '.']);
  write(fresh, 'x.txt', 'x changed\n');
  await same(fresh, 'no commit: git diff --cached', { staged: true }, ['--cached']);
  await same(fresh, 'no commit: git diff', { worktree: true }, []);
  await assert.rejects(wg.diff({ dir: fresh, worktree: true, from: 'HEAD' }), (e) => e.code === 'ENOTFOUND' || e.code === 'EINVALID');
  await assert.rejects(wg.diff({ dir: fresh, staged: true, worktree: true }), (e) => e.code === 'EINVALID');
  await assert.rejects(wg.diff({ dir: fresh, worktree: true, to: 'HEAD' }), (e) => e.code === 'EINVALID');
  const bare = path.join(tmp, 'bare.git');
  git(['clone', '-q', '--bare', work, bare]);
  await assert.rejects(wg.diff({ dir: bare, worktree: true }), (e) => e.code === 'EINVALID' && /work(ing)? tree/.test(e.message));
  // git diff --cached in a bare repository: its (missing) index is empty
  await same(bare, 'bare: git diff --cached', { staged: true }, ['--cached']);
});

test('a blob-less clone: git diff <old commit> fetches the old side in one request, the working tree none', async () => {
  const repos = path.join(tmp, 'repos');
  fs.mkdirSync(repos);
  const served = path.join(repos, 'r.git');
  git(['clone', '-q', '--bare', work, served]);
  git(['-C', served, 'config', 'uploadpack.allowFilter', 'true']);
  git(['-C', served, 'config', 'uploadpack.allowAnySHA1InWant', 'true']);
  const server = startServerAt(path.join(tmp, 'server'), repos);
  try {
    const dir = path.join(tmp, 'blobless');
    await wg.clone({ url: `${server.base}/git/r.git`, dir, filter: 'blob:none' });
    await wg.writeWorkFile({ dir, path: 'src/c.js', data: `${lines(12, 'c')}new\n` });
    const requests = [];
    const onRequest = (r) => requests.push(`${r.method} ${r.status}`);
    const unstaged = await wg.diff({ dir, worktree: true, onRequest });
    assert.deepEqual(requests, [], 'the index\'s blobs are here (the checkout fetched them)');
    assert.deepEqual(unstaged.map((f) => f.newPath), ['src/c.js']);
    const patch = await wg.diff({ dir, worktree: true, from: 'HEAD~1', format: 'patch', onRequest });
    assert.deepEqual(requests, ['GET 200', 'POST 200'], 'one fetch for HEAD~1\'s blobs');
    assert.equal(patch, git(['-C', dir, 'diff', 'HEAD~1']));
  } finally {
    await server.stop();
  }
});
