// The TypeScript declarations (js/index.d.ts) compile, describe the API as
// the other tests use it, and reject misuse: a TypeScript program against
// the built package, checked by tsc (tests/node_modules) in strict mode.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { ROOT, JS_DIR, makeTmp } from './lib.mjs';

let tmp;
after(() => {
  if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
});

const PROGRAM = (pkg) => `import * as git from ${JSON.stringify(pkg)};

async function main(signal: AbortSignal): Promise<void> {
  await git.init({ storage: 'memory' });
  await git.init({ dir: '/repos/new', objectFormat: 'sha1', refFormat: 'files', defaultBranch: 'trunk' });
  const refs: git.RemoteRef[] = await git.listRemoteRefs('https://example.com/r.git', { prefix: ['refs/heads/'] });
  const head: string | null = refs[0].oid;
  await git.clone({
    url: 'https://example.com/r.git', dir: '/repos/r', ref: 'v1.0', depth: 1, filter: 'blob:none',
    singleBranch: true, headers: { Authorization: 'Bearer x' }, signal,
    fetch: (input, init) => fetch(input, init),
    onProgress: (p: git.CloneProgress) => console.log(p.phase, p.done, p.total, p.bytes),
    onRequest: (r: git.RequestStats) => console.log(r.method, r.status, r.sent + r.received),
  });
  const oid: string = await git.resolveRef({ dir: '/repos/r', ref: 'HEAD~1' });
  const obj = await git.readObject({ dir: '/repos/r', oid, lazy: false });
  const bytes: Uint8Array = obj.data;
  const file: Uint8Array = await git.readFile({ dir: '/repos/r', path: 'README.md' });
  const remote: Uint8Array = await git.readFile({ url: 'https://example.com/r.git', ref: 'main', path: 'a' });
  const tree: git.TreeEntry[] = await git.readTree({ dir: '/repos/r', path: 'src' });
  const names: string[] = (await git.listRefs({ dir: '/repos/r', prefix: 'refs/tags/' })).map((r) => r.name);
  const branch: string | null = await git.currentBranch({ dir: '/repos/r' });
  for await (const c of git.log({ dir: '/repos/r', depth: 5 })) {
    const when: number = c.committer.timestamp;
    console.log(c.oid, c.parents.length, c.message, when);
  }
  const blob = await git.writeObject({ dir: '/repos/r', data: 'hi\\n' });
  const t = await git.writeTree({ dir: '/repos/r', entries: [...tree, { mode: '100644', name: 'hi', oid: blob }] });
  const c = await git.commit({ dir: '/repos/r', tree: t, message: 'hi', author: { name: 'A', email: 'a@x' } });
  await git.updateRef({ dir: '/repos/r', ref: 'refs/heads/x', oid: c, oldOid: null });
  const pushed = await git.push({ dir: '/repos/r', refspecs: ['x'], atomic: true });
  if (!pushed.ok) console.log(pushed.refs.filter((r) => r.status !== 'ok').map((r) => r.reason));
  const fetched = await git.fetch({ dir: '/repos/r', prune: true });
  console.log(fetched.updates.map((u) => u.flag + u.remoteRef), fetched.packBytes);
  const moved: git.HeadState = await git.checkout({ dir: '/repos/r', ref: 'v1.0', force: true });
  const made: string | null = (await git.switchBranch({ dir: '/repos/r', branch: 'b', create: true, startPoint: 'v1.0' })).branch;
  const changes: git.StatusEntry[] = await git.status({ dir: '/repos/r', untracked: 'all' });
  const letter: git.StatusLetter = changes[0].worktree;
  const text: string = await git.readWorkFile({ dir: '/repos/r', path: 'a', encoding: 'utf8' });
  const raw: Uint8Array = await git.readWorkFile({ dir: '/repos/r', path: 'a' });
  await git.writeWorkFile({ dir: '/repos/r', path: 'b/c', data: text, executable: true });
  await git.removeWorkFile({ dir: '/repos/r', path: 'b/c' });
  const kinds: ('file' | 'dir' | 'symlink')[] = (await git.listWorkDir({ dir: '/repos/r', path: 'b' })).map((e) => e.type);
  await git.clone({ url: 'https://example.com/r.git', dir: '/repos/nc', noCheckout: true });
  await git.add({ dir: '/repos/r', paths: ['b', 'src/*.c'] });
  await git.remove({ dir: '/repos/r', paths: 'old', cached: true });
  const fromIndex: string = await git.commit({ dir: '/repos/r', message: 'm', author: { name: 'A', email: 'a@x' }, amend: true });
  console.log(fromIndex);
  console.log(moved.oid, made, letter, raw.length, kinds);
  const all: string[] = await git.listRepos();
  await git.deleteRepo({ dir: all[0] });
  const where: 'node' | 'idb' | 'memory' = git.storage();
  try {
    await git.resolveRef({ dir: '/nope' });
  } catch (e) {
    const code: string = (e as git.WebgitError).code;
    console.log(code, head, bytes, file, remote, names, branch, where);
  }

  // Misuse the declarations must catch:
  // @ts-expect-error clone needs a url
  await git.clone({ dir: '/repos/x' });
  // @ts-expect-error data is bytes or a string
  await git.writeObject({ dir: '/repos/r', data: 42 });
  // @ts-expect-error not a storage kind
  await git.init({ storage: 'disk' });
  // @ts-expect-error remove needs paths
  await git.remove({ dir: '/repos/r' });
  // @ts-expect-error untracked is 'no' | 'normal' | 'all'
  await git.status({ dir: '/repos/r', untracked: true });
  // @ts-expect-error without an encoding readWorkFile returns bytes
  const notText: string = await git.readWorkFile({ dir: '/repos/r', path: 'a' });
  console.log(notText);
  const patch: string = await git.diff({ dir: '/repos/r', from: 'HEAD~', to: 'HEAD', format: 'patch', contextLines: 1 });
  const files = await git.diff({ dir: '/repos/r', paths: ['src'], renames: false, algorithm: 'default', onRequest: (r) => console.log(r.url) });
  for (const f of files) {
    const counts: number | null = f.additions;
    const first: number | null = f.hunks[0]?.lines[0]?.oldLine ?? null;
    console.log(f.status, f.oldPath, f.newMode, f.similarity, counts, first, f.hunks.map((h) => h.header), patch.length);
  }
  await git.diff({ dir: '/repos/r', algorithm: 'histogram' });
  // @ts-expect-error not one of git's algorithms
  await git.diff({ dir: '/repos/r', algorithm: 'diffie' });
  // @ts-expect-error structured files are not a string
  const notPatch: string = await git.diff({ dir: '/repos/r' });
  console.log(notPatch);
  // @ts-expect-error readFile returns bytes, not a string
  const s: string = await git.readFile({ dir: '/repos/r', path: 'a' });
  console.log(s);
  const withId: git.FileRead = await git.readFile({ url: 'https://example.com/r.git', ref: 'v1', path: 'a', details: true });
  const localId: string = (await git.readFile({ dir: '/repos/r', path: 'a', details: true })).oid;
  console.log(withId.data.length, withId.oid, localId);
  // @ts-expect-error with details it is not bytes
  const notBytes: Uint8Array = await git.readFile({ dir: '/repos/r', path: 'a', details: true });
  console.log(notBytes);
  const me: git.Ident = { name: 'E', email: 'e@x' };
  const reworded = await git.reword({ dir: '/repos/r', commit: 'HEAD~2', message: 'better', committer: me });
  const parts = await git.split({ dir: '/repos/r', paths: ['src'], message: 'src first', committer: me, allowPublished: true });
  const byHunk = await git.split({ dir: '/repos/r', hunks: { 'src/a.js': [0, 2] }, committer: me });
  console.log(reworded.oid, reworded.rewritten[0].from, parts.first, parts.second, parts.refs.join(), byHunk.first);
  // @ts-expect-error hunk numbers, not strings
  await git.split({ dir: '/repos/r', hunks: { a: ['0'] }, committer: me });
  // @ts-expect-error a reword needs its message
  await git.reword({ dir: '/repos/r', committer: me });
  // @ts-expect-error a split needs the paths of its first commit
  await git.split({ dir: '/repos/r', committer: me });
  // @ts-expect-error the rewritten commits get a committer
  await git.reword({ dir: '/repos/r', message: 'x' });
  await git.init({ wasm: new URL('https://example.com/webgit.wasm') });
  await git.init({ wasm: '/assets/webgit-1234.wasm' });
  await git.init({ wasm: fetch('/webgit.wasm') });
  await git.clone({ url: 'https://example.com/r.git', dir: '/repos/byid', revision: 'a'.repeat(40), filter: 'blob:none' });
}

main(new AbortController().signal).catch(console.error);
`;

