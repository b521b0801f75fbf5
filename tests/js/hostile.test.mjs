// The JS API against a HOSTILE server (tests/server/hostile-server.mjs):
// real git http-backend answers, corrupted on purpose. Every clone must
// reject with an Error carrying a code, leave no directory behind, and not
// hang (endless and stalled responses end with the caller's AbortSignal).
// The C core's parsers meet the same cases natively in t14; this checks the
// fetch()-driven path: streamed bodies, aborts, and the JS error mapping.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { loadWebgit, makeTmp, makeRepos, stopPid, sleep, ROOT, GIT } from './lib.mjs';

let wg;
let tmp;
let pid;
let base;
let seq = 0;
const newDir = () => path.join(tmp, 'clones', `c${++seq}`);

before(async () => {
  wg = await loadWebgit();
  await wg.init();
  tmp = makeTmp('hostile');
  const repos = makeRepos(path.join(tmp, 'repos'));
  const portFile = path.join(tmp, 'port');
  const child = spawn(process.execPath, [path.join(ROOT, 'tests/server/hostile-server.mjs'),
    '--root', repos, '--git', GIT, '--port', '0', '--port-file', portFile],
  { stdio: ['ignore', 'ignore', 'inherit'] });
  pid = child.pid;
  for (let i = 0; i < 200 && !fs.existsSync(portFile); i++) await sleep(50);
  assert.ok(fs.existsSync(portFile), 'the hostile server started');
  base = `http://127.0.0.1:${fs.readFileSync(portFile, 'utf8').trim()}`;
});

after(async () => {
  await stopPid(pid);
  if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
});

test('the control: scenario "ok" clones', async () => {
  const dir = newDir();
  await wg.clone({ url: `${base}/ok/sample-sha1-files.git`, dir });
  assert.equal((await wg.resolveRef({ dir, ref: 'main' })).length, 40);
});

// Limits (docs/limits.md): hostile packs and endless ref listings fail with
// ELIMIT naming the limit, and the WebAssembly heap (which never shrinks, so
// its size is the peak) grows far less than what they declare or send.
// First after the control, while the heap is still small.
const MiB = 2 ** 20;
test('limits: hostile packs are refused with ELIMIT in bounded WASM memory', async () => {
  const before = (await wg.memoryUsage()).heapBytes;
  const cases = {
    'huge-object': /max_object_size/, // a commit declaring 1 TiB
    'huge-delta': /max_object_size/, // an 8-byte delta declaring 4 GiB
    'inflate-bomb': /max_inflate_ratio/, // a 64 MiB blob, 64 KiB deflated
    'pack-count-huge': /max_pack_objects/, // 2^32-1 objects
  };
  for (const repo of ['sample-sha1-files', 'sample-sha256-reftable']) {
    for (const [scenario, re] of Object.entries(cases)) {
      const dir = newDir();
      await assert.rejects(
        wg.clone({ url: `${base}/${scenario}/${repo}.git`, dir, signal: AbortSignal.timeout(30000) }),
        (e) => e.code === 'ELIMIT' && re.test(e.message), `${scenario} (${repo})`);
      assert.equal(fs.existsSync(dir), false, `${scenario}: nothing left`);
    }
  }
  const grown = ((await wg.memoryUsage()).heapBytes - before) / MiB;
  assert.ok(grown < 32, `the WASM heap grew ${grown.toFixed(1)} MiB`);
});

