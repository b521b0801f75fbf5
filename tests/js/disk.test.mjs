// Repositories persist where the runtime has a disk: a clone made by one
// process is read from disk by the next (a fresh process, nothing shared
// but the directory), in Node and in Deno (with --allow-read/--allow-write),
// and real git reads it too. Where the caller cannot persist (Deno without
// permission) a call fails with a clear error instead of keeping the
// repository in memory; memory storage is what the caller asks for.
//
//   WEBGIT_JS_DIR=build/h-wasm/js node --test tests/js/disk.test.mjs
//
// Deno: $DENO, else tests/node_modules/.bin/deno (the "deno" npm package,
// tests/package.json), else `deno` on PATH.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { JS_DIR, ROOT, findDeno, gitIn, makeTmp, startServerAt } from './lib.mjs';

let tmp;
let git;
let server;
let url;
let child;      // the script each process runs
let deno;       // the Deno binary, or an Error saying why there is none

// One process's work, given "clone" or "read", the package, the URL and
// the directory (and "memory" to ask for memory storage); prints one line
// of JSON: { ok, storage, ... } or { error: { code, message } }.
const CHILD = `const args = globalThis.Deno ? Deno.args : process.argv.slice(2);
const [what, pkg, url, dir, storage] = args;
const out = (v) => console.log(JSON.stringify(v));
try {
  const wg = await import(new URL('index.js', 'file://' + pkg + '/').href);
  if (storage) await wg.init({ storage });
  if (what === 'clone') {
    await wg.clone({ url, dir });
    out({ ok: true, storage: wg.storage() });
  } else {
    const head = await wg.resolveRef({ dir, ref: 'HEAD' });
    const readme = new TextDecoder().decode(await wg.readFile({ dir, path: 'README.md' }));
    const log = [];
    for await (const c of wg.log({ dir })) log.push(c.oid);
    out({ ok: true, storage: wg.storage(), head, readme, log, branch: await wg.currentBranch({ dir }) });
  }
} catch (e) {
  out({ error: { code: e.code, message: String(e.message) } });
}
`;

// Run the child script in a fresh process: [command, ...args] before it.
function run(cmd, args) {
  const r = spawnSync(cmd[0], [...cmd.slice(1), child, ...args], {
    encoding: 'utf8', timeout: 60000, env: { ...process.env, NO_COLOR: '1' },
  });
  const line = r.stdout.trim().split('\n').pop();
  try {
    return JSON.parse(line);
  } catch {
    throw new Error(`${cmd.join(' ')} ${args.join(' ')}: exit ${r.status}\n${r.stdout}\n${r.stderr}`);
  }
}

function gitLog(dir) {
  return git(['-C', dir, 'log', '--format=%H', 'HEAD']).trim().split('\n');
}

before(() => {
  tmp = makeTmp('disk');
  git = gitIn(tmp);
  // A small repository: three commits on main.
  const repos = path.join(tmp, 'repos');
  const bare = path.join(repos, 'small.git');
  git(['init', '-q', '--bare', '-b', 'main', bare]);
  let stream = '';
  for (let i = 0; i < 3; i++) {
    const msg = `commit ${i}\n`;
    const text = `version ${i}\n`;
    stream += `commit refs/heads/main\ncommitter C O Mitter <c@example.com> ${1700000000 + i * 60} +0000\n` +
      `data ${msg.length}\n${msg}` +
      `M 100644 inline README.md\ndata ${text.length}\n${text}\n`;
  }
  git(['--git-dir', bare, 'fast-import', '--quiet'], { input: stream });
  server = startServerAt(path.join(tmp, 'server'), repos);
  url = `${server.base}/git/small.git`;
  child = path.join(tmp, 'child.mjs');
  fs.writeFileSync(child, CHILD);
  deno = findDeno();
});

after(async () => {
  if (server) await server.stop();
  if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
});

