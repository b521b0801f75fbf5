// readFile({ url, ref, path }) from a repository on a static web host
// (tests/server/static-server.mjs: the files of a bare repository after
// `git update-server-info`, HTTP Range, no Git server), in Node and in
// workerd (tests/js/edge/worker.mjs): the bytes equal `git show`, and the
// body bytes the server logged for the read are under 5% of the pack, which
// is over 20 MB (tests/interop/gen-static-repo.py, SHA-1 and SHA-256). The
// host is found to be static from the discovery answer (no smart content
// type), with no extra request.
//
//   GIT=.cache/git-ref/bin/git WEBGIT_JS_DIR=build/wasm/js \
//     node --test tests/js/static-read.test.mjs
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import {
  ROOT, JS_DIR, gitIn, loadWebgit, makeTmp, sleep, stopPid,
} from './lib.mjs';
import { startWorkerd } from './workerd.mjs';

const FORMATS = ['sha1', 'sha256'];
const DEEP = 'docs/deep/notes.txt';

let tmp;
let git;
let webgit;
const servers = [];   // { base, log, child }
let plain;            // the Range-capable host
let norange;          // one that ignores Range
let workerd;
let edge;
const packSize = {};

function makeRepo(fmt, dir) {
  git(['init', '-q', '--bare', '-b', 'main', `--object-format=${fmt}`, dir]);
  const stream = execFileSync('python3', [path.join(ROOT, 'tests/interop/gen-static-repo.py')],
    { maxBuffer: 256 << 20 });
  git(['-C', dir, 'fast-import', '--quiet'], { input: stream });
  git(['-C', dir, '-c', 'core.bigFileThreshold=1m', 'repack', '-adfq', '--depth=50', '--window=50']);
  git(['-C', dir, 'update-server-info']);
  const pack = fs.readdirSync(path.join(dir, 'objects/pack')).find((f) => f.endsWith('.pack'));
  return fs.statSync(path.join(dir, 'objects/pack', pack)).size;
}

async function startStatic(root, name, extra = []) {
  const portFile = path.join(tmp, `${name}.port`);
  const log = path.join(tmp, `${name}.log`);
  const child = spawn(process.execPath, [path.join(ROOT, 'tests/server/static-server.mjs'),
    '--root', root, '--port-file', portFile, '--pid-file', path.join(tmp, `${name}.pid`),
    '--log', log, '--parent', String(process.pid), ...extra], { stdio: 'ignore' });
  for (let i = 0; i < 100 && !fs.existsSync(portFile); i++) await sleep(50);
  const port = fs.readFileSync(portFile, 'utf8').trim();
  const s = { base: `http://127.0.0.1:${port}`, log, child };
  servers.push(s);
  return s;
}

/** The lines ("METHOD PATH STATUS BYTES") the server logged while fn() ran. */
async function logged(server, fn) {
  const size = () => (fs.existsSync(server.log) ? fs.statSync(server.log).size : 0);
  const start = size();
  let result;
  let error;
  try {
    result = await fn();
  } catch (e) {
    error = e;
  }
  let last = -1;
  for (let i = 0; i < 20 && size() !== last; i++) {
    last = size();
    await sleep(50);
  }
  const lines = fs.readFileSync(server.log).subarray(start).toString('utf8').split('\n')
    .filter(Boolean).map((l) => {
      const [method, p, status, bytes] = l.split(' ');
      return { method, path: p, status: Number(status), bytes: Number(bytes) };
    });
  return { result, error, lines, bytes: lines.reduce((n, l) => n + l.bytes, 0) };
}

before(async () => {
  for (const f of ['index.js', 'webgit.mjs', 'webgit.wasm']) {
    assert.ok(fs.existsSync(path.join(JS_DIR, f)), `no ${f} in WEBGIT_JS_DIR=${JS_DIR}`);
  }
  tmp = makeTmp('static-read');
  git = gitIn(tmp);
  const root = path.join(tmp, 'www');
  fs.mkdirSync(root);
  for (const fmt of FORMATS) packSize[fmt] = makeRepo(fmt, path.join(root, `${fmt}.git`));
  plain = await startStatic(root, 'plain');
  norange = await startStatic(root, 'norange', ['--ignore-range']);
  webgit = await loadWebgit();
  await webgit.init();
  ({ url: edge, child: workerd } = await startWorkerd(path.join(tmp, 'workerd')));
});

after(async () => {
  if (workerd?.pid && workerd.exitCode === null && workerd.signalCode === null) await stopPid(workerd.pid);
  for (const s of servers) await stopPid(s.child.pid);
  if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
});

const show = (fmt, spec) => git(['-C', path.join(tmp, 'www', `${fmt}.git`), 'show', spec],
  { encoding: 'buffer' });

function figures(t, where, fmt, run) {
  const pct = ((100 * run.bytes) / packSize[fmt]).toFixed(2);
  t.diagnostic(`${where} ${fmt}: pack ${packSize[fmt]} bytes; the read took ${run.lines.length} ` +
    `requests and ${run.bytes} bytes (${pct}% of the pack)`);
}

