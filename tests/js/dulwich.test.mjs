// The JavaScript API against a server that is not git: Dulwich's smart-HTTP
// server (tests/server/dulwich-server.py, Debian's python3-dulwich; protocol
// v0 only, no filter, and it refuses a fetch request without "thin-pack").
// listRemoteRefs, clone (also shallow, and a filter it cannot apply), fetch
// after the server moved (with git's tag backfill: Dulwich leaves a new
// annotated tag out of the pack) and push, each checked with the
// reference git against what git itself gets from the same server.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import {
  loadWebgit, makeTmp, gitIn, makeRepos, startServerAt, lsRemoteLines, serverLogDuring,
} from './lib.mjs';

let wg;
let tmp;
let git;
let server;
let log;
let served;      // the directory Dulwich serves
const url = (name) => `${server.base}/git/${name}.git`;
const author = { name: 'A U Thor', email: 'author@example.com', timestamp: 1700000000, timezoneOffset: 0 };

const refsOf = (dir) => git(['--git-dir', dir, 'for-each-ref', '--format=%(refname) %(objectname)']);
const objectsOf = (dir) => git(['--git-dir', dir, 'rev-list', '--all', '--objects']).split('\n').sort().join('\n');

before(async () => {
  wg = await loadWebgit();
  await wg.init();
  tmp = makeTmp('dulwich');
  git = gitIn(tmp);
  execFileSync('/usr/bin/python3', ['-c', 'import dulwich.web']);   // installed by scripts/bootstrap.sh
  const repos = makeRepos(path.join(tmp, 'repos'), ['--format', 'sha1']);   // Dulwich reads SHA-1 only
  served = path.join(tmp, 'served');
  fs.mkdirSync(served);
  for (const name of ['sample', 'moving', 'pushed']) {
    fs.cpSync(path.join(repos, 'sample-sha1-files.git'), path.join(served, `${name}.git`), { recursive: true });
  }
  log = path.join(tmp, 'dulwich.log');
  server = startServerAt(path.join(tmp, 'server'), served, ['--dulwich', '--log', log]);
});

after(async () => {
  if (server) await server.stop();
  if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
});

test('listRemoteRefs equals git ls-remote against Dulwich', async () => {
  const refs = await wg.listRemoteRefs(url('sample'));
  assert.deepEqual(lsRemoteLines(refs), git(['ls-remote', url('sample')]).trimEnd().split('\n'));
});

test('clone, a shallow clone and a filter Dulwich cannot apply', async () => {
  const gitBare = path.join(tmp, 'g.git');
  git(['clone', '-q', '--bare', url('sample'), gitBare]);
  const gitClone = path.join(tmp, 'g');
  git(['clone', '-q', url('sample'), gitClone]);

  const dir = path.join(tmp, 'w');
  const { lines } = await serverLogDuring(log, () => wg.clone({ url: url('sample'), dir }));
  assert.ok(lines.some((l) => l.method === 'POST' && l.path === '/git/sample.git/git-upload-pack' && l.status === 200),
    'the pack came from Dulwich');
  assert.equal(refsOf(path.join(dir, '.git')), refsOf(path.join(gitClone, '.git')));
  assert.equal(objectsOf(path.join(dir, '.git')), objectsOf(gitBare));
  assert.equal(git(['-C', dir, 'ls-files', '-s']), git(['-C', gitClone, 'ls-files', '-s']));
  assert.equal(git(['-C', dir, 'status', '--porcelain']), '', 'checked out as git would');
  git(['-C', dir, 'fsck', '--strict']);

  const shallow = path.join(tmp, 'ws');
  await wg.clone({ url: url('sample'), dir: shallow, bare: true, depth: 1 });
  const gitShallow = path.join(tmp, 'gs.git');
  git(['clone', '-q', '--bare', '--depth', '1', url('sample'), gitShallow]);
  assert.equal(fs.readFileSync(path.join(shallow, 'shallow'), 'utf8').split('\n').sort().join('\n'),
    fs.readFileSync(path.join(gitShallow, 'shallow'), 'utf8').split('\n').sort().join('\n'));
  assert.equal(objectsOf(shallow), objectsOf(gitShallow));

  // git's own filtered clone fails here (it asks Dulwich for the filter
  // anyway); ours warns as git prescribes and clones everything.
  const filtered = path.join(tmp, 'wf');
  const progress = [];
  await wg.clone({ url: url('sample'), dir: filtered, bare: true, filter: 'blob:none', onProgress: (p) => progress.push(p) });
  assert.deepEqual(progress.filter((p) => p.warning).map((p) => p.line),
    ['filtering not recognized by server, ignoring', 'filtering not recognized by server, ignoring']);
  assert.equal(objectsOf(filtered), objectsOf(gitBare));
});