test('limits: an endless ref listing (or shallow list) stops at the per-call or global limit', async () => {
  const before = (await wg.memoryUsage()).heapBytes;
  for (const proto of ['', 'v0/']) {
    const url = `${base}/${proto}endless-refs/sample-sha1-files.git`;
    await assert.rejects(wg.listRemoteRefs(url, { limits: { maxRefs: 20000 } }),
      (e) => e.code === 'ELIMIT' && /max_refs/.test(e.message), `${proto} maxRefs`);
    const dir = newDir();
    await assert.rejects(
      wg.clone({ url, dir, limits: { maxRefs: 0, maxAdvertisementBytes: '1m' } }),
      (e) => e.code === 'ELIMIT' && /max_advertisement_bytes/.test(e.message), `${proto} bytes`);
    assert.equal(fs.existsSync(dir), false);
    const shallow = newDir();
    await assert.rejects(
      wg.clone({ url: `${base}/${proto}endless-shallow/sample-sha1-files.git`, dir: shallow, depth: 1,
        limits: { maxRefs: 1000 } }),
      (e) => e.code === 'ELIMIT' && /shallow lines/.test(e.message), `${proto} shallow`);
    assert.equal(fs.existsSync(shallow), false);
  }
  // the process-wide limits, and their reset
  assert.equal((await wg.getLimits()).maxRefs, 1000000);
  assert.equal((await wg.setLimits({ maxRefs: 5000 })).maxRefs, 5000);
  await assert.rejects(wg.listRemoteRefs(`${base}/endless-refs/sample-sha1-files.git`),
    (e) => e.code === 'ELIMIT' && /more than 5000 refs/.test(e.message));
  assert.equal((await wg.setLimits({})).maxRefs, 1000000);
  await assert.rejects(wg.setLimits({ maxRefz: 1 }), (e) => e.code === 'EINVALID');
  await assert.rejects(wg.listRemoteRefs(`${base}/ok/sample-sha1-files.git`, { limits: { maxRefs: -1 } }),
    (e) => e.code === 'EINVALID');
  const grown = ((await wg.memoryUsage()).heapBytes - before) / MiB;
  assert.ok(grown < 32, `the WASM heap grew ${grown.toFixed(1)} MiB`);
  // a low limit refuses even the real listing; the defaults take it
  await assert.rejects(wg.listRemoteRefs(`${base}/ok/sample-sha1-files.git`, { limits: { maxRefs: 2 } }),
    (e) => e.code === 'ELIMIT');
  assert.ok((await wg.listRemoteRefs(`${base}/ok/sample-sha1-files.git`)).length > 5);
});

const SCENARIOS = [
  'bad-pktline-length', 'short-length', 'overlong', 'bad-pktline-length@fetch', 'truncated-pack',
  'sideband-error', 'bad-band', 'shallow-unknown', 'bad-refname', 'ctrl-refname', 'short-oid',
  'other-hash-oid', 'non-hex-oid', 'wrong-content-type', 'http-500', 'http-404', 'dumb-server',
  'dumb-body', 'missing-object', 'bad-pack-checksum', 'corrupt-object', 'pack-count-lie',
  'pack-count-huge', 'huge-object', 'huge-delta', 'inflate-bomb',
];

for (const repo of ['sample-sha1-files', 'sample-sha256-reftable']) {
  for (const proto of ['', 'v0/']) {
    test(`every corruption is refused cleanly (${repo}, ${proto || 'v2'})`, async () => {
      for (const scenario of SCENARIOS) {
        const dir = newDir();
        const url = `${base}/${proto}${scenario}/${repo}.git`;
        await assert.rejects(wg.clone({ url, dir, signal: AbortSignal.timeout(30000) }), (e) => {
          assert.ok(e instanceof Error, `${scenario}: an Error`);
          assert.equal(typeof e.code, 'string', `${scenario}: a code (${e.message})`);
          assert.notEqual(e.name, 'TimeoutError', `${scenario}: refused, not timed out`);
          assert.ok(e.message.length > 0, `${scenario}: a message`);
          return true;
        }, scenario);
        assert.equal(fs.existsSync(dir), false, `${scenario}: nothing left at ${dir}`);
      }
    });
  }
}

for (const scenario of ['endless', 'endless-keepalive', 'endless-line', 'stall', 'stall-mid-pack']) {
  test(`${scenario}: the caller's signal ends it, nothing is left, memory stays bounded`, async () => {
    const dir = newDir();
    const before = process.memoryUsage().rss;
    await assert.rejects(
      wg.clone({ url: `${base}/${scenario}/sample-sha1-files.git`, dir, signal: AbortSignal.timeout(3000) }),
      (e) => e.name === 'TimeoutError' || e.name === 'AbortError');
    assert.equal(fs.existsSync(dir), false);
    const heap = (await wg.memoryUsage()).heapBytes;
    const grown = (process.memoryUsage().rss - before) / 2 ** 20;
    assert.ok(grown < 200, `RSS grew ${grown.toFixed(0)} MiB`);
    assert.ok(heap < 256 * MiB, `the WASM heap is ${(heap / MiB).toFixed(0)} MiB`);
    // the module still works afterwards
    const refs = await wg.listRemoteRefs(`${base}/ok/sample-sha1-files.git`);
    assert.ok(refs.length > 5);
  });
}