for (const fmt of FORMATS) {
  test(`Node: a deep delta at main, under 5% of the pack (${fmt})`, async (t) => {
    const url = `${plain.base}/${fmt}.git`;
    let api = 0;
    const run = await logged(plain, () => webgit.readFile({
      url, ref: 'main', path: DEEP, onRequest: () => { api++; },
    }));
    assert.ifError(run.error);
    assert.ok(Buffer.from(run.result).equals(show(fmt, `main:${DEEP}`)), 'bytes equal git show');
    figures(t, 'Node', fmt, run);
    assert.ok(packSize[fmt] >= 20e6, `pack of ${packSize[fmt]} bytes`);
    assert.ok(run.bytes * 20 < packSize[fmt], `${run.bytes} bytes of ${packSize[fmt]}`);
    assert.equal(api, run.lines.length, 'onRequest saw every request the server saw');
    assert.ok(run.lines.every((l) => !l.path.endsWith('.pack') || l.status === 206), 'ranges only');
    // the discovery answer was the static info/refs: no second GET of it
    assert.equal(run.lines.filter((l) => l.path.endsWith('/info/refs')).length, 1);
    // the first read of a host tries a smart server's v2 read: one POST,
    // which a static host refuses
    assert.deepEqual(run.lines.filter((l) => l.method === 'POST').map((l) => l.status >= 400), [true]);
  });

  test(`Node: tags, HEAD, a subdirectory, static: true (${fmt})`, async () => {
    const url = `${plain.base}/${fmt}.git`;
    const run = await logged(plain, async () => {
      for (const [ref, p, opts] of [['v1.0', DEEP], ['light', 'src/d03/f1.txt'], [undefined, 'README'],
        ['refs/heads/side', 'src/d07/f9.txt'], ['main', 'src/d11/f7.txt', { static: true }]]) {
        const bytes = await webgit.readFile({ url, ref, path: p, ...opts });
        assert.ok(Buffer.from(bytes).equals(show(fmt, `${ref ?? 'HEAD'}:${p}`)), `${ref}:${p}`);
      }
      // with its blob id (an edge function's ETag), from the same read
      const got = await webgit.readFile({ url, ref: 'v1.0', path: DEEP, details: true });
      assert.ok(Buffer.from(got.data).equals(show(fmt, `v1.0:${DEEP}`)));
      assert.equal(got.oid, git(['-C', path.join(tmp, 'www', `${fmt}.git`), 'rev-parse', `v1.0:${DEEP}`]).trim());
    });
    assert.ifError(run.error);
    // the host is known to be static now: no more smart tries
    assert.equal(run.lines.filter((l) => l.method === 'POST').length, 0);
  });

  test(`Node: clear errors (${fmt})`, async () => {
    const url = `${plain.base}/${fmt}.git`;
    await assert.rejects(webgit.readFile({ url, ref: 'main', path: 'docs/nope.txt' }),
      (e) => e.code === 'ENOTFOUND' && /path 'docs\/nope.txt' does not exist in 'main'/.test(e.message));
    await assert.rejects(webgit.readFile({ url, ref: 'no-such', path: 'README' }),
      (e) => e.code === 'ENOTFOUND' && /ref 'no-such' not found/.test(e.message));
    await assert.rejects(webgit.readFile({ url, ref: 'main', path: 'docs' }),
      (e) => e.code === 'ENOTFOUND' && /is a directory/.test(e.message));
    const run = await logged(norange, () => webgit.readFile({
      url: `${norange.base}/${fmt}.git`, ref: 'main', path: DEEP,
    }));
    assert.equal(run.error?.code, 'EUNSUPPORTED', run.error?.message);
    assert.match(run.error.message, /does not serve byte ranges/);
    assert.ok(run.bytes < packSize[fmt] / 4, `the Range-ignoring host sent ${run.bytes} bytes`);
  });

  test(`workerd: a deep delta at main, under 5% of the pack (${fmt})`, async (t) => {
    const url = `${plain.base}/${fmt}.git`;
    const run = await logged(plain, async () => {
      const res = await fetch(`${edge}/file?${new URLSearchParams({ url, ref: 'main', path: DEEP })}`);
      return { status: res.status, body: Buffer.from(await res.arrayBuffer()), requests: res.headers.get('x-webgit-requests') };
    });
    assert.ifError(run.error);
    assert.equal(run.result.status, 200, run.result.body.toString());
    assert.ok(run.result.body.equals(show(fmt, `main:${DEEP}`)), 'bytes equal git show');
    figures(t, 'workerd', fmt, run);
    assert.ok(run.bytes * 20 < packSize[fmt], `${run.bytes} bytes of ${packSize[fmt]}`);
    assert.equal(Number(run.result.requests), run.lines.length, 'the worker made the requests the server saw');
  });
}
