// The working tree through the JS API (Node, disk storage), checked
// against the reference git in the same directory: a clone checks out
// what git checks out and git status is clean after it; status equals
// git status --porcelain=v2 in every state made here; checkout and
// switchBranch move the files, the index and HEAD as git does (and refuse
// to overwrite local changes with git's message); the working-tree file
// calls cannot reach into .git or out of the working tree; a blob-less
// clone fetches its checkout's blobs in one request.
//
//   WEBGIT_JS_DIR=build/wasm/js node --test tests/js/worktree.test.mjs
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { loadWebgit, makeTmp, gitIn, startServer, SAMPLES } from './lib.mjs';

let wg;
let tmp;
let git;
let server;
let seq = 0;
const repoUrl = (name) => `${server.base}/git/${name}.git`;
const newDir = (label) => path.join(tmp, `${label}-${++seq}`);

before(async () => {
  wg = await loadWebgit();
  await wg.init();
  tmp = makeTmp('worktree');
  git = gitIn(tmp);
  server = startServer(tmp);
});

after(async () => {
  if (server) await server.stop();
  if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
});

// git status --porcelain=v2 -z as our entries' shape: [path, x, y] for
// tracked changes ([path, x, y, from] for a rename), [path, '?', '?'] untracked, [path, '!', '!'] ignored.
function gitStatus(dir, args = []) {
  const out = git(['-C', dir, 'status', '--porcelain=v2', '-z', ...args]);
  const rows = [];
  const recs = out.split('\0').filter(Boolean);
  for (let i = 0; i < recs.length; i++) {
    const rec = recs[i];
    const kind = rec[0];
    if (kind === '?' || kind === '!') rows.push([rec.slice(2), kind, kind]);
    else if (kind === '1') {
      const f = rec.split(' ');
      rows.push([f.slice(8).join(' '), f[1][0], f[1][1]]);
    } else if (kind === '2') {   // a rename: the source path is the next record
      const f = rec.split(' ');
      rows.push([f.slice(9).join(' '), f[1][0], f[1][1], recs[++i]]);
    } else if (kind === 'u') {
      const f = rec.split(' ');
      rows.push([f.slice(10).join(' '), f[1][0], f[1][1]]);
    } else throw new Error(`unexpected status record ${rec}`);
  }
  return rows;
}

const ours = (entries) => entries.map((e) => (e.from ? [e.path, e.index, e.worktree, e.from]
  : [e.path, e.index, e.worktree]));

// Every file git's index lists, as git would write it, and nothing else.
function assertCheckedOutLikeGit(dir) {
  assert.deepEqual(gitStatus(dir, ['--ignored']), [], 'git status is clean after our checkout');
  const listed = git(['-C', dir, 'ls-files', '-z']).split('\0').filter(Boolean);
  for (const p of listed) {
    const full = path.join(dir, p);
    const st = fs.lstatSync(full);
    const [mode, oid] = git(['-C', dir, 'ls-files', '-s', '--', p]).split(/\s+/);
    if (mode === '120000') {
      assert.ok(st.isSymbolicLink(), `${p} is a link`);
    } else if (mode === '160000') {
      assert.ok(st.isDirectory(), `${p} is a directory`);
    } else {
      assert.equal(git(['-C', dir, 'hash-object', '--', p]).trim(), oid, `${p} content`);
      assert.equal((st.mode & 0o100) !== 0, mode === '100755', `${p} executable bit`);
    }
  }
}

