// clone and fetch from a repository on a static web host (dumb HTTP:
// tests/server/static-server.mjs serves the files of a bare repository
// after `git update-server-info`, no Git server), through js/transport.js:
// the objects, refs and HEAD equal git's dumb clone and fetch of the same
// repository (two packs, loose objects, annotated tags), and git fsck
// --strict accepts what was written. A host whose loose object hashes to
// another id is refused and leaves nothing.
//
//   GIT=.cache/git-ref/bin/git WEBGIT_JS_DIR=build/wasm/js \
//     node --test tests/js/dumb-http.test.mjs
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import {
  ROOT, gitIn, leftAt, loadWebgit, makeTmp, sleep, stopPid,
} from './lib.mjs';

let tmp;
let git;
let wg;
let server;   // { base, child }

const ident = ['-c', 'user.name=T', '-c', 'user.email=t@x'];

function commit(work, file, text) {
  fs.mkdirSync(path.dirname(path.join(work, file)), { recursive: true });
  fs.writeFileSync(path.join(work, file), `${text}\n`);
  git(['-C', work, 'add', file]);
  git(['-C', work, ...ident, 'commit', '-qm', `${file}: ${text}`]);
}

// The published repository: a first pack, a second one, loose objects on
// top, annotated and lightweight tags, two branches.
function publish(fmt, name = fmt) {
  const work = path.join(tmp, `${name}.work`);
  const bare = path.join(tmp, 'www', name, 'repo.git');
  git(['init', '-q', '-b', 'main', `--object-format=${fmt}`, work]);
  commit(work, 'd/e/a.txt', 'one');
  commit(work, 'b.txt', 'two');
  git(['-C', work, ...ident, 'tag', '-a', '-m', 'v1 tag', 'v1']);
  git(['clone', '-q', '--bare', '--no-local', work, bare]);
  commit(work, 'c.txt', 'three');
  git(['-C', work, 'branch', 'side']);
  git(['-C', work, 'push', '-q', bare, 'main', 'side']);
  git(['-C', bare, 'repack', '-q', '-d']);
  commit(work, 'g.txt', 'five');
  git(['-C', work, 'tag', 'light']);
  git(['-C', work, 'push', '-q', bare, 'main', '--tags']);
  git(['-C', bare, 'update-server-info']);
  return { work, bare, url: `${server.base}/${name}/repo.git` };
}

const objects = (dir) => git(['-C', dir, 'cat-file', '--batch-all-objects', '--batch-check'])
  .split('\n').filter(Boolean).sort();
const refs = (dir) => git(['-C', dir, 'for-each-ref', '--format=%(refname) %(objectname) %(symref)']);

before(async () => {
  tmp = makeTmp('dumb-http');
  git = gitIn(tmp);
  fs.mkdirSync(path.join(tmp, 'www'));
  const portFile = path.join(tmp, 'static.port');
  const child = spawn(process.execPath, [path.join(ROOT, 'tests/server/static-server.mjs'),
    '--root', path.join(tmp, 'www'), '--port-file', portFile,
    '--pid-file', path.join(tmp, 'static.pid'), '--parent', String(process.pid)],
  { stdio: 'ignore' });
  for (let i = 0; i < 100 && !fs.existsSync(portFile); i++) await sleep(50);
  server = { base: `http://127.0.0.1:${fs.readFileSync(portFile, 'utf8').trim()}`, child };
  wg = await loadWebgit();
  await wg.init();
});

after(async () => {
  if (server) await stopPid(server.child.pid);
  if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
});

// SHA-1 here; tests/interop/t42-dumb-http.sh runs both formats natively
for (const fmt of ['sha1']) {
  test(`clone and fetch from a static host equal git's (${fmt})`, async () => {
    const host = publish(fmt);
    const ours = path.join(tmp, `${fmt}-webgit`);
    const theirs = path.join(tmp, `${fmt}-git`);
    git(['clone', '-q', host.url, theirs]);
    await wg.clone({ url: host.url, dir: ours });
    assert.deepEqual(objects(ours), objects(theirs), 'objects');
    assert.equal(refs(ours), refs(theirs), 'refs');
    assert.equal(git(['-C', ours, 'symbolic-ref', 'HEAD']), 'refs/heads/main\n');
    git(['-C', ours, 'fsck', '--strict']);
    assert.equal(git(['-C', ours, 'status', '--porcelain']), '', 'checked out');

    // new commits on the host: loose objects and a pack
    commit(host.work, 'h.txt', 'six');
    git(['-C', host.work, 'push', '-q', host.bare, 'main']);
    git(['-C', host.bare, 'repack', '-q', '-d']);
    commit(host.work, 'i.txt', 'seven');
    git(['-C', host.work, ...ident, 'tag', '-a', '-m', 'v2 tag', 'v2']);
    git(['-C', host.work, 'push', '-q', host.bare, 'main', 'v2']);
    git(['-C', host.bare, 'update-server-info']);
    git(['-C', theirs, 'fetch', '-q']);
    const res = await wg.fetch({ dir: ours });
    assert.ok(res.updates.some((u) => u.remoteRef === 'refs/heads/main'), 'main updated');
    assert.deepEqual(objects(ours), objects(theirs), 'objects after fetch');
    assert.equal(refs(ours), refs(theirs), 'refs after fetch');
    git(['-C', ours, 'fsck', '--strict']);
  });
}

test('a loose object that hashes to another id is refused, nothing left', async () => {
  const host = publish('sha256', 'bad');
  const bad = host.bare;
  const tip = git(['-C', bad, 'rev-parse', 'main']).trim();
  const tree = git(['-C', bad, 'rev-parse', 'main^{tree}']).trim();
  fs.copyFileSync(path.join(bad, 'objects', tip.slice(0, 2), tip.slice(2)),
    path.join(bad, 'objects', tree.slice(0, 2), tree.slice(2)));
  const dir = path.join(tmp, 'bad-clone');
  await assert.rejects(wg.clone({ url: host.url, dir }),
    (e) => /bad hash/.test(e.message));
  assert.deepEqual(leftAt(dir), [], 'nothing left');
});
