// The JavaScript API in a browser (Debian's Chromium through
// playwright-core, as browser.test.mjs) against a server that is not git:
// Dulwich's (tests/server/dulwich-server.py). Dulwich knows nothing of
// CORS, so the page reaches it through tests/server/front-proxy.mjs
// --cors, on another origin than the page's. listRemoteRefs, clone, a
// shallow clone, fetch after the server moved on (Dulwich leaves the new
// annotated tag out of the pack: the tag backfill) and push, each checked
// against what git sees on the same server.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { gitIn, makeRepos, makeTmp, startServerAt, stopPid, ROOT } from './lib.mjs';
import { openTestSite } from './browser-lib.mjs';

let tmp;
let git;
let dulwich;
let front;       // { base, pid }
let site;
let served;
const url = (n) => `${front.base}/git/${n}.git`;

before(async () => {
  execFileSync('/usr/bin/python3', ['-c', 'import dulwich.web']);   // installed by scripts/bootstrap.sh
  tmp = makeTmp('browser-dulwich');
  git = gitIn(tmp);
  const repos = makeRepos(path.join(tmp, 'repos'), ['--format', 'sha1']);
  served = path.join(tmp, 'served');
  fs.mkdirSync(served);
  for (const n of ['sample', 'pushed']) {
    fs.cpSync(path.join(repos, 'sample-sha1-files.git'), path.join(served, `${n}.git`), { recursive: true });
  }
  dulwich = startServerAt(path.join(tmp, 'dulwich'), served, ['--dulwich']);
  const state = path.join(tmp, 'front');
  const base = execFileSync(path.join(ROOT, 'tests/server/start.sh'),
    [state, '--front', '--target', dulwich.base, '--cors'], { encoding: 'utf8' }).trim();
  front = { base, pid: Number(fs.readFileSync(path.join(state, 'pid'), 'utf8')) };
  site = await openTestSite(tmp, repos);
  assert.notEqual(new URL(site.base).origin, new URL(front.base).origin);
});

after(async () => {
  if (site) await site.close();
  if (front) await stopPid(front.pid);
  if (dulwich) await dulwich.stop();
  if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
});

const lsRemote = (u) => git(['ls-remote', u]).trim().split('\n').map((l) => l.split('\t')).map(([oid, name]) => `${oid} ${name}`).sort();

test('browser: listRemoteRefs, clone and a shallow clone from Dulwich', async () => {
  const refs = await site.call('page', 'listRemoteRefs', url('sample'));
  const mine = refs.filter((r) => r.oid).map((r) => `${r.oid} ${r.name}`);
  // git lists peeled tags as name^{}: compare the refs both list
  assert.deepEqual(mine.filter((l) => !l.endsWith('^{}')).sort(), lsRemote(url('sample')).filter((l) => !l.endsWith('^{}')));
  await site.call('page', 'clone', { url: url('sample'), dir: '/repos/d1' });
  const listed = await site.call('page', 'listRefs', { dir: '/repos/d1' });
  const gitClone = path.join(tmp, 'g1');
  git(['clone', '-q', '--bare', url('sample'), gitClone]);
  const remoteMain = git(['--git-dir', gitClone, 'rev-parse', 'refs/heads/main']).trim();
  const originMain = listed.find((r) => r.name === 'refs/remotes/origin/main');
  assert.equal(originMain?.oid, remoteMain, JSON.stringify(listed.slice(0, 5)));
  const tags = git(['--git-dir', gitClone, 'tag', '-l']).trim().split('\n').filter(Boolean).sort();
  assert.deepEqual(listed.filter((r) => r.name.startsWith('refs/tags/')).map((r) => r.name.slice(10)).sort(), tags);
  await site.call('page', 'clone', { url: url('sample'), dir: '/repos/d2', depth: 1 });
  const log = await site.call('page', 'log', { dir: '/repos/d2', ref: 'HEAD' });
  assert.equal(log.length, 1, 'a depth-1 clone has one commit');
});

test('browser: fetch after Dulwich moved on (the tag backfill), and push', async () => {
  const repo = path.join(served, 'sample.git');
  const tip = git(['--git-dir', repo, 'rev-parse', 'refs/heads/main']).trim();
  const next = git(['--git-dir', repo, 'commit-tree', '-p', tip, '-m', 'moved on', `${tip}^{tree}`]).trim();
  git(['--git-dir', repo, 'update-ref', 'refs/heads/main', next]);
  git(['--git-dir', repo, 'tag', '-a', '-m', 'new tag', 'v-browser', next]);
  await site.call('page', 'fetch', { dir: '/repos/d1' });
  const listed = await site.call('page', 'listRefs', { dir: '/repos/d1' });
  assert.equal(listed.find((r) => r.name === 'refs/remotes/origin/main')?.oid, next);
  assert.ok(listed.some((r) => r.name === 'refs/tags/v-browser'), 'the backfilled tag came');
  // push a commit made in the page to another repository of the server
  await site.call('page', 'clone', { url: url('pushed'), dir: '/repos/p' });
  await site.call('page', 'writeWorkFile', { dir: '/repos/p', path: 'from-browser.txt', data: 'pushed from Chromium\n' });
  await site.call('page', 'add', { dir: '/repos/p', paths: ['from-browser.txt'] });
  const oid = await site.call('page', 'commit', {
    dir: '/repos/p', message: 'from the browser',
    author: { name: 'A U Thor', email: 'author@example.com', timestamp: 1700000000, timezoneOffset: 0 },
  });
  await site.call('page', 'push', { dir: '/repos/p', refspecs: ['main:refs/heads/from-browser'] });
  const pushedRepo = path.join(served, 'pushed.git');
  assert.equal(git(['--git-dir', pushedRepo, 'rev-parse', 'refs/heads/from-browser']).trim(), typeof oid === 'string' ? oid : oid.oid);
  assert.equal(git(['--git-dir', pushedRepo, 'show', 'refs/heads/from-browser:from-browser.txt']), 'pushed from Chromium\n');
  git(['--git-dir', pushedRepo, 'fsck', '--strict', '--no-progress']);
});
