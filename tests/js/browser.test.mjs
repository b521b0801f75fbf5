// The JS API in a browser: Debian's Chromium (/usr/bin/chromium, headless),
// driven by playwright-core from tests/node_modules, cloning over the local
// Git HTTP server into repositories that persist in IndexedDB; checked
// against the reference git, through page reloads.
//
//   WEBGIT_JS_DIR=build/h-wasm/js node --test tests/js/browser.test.mjs
//
// The Git server also serves (--static) a temporary directory holding a
// test page, a module Worker and the built package (a copy of
// WEBGIT_JS_DIR at /pkg/), so the page and the repositories share an
// origin. The browser runs on a persistent, temporary user-data-dir so that
// IndexedDB survives reloads. No browser is ever downloaded.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import {
  JS_DIR, SAMPLES, gitIn, launchChromium, makeRepos, makeTmp, startServerAt,
} from './lib.mjs';

let tmp;           // everything this file writes
let git;           // the reference git
let repos;         // the served bare repositories
let server;        // { base, stop }
let base;          // http://127.0.0.1:PORT: the page, /pkg/ and /git/
let context;       // the browser (a persistent context)
let page;
const pageErrors = [];

const repoUrl = (name) => `${base}/git/${name}.git`;
const gitDir = (name) => path.join(repos, `${name}.git`);

// ---- the page and the worker ----------------------------------------------------

// window.T, the page's side of the test: every call settles to {ok} or
// {error: {name, code, message}} (an Error's own fields do not survive
// page.evaluate).
const PAGE_JS = `import * as wg from '/pkg/index.js';
const wrap = (e) => ({ name: e && e.name, code: e && e.code, message: String(e && e.message !== undefined ? e.message : e) });
async function call(fn, opts) {
  try { return { ok: await wg[fn](opts) }; } catch (e) { return { error: wrap(e) }; }
}
let worker = null, seq = 0;
const pending = new Map();
function inWorker(fn, opts) {
  if (!worker) {
    worker = new Worker('/worker.mjs', { type: 'module' });
    worker.onmessage = ({ data }) => { pending.get(data.id)(data); pending.delete(data.id); };
    worker.onerror = (e) => {
      for (const done of pending.values()) done({ error: { name: 'WorkerError', message: e.message || 'worker failed to load' } });
      pending.clear();
    };
  }
  return new Promise((resolve) => { const id = ++seq; pending.set(id, resolve); worker.postMessage({ id, fn, opts }); });
}
// wg[fn](opts) with a signal that is aborted at the first progress report
// with bytes > 0, or else once minBytes of a POST response went through the
// fetch() (a fallback: the stream reads ahead of what the core has taken).
async function abortable(fn, opts, minBytes) {
  const ac = new AbortController();
  const seen = { progress: 0, bytes: 0, abortedBy: null };
  const abort = (why) => { if (!ac.signal.aborted) { seen.abortedBy = why; ac.abort(); } };
  const fetchFn = async (input, init) => {
    const res = await fetch(input, init);
    if (!init || init.method !== 'POST' || !res.body) return res;
    const body = res.body.pipeThrough(new TransformStream({
      transform(chunk, ctl) { seen.bytes += chunk.byteLength; ctl.enqueue(chunk); if (seen.bytes >= minBytes) abort('bytes'); },
    }));
    return new Response(body, { status: res.status, statusText: res.statusText, headers: res.headers });
  };
  const onProgress = (p) => { seen.progress++; if (p.bytes > 0) abort('progress'); };
  const r = await call(fn, { ...opts, signal: ac.signal, fetch: fetchFn, onProgress });
  return { ...r, seen };
}
// diff() with the requests it makes (onRequest cannot cross page.evaluate)
async function diffCounted(opts) {
  const requests = [];
  const r = await call('diff', { ...opts, onRequest: (q) => requests.push(q.method) });
  return { ...r, requests };
}
window.T = { call, inWorker, abortable, diffCounted, has: (fn) => typeof wg[fn] === 'function' };
`;

