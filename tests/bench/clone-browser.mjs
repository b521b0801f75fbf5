#!/usr/bin/env node
// tests/bench/clone-browser.mjs — webgit's clone in a Chromium Web Worker,
// beside `git clone --no-checkout` of the same repository from the same
// local server (a benchmark, not a test).
//
//   node tests/bench/clone-browser.mjs REPOS_DIR NAME [--runs N] [--js-dir DIR]
//        [--no-isolate] [--storage idb|memory] [--filter SPEC]
//
// REPOS_DIR holds NAME.git (e.g. scripts/gen-history-repo.sh's
// history.git). The page is served cross-origin isolated (COOP + COEP), so
// webgit loads its threaded module there; --no-isolate serves it without,
// and the single-threaded module loads. Each run is a new Worker (a new
// module instance) cloning into a new directory of --storage (default idb:
// IndexedDB, as the demo keeps repositories). Debian's Chromium, headless,
// through playwright-core from tests/node_modules; no browser is ever
// downloaded.
//
// Prints one line per run and the medians:
//   run 1: git 1.91 s  webgit 2.35 s (load 0.21 s, threads 2)
//   median: git 1.93 s  webgit 2.31 s  ratio 1.20  (threads 2, storage idb)
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { performance } from 'node:perf_hooks';
import { JS_DIR as DEFAULT_JS_DIR, GIT, makeTmp, startServerAt, launchChromium } from '../js/lib.mjs';

function usage(msg) {
  if (msg) process.stderr.write(`clone-browser: ${msg}\n`);
  process.stderr.write('usage: clone-browser.mjs REPOS_DIR NAME [--runs N] [--js-dir DIR] [--no-isolate] ' +
    '[--storage idb|memory] [--filter SPEC]\n');
  process.exit(2);
}

const pos = [];
const opt = { runs: 3, jsDir: DEFAULT_JS_DIR, isolate: true, storage: 'idb', filter: null };
const argv = process.argv.slice(2);
for (let i = 0; i < argv.length; i++) {
  const a = argv[i];
  const value = () => (i + 1 < argv.length ? argv[++i] : usage(`${a} needs a value`));
  if (a === '--runs') opt.runs = Number(value());
  else if (a === '--js-dir') opt.jsDir = path.resolve(value());
  else if (a === '--no-isolate') opt.isolate = false;
  else if (a === '--storage') opt.storage = value();
  else if (a === '--filter') opt.filter = value();
  else if (a.startsWith('--')) usage(`unknown option ${a}`);
  else pos.push(a);
}
if (pos.length !== 2 || !(opt.runs > 0) || !['idb', 'memory'].includes(opt.storage)) usage();
const [reposDir, name] = [path.resolve(pos[0]), pos[1]];
if (!fs.existsSync(path.join(reposDir, `${name}.git`))) usage(`no ${name}.git in ${reposDir}`);

const tmp = makeTmp('bench-browser');
const page = path.join(tmp, 'page');
fs.mkdirSync(page);
fs.writeFileSync(path.join(page, 'index.html'), '<!doctype html><title>clone benchmark</title>\n');
// One clone in a Worker of its own: load (import + init) and clone, timed.
fs.writeFileSync(path.join(page, 'bench-worker.js'), `
self.onmessage = async ({ data: { url, dir, storage, filter } }) => {
  try {
    const t0 = performance.now();
    const wg = await import('/webgit/index.js');
    await wg.init({ storage });
    const t1 = performance.now();
    const o = { url, dir, noCheckout: true };
    if (filter) o.filter = filter;
    await wg.clone(o);
    const t2 = performance.now();
    self.postMessage({ load_ms: t1 - t0, clone_ms: t2 - t1, threads: (await wg.memoryUsage()).threads,
      isolated: self.crossOriginIsolated === true });
  } catch (e) {
    self.postMessage({ error: String(e && e.stack || e) });
  }
};
`);

const server = startServerAt(path.join(tmp, 'server'), reposDir,
  ['--static', page, '--mount', `/webgit/=${opt.jsDir}`, ...(opt.isolate ? ['--isolate'] : [])]);
const url = `${server.base}/git/${name}.git`;
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor((xs.length - 1) / 2)];
const rows = [];
let context;
try {
  context = await launchChromium(path.join(tmp, 'profile'));
  const tab = context.pages()[0] || await context.newPage();
  await tab.goto(`${server.base}/`);
  for (let run = 1; run <= opt.runs; run++) {
    const gdir = path.join(tmp, `git-${run}`);
    const g0 = performance.now();
    execFileSync(GIT, ['clone', '-q', '--no-checkout', ...(opt.filter ? [`--filter=${opt.filter}`] : []), url, gdir],
      { stdio: 'ignore', env: { ...process.env, GIT_CONFIG_NOSYSTEM: '1', GIT_CONFIG_GLOBAL: '/dev/null' } });
    const gitS = (performance.now() - g0) / 1000;
    fs.rmSync(gdir, { recursive: true, force: true });
    const r = await tab.evaluate(({ url: u, dir, storage, filter }) => new Promise((resolve) => {
      const w = new Worker('/bench-worker.js', { type: 'module' });
      w.onmessage = (e) => { w.terminate(); resolve(e.data); };
      w.onerror = (e) => { w.terminate(); resolve({ error: e.message }); };
      w.postMessage({ url: u, dir, storage, filter });
    }), { url, dir: `/bench/${name}-${run}`, storage: opt.storage, filter: opt.filter });
    if (r.error) throw new Error(`run ${run}: ${r.error}`);
    rows.push({ git: gitS, webgit: r.clone_ms / 1000, load: r.load_ms / 1000, threads: r.threads, isolated: r.isolated });
    console.log(`run ${run}: git ${gitS.toFixed(2)} s  webgit ${(r.clone_ms / 1000).toFixed(2)} s ` +
      `(load ${(r.load_ms / 1000).toFixed(2)} s, threads ${r.threads}, isolated ${r.isolated})`);
  }
  const g = median(rows.map((r) => r.git));
  const w = median(rows.map((r) => r.webgit));
  const l = median(rows.map((r) => r.load));
  console.log(`median: git ${g.toFixed(2)} s  webgit ${w.toFixed(2)} s  ratio ${(w / g).toFixed(2)}  ` +
    `(with load ${((w + l) / g).toFixed(2)}; threads ${rows[0].threads}, storage ${opt.storage}, ` +
    `${os.cpus().length} cores, Chromium headless)`);
} finally {
  if (context) await context.close().catch(() => {});
  await server.stop();
  fs.rmSync(tmp, { recursive: true, force: true });
}
