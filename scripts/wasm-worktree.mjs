// The working-tree verbs of bench-worktree.sh through the JS API (the
// WebAssembly build in Node, disk storage), so that the benchmark times
// them as it times the CLIs: one process per command, module load
// included.
//
//   WEBGIT_JS_DIR=build/wasm/js node scripts/wasm-worktree.mjs checkout [-q] <ref>
//   WEBGIT_JS_DIR=build/wasm/js node scripts/wasm-worktree.mjs status [--porcelain]
//   WEBGIT_JS_DIR=build/wasm/js node scripts/wasm-worktree.mjs status-warm
//
// It works on the repository in the current directory; status prints
// git status --porcelain's lines for the tracked changes and untracked
// paths (enough to compare with the CLIs'). status-warm is the figure of a
// module that stays loaded (an editor's tab, a server): it runs status
// once, then prints the wall seconds of a second status in the same
// process (the output itself is not printed).
import path from 'node:path';
import { pathToFileURL } from 'node:url';

const jsDir = path.resolve(process.env.WEBGIT_JS_DIR || 'build/wasm/js');
const wg = await import(pathToFileURL(path.join(jsDir, 'index.js')).href);
const [verb, ...args] = process.argv.slice(2);
const dir = process.cwd();
await wg.init();
if (verb === 'checkout') {
  await wg.checkout({ dir, ref: args.filter((a) => !a.startsWith('-'))[0] });
} else if (verb === 'status-warm') {
  await wg.status({ dir });
  const t0 = performance.now();
  await wg.status({ dir });
  process.stdout.write(`${((performance.now() - t0) / 1000).toFixed(3)}\n`);
} else if (verb === 'status') {
  const lines = (await wg.status({ dir })).map((e) => {
    const x = e.index === '.' ? ' ' : e.index;
    const y = e.worktree === '.' ? ' ' : e.worktree;
    return `${x}${y} ${e.path}`;
  });
  if (lines.length) process.stdout.write(`${lines.join('\n')}\n`);
} else {
  console.error(`usage: wasm-worktree.mjs checkout <ref> | status | status-warm`);
  process.exit(129);
}