for (const name of SAMPLES) {
  test(`clone checks out as git does, then edit, status, checkout (${name})`, async () => {
    const dir = newDir('clone');
    await wg.clone({ url: repoUrl(name), dir });
    assertCheckedOutLikeGit(dir);
    assert.deepEqual(await wg.status({ dir }), [], 'our status is clean');

    // edits through the API show in both statuses
    const readme = await wg.readWorkFile({ dir, path: 'README.md', encoding: 'utf8' });
    assert.equal(readme, fs.readFileSync(path.join(dir, 'README.md'), 'utf8'));
    await wg.writeWorkFile({ dir, path: 'README.md', data: `${readme}more\n` });
    await wg.writeWorkFile({ dir, path: 'new/deep/file.txt', data: 'new\n' });
    await wg.writeWorkFile({ dir, path: 'bin/run.sh', data: '#!/bin/sh\necho changed\n' });
    await wg.removeWorkFile({ dir, path: 'link-to-readme' });
    assert.equal(fs.readFileSync(path.join(dir, 'README.md'), 'utf8'), `${readme}more\n`);
    assert.ok(fs.statSync(path.join(dir, 'bin/run.sh')).mode & 0o100, 'the executable bit is kept');
    for (const untracked of ['normal', 'all']) {
      const args = untracked === 'all' ? ['-uall'] : [];
      assert.deepEqual(ours(await wg.status({ dir, untracked })), gitStatus(dir, args), `status -u${untracked}`);
    }
    const st = await wg.status({ dir });
    const changed = st.find((e) => e.path === 'README.md');
    assert.equal(changed.worktree, 'M');
    assert.equal(changed.headOid, changed.indexOid);
    assert.equal(changed.headMode, 0o100644);
    assert.deepEqual(st.find((e) => e.path === 'new/'), {
      path: 'new/', index: '?', worktree: '?', conflict: false, untracked: true,
      headMode: 0, indexMode: 0, worktreeMode: 0, headOid: null, indexOid: null, from: null,
    });

    // listWorkDir: what is on disk, without .git
    const top = await wg.listWorkDir({ dir });
    const onDisk = fs.readdirSync(dir).filter((n) => n !== '.git').sort();
    assert.deepEqual(top.map((e) => e.name), onDisk);
    assert.equal(top.find((e) => e.name === 'link-to-dir').type, 'symlink');
    assert.equal(top.find((e) => e.name === 'new').type, 'dir');
    const bin = await wg.listWorkDir({ dir, path: 'bin' });
    assert.deepEqual(bin.map((e) => [e.name, e.type, e.executable]), [['run.sh', 'file', true]]);

    // a switch that would overwrite the local changes is refused, nothing moves
    const differs = git(['-C', dir, 'diff', '--name-only', '--diff-filter=M', 'HEAD', 'v0.1'])
      .split('\n').find((p) => p && fs.lstatSync(path.join(dir, p)).isFile());
    await wg.writeWorkFile({ dir, path: differs, data: 'local change\n' });
    const headBefore = git(['-C', dir, 'rev-parse', 'HEAD']).trim();
    const indexBefore = fs.readFileSync(path.join(dir, '.git/index'));
    await assert.rejects(wg.checkout({ dir, ref: 'v0.1' }), (e) => {
      assert.equal(e.code, 'EEXISTS');
      assert.ok(e.message.includes('Your local changes to the following files would be ' +
        `overwritten by checkout:\n\t${differs}\n`), e.message);
      return true;
    });
    assert.equal(git(['-C', dir, 'rev-parse', 'HEAD']).trim(), headBefore);
    assert.deepEqual(fs.readFileSync(path.join(dir, '.git/index')), indexBefore);
    assert.equal(fs.readFileSync(path.join(dir, differs), 'utf8'), 'local change\n');

    // forced: the tag's tree, detached, untracked files stay
    const moved = await wg.checkout({ dir, ref: 'v0.1', force: true });
    assert.equal(moved.branch, null);
    assert.equal(moved.oid, git(['-C', dir, 'rev-parse', 'v0.1^{commit}']).trim());
    assert.equal(git(['-C', dir, 'rev-parse', 'HEAD']).trim(), moved.oid);
    assert.deepEqual(gitStatus(dir, ['-uno']), []);
    assert.equal(fs.readFileSync(path.join(dir, 'new/deep/file.txt'), 'utf8'), 'new\n');
    const reflog = git(['-C', dir, 'reflog', '-1', '--format=%gs']).trim();
    assert.equal(reflog, 'checkout: moving from main to v0.1');

    // back to a branch, a new branch, and one guessed from origin
    assert.deepEqual(await wg.checkout({ dir, ref: 'main' }), { branch: 'main', oid: headBefore });
    const created = await wg.switchBranch({ dir, branch: 'work', create: true, startPoint: 'v1.0' });
    assert.equal(created.branch, 'work');
    assert.equal(created.oid, git(['-C', dir, 'rev-parse', 'v1.0^{commit}']).trim());
    assert.equal(git(['-C', dir, 'reflog', 'show', '-1', '--format=%gs', 'work']).trim(),
      'branch: Created from v1.0');
    const dev = await wg.switchBranch({ dir, branch: 'dev' });
    assert.equal(dev.branch, 'dev');
    assert.equal(git(['-C', dir, 'config', 'branch.dev.merge']).trim(), 'refs/heads/dev');
    assert.equal(git(['-C', dir, 'config', 'branch.dev.remote']).trim(), 'origin');
    assert.deepEqual(gitStatus(dir, ['-uno']), []);
    await assert.rejects(wg.switchBranch({ dir, branch: 'dev', create: true }), { code: 'EEXISTS' });
    await assert.rejects(wg.checkout({ dir, ref: 'no-such-thing' }), { code: 'ENOTFOUND' });
    git(['-C', dir, 'fsck', '--strict', '--no-progress']);
  });
}