const WORKER_JS = `import * as wg from '/pkg/index.js';
self.onmessage = async ({ data: { id, fn, opts } }) => {
  try { self.postMessage({ id, ok: await wg[fn](opts) }); }
  catch (e) { self.postMessage({ id, error: { name: e && e.name, code: e && e.code, message: String(e && e.message) } }); }
};
`;

const INDEX_HTML = `<!doctype html>
<meta charset="utf-8">
<title>webgit browser test</title>
<link rel="icon" href="data:,">
<script type="module" src="/page.mjs"></script>
`;

function writeSite(dir) {
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(path.join(dir, 'index.html'), INDEX_HTML);
  fs.writeFileSync(path.join(dir, 'page.mjs'), PAGE_JS);
  fs.writeFileSync(path.join(dir, 'worker.mjs'), WORKER_JS);
  // a copy: the server refuses symlinks that lead out of its directory
  fs.cpSync(JS_DIR, path.join(dir, 'pkg'), { recursive: true, dereference: true });
}

async function waitForPage() {
  try {
    await page.waitForFunction(() => window.T, null, { timeout: 20000 });
  } catch (e) {
    throw new Error(`the test page did not load: ${e.message}${diag()}`);
  }
}

async function load() {
  await page.goto(`${base}/`);
  await waitForPage();
}

async function reload() {
  await page.reload();
  await waitForPage();
}

const diag = () => (pageErrors.length ? `\npage errors:\n  ${pageErrors.join('\n  ')}` : '');

// wg[fn](opts) in the page (or in its worker): the result, or a thrown
// Error carrying the page's name, code and message.
async function run(where, fn, opts) {
  const r = await page.evaluate(([w, f, o]) => (w === 'worker' ? window.T.inWorker(f, o) : window.T.call(f, o)),
    [where, fn, opts]);
  if (r.error) {
    throw Object.assign(new Error(`${where} ${fn}(${JSON.stringify(opts)}): ${r.error.code} ${r.error.message}${diag()}`),
      { code: r.error.code, pageName: r.error.name });
  }
  return r.ok;
}
const inPage = (fn, opts) => run('page', fn, opts);
const inWorker = (fn, opts) => run('worker', fn, opts);

// ---- repositories ---------------------------------------------------------------

// Append `count` commits to refs/heads/main of the bare repository gitDir
// with git fast-import, each adding an incompressible 16 KiB file, so that
// a clone or fetch takes many chunks.
function growRepo(dir, count, first) {
  const parts = [];
  for (let i = first; i < first + count; i++) {
    const msg = `commit ${i}\n`;
    const text = `version ${i}\n`;
    const blob = crypto.randomBytes(16384);
    parts.push(Buffer.from(
      `commit refs/heads/main\ncommitter C O Mitter <committer@example.com> ${1700000000 + i * 60} +0000\n` +
      `data ${Buffer.byteLength(msg)}\n${msg}` +
      (i === first && first > 0 ? 'from refs/heads/main^0\n' : '') +
      `M 100644 inline README.md\ndata ${Buffer.byteLength(text)}\n${text}\n` +
      `M 100644 inline data/${String(i % 64).padStart(2, '0')}/blob-${i}.bin\ndata ${blob.length}\n`), blob, Buffer.from('\n'));
  }
  git(['--git-dir', dir, 'fast-import', '--quiet'], { input: Buffer.concat(parts) });
}

function makeBigRepo(name, commits) {
  const dir = gitDir(name);
  git(['init', '-q', '--bare', '-b', 'main', dir]);
  growRepo(dir, commits, 0);
  return dir;
}

// Every file of `rev` in the served repository name: [path, bytes].
function gitFiles(name, rev) {
  const dir = gitDir(name);
  return git(['--git-dir', dir, 'ls-tree', '-r', '-z', rev]).split('\0').filter(Boolean).map((l) => {
    const [meta, p] = l.split('\t');
    return [p, git(['--git-dir', dir, 'show', `${rev}:${p}`], { encoding: 'buffer' }), meta.split(' ')[2]];
  });
}

