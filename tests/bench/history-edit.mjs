#!/usr/bin/env node
// tests/bench/history-edit.mjs — what a history edit costs in WebAssembly
// (a benchmark, not a test): reword the commit N commits below the tip of
// a copy of REPO (a bare clone made by git, so its objects are packed as
// a clone leaves them), for each N, every descendant rewritten; then split
// the newest commit of two files or more that is not a merge. Prints one line per edit: N, commits rewritten, wall
// milliseconds (the module already loaded), and checks the result with
// git fsck.
//
//   node tests/bench/history-edit.mjs REPO [--js-dir DIR] [--depths 1,100,1000]
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

const args = process.argv.slice(2);
const opt = (name, dflt) => {
  const i = args.indexOf(name);
  return i >= 0 ? args.splice(i, 2)[1] : dflt;
};
const jsDir = path.resolve(opt('--js-dir', 'build/demo-wasm/js'));
const depths = opt('--depths', '1,100,1000').split(',').map(Number);
const repo = args[0];
if (!repo) {
  console.error('usage: history-edit.mjs REPO [--js-dir DIR] [--depths 1,100,1000]');
  process.exit(2);
}
const GIT = process.env.GIT || 'git';
const wg = await import(pathToFileURL(path.join(jsDir, 'index.js')).href);
await wg.init();
const me = { name: 'Bench', email: 'bench@example.com', timestamp: 1700000000, timezone: '+0000' };
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'wg-edit-bench-'));
try {
  for (const n of depths) {
    const dir = path.join(tmp, `r${n}`);
    execFileSync(GIT, ['clone', '-q', '--bare', repo, dir]);
    const t0 = performance.now();
    const out = await wg.reword({ dir, commit: `HEAD~${n}`, message: `reworded ${n}`, committer: me, allowPublished: true });
    const ms = performance.now() - t0;
    execFileSync(GIT, ['-C', dir, 'fsck', '--no-dangling', '--no-progress'], { stdio: 'ignore' });
    console.log(`reword HEAD~${n}: ${out.rewritten.length} commits rewritten, ${ms.toFixed(0)} ms`);
  }
  // split the newest commit that is not a merge and changes two files or more
  const dir = path.join(tmp, 'split');
  execFileSync(GIT, ['clone', '-q', '--bare', repo, dir]);
  const git = (a) => execFileSync(GIT, ['-C', dir, ...a], { encoding: 'utf8' });
  for (const id of git(['rev-list', '--no-merges', '-n', '200', 'HEAD']).trim().split('\n')) {
    const files = git(['diff-tree', '--no-commit-id', '--name-only', '-r', id]).trim().split('\n');
    if (files.length < 2) continue;
    const below = git(['rev-list', '--count', `${id}..HEAD`]).trim();
    const t0 = performance.now();
    const out = await wg.split({ dir, commit: id, paths: [files[0]], committer: me, allowPublished: true });
    const ms = performance.now() - t0;
    execFileSync(GIT, ['-C', dir, 'fsck', '--no-dangling', '--no-progress'], { stdio: 'ignore' });
    console.log(`split a commit of ${files.length} files, ${below} below the tip: ${out.rewritten.length} commits rewritten, ${ms.toFixed(0)} ms`);
    break;
  }
} finally {
  fs.rmSync(tmp, { recursive: true, force: true });
}