test('working-tree file calls refuse paths into .git or out of the tree', async () => {
  const dir = newDir('paths');
  await wg.clone({ url: repoUrl(SAMPLES[0]), dir });
  const outside = path.join(tmp, 'outside.txt');
  const hostile = ['../outside.txt', '.git/config', '.GIT/config', 'src/../../outside.txt',
    'a//b', './README.md', 'git~1/config', '.git', 'link-to-dir/victim.txt'];
  const config = fs.readFileSync(path.join(dir, '.git/config'));
  for (const p of hostile) {
    await assert.rejects(wg.writeWorkFile({ dir, path: p, data: 'x' }), (e) => {
      assert.ok(['EINVALID', 'EEXISTS'].includes(e.code), `${p}: ${e.code} ${e.message}`);
      return true;
    }, `write ${p}`);
    await assert.rejects(wg.readWorkFile({ dir, path: p }), `read ${p}`);
    await assert.rejects(wg.removeWorkFile({ dir, path: p }), `remove ${p}`);
  }
  assert.ok(!fs.existsSync(outside));
  assert.ok(!fs.existsSync(path.join(dir, 'src/lib/victim.txt')), 'nothing written through a link');
  assert.deepEqual(fs.readFileSync(path.join(dir, '.git/config')), config);
  await assert.rejects(wg.listWorkDir({ dir, path: '.git' }), { code: 'EINVALID' });
  await assert.rejects(wg.listWorkDir({ dir, path: 'link-to-dir' }));
  await assert.rejects(wg.readWorkFile({ dir, path: 'nope.txt' }), { code: 'ENOTFOUND' });
  await assert.rejects(wg.writeWorkFile({ dir, path: 'src', data: 'x' }), { code: 'EEXISTS' });
  // a link's target reads as bytes, as git stores it
  assert.equal(await wg.readWorkFile({ dir, path: 'link-to-readme', encoding: 'utf8' }), 'README.md');
  // removing the last file of a directory removes the directory
  await wg.writeWorkFile({ dir, path: 'tmp/a/b.txt', data: 'b' });
  await wg.removeWorkFile({ dir, path: 'tmp/a/b.txt' });
  assert.ok(!fs.existsSync(path.join(dir, 'tmp')));
});

test('noCheckout, bare, and a blob-less clone fetching its checkout in one request', async () => {
  const bare = newDir('bare');
  await wg.clone({ url: repoUrl(SAMPLES[1]), dir: bare, bare: true });
  assert.ok(!fs.existsSync(path.join(bare, 'README.md')));
  const nc = newDir('nocheckout');
  await wg.clone({ url: repoUrl(SAMPLES[1]), dir: nc, noCheckout: true });
  assert.deepEqual(fs.readdirSync(nc), ['.git']);
  assert.ok(!fs.existsSync(path.join(nc, '.git/index')));

  const partial = newDir('partial');
  const requests = [];
  await wg.clone({
    url: repoUrl(SAMPLES[0]), dir: partial, filter: 'blob:none',
    onRequest: (r) => requests.push(r),
  });
  assertCheckedOutLikeGit(partial);
  const fetches = requests.filter((r) => String(r.url ?? r).includes('git-upload-pack') &&
    (r.method ?? 'POST') === 'POST');
  // the clone's fetch, then the checkout's blobs in one more
  assert.ok(fetches.length <= 3, `requests: ${fetches.length}`);
  assert.deepEqual(await wg.status({ dir: partial }), []);
});

