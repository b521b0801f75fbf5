// The web demo's forge preview (web-demo/forge/, marked and DOMPurify
// bundled by scripts/build-pages.sh) in Debian's Chromium, driven by
// playwright-core against the local Git server. Every view is checked
// against git on the server's repository and saved as a screenshot
// (build/screenshots/forge-NN-view.png): the tree with each entry's last
// commit (git last-modified, top level and a subdirectory), the README
// rendered with its hostile HTML removed and its images shown (the
// repository's from their blobs, another site's in the cross-origin
// isolated page), a file, an image file, its blame, the commit
// list, a commit's diff in unified and split views, and a comparison of
// two branches; and the request count the page shows equals the server's
// log, with no blob fetched before a page shows it.
//
//   WEBGIT_JS_DIR=build/wasm/js node --test tests/js/forge.test.mjs
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import { JS_DIR, ROOT, gitIn, launchChromium, makeTmp, startServerAt, writeFileIn } from './lib.mjs';
import { assertReadable } from './contrast.mjs';

const SHOTS = path.join(ROOT, 'build/screenshots');
let tmp;
let git;
let server;
let served;
let accessLog;
let context;
let page;
let shot = 0;
const pageErrors = [];

const serverGit = (args, opts) => git(['--git-dir', served, ...args], opts);
// A PNG of width x height (RGB, one colour), for the README's images.
function png(width, height) {
  const crcTable = Array.from({ length: 256 }, (_, n) => {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    return c >>> 0;
  });
  const crc = (buf) => {
    let c = 0xffffffff;
    for (const b of buf) c = crcTable[(c ^ b) & 0xff] ^ (c >>> 8);
    return (c ^ 0xffffffff) >>> 0;
  };
  const chunk = (type, data) => {
    const body = Buffer.concat([Buffer.from(type, 'latin1'), data]);
    const out = Buffer.alloc(body.length + 8);
    out.writeUInt32BE(data.length, 0);
    body.copy(out, 4);
    out.writeUInt32BE(crc(body), body.length + 4);
    return out;
  };
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0);
  ihdr.writeUInt32BE(height, 4);
  ihdr.set([8, 2, 0, 0, 0], 8);
  const row = Buffer.concat([Buffer.from([0]), Buffer.from(Array(width).fill([200, 60, 20]).flat())]);
  return Buffer.concat([Buffer.from([137, 80, 78, 71, 13, 10, 26, 10]), chunk('IHDR', ihdr),
    chunk('IDAT', zlib.deflateSync(Buffer.concat(Array(height).fill(row)))), chunk('IEND', Buffer.alloc(0))]);
}

// `other`: another origin's image (localhost, not 127.0.0.1), which the
// page shows although it is cross-origin isolated (COEP credentialless)
const README = (other) => `# Forge test

A *rendered* README with a [link](docs/guide.md), [a directory](src/),
[another](docs) and a list:

- one
- two

<script>window.PWNED = 1</script>
<img src="x" onerror="window.PWNED = 2">
<a href="javascript:window.PWNED = 3">bad link</a>

![the logo](docs/logo.png) ![missing](docs/none.png) ![badge](${other})

\`\`\`js
const x = 1;
\`\`\`
`;

