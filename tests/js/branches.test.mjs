// Branches and tags through the JS API (Node, disk storage), checked with
// the reference git in the same repository: what branch, renameBranch,
// deleteBranch, tag and deleteTag leave is what git reads (refs, HEAD,
// reflogs, branch.<name>.* config, tag objects byte for byte against a
// tag git makes with the same tagger), the listings equal git's, and the
// refusals carry git's messages. Both object and ref formats.
//
//   WEBGIT_JS_DIR=build/wasm/js node --test tests/js/branches.test.mjs
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { loadWebgit, makeTmp, gitIn } from './lib.mjs';

let wg;
let tmp;
let git;
let seq = 0;

before(async () => {
  wg = await loadWebgit();
  await wg.init();
  tmp = makeTmp('branches');
  git = gitIn(tmp);
});

after(() => {
  if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
});

const DATE = { GIT_AUTHOR_DATE: '1700000000 +0000', GIT_COMMITTER_DATE: '1700000000 +0000' };
const FORMATS = [['sha1', 'files'], ['sha256', 'reftable']];

// A repository made by git: two commits on main, origin/main at the first.
function makeRepo(fmt, refs) {
  const dir = path.join(tmp, `repo-${fmt}-${refs}-${++seq}`);
  git(['init', '-q', '-b', 'main', `--object-format=${fmt}`, `--ref-format=${refs}`, dir]);
  fs.writeFileSync(path.join(dir, 'a'), 'a\n');
  git(['-C', dir, 'add', 'a']);
  git(['-C', dir, 'commit', '-q', '-m', 'one'], { env: { ...process.env, ...gitEnv(), ...DATE } });
  fs.writeFileSync(path.join(dir, 'b'), 'b\n');
  git(['-C', dir, 'add', 'b']);
  git(['-C', dir, 'commit', '-q', '-m', 'two'], { env: { ...process.env, ...gitEnv(), ...DATE } });
  git(['-C', dir, 'update-ref', 'refs/remotes/origin/main', 'HEAD~1']);
  git(['-C', dir, 'config', 'remote.origin.url', '/nowhere']);
  git(['-C', dir, 'config', 'remote.origin.fetch', '+refs/heads/*:refs/remotes/origin/*']);
  return dir;
}

function gitEnv() {
  return {
    GIT_CONFIG_NOSYSTEM: '1', GIT_CONFIG_GLOBAL: '/dev/null', HOME: tmp, LC_ALL: 'C', TZ: 'UTC',
    GIT_AUTHOR_NAME: 'A U Thor', GIT_AUTHOR_EMAIL: 'author@example.com',
    GIT_COMMITTER_NAME: 'C O Mitter', GIT_COMMITTER_EMAIL: 'committer@example.com',
  };
}

const rev = (dir, r) => git(['-C', dir, 'rev-parse', r]).trim();
const fsck = (dir) => git(['-C', dir, 'fsck', '--strict', '--no-dangling', '--no-progress']);