test('a tree:0 clone checks out, fetching its trees as the checkout reads them', async () => {
  const dir = newDir('tree0');
  await wg.clone({ url: repoUrl(SAMPLES[1]), dir, filter: 'tree:0' });
  assertCheckedOutLikeGit(dir);
  assert.deepEqual(await wg.status({ dir }), []);
});

const editor = { name: 'Ed Itor', email: 'ed@example.com', timestamp: 1700000100, timezone: '+0100' };

for (const name of SAMPLES) {
  test(`add, remove, commit from the index, push: git agrees at every step (${name})`, async () => {
    const dir = newDir('stage');
    await wg.clone({ url: repoUrl(name), dir });
    const readme = await wg.readWorkFile({ dir, path: 'README.md', encoding: 'utf8' });
    // an edit, a new file, a rename with an edit, a deletion
    await wg.writeWorkFile({ dir, path: 'README.md', data: `${readme}one more line\n` });
    await wg.writeWorkFile({ dir, path: 'docs/new.md', data: '# new\n' });
    const moved = fs.readFileSync(path.join(dir, 'bin/run.sh'), 'utf8');
    await wg.removeWorkFile({ dir, path: 'bin/run.sh' });
    await wg.writeWorkFile({ dir, path: 'scripts/run.sh', data: `${moved}# moved\n`, executable: true });
    await wg.add({ dir, paths: ['README.md', 'docs', 'bin', 'scripts'] });
    assert.deepEqual(ours(await wg.status({ dir })), gitStatus(dir), 'status after add');
    const renamed = (await wg.status({ dir })).find((e) => e.path === 'scripts/run.sh');
    assert.equal(renamed.index, 'R');
    assert.equal(renamed.from, 'bin/run.sh');
    assert.ok(renamed.score >= 50 && renamed.score < 100, `score ${renamed.score}`);
    assert.equal(git(['-C', dir, 'diff', '--cached', '--name-status', '-M']).trim().split('\n')
      .find((l) => l.startsWith('R')).replace(/^R0*(\d+)/, 'R$1'), `R${renamed.score}\tbin/run.sh\tscripts/run.sh`);

    // remove: a changed file is refused, --cached (forced) keeps the file
    await wg.writeWorkFile({ dir, path: 'docs/new.md', data: '# changed after add\n' });
    await assert.rejects(wg.remove({ dir, paths: 'docs/new.md' }), { code: 'EEXISTS' });
    // staged content that is neither the file's nor HEAD's: git refuses --cached too
    await assert.rejects(wg.remove({ dir, paths: 'docs/new.md', cached: true }),
      /staged content different from both the\nfile and the HEAD/);
    await wg.remove({ dir, paths: 'docs/new.md', cached: true, force: true });
    assert.ok(fs.existsSync(path.join(dir, 'docs/new.md')));
    assert.deepEqual(ours(await wg.status({ dir })), gitStatus(dir), 'status after rm --cached');
    await wg.add({ dir });   // everything, as git add -A

    const before = git(['-C', dir, 'rev-parse', 'HEAD']).trim();
    const oid = await wg.commit({ dir, message: '  Edit from the API  \n\n\nbody line   \n\n', author: editor });
    assert.equal(git(['-C', dir, 'rev-parse', 'HEAD']).trim(), oid);
    assert.equal(git(['-C', dir, 'rev-parse', 'HEAD^']).trim(), before);
    assert.equal(git(['-C', dir, 'log', '-1', '--format=%B']), '  Edit from the API\n\nbody line\n\n');
    assert.equal(git(['-C', dir, 'log', '-1', '--format=%an <%ae> %ad', '--date=raw']).trim(),
      'Ed Itor <ed@example.com> 1700000100 +0100');
    assert.equal(git(['-C', dir, 'reflog', '-1', '--format=%gs']).trim(), 'commit: Edit from the API');
    assert.deepEqual(gitStatus(dir), [], 'git status is clean after our commit');
    assert.deepEqual(await wg.status({ dir }), []);
    git(['-C', dir, 'fsck', '--strict', '--no-progress']);
    await assert.rejects(wg.commit({ dir, message: 'again', author: editor }), { code: 'EEXISTS' });
    const amended = await wg.commit({ dir, amend: true, message: 'Amended\n', author: editor });
    assert.equal(git(['-C', dir, 'rev-parse', 'HEAD^']).trim(), before);
    assert.equal(git(['-C', dir, 'reflog', '-1', '--format=%gs']).trim(), 'commit (amend): Amended');

    const pushed = await wg.push({ dir, refspecs: 'main', force: true });
    assert.ok(pushed.ok, JSON.stringify(pushed));
    const served = path.join(server.repos, `${name}.git`);
    assert.equal(git(['--git-dir', served, 'rev-parse', 'main']).trim(), amended);
    assert.equal(git(['--git-dir', served, 'show', `${amended}:scripts/run.sh`]), `${moved}# moved\n`);
    assert.equal(git(['--git-dir', served, 'ls-tree', amended, 'scripts/run.sh']).split(' ')[0], '100755');
    git(['--git-dir', served, 'fsck', '--strict', '--no-progress']);
  });
}