// `rev` of the served repository; a clone's origin/X is the server's X.
const revParse = (name, rev) =>
  git(['--git-dir', gitDir(name), 'rev-parse', rev.replace(/^(refs\/remotes\/)?origin\//, '')]).trim();

async function checkReads(where, dir, name, { refs = ['HEAD', 'main', 'v1.0'], files = 'HEAD' } = {}) {
  const call = where === 'worker' ? inWorker : inPage;
  for (const ref of refs) {
    assert.equal(await call('resolveRef', { dir, ref }), revParse(name, ref), `${where} resolveRef ${ref}`);
  }
  const all = gitFiles(name, files);
  assert.ok(all.length > 5, `${all.length} files`);
  for (const [p, bytes] of all) {
    const ours = await call('readFile', { dir, ref: files, path: p });
    assert.ok(ours instanceof Uint8Array, `${where} readFile ${files}:${p} gave a Uint8Array`);
    assert.ok(Buffer.from(ours).equals(bytes), `${where} readFile ${files}:${p}: ${ours.length} bytes, git show gave ${bytes.length}`);
  }
}

async function listRepos(where = 'page') {
  const list = await run(where, 'listRepos');
  assert.ok(Array.isArray(list), `listRepos gave ${JSON.stringify(list)}`);
  return list;
}

// ---- set-up ---------------------------------------------------------------------

before(async () => {
  for (const f of ['index.js', 'webgit.mjs', 'webgit.wasm']) {
    assert.ok(fs.existsSync(path.join(JS_DIR, f)), `no ${f} in WEBGIT_JS_DIR=${JS_DIR}`);
  }

  tmp = makeTmp('browser');
  git = gitIn(tmp);
  repos = makeRepos(path.join(tmp, 'repos'));
  // ~3 MB packs, for the aborts
  makeBigRepo('big-a', 200);
  makeBigRepo('big-b', 200);
  const site = path.join(tmp, 'site');
  writeSite(site);
  server = startServerAt(path.join(tmp, 'server'), repos,
    ['--static', site, '--log', path.join(tmp, 'server.log')]);
  base = server.base;

  context = await launchChromium(path.join(tmp, 'user-data'));
  page = context.pages()[0] || await context.newPage();
  page.on('pageerror', (e) => pageErrors.push(`pageerror: ${e.message}`));
  page.on('console', (m) => { if (m.type() === 'error') pageErrors.push(`console: ${m.text()}`); });
  await load();
});

after(async () => {
  if (context) await context.close().catch(() => {});
  if (server) await server.stop();
  if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
});

// ---- the cases ------------------------------------------------------------------

test('browser: the package loads and no repository is stored yet', async () => {
  for (const fn of ['init', 'clone', 'resolveRef', 'readFile', 'listTree', 'listRepos', 'deleteRepo']) {
    assert.ok(await page.evaluate((f) => window.T.has(f), fn), `the package exports ${fn}${diag()}`);
  }
  assert.deepEqual(await listRepos(), []);
});

for (const name of SAMPLES) {
  test(`browser page: clone, read, reload, read from IndexedDB (${name})`, async () => {
    const dir = `/repos/${name}`;
    await inPage('clone', { url: repoUrl(name), dir });
    await checkReads('page', dir, name);
    const tree = await inPage('listTree', { dir, ref: 'main' });
    assert.deepEqual(tree.map((e) => `${e.mode} ${e.type} ${e.oid}\t${e.name}`),
      git(['--git-dir', gitDir(name), 'ls-tree', '-z', 'main']).split('\0').filter(Boolean));

    await reload();
    // no clone: the first use in this page loads the repository from IndexedDB
    await checkReads('page', dir, name, { refs: ['HEAD', 'v1.0', 'origin/dev'], files: 'v1.0' });
    assert.ok((await listRepos()).includes(dir), `listRepos lists ${dir}`);
  });
}

test('browser module worker: clone, read, reload, read again in the page and a new worker', async () => {
  const name = SAMPLES[1];
  const dir = `/repos/worker-${name}`;
  await inWorker('clone', { url: repoUrl(name), dir });
  await checkReads('worker', dir, name);
  assert.ok((await listRepos('worker')).includes(dir));

  await reload();   // ends the worker
  await checkReads('page', dir, name, { refs: ['HEAD', 'v1.0'] });
  await checkReads('worker', dir, name, { refs: ['main', 'v1.0'], files: 'v1.0' });
  assert.ok((await listRepos()).includes(dir), `listRepos lists ${dir}`);
});

test('browser: an aborted clone leaves nothing, an aborted fetch changes nothing', async (t) => {
  const a = '/repos/big-a', b = '/repos/big-b';
  await inPage('clone', { url: repoUrl('big-a'), dir: a });
  const refsA = {};
  for (const ref of ['HEAD', 'main', 'refs/remotes/origin/main']) refsA[ref] = await inPage('resolveRef', { dir: a, ref });
  assert.equal(refsA.main, revParse('big-a', 'main'));

  const cloneB = await page.evaluate(([url, dir]) => window.T.abortable('clone', { url, dir }, 1536 * 1024),
    [repoUrl('big-b'), b]);
  t.diagnostic(`clone B aborted by ${cloneB.seen.abortedBy} after ${cloneB.seen.progress} progress reports, ` +
    `${cloneB.seen.bytes} pack bytes`);
  assert.ok(cloneB.seen.abortedBy, 'the abort fired before the clone ended');
  assert.ok(cloneB.error, `the aborted clone rejected (it resolved)${diag()}`);
  assert.ok(cloneB.error.name === 'AbortError' || cloneB.error.code === 'ABORT_ERR' || cloneB.error.code === 'EABORT',
    `an AbortError: ${JSON.stringify(cloneB.error)}`);
  assert.ok(!(await listRepos()).includes(b), 'B is not listed right after the abort');

  let fetched = false;
  if (await page.evaluate(() => window.T.has('fetch'))) {
    growRepo(gitDir('big-a'), 150, 200);
    const fetchA = await page.evaluate((dir) => window.T.abortable('fetch', { dir }, 1024 * 1024), a);
    t.diagnostic(`fetch into A aborted by ${fetchA.seen.abortedBy} after ${fetchA.seen.progress} progress reports, ` +
      `${fetchA.seen.bytes} pack bytes`);
    assert.ok(fetchA.seen.abortedBy, 'the abort fired before the fetch ended');
    assert.ok(fetchA.error, `the aborted fetch rejected (it resolved)${diag()}`);
    assert.ok(fetchA.error.name === 'AbortError' || fetchA.error.code === 'ABORT_ERR' || fetchA.error.code === 'EABORT',
      `an AbortError: ${JSON.stringify(fetchA.error)}`);
    fetched = true;
    for (const [ref, oid] of Object.entries(refsA)) {
      assert.equal(await inPage('resolveRef', { dir: a, ref }), oid, `A's ${ref} is unchanged before a reload`);
    }
  } else {
    t.diagnostic('the API has no fetch() yet: the aborted fetch is not tested');
  }

  await reload();
  const list = await listRepos();
  assert.ok(list.includes(a), `A is listed: ${JSON.stringify(list)}`);
  assert.ok(!list.includes(b), `B is not listed: ${JSON.stringify(list)}`);
  await assert.rejects(inPage('resolveRef', { dir: b, ref: 'HEAD' }), (e) => {
    assert.ok(typeof e.code === 'string' && e.code.length > 0, e.message);
    return true;
  });
  for (const [ref, oid] of Object.entries(refsA)) {
    assert.equal(await inPage('resolveRef', { dir: a, ref }), oid, `A's ${ref} is unchanged`);
  }
  const readme = await inPage('readFile', { dir: a, ref: refsA.main, path: 'README.md' });
  assert.equal(Buffer.from(readme).toString(), 'version 199\n');
  const last = await inPage('readFile', { dir: a, path: 'data/07/blob-199.bin' });
  assert.ok(Buffer.from(last).equals(git(['--git-dir', gitDir('big-a'), 'show', `${refsA.main}:data/07/blob-199.bin`], { encoding: 'buffer' })));

  if (fetched) {
    // the aborted fetch left A able to fetch
    await inPage('fetch', { dir: a });
    assert.equal(await inPage('resolveRef', { dir: a, ref: 'refs/remotes/origin/main' }), revParse('big-a', 'main'));
    await reload();
    assert.equal(await inPage('resolveRef', { dir: a, ref: 'refs/remotes/origin/main' }), revParse('big-a', 'main'),
      'the fetch was saved');
  }
  // nothing was left at B: it can be cloned afresh
  await inPage('clone', { url: repoUrl('big-b'), dir: b, depth: 1 });
  assert.equal(await inPage('resolveRef', { dir: b, ref: 'HEAD' }), revParse('big-b', 'main'));
});

test('browser: cloning a missing repository rejects with a code and leaves nothing', async () => {
  const dir = '/repos/no-such-repo';
  await assert.rejects(inPage('clone', { url: repoUrl('no-such-repo'), dir }), (e) => {
    assert.equal(e.pageName, 'Error', 'an Error');
    assert.equal(e.code, 'ENOTFOUND', e.message);
    assert.match(e.message, /no-such-repo/);
    return true;
  });
  assert.ok(!(await listRepos()).includes(dir));
  await reload();
  assert.ok(!(await listRepos()).includes(dir));
  await assert.rejects(inPage('resolveRef', { dir, ref: 'HEAD' }), (e) => typeof e.code === 'string');
});

test('browser: diff in a blob-less clone equals git diff, its blobs in one fetch', async (t) => {
  const name = SAMPLES[0];
  const dir = `/repos/diff-${name}`;
  await inPage('clone', { url: repoUrl(name), dir, filter: 'blob:none', noCheckout: true });
  const to = git(['--git-dir', gitDir(name), 'rev-parse', 'main']).trim();
  const from = git(['--git-dir', gitDir(name), 'rev-list', '--max-parents=0', 'main']).trim().split('\n')[0];
  const r = await page.evaluate((o) => window.T.diffCounted(o), { dir, from, to, format: 'patch' });
  assert.ok(!r.error, JSON.stringify(r.error));
  assert.equal(r.ok, git(['--git-dir', gitDir(name), 'diff', from, to]));
  t.diagnostic(`${name}: diff ${from.slice(0, 7)}..${to.slice(0, 7)} in Chromium: ${r.requests.length} requests (${r.requests.join(', ')})`);
  assert.ok(r.requests.filter((m) => m === 'POST').length <= 1, r.requests.join(', '));
  // fetched once, kept in IndexedDB: no request the second time
  const again = await page.evaluate((o) => window.T.diffCounted(o), { dir, from, to, format: 'patch' });
  assert.equal(again.ok, r.ok);
  assert.deepEqual(again.requests, []);
  await inPage('deleteRepo', { dir });
});

test('browser: deleteRepo removes a repository from IndexedDB', async () => {
  const name = SAMPLES[0];
  const dir = `/repos/delete-${name}`;
  await inPage('clone', { url: repoUrl(name), dir, depth: 1 });
  assert.ok((await listRepos()).includes(dir));
  await inPage('deleteRepo', { dir });
  assert.ok(!(await listRepos()).includes(dir), 'not listed after deleteRepo');
  await assert.rejects(inPage('resolveRef', { dir, ref: 'HEAD' }), (e) => typeof e.code === 'string');
  await reload();
  assert.ok(!(await listRepos()).includes(dir), 'not listed after a reload');
  await assert.rejects(inPage('resolveRef', { dir, ref: 'HEAD' }), (e) => typeof e.code === 'string');
  // the other repositories are still there
  assert.ok((await listRepos()).includes(`/repos/${SAMPLES[1]}`));
});
