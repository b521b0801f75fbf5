// Two tabs of one origin writing the same IndexedDB repository at the same
// time: Debian's Chromium (headless, playwright-core from tests/node_modules)
// with two pages that each commit many times, interleaved, on the same
// branch of the same repository. Every commit of both must survive: each
// call holds the repository's Web Lock around its load-modify-save and
// reloads what the other tab saved in between (js/storage.js).
//
//   WEBGIT_JS_DIR=build/h-wasm/js node --test tests/js/browser-tabs.test.mjs
//
// WEBGIT_TEST_NO_LOCKS=1 hides navigator.locks from the pages: then the tabs
// overwrite each other's saves and this test fails (what it guards against).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { JS_DIR, launchChromium, makeTmp, startServerAt } from './lib.mjs';

const COMMITS = 12;          // per tab; each is three calls (blob, tree, commit)
const DIR = '/repos/shared';
const noLocks = process.env.WEBGIT_TEST_NO_LOCKS === '1';

let tmp;
let server;
let context;
const pages = [];
const pageErrors = [];

// window.T: call(fn, opts) settles to {ok} or {error}; work(tab, n) makes n
// commits on HEAD, each adding the file "<tab>-<i>.txt" to a tree of its
// own, and returns their ids and blob ids.
const PAGE_JS = `import * as wg from '/pkg/index.js';
const wrap = (e) => ({ name: e && e.name, code: e && e.code, message: String(e && e.message !== undefined ? e.message : e) });
async function call(fn, opts) {
  try { return { ok: await wg[fn](opts) }; } catch (e) { return { error: wrap(e) }; }
}
const author = { name: 'Tab', email: 'tab@example.com', timestamp: 1700000000, timezone: '+0000' };
async function work(tab, n, dir) {
  const made = [];
  try {
    for (let i = 0; i < n; i++) {
      const blob = await wg.writeObject({ dir, data: tab + ' ' + i + '\\n' });
      const tree = await wg.writeTree({ dir, entries: [{ mode: '100644', name: tab + '-' + i + '.txt', oid: blob }] });
      const oid = await wg.commit({ dir, tree, message: tab + ' ' + i, author: { ...author, timestamp: author.timestamp + i } });
      made.push({ oid, blob, message: tab + ' ' + i });
    }
    return { ok: made };
  } catch (e) { return { error: wrap(e), made }; }
}
async function history(dir) {
  try {
    const out = [];
    for await (const c of wg.log({ dir })) out.push({ oid: c.oid, message: c.message, parents: c.parents });
    return { ok: out };
  } catch (e) { return { error: wrap(e) }; }
}
// hold(name): take a Web Lock and keep it until release()
let release = null;
function hold(name) {
  return new Promise((held) => {
    navigator.locks.request(name, () => { held(true); return new Promise((r) => { release = r; }); });
  });
}
window.T = {
  call, work, history, hold, release: () => release && release(),
  callWithTimeout: (fn, opts, ms) => call(fn, { ...opts, signal: AbortSignal.timeout(ms) }),
  locks: !!(navigator.locks && navigator.locks.request),
};
`;

const INDEX_HTML = `<!doctype html>
<meta charset="utf-8">
<title>webgit tabs test</title>
<link rel="icon" href="data:,">
<script type="module" src="/page.mjs"></script>
`;

const diag = () => (pageErrors.length ? `\npage errors:\n  ${pageErrors.join('\n  ')}` : '');

async function open() {
  const page = await context.newPage();
  const label = `tab${pages.length + 1}`;
  page.on('pageerror', (e) => pageErrors.push(`${label} pageerror: ${e.message}`));
  page.on('console', (m) => { if (m.type() === 'error') pageErrors.push(`${label} console: ${m.text()}`); });
  if (noLocks) {
    await page.addInitScript(() => {
      Object.defineProperty(Navigator.prototype, 'locks', { get: () => undefined, configurable: true });
    });
  }
  await page.goto(`${server.base}/`);
  await page.waitForFunction(() => window.T, null, { timeout: 20000 });
  pages.push(page);
  return page;
}

async function call(page, fn, opts) {
  const r = await page.evaluate(([f, o]) => window.T.call(f, o), [fn, opts]);
  if (r.error) throw new Error(`${fn}(${JSON.stringify(opts)}): ${r.error.code} ${r.error.message}${diag()}`);
  return r.ok;
}

async function history(page) {
  const r = await page.evaluate((dir) => window.T.history(dir), DIR);
  if (r.error) throw new Error(`log: ${r.error.code} ${r.error.message}${diag()}`);
  return r.ok;
}

before(async () => {
  for (const f of ['index.js', 'webgit.mjs', 'webgit.wasm']) {
    assert.ok(fs.existsSync(path.join(JS_DIR, f)), `no ${f} in WEBGIT_JS_DIR=${JS_DIR}`);
  }
  tmp = makeTmp('tabs');
  const site = path.join(tmp, 'site');
  fs.mkdirSync(site, { recursive: true });
  fs.writeFileSync(path.join(site, 'index.html'), INDEX_HTML);
  fs.writeFileSync(path.join(site, 'page.mjs'), PAGE_JS);
  fs.cpSync(JS_DIR, path.join(site, 'pkg'), { recursive: true, dereference: true });
  fs.mkdirSync(path.join(tmp, 'repos'));
  server = startServerAt(path.join(tmp, 'server'), path.join(tmp, 'repos'), ['--static', site]);
  context = await launchChromium(path.join(tmp, 'user-data'));
  for (const p of context.pages()) await p.close();
});

