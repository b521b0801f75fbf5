// Credentials in a browser (Debian's Chromium through playwright-core, as
// browser.test.mjs): a clone, fetch and push with http://alice:SECRET...@
// in the URL against a Git server on another origin that wants Basic auth
// for every request (--auth-all, --cors), then a dump of every IndexedDB
// database of the page (where the repositories live) and every progress
// event and error message: none holds the secret. A wrong password, a
// missing repository and a redirect to a third origin fail cleanly; that
// redirect reaches the third origin without the Authorization header.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import {
  JS_DIR, SAMPLES, gitIn, launchChromium, makeRepos, makeTmp, startServerAt,
} from './lib.mjs';

const PW = 'SECRET-browser-5';
let tmp;
let git;
let repos;
let site;          // serves the page (no auth)
let gitServer;     // another origin: the repositories, Basic auth for everything
let spy;           // a third origin: where /redirect/ leads
const spied = [];
let context;
let page;
const pageErrors = [];
const name = SAMPLES[0];

const PAGE_JS = `import * as wg from '/pkg/index.js';
const events = [];
window.T = {
  events,
  async call(fn, opts) {
    try {
      return { ok: await wg[fn]({ ...opts, onProgress: (p) => events.push(JSON.stringify(p)) }) };
    } catch (e) {
      return { error: { name: e && e.name, code: e && e.code, message: String(e && e.message),
        cause: String(e && e.cause && e.cause.message) } };
    }
  },
  async listRemoteRefs(url) {
    try { return { ok: await wg.listRemoteRefs(url) }; }
    catch (e) { return { error: { code: e && e.code, message: String(e && e.message) } }; }
  },
  // Every record of every IndexedDB database, as text: file contents as
  // latin1, so a search for an ASCII secret finds it wherever it is.
  async dumpIndexedDB() {
    const text = (v) => {
      if (ArrayBuffer.isView(v) || v instanceof ArrayBuffer) {
        // IDBFS keeps file contents in typed arrays (not always Uint8Array)
        const b = ArrayBuffer.isView(v) ? new Uint8Array(v.buffer, v.byteOffset, v.byteLength) : new Uint8Array(v);
        let s = '';
        for (let i = 0; i < b.length; i += 8192) s += String.fromCharCode(...b.subarray(i, i + 8192));
        return s;
      }
      if (v && typeof v === 'object') return Object.entries(v).map(([k, x]) => k + '=' + text(x)).join('\\n');
      return String(v);
    };
    const out = [];
    for (const { name } of await indexedDB.databases()) {
      const db = await new Promise((res, rej) => { const r = indexedDB.open(name); r.onsuccess = () => res(r.result); r.onerror = () => rej(r.error); });
      for (const store of db.objectStoreNames) {
        const tx = db.transaction(store, 'readonly').objectStore(store);
        const [keys, values] = await Promise.all([tx.getAllKeys(), tx.getAll()].map((r) => new Promise((res) => { r.onsuccess = () => res(r.result); })));
        keys.forEach((k, i) => out.push('db ' + name + ' ' + store + ' ' + text(k) + '\\n' + text(values[i])));
      }
      db.close();
    }
    return out.join('\\n');
  },
};
`;

async function call(fn, opts) {
  const r = await page.evaluate(([f, o]) => window.T.call(f, o), [fn, opts]);
  if (r.error) {
    throw Object.assign(new Error(`${fn}: ${r.error.code} ${r.error.message}`), { code: r.error.code, page: r.error });
  }
  return r.ok;
}

const messages = [];
async function rejectsClean(promise, code) {
  await assert.rejects(promise, (e) => {
    messages.push(`${e.page?.message} ${e.page?.cause}`);
    if (code) assert.equal(e.code, code, e.message);
    assert.ok(!e.page.message.includes('SECRET'), `the message holds the secret: ${e.page.message}`);
    assert.ok(!e.page.cause.includes('SECRET'), `the cause holds the secret: ${e.page.cause}`);
    return true;
  });
}

