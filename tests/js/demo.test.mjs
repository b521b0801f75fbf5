// The web demo (web-demo/) in a browser: Debian's Chromium
// (/usr/bin/chromium, headless) driven by playwright-core from
// tests/node_modules, against the local Git HTTP server serving the demo
// as scripts/demo.sh does (--static web-demo --mount /webgit/=<package>).
//
//   WEBGIT_JS_DIR=build/demo-wasm/js node --test tests/js/demo.test.mjs
//
// The flow a person follows: open the page, clone the default sample
// repository and watch the progress bar finish, pick a ref, open a
// directory, open a file (its text must equal `git show <ref>:<path>` from
// the reference git), reload, and find the repository, the ref and the file
// still shown, read from IndexedDB without cloning again. A clone of a
// missing repository must show its error code. Leaves a screenshot in
// build/screenshots/demo.png. The browser runs on a fresh persistent
// user-data-dir (so IndexedDB survives the reload); no browser is ever
// downloaded, and without /usr/bin/chromium the test fails.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { JS_DIR, ROOT, gitIn, launchChromium, makeTmp, startServer } from './lib.mjs';
import { assertReadable } from './contrast.mjs';

const DEMO = path.join(ROOT, 'web-demo');
const SHOTS = path.join(ROOT, 'build/screenshots');
const SHOT = path.join(SHOTS, 'demo.png');

const REPO = 'sample-sha1-files';   // the page's default URL
const REF = 'refs/tags/v1.0';       // the ref the test picks
const STEP_MS = 120000;             // any one wait (the machine is slow)

let tmp;
let git;           // the reference git
let server;        // { base, repos, stop }
let base;
let context;
let page;
const pageErrors = [];

const serverGit = (args, opts) => git(['--git-dir', path.join(server.repos, `${REPO}.git`), ...args], opts);

// What the page showed, for failure messages.
async function pageState() {
  if (!page) return '';
  try {
    const s = await page.evaluate(() => ({
      message: document.getElementById('message')?.hidden ? null : document.getElementById('message-text')?.textContent,
      progress: `${document.getElementById('progress')?.dataset.state}: ${document.getElementById('progress-text')?.textContent}`,
      status: document.getElementById('status')?.textContent,
      file: { ...document.getElementById('file-body')?.dataset },
    }));
    return `\npage: ${JSON.stringify(s)}` + (pageErrors.length ? `\npage errors:\n  ${pageErrors.join('\n  ')}` : '');
  } catch (e) {
    return `\n(page state unavailable: ${e.message})`;
  }
}

// Run one step of the flow; a failure says which step, what the page
// showed, and leaves a screenshot.
async function step(name, fn) {
  try {
    return await fn();
  } catch (e) {
    const extra = await pageState();
    try {
      fs.mkdirSync(SHOTS, { recursive: true });
      await page?.screenshot({ path: path.join(SHOTS, 'demo-failure.png'), fullPage: true });
    } catch {
      // no screenshot then
    }
    e.message = `${name}: ${e.message}${extra}`;
    throw e;
  }
}

// A text file of REF in a subdirectory (two levels deep when there is one):
// the file the test opens.
function pickFile() {
  const lines = serverGit(['ls-tree', '-r', '-z', '--format=%(objectmode) %(objectsize) %(path)', REF])
    .split('\0').filter(Boolean);
  const candidates = [];
  for (const line of lines) {
    const [mode, size, ...rest] = line.split(' ');
    const p = rest.join(' ');
    if (mode !== '100644' || Number(size) === 0 || !p.includes('/') || /\s/.test(p)) continue;
    const bytes = serverGit(['cat-file', 'blob', `${REF}:${p}`], { encoding: 'buffer' });
    if (bytes.includes(0)) continue;
    candidates.push(p);
  }
  assert.ok(candidates.length > 0, `no text file in a directory at ${REF}`);
  return candidates.find((p) => p.split('/').length === 3) || candidates[0];
}

before(async () => {
  tmp = makeTmp('demo');
  git = gitIn(tmp);
  // cross-origin isolated, as scripts/demo.sh serves it: the threaded module
  server = startServer(tmp, ['--static', DEMO, '--mount', `/webgit/=${JS_DIR}`, '--isolate',
    '--log', path.join(tmp, 'access.log')]);
  base = server.base;
});

after(async () => {
  if (context) await context.close().catch(() => {});
  if (server) await server.stop();
  if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
});