function checkRead(r, dir, label) {
  assert.ok(r.ok, `${label}: ${JSON.stringify(r.error)}`);
  assert.equal(r.storage, 'node');
  assert.equal(r.head, git(['-C', dir, 'rev-parse', 'HEAD']).trim(), `${label}: HEAD as git sees it`);
  assert.equal(r.readme, 'version 2\n');
  assert.deepEqual(r.log, gitLog(dir), `${label}: the history as git log gives it`);
  assert.equal(r.branch, 'main');
}

test('node: a clone made by one process is read from disk by the next, and by git', () => {
  const dir = path.join(tmp, 'node', 'clone');
  const node = [process.execPath];
  const made = run(node, ['clone', JS_DIR, url, dir]);
  assert.ok(made.ok, JSON.stringify(made.error));
  assert.equal(made.storage, 'node');
  assert.ok(fs.existsSync(path.join(dir, '.git', 'HEAD')), 'the repository is on disk');
  git(['-C', dir, 'fsck', '--strict']);
  checkRead(run(node, ['read', JS_DIR, url, dir]), dir, 'the second node process');
});

test('deno: with --allow-read --allow-write a clone is on disk, and the next process reads it', (t) => {
  if (deno instanceof Error) throw deno;
  const dir = path.join(tmp, 'deno', 'clone');
  const allowed = [deno, 'run', '--no-prompt', '--allow-read', '--allow-write', '--allow-net'];
  const made = run(allowed, ['clone', JS_DIR, url, dir]);
  assert.ok(made.ok, JSON.stringify(made.error));
  assert.equal(made.storage, 'node', 'Deno keeps repositories on disk');
  assert.ok(fs.existsSync(path.join(dir, '.git', 'HEAD')), 'the repository is on disk');
  git(['-C', dir, 'fsck', '--strict']);
  checkRead(run(allowed, ['read', JS_DIR, url, dir]), dir, 'the second deno process');
  // and what Node cloned, Deno reads (and the other way round)
  checkRead(run([process.execPath], ['read', JS_DIR, url, dir]), dir, 'node reading the deno clone');
  checkRead(run(allowed, ['read', JS_DIR, url, path.join(tmp, 'node', 'clone')]),
    path.join(tmp, 'node', 'clone'), 'deno reading the node clone');
  t.diagnostic(`deno: ${execFileSync(deno, ['--version'], { encoding: 'utf8' }).split('\n')[0]}`);
});

test('deno: without write permission a clone fails with EACCES and writes nothing; memory is explicit', () => {
  if (deno instanceof Error) throw deno;
  const dir = path.join(tmp, 'deno-denied', 'clone');
  // read access to the package only: the module loads, the disk is closed
  const denied = [deno, 'run', '--no-prompt', `--allow-read=${JS_DIR}`, '--allow-net'];
  const r = run(denied, ['clone', JS_DIR, url, dir]);
  assert.ok(r.error, `the clone must fail, it said ${JSON.stringify(r)}`);
  assert.equal(r.error.code, 'EACCES', r.error.message);
  assert.match(r.error.message, /--allow-write/);
  assert.match(r.error.message, /storage: 'memory'/);
  assert.ok(!fs.existsSync(path.join(tmp, 'deno-denied')), 'nothing was written');

  // read permission alone: reading works, writing is refused up front
  const readOnly = [deno, 'run', '--no-prompt', '--allow-read', '--allow-net'];
  checkRead(run(readOnly, ['read', JS_DIR, url, path.join(tmp, 'node', 'clone')]),
    path.join(tmp, 'node', 'clone'), 'deno with --allow-read only');
  const w = run(readOnly, ['clone', JS_DIR, url, dir]);
  assert.equal(w.error?.code, 'EACCES', JSON.stringify(w));
  assert.match(w.error.message, /write/);

  // asked for, memory works without any file permission, and is gone with
  // the process: the next one finds no repository
  const mem = run(denied, ['clone', JS_DIR, url, '/repos/small', 'memory']);
  assert.ok(mem.ok, JSON.stringify(mem.error));
  assert.equal(mem.storage, 'memory');
  const again = run(denied, ['read', JS_DIR, url, '/repos/small', 'memory']);
  assert.equal(again.error?.code, 'ENOTFOUND', JSON.stringify(again));
});