for (const [fmt, refs] of FORMATS) {
  test(`branch: create, track, list (${fmt}/${refs})`, async () => {
    const dir = makeRepo(fmt, refs);
    const t1 = await wg.branch({ dir, name: 't1', startPoint: 'origin/main' });
    assert.deepEqual(t1, { name: 't1', ref: 'refs/heads/t1', oid: rev(dir, 'origin/main'), upstream: 'origin/main' });
    assert.equal(git(['-C', dir, 'config', 'branch.t1.remote']).trim(), 'origin');
    assert.equal(git(['-C', dir, 'config', 'branch.t1.merge']).trim(), 'refs/heads/main');
    assert.equal(git(['-C', dir, 'reflog', 'show', '--format=%gs', 't1']).trim(), 'branch: Created from origin/main');
    const t2 = await wg.branch({ dir, name: 't2', startPoint: 'main', track: true });
    assert.equal(t2.upstream, 'main');
    const t3 = await wg.branch({ dir, name: 't3', startPoint: 'origin/main', track: false });
    assert.equal(t3.upstream, null);
    // git's own view of the upstreams
    assert.equal(git(['-C', dir, 'for-each-ref', '--format=%(refname:short) %(upstream:short)', 'refs/heads']),
      'main \nt1 origin/main\nt2 main\nt3 \n');

    const list = await wg.listBranches({ dir });
    const want = git(['-C', dir, 'for-each-ref', '--format=%(HEAD)%(refname:short) %(objectname)', 'refs/heads'])
      .trim().split('\n');
    assert.deepEqual(list.map((b) => `${b.head ? '*' : ' '}${b.name} ${b.oid}`), want);
    assert.equal(list.find((b) => b.name === 't1').upstream, 'origin/main');
    const remotes = await wg.listBranches({ dir, remote: true });
    assert.deepEqual(remotes.map((b) => b.ref), ['refs/remotes/origin/main']);
    assert.equal((await wg.listBranches({ dir, all: true })).length, 5);

    await assert.rejects(wg.branch({ dir, name: 't1' }),
      { code: 'EEXISTS', message: "a branch named 't1' already exists" });
    await assert.rejects(wg.branch({ dir, name: 'a..b' }),
      { code: 'EINVALID', message: "'a..b' is not a valid branch name" });
    await assert.rejects(wg.branch({ dir, name: 'main', force: true }),
      { code: 'EINVALID', message: /^cannot force update the branch 'main' used by worktree at / });
    await assert.rejects(wg.branch({ dir, name: 'x', startPoint: 'nope' }),
      { message: "not a valid object name: 'nope'" });
    const reset = await wg.branch({ dir, name: 't1', startPoint: 'HEAD', force: true });
    assert.equal(reset.oid, rev(dir, 'HEAD'));
    assert.equal(git(['-C', dir, 'reflog', 'show', '-1', '--format=%gs', 't1']).trim(), 'branch: Reset to HEAD');
    fsck(dir);
  });

  test(`branch: rename, copy, delete (${fmt}/${refs})`, async () => {
    const dir = makeRepo(fmt, refs);
    const head = rev(dir, 'HEAD');
    await wg.branch({ dir, name: 'side', startPoint: 'origin/main' });
    await wg.renameBranch({ dir, newName: 'trunk' });          // the current branch
    assert.equal(git(['-C', dir, 'symbolic-ref', 'HEAD']).trim(), 'refs/heads/trunk');
    assert.equal(rev(dir, 'trunk'), head);
    assert.equal(git(['-C', dir, 'reflog', 'show', '-1', '--format=%gs', 'trunk']).trim(),
      'Branch: renamed refs/heads/main to refs/heads/trunk');
    assert.equal(git(['-C', dir, 'reflog', 'show', '--format=%gs', 'trunk']).trim().split('\n').pop(),
      'commit (initial): one');
    await assert.rejects(wg.renameBranch({ dir, oldName: 'side', newName: 'trunk' }),
      { code: 'EEXISTS', message: "a branch named 'trunk' already exists" });
    await wg.renameBranch({ dir, oldName: 'side', newName: 'copy', copy: true });
    assert.equal(git(['-C', dir, 'config', 'branch.copy.merge']).trim(), 'refs/heads/main');
    assert.equal(git(['-C', dir, 'config', 'branch.side.merge']).trim(), 'refs/heads/main');
    await wg.renameBranch({ dir, oldName: 'side', newName: 'moved' });
    assert.throws(() => git(['-C', dir, 'config', 'branch.side.merge']));
    assert.equal(git(['-C', dir, 'config', 'branch.moved.remote']).trim(), 'origin');

    // moved is at origin/main, its upstream: merged, so -d works
    assert.deepEqual(await wg.deleteBranch({ dir, name: 'moved' }), { oid: rev(dir, 'origin/main') });
    assert.throws(() => git(['-C', dir, 'config', 'branch.moved.remote']));
    // copy tracks origin/main too; an unmerged commit on it is refused
    const side = git(['-C', dir, 'commit-tree', 'HEAD^{tree}', '-p', 'HEAD', '-m', 'u'],
      { env: { ...process.env, ...gitEnv(), ...DATE } }).trim();
    git(['-C', dir, 'update-ref', 'refs/heads/u', side]);
    await assert.rejects(wg.deleteBranch({ dir, name: 'u' }),
      { code: 'EINVALID', message: "the branch 'u' is not fully merged" });
    assert.deepEqual(await wg.deleteBranch({ dir, name: 'u', force: true }), { oid: side });
    await assert.rejects(wg.deleteBranch({ dir, name: 'trunk' }),
      { message: /^cannot delete branch 'trunk' used by worktree at / });
    await assert.rejects(wg.deleteBranch({ dir, name: 'nope' }),
      { code: 'ENOTFOUND', message: "branch 'nope' not found" });
    await wg.deleteBranch({ dir, name: 'origin/main', remote: true });
    assert.equal(git(['-C', dir, 'for-each-ref', '--format=%(refname)']).trim(),
      'refs/heads/copy\nrefs/heads/trunk');

    assert.equal(await wg.setUpstream({ dir, name: 'copy', upstream: 'trunk' }), 'trunk');
    assert.equal(git(['-C', dir, 'rev-parse', '--abbrev-ref', 'copy@{upstream}']).trim(), 'trunk');
    assert.equal(await wg.setUpstream({ dir, name: 'copy', upstream: null }), null);
    assert.throws(() => git(['-C', dir, 'config', 'branch.copy.merge']));
    fsck(dir);
  });

  test(`tag: lightweight, annotated as git writes it, list, delete (${fmt}/${refs})`, async () => {
    const dir = makeRepo(fmt, refs);
    const twin = makeRepo(fmt, refs);
    const head = rev(dir, 'HEAD');
    assert.equal(head, rev(twin, 'HEAD'));

    assert.deepEqual(await wg.tag({ dir, name: 'v1' }),
      { name: 'v1', ref: 'refs/tags/v1', oid: head, previous: null });
    await assert.rejects(wg.tag({ dir, name: 'v1' }), { code: 'EEXISTS', message: "tag 'v1' already exists" });
    await assert.rejects(wg.tag({ dir, name: 'bad..name' }), { message: "'bad..name' is not a valid tag name." });
    const moved = await wg.tag({ dir, name: 'v1', target: 'HEAD~1', force: true });
    assert.deepEqual([moved.oid, moved.previous], [rev(dir, 'HEAD~1'), head]);

    const tagger = { name: 'C O Mitter', email: 'committer@example.com', timestamp: 1700000000, timezone: '+0000' };
    const annotated = await wg.tag({ dir, name: 'v2', message: 'release  two\n\n\nbody\n', tagger });
    git(['-C', twin, 'tag', '-a', '-m', 'release  two\n\n\nbody\n', 'v2'],
      { env: { ...process.env, ...gitEnv(), ...DATE } });
    // byte for byte the object git writes
    assert.equal(annotated.oid, rev(twin, 'refs/tags/v2'));
    assert.equal(git(['-C', dir, 'cat-file', '-t', 'v2']).trim(), 'tag');
    assert.equal(rev(dir, 'v2^{}'), head);

    assert.deepEqual((await wg.listTags({ dir })).map((t) => t.name),
      git(['-C', dir, 'tag', '-l']).trim().split('\n'));
    assert.deepEqual((await wg.listTags({ dir, patterns: ['v2*'] })).map((t) => [t.name, t.oid]),
      [['v2', annotated.oid]]);
    assert.deepEqual(await wg.deleteTag({ dir, name: 'v1' }), { oid: rev(dir, 'HEAD~1') });
    await assert.rejects(wg.deleteTag({ dir, name: 'v1' }), { code: 'ENOTFOUND', message: "tag 'v1' not found." });
    assert.equal(git(['-C', dir, 'tag', '-l']).trim(), 'v2');
    fsck(dir);
  });
}