test('web demo: clone, pick a ref, browse, read a file, reload (IndexedDB)', { timeout: 15 * 60000 }, async (t) => {
  // --- what it needs: a fail, never a skip --------------------------------------
  for (const f of ['index.js', 'webgit.mjs', 'webgit.wasm']) {
    assert.ok(fs.existsSync(path.join(JS_DIR, f)), `no ${f} in WEBGIT_JS_DIR=${JS_DIR} (build the JS package first)`);
  }
  context = await launchChromium(path.join(tmp, 'user-data'), {
    viewport: { width: 1440, height: 900 },
    timeout: STEP_MS,
  });
  page = context.pages()[0] || await context.newPage();
  page.setDefaultTimeout(STEP_MS);
  page.setDefaultNavigationTimeout(STEP_MS);
  page.on('pageerror', (e) => pageErrors.push(`pageerror: ${e.message}`));
  page.on('console', (m) => { if (m.type() === 'error') pageErrors.push(`console: ${m.text()}`); });

  const defaultUrl = `${base}/git/${REPO}.git`;
  const dir = `/repos/${REPO}`;
  const commit = serverGit(['rev-parse', `${REF}^{commit}`]).trim();
  const file = pickFile();
  const expected = serverGit(['show', `${REF}:${file}`]);
  t.diagnostic(`file: ${REF}:${file} (${expected.length} characters)`);

  await step('open the demo', async () => {
    await page.goto(`${base}/`);
    await page.waitForSelector('body[data-ready="true"]');
    assert.equal(await page.inputValue('#url'), defaultUrl, 'the URL field defaults to the sample repository');
    assert.match(await page.textContent('#status'), /Web Worker/, 'webgit runs in a worker');
    // served cross-origin isolated: the threaded module (two cores or more)
    assert.equal(await page.evaluate(() => crossOriginIsolated), true);
    const cores = await page.evaluate(() => navigator.hardwareConcurrency);
    if (cores >= 2) assert.match(await page.textContent('#status'), /with \d+ threads/, 'the threaded module');
    assert.ok(await page.isVisible('#empty'), 'a fresh browser has no repository yet');
  });

  await step('a clone of a missing repository shows its error', async () => {
    await page.fill('#url', `${base}/git/no-such-repo.git`);
    await page.click('#clone');
    await page.waitForSelector('#progress[data-state="failed"]');
    await page.waitForSelector('#message:not([hidden])');
    assert.equal(await page.getAttribute('#message', 'data-kind'), 'error');
    assert.equal(await page.textContent('#message .code'), 'ENOTFOUND');
    assert.match(await page.textContent('#message-text'), /no-such-repo/);
    await page.fill('#url', defaultUrl);
  });

  await step('clone the default repository; the progress bar finishes', async () => {
    const states = [];
    await page.exposeFunction('__progressState', (s) => states.push(s));
    await page.evaluate(() => {
      new MutationObserver(() => window.__progressState(document.getElementById('progress-text').textContent))
        .observe(document.getElementById('progress'), { subtree: true, childList: true, characterData: true, attributes: true });
    });
    await page.click('#clone');
    await page.waitForSelector('#progress:is([data-state="done"], [data-state="failed"], [data-state="aborted"])');
    assert.equal(await page.getAttribute('#progress', 'data-state'), 'done');
    assert.ok(await page.isHidden('#message'), 'no error after the clone');
    const bar = await page.evaluate(() => {
      const b = document.getElementById('progress-bar');
      return { value: b.value, max: b.max, position: b.position };
    });
    assert.equal(bar.position, 1, `the progress bar is full: ${JSON.stringify(bar)}`);
    assert.match(await page.textContent('#progress-text'), /^cloned /);
    assert.ok(states.some((s) => /objects/i.test(s)), `progress was shown on the way: ${JSON.stringify(states.slice(0, 20))}`);
    t.diagnostic(`progress texts: ${states.length}, e.g. ${JSON.stringify(states.filter((s) => /%/.test(s)).slice(-2))}`);
  });

  await step('the repository opens at its HEAD branch', async () => {
    await page.waitForSelector('#tree > li[data-path]');
    assert.equal(await page.inputValue('#repo-select'), dir);
    assert.equal(await page.inputValue('#ref-select'), 'refs/heads/main');
    const rootNames = await page.$$eval('#tree > li[data-path]', (lis) => lis.map((li) => li.dataset.path).sort());
    const expectedRoot = serverGit(['ls-tree', '-z', '--name-only', 'main']).split('\0').filter(Boolean).sort();
    assert.deepEqual(rootNames, expectedRoot, 'the tree shows the root of main');
  });

  await step(`pick the ref ${REF}`, async () => {
    const options = await page.$$eval('#ref-select option', (os) => os.map((o) => o.value));
    for (const r of ['refs/heads/main', 'refs/remotes/origin/dev', 'refs/tags/v1.0', 'refs/tags/v0.1-light']) {
      assert.ok(options.includes(r), `the ref picker offers ${r}: ${options.join(' ')}`);
    }
    await page.selectOption('#ref-select', REF);
    await page.waitForFunction((c) => document.getElementById('ref-oid').title === `commit ${c}`, commit);
    await page.waitForSelector('#tree > li[data-path]');
    await page.waitForSelector(`#log li[data-oid="${commit}"]`);
    assert.equal(await page.getAttribute('#log li[data-oid]', 'data-oid'), commit, 'the log starts at the ref');
  });

  const parts = file.split('/');
  await step(`open the directories of ${file}`, async () => {
    for (let i = 1; i < parts.length; i++) {
      const d = parts.slice(0, i).join('/');
      await page.click(`#tree li[data-path="${d}"] > .entry`);
      await page.waitForSelector(`#tree li[data-path="${d}"][aria-expanded="true"] > ul > li[data-path]`);
    }
    const d = parts.slice(0, -1).join('/');
    const shown = await page.$$eval(`#tree li[data-path="${d}"] > ul > li[data-path]`, (lis) => lis.map((li) => li.dataset.path).sort());
    const listed = serverGit(['ls-tree', '-z', '--name-only', `${REF}:${d}`]).split('\0').filter(Boolean)
      .map((n) => `${d}/${n}`).sort();
    assert.deepEqual(shown, listed, `the entries of ${d}`);
  });

  const fileShown = `#file-body[data-state="loaded"][data-path="${file}"]`;
  await step(`open ${file}: its text is git show ${REF}:${file}`, async () => {
    await page.click(`#tree li[data-path="${file}"] > .entry`);
    await page.waitForSelector(fileShown);
    assert.equal(await page.getAttribute('#file-body', 'data-kind'), 'text');
    assert.equal(await page.textContent('#file-content'), expected);
  });

  // Every request from here on: a reload must not clone again.
  const requests = [];
  page.on('request', (r) => requests.push(r));

  await step('reload: the repository, the ref and the file are still shown', async () => {
    await page.reload();
    await page.waitForSelector('body[data-ready="true"]');
    await page.waitForSelector(fileShown);
    assert.equal(await page.inputValue('#repo-select'), dir);
    assert.equal(await page.inputValue('#ref-select'), REF);
    assert.equal(await page.textContent('#file-content'), expected);
    assert.ok(await page.isHidden('#message'), `no message after the reload: ${await page.textContent('#message-text')}`);
    for (let i = 1; i < parts.length; i++) {
      const d = parts.slice(0, i).join('/');
      assert.equal(await page.getAttribute(`#tree li[data-path="${d}"]`, 'aria-expanded'), 'true', `${d} is still open`);
    }
  });

  await step('the reload read IndexedDB, not the network', async () => {
    const dbs = await page.evaluate(async () => (await indexedDB.databases()).map((d) => d.name));
    assert.ok(dbs.includes(dir), `IndexedDB holds ${dir}: ${JSON.stringify(dbs)}`);
    const fetches = requests.filter((r) => {
      if (r.method() !== 'POST' || !r.url().includes('/git/')) return false;
      const body = r.postDataBuffer();
      return !body || body.includes('command=fetch') || body.includes('want ');
    });
    assert.deepEqual(fetches.map((r) => r.url()), [], 'no clone or fetch after the reload');
    t.diagnostic(`git requests after the reload: ${requests.filter((r) => r.url().includes('/git/')).length}`);
  });

  await step('contrast', async () => {
    const n = await assertReadable(page, 'the demo with a file open');
    assert.ok(n.light > 10 && n.dark > 10, `text checked: ${JSON.stringify(n)}`);
  });

  await step('screenshot', async () => {
    fs.mkdirSync(SHOTS, { recursive: true });
    await page.screenshot({ path: SHOT, fullPage: true });
    assert.ok(fs.statSync(SHOT).size > 1000);
    t.diagnostic(`screenshot: ${SHOT}`);
    console.log(`screenshot: ${SHOT}`);
  });

  assert.deepEqual(pageErrors.filter((e) => e.startsWith('pageerror')), [], 'no uncaught errors in the page');
});