before(() => {
  tmp = makeTmp('forge');
  git = gitIn(tmp);
  const repos = path.join(tmp, 'repos');
  fs.mkdirSync(repos);
  const images = path.join(tmp, 'images');
  fs.mkdirSync(images);
  fs.writeFileSync(path.join(images, 'badge.png'), png(5, 1));
  const pages = path.join(tmp, 'pages');
  execFileSync(path.join(ROOT, 'scripts/build-pages.sh'), [pages], { stdio: ['ignore', 'ignore', 'pipe'] });
  accessLog = path.join(tmp, 'access.log');
  // cross-origin isolated as scripts/demo.sh serves it: the forge's page
  // with COEP credentialless, the rest require-corp
  server = startServerAt(path.join(tmp, 'server'), repos, ['--static', path.join(ROOT, 'web-demo'),
    '--mount', `/webgit/=${JS_DIR}`, '--mount', `/forge/=${path.join(pages, 'forge')}`,
    '--mount', `/images/=${images}`, '--isolate', '--credentialless', '/forge/', '--log', accessLog]);
  const work = path.join(tmp, 'work');
  git(['init', '-q', '-b', 'main', work]);
  const write = (f, data) => writeFileIn(work, f, data);
  const commit = (msg) => {
    git(['-C', work, 'add', '-A']);
    git(['-C', work, 'commit', '-qm', msg]);
  };
  write('README.md', README(`${server.base.replace('127.0.0.1', 'localhost')}/images/badge.png`));
  fs.mkdirSync(path.join(work, 'docs'), { recursive: true });
  fs.writeFileSync(path.join(work, 'docs/logo.png'), png(2, 3));
  write('src/app.js', 'function main() {\n  return 1;\n}\n');
  write('src/lib/util.js', 'export const one = 1;\n');
  write('docs/guide.md', '# Guide\n');
  commit('Start');
  write('src/app.js', 'function main() {\n  return 2;\n}\n\nmain();\n');
  commit('app: return two and run');
  write('docs/guide.md', '# Guide\n\nMore.\n');
  commit('docs: more');
  git(['-C', work, 'branch', 'feature']);
  write('src/lib/util.js', 'export const one = 1;\nexport const two = 2;\n');
  commit('util: two');
  git(['-C', work, 'switch', '-q', 'feature']);
  write('src/app.js', 'function main() {\n  return 2;\n}\n\n// run it\nmain();\n');
  commit('feature: comment the call');
  write('src/new.js', 'export {};\n');
  commit('feature: a new file');
  git(['-C', work, 'switch', '-q', 'main']);
  served = path.join(repos, 'proj.git');
  git(['clone', '-q', '--bare', '--no-local', work, served]);
  git(['-C', served, 'fetch', '-q', work, 'feature:feature']);
  for (const key of ['allowFilter', 'allowAnySHA1InWant']) serverGit(['config', `uploadpack.${key}`, 'true']);
});

after(async () => {
  if (context) await context.close().catch(() => {});
  if (server) await server.stop();
  if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
});

async function step(name, fn) {
  try {
    await fn();
    fs.mkdirSync(SHOTS, { recursive: true });
    shot++;
    await page.screenshot({ path: path.join(SHOTS, `forge-${String(shot).padStart(2, '0')}-${name}.png`), fullPage: true });
  } catch (e) {
    let extra = '';
    try {
      extra = `\nmessage: ${await page.textContent('#message-text')}`;
      await page.screenshot({ path: path.join(SHOTS, 'forge-failure.png'), fullPage: true });
    } catch {
      // nothing more
    }
    e.message = `${name}: ${e.message}${extra}${pageErrors.length ? `\npage errors:\n  ${pageErrors.join('\n  ')}` : ''}`;
    throw e;
  }
}

// Go to a route and wait until its view is drawn.
async function show(hash) {
  await page.evaluate((h) => { document.getElementById('view').removeAttribute('data-ready'); location.hash = h; }, hash);
  await page.waitForSelector('#view[data-ready="true"]');
}