test('index.d.ts: a strict TypeScript program type-checks, and misuse is rejected', async () => {
  const tsc = path.join(ROOT, 'tests/node_modules/.bin/tsc');
  assert.ok(fs.existsSync(tsc), 'typescript is not installed in tests/node_modules: run scripts/bootstrap.sh (npm ci in tests/)');
  assert.ok(fs.existsSync(path.join(JS_DIR, 'index.d.ts')), `no built package at ${JS_DIR}`);
  tmp = makeTmp('types');
  fs.writeFileSync(path.join(tmp, 'use.ts'), PROGRAM(path.join(JS_DIR, 'index.js')));
  fs.writeFileSync(path.join(tmp, 'tsconfig.json'), JSON.stringify({
    compilerOptions: {
      strict: true, noEmit: true, target: 'es2022', module: 'nodenext', moduleResolution: 'nodenext',
      lib: ['es2022', 'dom', 'dom.asynciterable'], types: [], skipLibCheck: false,
    },
    files: ['use.ts'],
  }));
  const r = spawnSync(tsc, ['-p', tmp], { encoding: 'utf8' });
  assert.equal(r.status, 0, `tsc failed:\n${r.stdout}${r.stderr}`);

  // every function the package exports is declared
  const declared = new Set([...fs.readFileSync(path.join(JS_DIR, 'index.d.ts'), 'utf8')
    .matchAll(/^export (?:declare )?(?:function|const) (\w+)/gm)].map((m) => m[1]));
  const exported = Object.keys(await import(pathToFileURL(path.join(JS_DIR, 'index.js')).href));
  assert.deepEqual(exported.filter((n) => !declared.has(n)), [], 'exports without a declaration');
  assert.deepEqual([...declared].filter((n) => !exported.includes(n)), [], 'declarations of nothing');

  // and a wrong program fails (the check is live)
  fs.writeFileSync(path.join(tmp, 'use.ts'), `import * as git from ${JSON.stringify(path.join(JS_DIR, 'index.js'))};\n` +
    'const n: number = await git.resolveRef({ dir: "/r" });\nexport { n };\n');
  const bad = spawnSync(tsc, ['-p', tmp], { encoding: 'utf8' });
  assert.notEqual(bad.status, 0, 'tsc accepted a string assigned to a number');
  assert.match(bad.stdout + bad.stderr, /string.*number|number.*string/i);
});
