// A test site for Chromium: a page and a module Worker that call the
// package (served at /pkg/ from a copy of WEBGIT_JS_DIR) on behalf of the
// test, beside the repositories the local Git server serves, so that both
// share an origin. Every call settles to a value or to an Error carrying
// the page's name, code and message (an Error's own fields do not survive
// page.evaluate).
import fs from 'node:fs';
import path from 'node:path';
import { JS_DIR, launchChromium, startServerAt } from './lib.mjs';

// What a call returns, with an async iterator (log) collected into an
// array: only plain values cross to the test.
const SETTLE_JS = `async function settle(r) {
  if (r && typeof r[Symbol.asyncIterator] === 'function') { const all = []; for await (const x of r) all.push(x); return all; }
  return r;
}
`;

const PAGE_JS = `import * as wg from '/pkg/index.js';
${SETTLE_JS}const wrap = (e) => ({ name: e && e.name, code: e && e.code, message: String(e && e.message !== undefined ? e.message : e) });
async function call(fn, opts) {
  try { return { ok: await settle(await wg[fn](opts)) }; } catch (e) { return { error: wrap(e) }; }
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
window.T = { call, inWorker };
`;

const WORKER_JS = `import * as wg from '/pkg/index.js';
${SETTLE_JS}self.onmessage = async ({ data: { id, fn, opts } }) => {
  try { self.postMessage({ id, ok: await settle(await wg[fn](opts)) }); }
  catch (e) { self.postMessage({ id, error: { name: e && e.name, code: e && e.code, message: String(e && e.message) } }); }
};
`;

const INDEX_HTML = `<!doctype html>
<meta charset="utf-8">
<title>webgit browser test</title>
<link rel="icon" href="data:,">
<script type="module" src="/page.mjs"></script>
`;

/**
 * Serve the repositories in `repos` and the test site from `tmp`, open
 * Chromium on it; returns { base, page, call(where, fn, opts), reload(),
 * close() } where `where` is 'page' or 'worker'. `serverArgs` are extra
 * server options (e.g. --log FILE).
 */
export async function openTestSite(tmp, repos, serverArgs = []) {
  const site = path.join(tmp, 'site');
  fs.mkdirSync(site, { recursive: true });
  fs.writeFileSync(path.join(site, 'index.html'), INDEX_HTML);
  fs.writeFileSync(path.join(site, 'page.mjs'), PAGE_JS);
  fs.writeFileSync(path.join(site, 'worker.mjs'), WORKER_JS);
  // a copy: the server refuses symlinks that lead out of its directory
  fs.cpSync(JS_DIR, path.join(site, 'pkg'), { recursive: true, dereference: true });
  const server = startServerAt(path.join(tmp, 'server'), repos, ['--static', site, ...serverArgs]);
  const errors = [];
  let context;
  try {
    context = await launchChromium(path.join(tmp, 'user-data'));
  } catch (e) {
    await server.stop();
    throw e;
  }
  const page = context.pages()[0] || await context.newPage();
  page.on('pageerror', (e) => errors.push(`pageerror: ${e.message}`));
  page.on('console', (m) => { if (m.type() === 'error') errors.push(`console: ${m.text()}`); });
  const diag = () => (errors.length ? `\npage errors:\n  ${errors.join('\n  ')}` : '');
  const waitForPage = async () => {
    try {
      await page.waitForFunction(() => window.T, null, { timeout: 20000 });
    } catch (e) {
      throw new Error(`the test page did not load: ${e.message}${diag()}`);
    }
  };
  await page.goto(`${server.base}/`);
  await waitForPage();
  return {
    base: server.base,
    page,
    async call(where, fn, opts) {
      const r = await page.evaluate(([w, f, o]) => (w === 'worker' ? window.T.inWorker(f, o) : window.T.call(f, o)),
        [where, fn, opts]);
      if (r.error) {
        throw Object.assign(new Error(`${where} ${fn}(${JSON.stringify(opts)}): ${r.error.code} ${r.error.message}${diag()}`),
          { code: r.error.code, pageName: r.error.name });
      }
      return r.ok;
    },
    async reload() {
      await page.reload();
      await waitForPage();
    },
    async close() {
      if (context) await context.close().catch(() => {});
      await server.stop();
    },
  };
}
