// The history queries of bench-history.sh through the JS API (the
// WebAssembly build in Node, disk storage), one process per command as
// the CLIs are timed; each prints what the CLI prints for the same
// question, so the benchmark can check the answers match.
//
//   WEBGIT_JS_DIR=build/wasm/js node scripts/wasm-history.mjs log [<rev>] [-- <path>...]
//   WEBGIT_JS_DIR=build/wasm/js node scripts/wasm-history.mjs log-p <n>
//   WEBGIT_JS_DIR=build/wasm/js node scripts/wasm-history.mjs merge-base <a> <b>
//   WEBGIT_JS_DIR=build/wasm/js node scripts/wasm-history.mjs last-modified [-r]
//   WEBGIT_JS_DIR=build/wasm/js node scripts/wasm-history.mjs blame <path>
//
// log prints ids (git log --format=%H); log-p prints, for the last n
// commits, each id and its patch against its first parent (what
// git log -p --format=%H shows for non-merges; merges get no patch);
// blame prints each line's commit.
//
// WASM_WARM=1: the figure of a module that stays loaded (a forge's tab, an
// edge isolate): the query runs once untimed, then again, and the wall
// seconds of that second run are printed on stderr as "warm <s>" (the
// output printed is the second run's).
import path from 'node:path';
import { pathToFileURL } from 'node:url';

const jsDir = path.resolve(process.env.WEBGIT_JS_DIR || 'build/wasm/js');
const wg = await import(pathToFileURL(path.join(jsDir, 'index.js')).href);
const [verb, ...args] = process.argv.slice(2);
const dir = process.cwd();
await wg.init();
let out = [];
let flush = () => { process.stdout.write(out.join('')); out.length = 0; };
const warm = process.env.WASM_WARM === '1';
if (warm) {
  // the untimed first run's output is dropped; the timed run's is kept
  // in memory and written after the clock stops
  flush = () => {};
  await query();
  out = [];
  const t0 = performance.now();
  await query();
  const s = (performance.now() - t0) / 1000;
  process.stdout.write(out.join(''));
  process.stderr.write(`warm ${s.toFixed(4)}\n`);
} else {
  await query();
  flush();
}

async function query() {
  if (verb === 'log') {
    const dd = args.indexOf('--');
    const revs = dd < 0 ? args : args.slice(0, dd);
    const paths = dd < 0 ? [] : args.slice(dd + 1);
    for await (const c of wg.log({ dir, range: revs.length ? revs : undefined, paths })) {
      out.push(`${c.oid}\n`);
      if (out.length > 4096) flush();
    }
  } else if (verb === 'log-p') {
    for await (const c of wg.log({ dir, depth: Number(args[0]), patch: true })) {
      out.push(`${c.oid}\n`);
      if (c.patch) out.push(`\n${c.patch}`);
      if (out.length > 256) flush();
    }
  } else if (verb === 'last-modified') {
    const q = (p) => (/["\\\x00-\x1f\x7f-\xff]/.test(p) ? null : p);
    for (const e of await wg.lastModified({ dir, recursive: args.includes('-r') })) {
      out.push(`${e.commit}\t${q(e.path) ?? JSON.stringify(e.path)}\n`);
    }
  } else if (verb === 'blame') {
    for (const g of await wg.blame({ dir, path: args[0] })) {
      for (let i = 0; i < g.count; i++) out.push(`${g.commit}\n`);
    }
  } else if (verb === 'merge-base') {
    out.push(`${await wg.mergeBase({ dir, commits: args })}\n`);
  } else {
    console.error('usage: wasm-history.mjs log [<rev>...] [-- <path>...] | log-p <n> | merge-base <a> <b> | last-modified [-r] | blame <path>');
    process.exit(129);
  }
}
