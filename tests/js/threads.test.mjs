// The threaded module (webgit-mt: the indexer resolves deltas on Web
// Workers sharing the module's memory) against the single-threaded one
// and git: in Node it is the default where there are two cores or more,
// and a clone gives the same pack, .idx and .rev bytes either way, equal to
// what `git index-pack` makes of that pack.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { pathToFileURL } from 'node:url';
import { loadWebgit, makeTmp, gitIn, startServerAt, JS_DIR } from './lib.mjs';

let wg;
let tmp;
let git;
let server;

const cores = typeof os.availableParallelism === 'function' ? os.availableParallelism() : os.cpus().length;
const expectThreads = cores >= 2 ? Math.min(cores, 4) : 0;

// A history with long delta chains: 300 commits, each changing a few
// lines of a few of 40 files, repacked with git's default depth.
function makeHistory(dir) {
  const bare = path.join(dir, 'chains.git');
  git(['init', '-q', '--bare', bare]);
  let script = '';
  let mark = 0;
  const files = Array.from({ length: 40 }, (_, i) => Array.from({ length: 60 }, (_, l) => `file ${i} line ${l}`));
  for (let c = 0; c < 300; c++) {
    const changed = [c % 40, (c * 7) % 40, (c * 13 + 5) % 40];
    let blobs = '';
    for (const f of changed) {
      const lines = files[f];
      lines[(c * 11) % lines.length] = `file ${f} line changed in commit ${c}`;
      if (c % 5 === 0) lines.push(`file ${f} grows in commit ${c}`);
      const data = `${lines.join('\n')}\n`;
      script += `blob\nmark :${++mark}\ndata ${Buffer.byteLength(data)}\n${data}\n`;
      blobs += `M 100644 :${mark} src/f${f}.txt\n`;
    }
    const msg = `commit ${c}\n`;
    script += `commit refs/heads/main\nmark :${++mark}\ncommitter C O Mitter <c@example.com> ${1700000000 + c * 60} +0000\n` +
      `data ${msg.length}\n${msg}${blobs}\n`;
  }
  git(['-C', bare, 'fast-import', '--quiet'], { input: script });
  git(['-C', bare, 'repack', '-adq', '--depth=50', '--window=10']);
  // as make-repos.sh configures a served repository
  git(['-C', bare, 'config', 'uploadpack.allowFilter', 'true']);
  git(['-C', bare, 'config', 'uploadpack.allowAnySHA1InWant', 'true']);
  return bare;
}

before(async () => {
  wg = await loadWebgit();
  await wg.init();
  tmp = makeTmp('threads');
  git = gitIn(tmp);
  const repos = path.join(tmp, 'repos');
  fs.mkdirSync(repos);
  makeHistory(repos);
  server = startServerAt(path.join(tmp, 'server'), repos);
});

after(async () => {
  if (server) await server.stop();
  if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
});

const packFiles = (dir) => {
  const p = path.join(dir, '.git/objects/pack');
  const names = fs.readdirSync(p).sort();
  return Object.fromEntries(names.map((n) => [n.replace(/^pack-[0-9a-f]+/, 'pack'), fs.readFileSync(path.join(p, n))]));
};

// A clone in a process of its own, with init(initOptions); prints
// memoryUsage().threads.
function cloneInChild(url, dir, initOptions) {
  const index = pathToFileURL(path.join(JS_DIR, 'index.js')).href;
  return Number(execFileSync(process.execPath, ['--input-type=module', '-e', `
    const wg = await import(${JSON.stringify(index)});
    await wg.init(${JSON.stringify(initOptions)});
    await wg.clone({ url: ${JSON.stringify(url)}, dir: ${JSON.stringify(dir)}, noCheckout: true });
    process.stdout.write(String((await wg.memoryUsage()).threads));
  `], { encoding: 'utf8' }));
}

test('Node loads the threaded module where there are two cores or more', async () => {
  assert.equal((await wg.memoryUsage()).threads, expectThreads);
});

test('threaded and single-threaded clones give the same pack, .idx and .rev as git index-pack', async () => {
  const url = `${server.base}/git/chains.git`;
  const mt = path.join(tmp, 'mt');
  const st = path.join(tmp, 'st');
  let events = 0;
  let resolved = 0;
  await wg.clone({
    url, dir: mt, noCheckout: true,
    onProgress: (p) => {
      events++;
      if (p.phase === 'Resolving deltas') resolved = Math.max(resolved, p.done);
    },
  });
  assert.equal(cloneInChild(url, st, { threads: false }), 0);
  const a = packFiles(mt);
  const b = packFiles(st);
  assert.deepEqual(Object.keys(a), ['pack.idx', 'pack.pack', 'pack.rev']);
  assert.deepEqual(Object.keys(b), Object.keys(a));
  for (const k of Object.keys(a)) assert.ok(a[k].equals(b[k]), `${k} differs between the modules`);
  // git's own index of the same pack bytes
  const copy = path.join(tmp, 'git-index');
  fs.mkdirSync(copy);
  fs.writeFileSync(path.join(copy, 'p.pack'), a['pack.pack']);
  git(['index-pack', '--rev-index', path.join(copy, 'p.pack')]);
  assert.ok(fs.readFileSync(path.join(copy, 'p.idx')).equals(a['pack.idx']), '.idx differs from git index-pack');
  assert.ok(fs.readFileSync(path.join(copy, 'p.rev')).equals(a['pack.rev']), '.rev differs from git index-pack');
  git(['-C', mt, 'fsck', '--strict']);
  // the deltas were resolved and reported, to the end
  const deltas = Number(git(['-C', mt, 'verify-pack', '-v', path.join(mt, '.git/objects/pack',
    fs.readdirSync(path.join(mt, '.git/objects/pack')).find((n) => n.endsWith('.idx')))])
    .split('\n').filter((l) => /^[0-9a-f]{40} +\S+ +\d+ \d+ \d+ \d+ [0-9a-f]{40}$/.test(l)).length);
  assert.ok(deltas > 500, `only ${deltas} deltas: the fixture has no chains`);
  assert.equal(resolved, deltas);
  assert.ok(events > 0);
});

test('threads: false in Node, and a threaded clone in a process of its own', async () => {
  const url = `${server.base}/git/chains.git`;
  const dir = path.join(tmp, 'child-mt');
  assert.equal(cloneInChild(url, dir, {}), expectThreads);
  git(['-C', dir, 'fsck', '--strict']);
});

test('a blob-less clone on threads equals git\'s object set', async () => {
  const url = `${server.base}/git/chains.git`;
  const dir = path.join(tmp, 'blobless');
  await wg.clone({ url, dir, filter: 'blob:none', noCheckout: true });
  const ours = git(['-C', dir, 'cat-file', '--batch-all-objects', '--batch-check=%(objectname)'])
    .trim().split('\n').sort();
  const theirs = git(['-C', path.join(server.repos, 'chains.git'), 'rev-list', '--objects', '--all',
    '--filter=blob:none']).trim().split('\n').map((l) => l.slice(0, 40)).sort();
  assert.ok(theirs.length > 600);
  assert.deepEqual(ours, theirs);
  git(['-C', dir, 'fsck', '--strict']);
});