// --- reset and restore: our repository against a twin where git does the same ---------------

// What a reset or restore changes, as git sees it.
function repoState(dir) {
  const show = (args) => { try { return git(['-C', dir, ...args]); } catch { return null; } };
  const tracked = git(['-C', dir, 'ls-files', '-z']).split('\0').filter(Boolean);
  return {
    head: show(['rev-parse', 'HEAD']),
    origHead: show(['rev-parse', '--verify', '-q', 'ORIG_HEAD']),
    branch: show(['symbolic-ref', '-q', 'HEAD']),
    index: git(['-C', dir, 'ls-files', '-s']),
    status: gitStatus(dir),
    headLog: git(['-C', dir, 'reflog', 'show', '--format=%H %gs', 'HEAD']),
    branchLog: git(['-C', dir, 'reflog', 'show', '--format=%H %gs', 'main']),
    files: Object.fromEntries(tracked.map((p) => {
      const full = path.join(dir, p);
      if (!fs.existsSync(full) && !fs.lstatSync(full, { throwIfNoEntry: false })) return [p, null];
      const st = fs.lstatSync(full);
      return [p, st.isSymbolicLink() ? `link ${fs.readlinkSync(full)}`
        : st.isDirectory() ? 'dir' : `${st.mode & 0o100 ? 'x' : '-'} ${fs.readFileSync(full, 'base64')}`];
    })),
    untracked: fs.existsSync(path.join(dir, 'untracked.txt')) ? fs.readFileSync(path.join(dir, 'untracked.txt'), 'utf8') : null,
  };
}

// The same local changes in both: a staged edit, an unstaged edit, a
// staged new file, an untracked file.
function makeChanges(dir, other) {
  fs.appendFileSync(path.join(dir, 'README.md'), 'staged line\n');
  fs.writeFileSync(path.join(dir, 'added.txt'), 'added\n');
  git(['-C', dir, 'add', 'README.md', 'added.txt']);
  fs.appendFileSync(path.join(dir, other), '# unstaged\n');
  fs.writeFileSync(path.join(dir, 'untracked.txt'), 'untracked\n');
}

// git reset's "Unstaged changes after reset" list as our entries.
const gitUnstaged = (out) => out.split('\n').filter((l) => /^[MDTU]\t/.test(l))
  .map((l) => ({ status: l[0], path: l.slice(2) }));