const gitRequests = () => fs.readFileSync(accessLog, 'utf8').split('\n').filter((l) => / \/git\//.test(l));
const shownRequests = () => page.$eval('#net', (e) => Number(e.dataset.requests));
const lastModified = (args) => serverGit(['last-modified', ...args]).trim().split('\n')
  .map((l) => l.split('\t')).map(([commit, p]) => [p, commit]);

test('forge preview: tree with last commits, README, file, blame, commits, diff views, compare', { timeout: 10 * 60000 }, async () => {
  context = await launchChromium(path.join(tmp, 'user-data'), { viewport: { width: 1300, height: 900 } });
  page = context.pages()[0] || await context.newPage();
  page.setDefaultTimeout(60000);
  page.on('pageerror', (e) => pageErrors.push(`pageerror: ${e.message}`));
  // a failed load of another site's resource is the browser's to report
  page.on('console', (m) => {
    if (m.type() === 'error' && !/^Failed to load resource/.test(m.text())) pageErrors.push(`console: ${m.text()}`);
  });
  const url = `${server.base}/git/proj.git`;

  await step('tree', async () => {
    await page.goto(`${server.base}/forge/?${new URLSearchParams({ url, ref: 'main', depth: '50' })}`);
    await page.waitForSelector('body[data-opened="true"]');
    await page.waitForSelector('#view[data-ready="true"]');
    const rows = await page.$$eval('table.entries tr', (l) => l.map((r) => [r.dataset.path, r.dataset.commit]));
    assert.deepEqual(new Map(rows), new Map(lastModified(['main'])), 'git last-modified main');
    assert.deepEqual(rows.map(([p]) => p), ['docs', 'src', 'README.md'], 'directories first');
    // the README, rendered and sanitised
    assert.equal(await page.textContent('article.readme h1'), 'Forge test');
    assert.equal(await page.$$eval('article.readme li', (l) => l.length), 2);
    assert.equal(await page.$$eval('article.readme script, article.readme [onerror]', (l) => l.length), 0);
    assert.equal(await page.$$eval('article.readme a[href^="javascript:"]', (l) => l.length), 0);
    assert.equal(await page.evaluate(() => window.PWNED), undefined);
    assert.equal(await page.getAttribute('article.readme a[href*="guide"]', 'href'), '#/blob/docs/guide.md',
      'a link to a file of the repository opens it here');
    assert.equal(await page.getAttribute('article.readme a[href*="src"]', 'href'), '#/tree/src');
    assert.equal(await page.getAttribute('article.readme a:text("another")', 'href'), '#/blob/docs');
    // its images: the repository's own from its blob, a missing one with
    // its alt text and no request to the page's server, another site's as
    // it is, all in a cross-origin isolated page
    assert.equal(await page.evaluate(() => crossOriginIsolated), true);
    const images = () => page.$$eval('article.readme img', (l) => l.map((i) => ({
      alt: i.alt, src: i.getAttribute('src') ?? '', path: i.dataset.path ?? '', w: i.naturalWidth, h: i.naturalHeight,
    })));
    await page.waitForFunction(() => [...document.querySelectorAll('article.readme img')].every((i) => i.complete));
    const [logo, missing, badge, ...rest] = (await images()).filter((i) => i.alt !== '');
    assert.deepEqual(rest, []);
    assert.match(logo.src, /^blob:/);
    assert.deepEqual([logo.path, logo.w, logo.h], ['docs/logo.png', 2, 3]);
    assert.deepEqual([missing.src, missing.w], ['', 0]);
    assert.match(badge.src, /^http:\/\/localhost:\d+\/images\/badge\.png$/);
    assert.deepEqual([badge.w, badge.h], [5, 1], 'another site\'s image loads (COEP credentialless)');
    assert.equal(await page.getAttribute('#tab-tree', 'aria-current'), 'page');
    // what it cost: the clone (discovery, ls-refs, fetch) and one fetch
    // each of the README's blob and of its image; the page counts what the
    // server logged
    const logged = gitRequests();
    assert.equal(await shownRequests(), logged.length, logged.join('\n'));
    assert.equal(logged.filter((l) => l.startsWith('POST')).length, 4, logged.join('\n'));
    const n = await assertReadable(page, 'the tree with its README');
    assert.ok(n.light > 15 && n.dark > 15, `text checked: ${JSON.stringify(n)}`);
  });

  await step('subdirectory', async () => {
    await show('#/tree/src');
    const rows = await page.$$eval('table.entries tr', (l) => l.map((r) => [r.dataset.path, r.dataset.commit]));
    const expected = lastModified(['-r', '-t', 'main', '--', 'src/']).filter(([p]) => p.split('/').length === 2);
    assert.deepEqual(new Map(rows), new Map(expected));
    assert.deepEqual(rows.map(([p]) => p), ['src/lib', 'src/app.js']);
  });

  await step('file', async () => {
    const before = gitRequests().length;
    await show('#/blob/src/app.js');
    assert.deepEqual(await page.$$eval('table.code tr td:last-child', (l) => l.map((e) => e.textContent)),
      serverGit(['show', 'main:src/app.js']).replace(/\n$/, '').split('\n'));
    assert.equal(gitRequests().length - before, 2, 'the file\'s blob: one fetch (GET and POST)');
    assert.equal(await shownRequests(), gitRequests().length);
  });

  await step('directory-link', async () => {
    // "docs" without its slash is a directory: its page shows it
    await show('#/blob/docs');
    assert.equal(await page.evaluate(() => location.hash), '#/tree/docs');
    assert.deepEqual(await page.$$eval('table.entries tr', (l) => l.map((r) => r.dataset.path)),
      ['docs/guide.md', 'docs/logo.png']);
  });

  await step('image', async () => {
    await show('#/blob/docs/logo.png');
    await page.waitForFunction(() => document.querySelector('.box.image img')?.complete);
    assert.deepEqual(await page.$eval('.box.image img', (i) => [i.src.slice(0, 5), i.naturalWidth, i.naturalHeight]),
      ['blob:', 2, 3]);
  });

  await step('blame', async () => {
    await show('#/blame/src/app.js');
    const ours = await page.$$eval('table.blame tr', (l) => l.map((r) => [Number(r.dataset.line), r.dataset.commit]));
    const porcelain = serverGit(['blame', '--porcelain', 'main', '--', 'src/app.js']);
    const theirs = [...porcelain.matchAll(/^([0-9a-f]{40}) \d+ (\d+)/gm)].map((m) => [Number(m[2]), m[1]]);
    assert.deepEqual(ours, theirs);
    await assertReadable(page, 'the blame view');
  });

  await step('commits', async () => {
    await show('#/commits');
    assert.deepEqual(await page.$$eval('table.commits tr', (l) => l.map((r) => r.dataset.commit)),
      serverGit(['rev-list', 'main']).trim().split('\n'));
  });

  const oid = serverGit(['rev-parse', 'main~2']).trim();
  const numstat = (args) => serverGit(['diff', '--numstat', ...args]).trim().split('\n')
    .map((l) => l.split('\t')).map(([a, d, p]) => [p, a, d]);
  await step('commit-unified', async () => {
    await show(`#/commit/${oid}`);
    assert.equal(await page.textContent('#view h2'), 'app: return two and run');
    assert.deepEqual(await page.$$eval('.diff-file', (l) => l.map((b) => [b.dataset.path, b.dataset.additions, b.dataset.deletions])),
      numstat([`${oid}~1`, oid]));
    const lines = await page.$$eval('.diff-file tr.add td:last-child', (l) => l.map((e) => e.textContent));
    assert.deepEqual(lines, ['+  return 2;', '+', '+main();']);
  });

  await step('commit-split', async () => {
    await page.click('#view-split');
    await page.waitForFunction(() => location.hash.endsWith('?view=split') && document.getElementById('view').dataset.ready);
    const pairs = await page.$$eval('.diff-file tr:not(.hunk)', (l) => l.map((r) => [...r.cells].map((c) => c.textContent)));
    assert.ok(pairs.every((cells) => cells.length === 4), 'two sides');
    assert.deepEqual(pairs.find((c) => c[1] === '  return 1;'), ['2', '  return 1;', '2', '  return 2;'],
      'the changed line beside its replacement');
    await assertReadable(page, 'the split diff');
  });

  await step('compare', async () => {
    await show('#/compare/main...feature');
    const [behind, ahead] = serverGit(['rev-list', '--left-right', '--count', 'main...feature']).trim().split(/\s+/);
    assert.equal(await page.$eval('#compare-summary', (e) => e.dataset.ahead), ahead);
    assert.equal(await page.$eval('#compare-summary', (e) => e.dataset.behind), behind);
    assert.deepEqual(await page.$$eval('table.commits tr', (l) => l.map((r) => r.dataset.commit)),
      serverGit(['rev-list', 'main..feature']).trim().split('\n'));
    assert.deepEqual(await page.$$eval('.diff-file', (l) => l.map((b) => [b.dataset.path, b.dataset.additions, b.dataset.deletions])),
      numstat(['main...feature']));
    assert.equal(await shownRequests(), gitRequests().length, 'every request counted');
    await assertReadable(page, 'the compare view');
  });
  assert.deepEqual(pageErrors, []);
});