before(async () => {
  assert.ok(fs.existsSync(path.join(JS_DIR, 'index.js')), `no index.js in WEBGIT_JS_DIR=${JS_DIR}`);
  tmp = makeTmp('browser-creds');
  git = gitIn(tmp);
  repos = makeRepos(path.join(tmp, 'repos'));
  const dir = path.join(tmp, 'site');
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(path.join(dir, 'index.html'),
    '<!doctype html><meta charset="utf-8"><link rel="icon" href="data:,"><script type="module" src="/page.mjs"></script>\n');
  fs.writeFileSync(path.join(dir, 'page.mjs'), PAGE_JS);
  fs.cpSync(JS_DIR, path.join(dir, 'pkg'), { recursive: true, dereference: true });
  spy = http.createServer((req, res) => {
    if (req.method !== 'OPTIONS') spied.push({ url: req.url, authorization: req.headers.authorization ?? null });
    req.resume();
    res.writeHead(req.method === 'OPTIONS' ? 204 : 404, {
      'Access-Control-Allow-Origin': req.headers.origin || '*',
      'Access-Control-Allow-Headers': req.headers['access-control-request-headers'] || '*',
      'Access-Control-Allow-Methods': 'GET, POST',
    }).end();
  });
  await new Promise((r) => spy.listen(0, '127.0.0.1', r));
  site = startServerAt(path.join(tmp, 'site-server'), repos, ['--static', dir]);
  gitServer = startServerAt(path.join(tmp, 'git-server'), repos, ['--auth', `alice:${PW}`, '--auth-all', '--cors',
    '--redirect-to', `http://127.0.0.1:${spy.address().port}`]);
  context = await launchChromium(path.join(tmp, 'user-data'));
  page = context.pages()[0] || await context.newPage();
  page.on('pageerror', (e) => pageErrors.push(`pageerror: ${e.message}`));
  await page.goto(`${site.base}/`);
  await page.waitForFunction(() => window.T, null, { timeout: 20000 });
});

after(async () => {
  if (context) await context.close().catch(() => {});
  if (site) await site.stop();
  if (gitServer) await gitServer.stop();
  spy?.close();
  if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
});

test('browser: credentials in the URL authenticate clone, fetch and push, and IndexedDB holds none', async () => {
  const host = gitServer.base.replace('http://', '');
  const plain = `${gitServer.base}/git/${name}.git`;
  const url = `http://alice:${PW}@${host}/git/${name}.git`;
  const dir = '/repos/creds';
  const remoteDir = path.join(repos, `${name}.git`);

  await rejectsClean(call('clone', { url: plain, dir: '/repos/none' }), 'EAUTH');
  await call('clone', { url, dir });
  const main = git(['-C', remoteDir, 'rev-parse', 'main']).trim();
  assert.equal(await call('resolveRef', { dir, ref: 'refs/remotes/origin/main' }), main);
  const tree = git(['-C', remoteDir, 'rev-parse', 'main^{tree}']).trim();
  const next = git(['-C', remoteDir, 'commit-tree', tree, '-p', main, '-m', 'browser next']).trim();
  git(['-C', remoteDir, 'update-ref', 'refs/heads/b-next', next]);
  await call('fetch', { dir, remote: url, refspecs: ['b-next:refs/heads/b-fetched'] });
  assert.equal(await call('resolveRef', { dir, ref: 'refs/heads/b-fetched' }), next);
  const c = await call('commit', {
    dir, ref: 'refs/heads/b-push', tree, parents: [next], message: 'from the browser',
    author: { name: 'B', email: 'b@example.com', timestamp: 1700000000, timezone: '+0000' },
  });
  const pushed = await call('push', { dir, remote: url, refspecs: ['b-push:refs/heads/b-by-url'] });
  assert.equal(pushed.ok, true);
  assert.equal(git(['-C', remoteDir, 'rev-parse', 'refs/heads/b-by-url']).trim(), c);

  // failures
  await rejectsClean(call('clone', { url: `http://alice:WRONG-SECRET-6@${host}/git/${name}.git`, dir: '/repos/wrong' }), 'EAUTH');
  await rejectsClean(call('fetch', { dir, remote: `http://alice:WRONG-SECRET-7@${host}/git/${name}.git` }), 'EAUTH');
  await rejectsClean(call('clone', { url: `http://alice:${PW}@${host}/git/no-such.git`, dir: '/repos/missing' }), 'ENOTFOUND');
  await rejectsClean(call('fetch', { dir }), 'EAUTH');   // nothing was kept for origin

  // a redirect to a third origin: refused, and what got there had no Authorization
  spied.length = 0;
  await rejectsClean(call('clone', { url: `http://alice:${PW}@${host}/redirect/${name}.git`, dir: '/repos/cross' }));
  assert.ok(spied.every((s) => s.authorization === null), `the third origin saw ${JSON.stringify(spied)}`);

  const dump = await page.evaluate(() => window.T.dumpIndexedDB());
  // the dump has the repository's files (the check can fail)
  assert.ok(dump.includes(`url = ${plain}`), 'the config, with the URL without credentials, is in the dump');
  assert.ok(dump.includes('refs/heads/b-fetched') || dump.includes('b-fetched'), 'the fetched ref is in the dump');
  assert.ok(!dump.includes('SECRET'), 'IndexedDB holds the secret');
  assert.ok(!dump.includes(Buffer.from(`alice:${PW}`).toString('base64')), 'IndexedDB holds the Basic header');
  const events = await page.evaluate(() => window.T.events);
  assert.ok(events.length > 0, 'progress events were seen');
  assert.deepEqual(events.filter((e) => e.includes('SECRET')), []);
  assert.deepEqual(messages.filter((m) => m.includes('SECRET')), []);
  assert.deepEqual(pageErrors, []);
});