for (const name of SAMPLES) {
  test(`reset (soft, mixed, hard, paths) and restore leave what git leaves (${name})`, async () => {
    const dir = newDir('reset');
    const twin = newDir('reset-git');
    await wg.clone({ url: repoUrl(name), dir });
    await wg.clone({ url: repoUrl(name), dir: twin });
    const same = (label) => assert.deepEqual(repoState(dir), repoState(twin), label);
    // a file besides README.md that HEAD~2 has too (an earlier test pushed to main)
    const other = git(['-C', dir, 'ls-tree', '-r', '--name-only', 'HEAD~2']).split('\n')
      .find((p) => p && p !== 'README.md' && fs.lstatSync(path.join(dir, p)).isFile() &&
        git(['-C', dir, 'rev-parse', `HEAD:${p}`]) === git(['-C', dir, 'rev-parse', `HEAD~2:${p}`]));
    makeChanges(dir, other);
    makeChanges(twin, other);
    same('the same changes');

    // mixed (the default): the index follows, files stay
    const mixed = await wg.reset({ dir, ref: 'HEAD~2' });
    const out = git(['-C', twin, 'reset', 'HEAD~2']);
    same('after reset HEAD~2');
    assert.deepEqual(mixed.unstaged, gitUnstaged(out));
    assert.ok(mixed.unstaged.some((e) => e.path === other && e.status === 'M'));
    assert.equal(mixed.oid, git(['-C', dir, 'rev-parse', 'HEAD']).trim());

    // soft: only HEAD and the branch move (ORIG_HEAD takes the old one)
    await wg.reset({ dir, ref: 'ORIG_HEAD', mode: 'soft' });
    git(['-C', twin, 'reset', '--soft', 'ORIG_HEAD']);
    same('after reset --soft ORIG_HEAD');

    // paths: only the index entries named, no ref moves
    const pathsResult = await wg.reset({ dir, ref: 'HEAD~5', paths: ['README.md', 'docs'] });
    git(['-C', twin, 'reset', '-q', 'HEAD~5', '--', 'README.md', 'docs']);
    same('after reset HEAD~5 -- README.md docs');
    assert.deepEqual(pathsResult.unstaged, []);

    // restore: a file from the index, an index entry from HEAD, both from a commit
    fs.writeFileSync(path.join(dir, 'README.md'), 'scribbled\n');
    fs.writeFileSync(path.join(twin, 'README.md'), 'scribbled\n');
    await wg.restore({ dir, paths: 'README.md' });
    git(['-C', twin, 'restore', 'README.md']);
    same('after restore README.md');
    await wg.restore({ dir, paths: ['README.md', 'docs'], staged: true });
    git(['-C', twin, 'restore', '--staged', 'README.md', 'docs']);
    same('after restore --staged');
    await wg.restore({ dir, paths: '.', staged: true, worktree: true, source: 'HEAD~3' });
    git(['-C', twin, 'restore', '--staged', '--worktree', '--source=HEAD~3', '.']);
    same('after restore -S -W --source=HEAD~3 .');

    // refused before anything is written: a path that matches nothing
    fs.writeFileSync(path.join(dir, other), 'mine\n');
    const index = fs.readFileSync(path.join(dir, '.git/index'));
    await assert.rejects(wg.restore({ dir, paths: [other, 'no/such'] }), (e) => {
      assert.equal(e.code, 'ENOTFOUND');
      assert.equal(e.message, "pathspec 'no/such' did not match any file(s) known to git");
      return true;
    });
    assert.equal(fs.readFileSync(path.join(dir, other), 'utf8'), 'mine\n');
    assert.deepEqual(fs.readFileSync(path.join(dir, '.git/index')), index);

    // hard: index and files follow, untracked files stay
    fs.writeFileSync(path.join(twin, other), 'mine\n');
    await wg.reset({ dir, ref: 'v0.1', mode: 'hard' });
    git(['-C', twin, 'reset', '-q', '--hard', 'v0.1']);
    same('after reset --hard v0.1');
    assert.deepEqual(gitStatus(dir).filter(([, x]) => x !== '?'), [], 'nothing tracked differs');
    assert.equal(fs.readFileSync(path.join(dir, 'untracked.txt'), 'utf8'), 'untracked\n');
    await wg.reset({ dir, mode: 'hard', ref: 'main@{1}' });
    git(['-C', twin, 'reset', '-q', '--hard', 'main@{1}']);
    same('after reset --hard main@{1}');

    // refusals move nothing
    const head = git(['-C', dir, 'rev-parse', 'HEAD']);
    await assert.rejects(wg.reset({ dir, ref: 'no-such-rev', mode: 'hard' }), (e) => {
      assert.equal(e.code, 'ENOTFOUND');
      assert.equal(e.message, "Failed to resolve 'no-such-rev' as a valid revision.");
      return true;
    });
    await assert.rejects(wg.reset({ dir, mode: 'hard', paths: 'README.md' }), { code: 'EINVALID' });
    await assert.rejects(wg.reset({ dir, mode: 'sideways' }), { code: 'EINVALID' });
    fs.writeFileSync(path.join(dir, '.git/MERGE_HEAD'), head);
    await assert.rejects(wg.reset({ dir, ref: 'HEAD~1', mode: 'soft' }),
      { code: 'EINVALID', message: 'Cannot do a soft reset in the middle of a merge.' });
    assert.equal(git(['-C', dir, 'rev-parse', 'HEAD']), head);
    // a mixed reset ends the merge, as git's does
    await wg.reset({ dir });
    assert.ok(!fs.existsSync(path.join(dir, '.git/MERGE_HEAD')));
    assert.equal(git(['-C', dir, 'rev-parse', 'HEAD']), head);
    git(['-C', dir, 'fsck', '--strict', '--no-progress']);
  });
}