test('fetch after the server moved, with the tag backfill', async () => {
  const dir = path.join(tmp, 'wfetch');
  const gitDir = path.join(tmp, 'gfetch');
  await wg.clone({ url: url('moving'), dir });
  git(['clone', '-q', url('moving'), gitDir]);
  const mover = path.join(tmp, 'mover');
  git(['clone', '-q', path.join(served, 'moving.git'), mover]);
  fs.appendFileSync(path.join(mover, 'README.md'), 'moved\n');
  git(['-C', mover, 'commit', '-q', '-a', '-m', 'server side']);
  git(['-C', mover, 'tag', '-a', '-m', 'new tag', 'v9']);
  git(['-C', mover, 'push', '-q', 'origin', 'main', 'v9', ':refs/heads/dev']);

  const { result, lines } = await serverLogDuring(log, () => wg.fetch({ dir, prune: true }));
  assert.equal(lines.filter((l) => l.method === 'POST').length, 2, 'the pack, then the tag backfill');
  assert.ok(result.updates.some((u) => u.localRef === 'refs/tags/v9' && u.flag === '*'), JSON.stringify(result.updates));
  git(['-C', gitDir, 'fetch', '-q', '--prune']);
  assert.equal(refsOf(path.join(dir, '.git')), refsOf(path.join(gitDir, '.git')));
  git(['-C', dir, 'fsck', '--strict']);
});

test('push: a new branch, a refused non-fast-forward, a forced update', async () => {
  const dir = path.join(tmp, 'wpush');
  await wg.clone({ url: url('pushed'), dir });
  const remoteDir = path.join(served, 'pushed.git');
  const base = await wg.resolveRef({ dir, ref: 'main' });
  const root = await wg.readTree({ dir, ref: 'main' });
  const blob = await wg.writeObject({ dir, data: new TextEncoder().encode('pushed to Dulwich\n') });
  const tree = await wg.writeTree({ dir, entries: [...root, { mode: '100644', name: 'PUSHED', oid: blob }] });
  const one = await wg.commit({ dir, ref: 'refs/heads/js', tree, parents: [base], message: 'one', author });
  const pushed = await wg.push({ dir, refspecs: ['js'] });
  assert.equal(pushed.ok, true, JSON.stringify(pushed));
  assert.equal(git(['--git-dir', remoteDir, 'rev-parse', 'js']).trim(), one);
  git(['--git-dir', remoteDir, 'fsck', '--strict', '--no-dangling']);

  const side = await wg.commit({ dir, ref: 'refs/heads/js', tree, parents: [base], message: 'side', author });
  const refused = await wg.push({ dir, refspecs: ['js'] });
  assert.equal(refused.ok, false);
  assert.match(refused.refs[0].status, /^rejected/);
  assert.equal(git(['--git-dir', remoteDir, 'rev-parse', 'js']).trim(), one, 'the server ref did not move');
  const forced = await wg.push({ dir, refspecs: ['+js'] });
  assert.equal(forced.ok, true);
  assert.equal(git(['--git-dir', remoteDir, 'rev-parse', 'js']).trim(), side);
  git(['--git-dir', remoteDir, 'fsck', '--strict', '--no-dangling']);
});
