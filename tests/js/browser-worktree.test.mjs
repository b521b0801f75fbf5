// An editor's whole round trip in a browser tab, in the page and in a
// module Worker, with the repository in IndexedDB: clone (checked out),
// status clean, write a file, status shows it, add, commit, push, and the
// server's git has the commit; the tab is reloaded between every step and
// nothing is lost. IndexedDB cannot keep symbolic links, so the clone has
// core.symlinks = false and its links are files holding their target (as
// git does on such file systems), and status is still clean.
//
//   WEBGIT_JS_DIR=build/wasm/js node --test tests/js/browser-worktree.test.mjs
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { SAMPLES, gitIn, makeRepos, makeTmp } from './lib.mjs';
import { openTestSite } from './browser-lib.mjs';

let tmp;
let git;
let repos;
let site;

before(async () => {
  tmp = makeTmp('browser-wt');
  git = gitIn(tmp);
  repos = makeRepos(path.join(tmp, 'repos'));
  site = await openTestSite(tmp, repos);
});

after(async () => {
  if (site) await site.close();
  if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
});

const author = { name: 'Editor', email: 'editor@example.com', timestamp: 1700000000, timezone: '+0000' };
const shape = (entries) => entries.map((e) => `${e.index}${e.worktree} ${e.path}`);

for (const [where, name] of [['page', SAMPLES[0]], ['worker', SAMPLES[1]]]) {
  test(`browser ${where}: clone, edit, status, add, commit, push, reloading between steps (${name})`, async () => {
    const call = (fn, opts) => site.call(where, fn, opts);
    const dir = `/repos/wt-${where}`;
    const gitDir = path.join(repos, `${name}.git`);
    const url = `${site.base}/git/${name}.git`;

    await call('clone', { url, dir });
    await site.reload();
    assert.deepEqual(await call('status', { dir }), [], 'clean after the clone');
    const top = (await call('listWorkDir', { dir })).map((e) => e.name);
    const treeNames = git(['--git-dir', gitDir, 'ls-tree', '--name-only', 'HEAD']).trim().split('\n');
    assert.deepEqual(top, treeNames.sort());
    const readme = await call('readWorkFile', { dir, path: 'README.md', encoding: 'utf8' });
    assert.equal(readme, git(['--git-dir', gitDir, 'show', 'HEAD:README.md']));
    // a link is a file holding its target here
    assert.equal(await call('readWorkFile', { dir, path: 'link-to-readme', encoding: 'utf8' }), 'README.md');
    assert.equal((await call('listWorkDir', { dir })).find((e) => e.name === 'link-to-readme').type, 'file');

    await call('writeWorkFile', { dir, path: 'README.md', data: `${readme}edited in a tab\n` });
    await call('writeWorkFile', { dir, path: 'notes/new.txt', data: 'new file\n' });
    await site.reload();
    assert.deepEqual(shape(await call('status', { dir })), ['.M README.md', '?? notes/']);

    await call('add', { dir, paths: ['README.md', 'notes'] });
    await site.reload();
    assert.deepEqual(shape(await call('status', { dir })), ['M. README.md', 'A. notes/new.txt']);

    const oid = await call('commit', { dir, message: `edit from the ${where}\n`, author });
    await site.reload();
    assert.deepEqual(await call('status', { dir }), [], 'clean after the commit');
    assert.equal(await call('resolveRef', { dir, ref: 'HEAD' }), oid);

    const pushed = await call('push', { dir, refspecs: 'main' });
    assert.ok(pushed.ok, JSON.stringify(pushed));
    assert.equal(git(['--git-dir', gitDir, 'rev-parse', 'refs/heads/main']).trim(), oid);
    assert.equal(git(['--git-dir', gitDir, 'show', `${oid}:notes/new.txt`]), 'new file\n');
    assert.equal(git(['--git-dir', gitDir, 'show', `${oid}:README.md`]), `${readme}edited in a tab\n`);
    assert.equal(git(['--git-dir', gitDir, 'log', '-1', '--format=%an <%ae> %at%n%B', oid]),
      `Editor <editor@example.com> 1700000000\nedit from the ${where}\n\n`);
    // the link is still a link in the pushed tree
    assert.equal(git(['--git-dir', gitDir, 'ls-tree', oid, 'link-to-readme']).split(' ')[0], '120000');
    git(['--git-dir', gitDir, 'fsck', '--strict', '--no-progress']);
  });
}
