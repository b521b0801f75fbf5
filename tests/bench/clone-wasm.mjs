#!/usr/bin/env node
// tests/bench/clone-wasm.mjs — ONE clone by a JavaScript Git, for
// scripts/bench-wasm-clone.sh (a benchmark, not a test).
//
//   node tests/bench/clone-wasm.mjs TOOL URL DIR [--depth N] [--single-branch]
//        [--filter SPEC] [--no-threads] [--js-dir DIR] [--out FILE]
//
// --filter SPEC: a partial clone (webgit-wasm only), e.g. blob:none.
// --no-threads: webgit's single-threaded module (init({ threads: false }));
// by default it loads as in any Node program, threaded on two cores or
// more. The JSON line says which (threads).
//
// TOOL
//   webgit-wasm     webgit's WebAssembly build through its JS API:
//                   wg.clone({ url, dir, depth, singleBranch }) from
//                   DIR/index.js (--js-dir, default build/bench-wasm/js): a
//                   non-bare clone without checkout, like
//                   `git clone --no-checkout`. Its requests go through
//                   Node's fetch().
//   isomorphic-git  isomorphic-git's clone({ fs, http, dir, url,
//                   noCheckout: true, depth, singleBranch }) with its Node
//                   HTTP client (isomorphic-git/http/node), from
//                   tests/node_modules (npm ci in tests/).
//
// Each clone runs in its own process (this one) so that the parent can take
// the process's own peak RSS (/usr/bin/time %M) and wall time, as it does for
// `git clone`; nothing else is loaded here that the clone would not need.
//
// Prints one JSON line (to --out FILE, else stdout):
//   { tool, load_ms, clone_ms, max_rss_kb, threads (webgit) }
// load_ms: importing the library (and, for webgit, compiling and
// instantiating the .wasm: wg.init()); clone_ms: the clone call alone;
// max_rss_kb: process.resourceUsage().maxRSS at the end, a cross-check of
// the parent's %M (both are the kernel's high-water mark for this process).
// On failure: the error (with its code, for webgit's WebgitError) on stderr
// and exit status 1, so a broken clone is never timed.
import fs from 'node:fs';
import path from 'node:path';
import process from 'node:process';
import { performance } from 'node:perf_hooks';
import { fileURLToPath, pathToFileURL } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

function usage(msg) {
  if (msg) process.stderr.write(`clone-wasm: ${msg}\n`);
  process.stderr.write('usage: clone-wasm.mjs webgit-wasm|isomorphic-git URL DIR ' +
    '[--depth N] [--single-branch] [--filter SPEC] [--no-threads] [--js-dir DIR] [--out FILE]\n');
  process.exit(2);
}

const pos = [];
const opt = { depth: 0, singleBranch: false, filter: null, threads: true, jsDir: path.join(ROOT, 'build/bench-wasm/js'), out: null };
const argv = process.argv.slice(2);
for (let i = 0; i < argv.length; i++) {
  const a = argv[i];
  const value = () => (i + 1 < argv.length ? argv[++i] : usage(`${a} needs a value`));
  if (a === '--depth') opt.depth = Number(value());
  else if (a === '--single-branch') opt.singleBranch = true;
  else if (a === '--filter') opt.filter = value();
  else if (a === '--no-threads') opt.threads = false;
  else if (a === '--js-dir') opt.jsDir = path.resolve(value());
  else if (a === '--out') opt.out = value();
  else if (a.startsWith('--')) usage(`unknown option ${a}`);
  else pos.push(a);
}
if (pos.length !== 3) usage();
const [tool, url, dir] = pos;
if (!Number.isInteger(opt.depth) || opt.depth < 0) usage('--depth must be a whole number');
if (opt.filter && tool !== 'webgit-wasm') usage('--filter is for webgit-wasm only');

// Each tool: load() imports it, clone() makes the clone. Only the two calls
// are timed, separately, so the figures say where the time goes.
const tools = {
  'webgit-wasm': {
    async load() {
      const wg = await import(pathToFileURL(path.join(opt.jsDir, 'index.js')).href);
      await wg.init(opt.threads ? {} : { threads: false });
      return wg;
    },
    async clone(wg) {
      // like `git clone --no-checkout`, as the header says (until
      // 2026-12-07 the checkout was left on, so webgit's figures here
      // included writing the working tree and git's did not)
      const o = { url, dir, noCheckout: true };
      if (opt.depth) o.depth = opt.depth;
      if (opt.singleBranch) o.singleBranch = true;
      if (opt.filter) o.filter = opt.filter;
      await wg.clone(o);
    },
  },
  'isomorphic-git': {
    async load() {
      // Resolved from tests/node_modules, where `npm ci` in tests/ puts it.
      const base = pathToFileURL(path.join(ROOT, 'tests/node_modules/')).href;
      const git = await import(new URL('isomorphic-git/index.js', base).href);
      const http = await import(new URL('isomorphic-git/http/node/index.js', base).href);
      return { git: git.default || git, http: http.default || http };
    },
    async clone({ git, http }) {
      const o = { fs, http, dir, url, noCheckout: true };
      if (opt.depth) o.depth = opt.depth;
      if (opt.singleBranch) o.singleBranch = true;
      await git.clone(o);
    },
  },
};

const t = tools[tool];
if (!t) usage(`unknown tool ${tool}`);

try {
  const t0 = performance.now();
  const lib = await t.load();
  const t1 = performance.now();
  await t.clone(lib);
  const t2 = performance.now();
  const line = JSON.stringify({
    tool,
    load_ms: Math.round(t1 - t0),
    clone_ms: Math.round(t2 - t1),
    max_rss_kb: process.resourceUsage().maxRSS,
    ...(tool === 'webgit-wasm' ? { threads: (await lib.memoryUsage()).threads } : {}),
  }) + '\n';
  if (opt.out) fs.writeFileSync(opt.out, line);
  else process.stdout.write(line);
} catch (e) {
  process.stderr.write(`clone-wasm: ${tool} clone of ${url} failed: ` +
    `${e && e.code ? `[${e.code}] ` : ''}${e && e.stack ? e.stack : e}\n`);
  if (e && e.cause) process.stderr.write(`  cause: ${e.cause.stack || e.cause}\n`);
  process.exit(1);
}
