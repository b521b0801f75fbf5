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

const SCENARIOS = [
  'bad-pktline-length', 'short-length', 'overlong', 'bad-pktline-length@fetch', 'truncated-pack',
  'sideband-error', 'bad-band', 'shallow-unknown', 'bad-refname', 'ctrl-refname', 'short-oid',
  'other-hash-oid', 'non-hex-oid', 'wrong-content-type', 'http-500', 'http-404', 'dumb-server',
  'dumb-body', 'missing-object', 'bad-pack-checksum', 'corrupt-object', 'pack-count-lie',
  'pack-count-huge',
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

for (const scenario of ['endless', 'endless-keepalive', 'stall', 'stall-mid-pack']) {
  test(`${scenario}: the caller's signal ends it, nothing is left, memory stays bounded`, async () => {
    const dir = newDir();
    const before = process.memoryUsage().rss;
    await assert.rejects(
      wg.clone({ url: `${base}/${scenario}/sample-sha1-files.git`, dir, signal: AbortSignal.timeout(3000) }),
      (e) => e.name === 'TimeoutError' || e.name === 'AbortError');
    assert.equal(fs.existsSync(dir), false);
    const grown = (process.memoryUsage().rss - before) / 2 ** 20;
    assert.ok(grown < 200, `RSS grew ${grown.toFixed(0)} MiB`);
    // the module still works afterwards
    const refs = await wg.listRemoteRefs(`${base}/ok/sample-sha1-files.git`);
    assert.ok(refs.length > 5);
  });
}