test('reset --hard and restore --source in a blob-less clone fetch their blobs in one request each', async () => {
  const dir = newDir('reset-partial');
  await wg.clone({ url: repoUrl(SAMPLES[0]), dir, filter: 'blob:none' });
  const fetches = [];
  const onRequest = (r) => {
    if (String(r.url ?? r).includes('git-upload-pack') && (r.method ?? 'POST') === 'POST') fetches.push(r);
  };
  await wg.reset({ dir, ref: 'v0.1', mode: 'hard', onRequest });
  assertCheckedOutLikeGit(dir);
  assert.equal(fetches.length, 1, `requests: ${fetches.length}`);
  assert.equal(git(['-C', dir, 'rev-parse', 'HEAD']).trim(), git(['-C', dir, 'rev-parse', 'v0.1^{commit}']).trim());

  // paths whose blobs at `source` neither checkout fetched (not v0.1's, not main's)
  const blobs = (rev) => new Map(git(['-C', dir, 'ls-tree', '-r', rev]).split('\n')
    .filter((l) => l.startsWith('100')).map((l) => [l.split('\t')[1], l.split(/\s+/)[2]]));
  const seen = [blobs('HEAD'), blobs('origin/main')];
  let source;
  let fresh = [];
  let want;
  const refs = git(['-C', dir, 'for-each-ref', '--format=%(objecttype)%(*objecttype) %(refname)'])
    .split('\n').filter((l) => /^(commit|tagcommit) /.test(l)).map((l) => l.split(' ')[1]);
  for (const cand of refs) {
    want = blobs(cand);
    fresh = [...want.keys()].filter((p) => seen.every((m) => m.get(p) !== want.get(p)));
    if (fresh.length > 1) { source = cand; break; }
  }
  assert.ok(source, 'a ref with blobs not yet fetched');
  fetches.length = 0;
  await wg.restore({ dir, paths: fresh, source, onRequest });
  assert.equal(fetches.length, 1, `requests: ${fetches.length}`);
  for (const p of fresh) assert.equal(git(['-C', dir, 'hash-object', '--', p]).trim(), want.get(p), p);
  // lazy fetch off: refused before anything is written
  const d2 = newDir('reset-nolazy');
  await wg.clone({ url: repoUrl(SAMPLES[0]), dir: d2, filter: 'blob:none' });
  const head = git(['-C', d2, 'rev-parse', 'HEAD']);
  await assert.rejects(wg.reset({ dir: d2, ref: 'v0.1', mode: 'hard', lazy: false }), { code: 'ENOTFOUND' });
  assert.equal(git(['-C', d2, 'rev-parse', 'HEAD']), head);
});