after(async () => {
  if (context) await context.close().catch(() => {});
  if (server) await server.stop();
  if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
});

test('browser tabs: two pages commit to one IndexedDB repository at once, and no commit is lost', async (t) => {
  const a = await open();
  const b = await open();
  assert.equal(await a.evaluate(() => window.T.locks), !noLocks, 'navigator.locks as the test expects');
  await call(a, 'init', { dir: DIR, objectFormat: 'sha1', refFormat: 'files' });
  // b loads the repository now, so that later it holds a copy a's saves make stale
  assert.equal(await call(b, 'currentBranch', { dir: DIR }), 'main');

  const started = Date.now();
  const [ra, rb] = await Promise.all([
    a.evaluate(([n, dir]) => window.T.work('A', n, dir), [COMMITS, DIR]),
    b.evaluate(([n, dir]) => window.T.work('B', n, dir), [COMMITS, DIR]),
  ]);
  t.diagnostic(`2 x ${COMMITS} commits (${6 * COMMITS} calls) in ${Date.now() - started} ms`);
  assert.ok(!ra.error, `tab A: ${JSON.stringify(ra.error)}${diag()}`);
  assert.ok(!rb.error, `tab B: ${JSON.stringify(rb.error)}${diag()}`);
  const made = [...ra.ok, ...rb.ok];
  assert.equal(made.length, 2 * COMMITS);

  // The calls interleaved: neither tab made all its commits in one run.
  const order = (await history(a)).map((c) => c.message.trim()).reverse();
  const runs = order.reduce((n, m, i) => n + (i > 0 && m[0] !== order[i - 1][0] ? 1 : 0), 1);
  t.diagnostic(`history, oldest first: ${order.join(', ')} (${runs} runs)`);
  assert.ok(runs > 2, `the tabs' commits interleave (${runs} runs): ${order.join(', ')}`);

  // Every commit of both tabs is in the history, seen from either tab and
  // from a fresh page that loads only what IndexedDB holds.
  const fresh = await open();
  for (const [label, page] of [['A', a], ['B', b], ['fresh', fresh]]) {
    const log = await history(page);
    const oids = new Set(log.map((c) => c.oid));
    const lost = made.filter((m) => !oids.has(m.oid)).map((m) => m.message);
    assert.deepEqual(lost, [], `tab ${label}: commits missing from the history${diag()}`);
    assert.equal(log.length, 2 * COMMITS, `tab ${label}: one linear history of every commit`);
    for (let i = 0; i + 1 < log.length; i++) assert.deepEqual(log[i].parents, [log[i + 1].oid]);
    // and every object of both tabs
    for (const m of made) {
      const obj = await call(page, 'readObject', { dir: DIR, oid: m.blob });
      assert.equal(obj.type, 'blob', `tab ${label}: blob of ${m.message}`);
    }
  }
  const head = await call(fresh, 'resolveRef', { dir: DIR, ref: 'main' });
  assert.equal(head, (await history(a))[0].oid);
});

test('browser tabs: a repository one tab deletes is gone for the other too', async () => {
  const [a, b] = pages;
  const dir = '/repos/deleted-elsewhere';
  await call(a, 'init', { dir, objectFormat: 'sha1', refFormat: 'files' });
  assert.equal(await call(b, 'currentBranch', { dir }), 'main');   // b holds a copy
  await call(a, 'deleteRepo', { dir });
  const r = await b.evaluate((d) => window.T.call('currentBranch', { dir: d }), dir);
  assert.equal(r.error?.code, 'ENOTFOUND', `tab b still finds it: ${JSON.stringify(r)}`);
  assert.ok(!(await call(b, 'listRepos')).includes(dir));
  assert.ok((await call(b, 'listRepos')).includes(DIR), 'the other repository stays');
});

test('browser tabs: a call waits for another tab\'s, and its signal aborts the wait', { skip: noLocks }, async () => {
  const [a, b] = pages;
  await a.evaluate((d) => window.T.hold(`webgit:${d}`), DIR);   // as if a long call of tab a ran
  const started = Date.now();
  const r = await b.evaluate((d) => window.T.callWithTimeout('fetch', { dir: d }, 400), DIR);
  assert.ok(r.error, `the fetch waited and was aborted: ${JSON.stringify(r)}`);
  assert.ok(['TimeoutError', 'AbortError'].includes(r.error.name), JSON.stringify(r.error));
  assert.ok(Date.now() - started >= 350, 'it waited for the lock');
  const pending = b.evaluate((d) => window.T.call('resolveRef', { dir: d, ref: 'main' }), DIR);
  await new Promise((res) => setTimeout(res, 300));
  await a.evaluate(() => window.T.release());
  const head = await pending;
  assert.ok(head.ok, `after the release: ${JSON.stringify(head)}`);
  assert.equal(head.ok, (await history(a))[0].oid);
});
