// Received objects are checked before anything is kept (git's
// transfer.fsckObjects, on by default), through the JS API in Node: the
// corpus of tests/server/make-fsck-corpus.sh (one repository per fsck
// finding, made by the reference git), served over HTTP, in both object
// formats. A refused clone rejects with code EFSCK and git's message id and
// leaves nothing; a warning-level finding is accepted and reported through
// onProgress as git prints it; `config: {'transfer.fsckObjects': false}`
// turns the check off; a fetch that brings a refused object moves no ref.
// t18-fsck-transfer checks the same corpus with the CLI against git itself.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { loadWebgit, makeTmp, startServerAt, gitIn, ROOT, GIT, leftAt } from './lib.mjs';

let wg;
let tmp;
let server;
let git;
let seq = 0;
const newDir = () => path.join(tmp, 'clones', `c${++seq}`);
const cases = {};

before(async () => {
  wg = await loadWebgit();
  await wg.init();
  tmp = makeTmp('fsck');
  git = gitIn(tmp);
  for (const fmt of ['sha1', 'sha256']) {
    const dir = path.join(tmp, 'corpus', fmt);
    execFileSync(path.join(ROOT, 'tests/server/make-fsck-corpus.sh'), [dir, fmt], {
      env: { ...process.env, GIT }, stdio: ['ignore', 'ignore', 'pipe'],
    });
    cases[fmt] = fs.readFileSync(path.join(dir, 'cases'), 'utf8').trim().split('\n')
      .map((l) => l.split(' ')).map(([name, id, def]) => ({ name, id, def }));
  }
  server = startServerAt(path.join(tmp, 'server'), path.join(tmp, 'corpus'));
});

after(async () => {
  if (server) await server.stop();
  if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
});

async function cloneCase(fmt, name, opts = {}) {
  const dir = newDir();
  const warnings = [];
  let error = null;
  try {
    await wg.clone({
      url: `${server.base}/git/${fmt}/${name}.git`, dir, bare: true, ...opts,
      onProgress: (p) => { if (p.warning) warnings.push(p.line); },
    });
  } catch (e) {
    error = e;
  }
  return { dir, warnings, error };
}

for (const fmt of ['sha1', 'sha256']) {
  test(`${fmt}: every case of the corpus is refused, warned about or accepted as webgit's table says`, async () => {
    assert.ok(cases[fmt].length >= 40, 'the corpus has its cases');
    for (const { name, id, def } of cases[fmt]) {
      const { dir, warnings, error } = await cloneCase(fmt, name);
      if (def === 'refuse') {
        assert.ok(error, `${name}: refused`);
        assert.equal(error.code, 'EFSCK', `${name}: ${error.message}`);
        assert.match(error.message, new RegExp(`: ${id}: `), name);
        assert.deepEqual(leftAt(dir), [], `${name}: nothing left`);
      } else {
        assert.equal(error, null, `${name}: accepted (${error && error.message})`);
        const head = await wg.resolveRef({ dir, ref: 'refs/heads/main' });
        assert.equal(head, git(['-C', path.join(tmp, 'corpus', fmt, `${name}.git`), 'rev-parse', 'main']).trim());
        if (def === 'warn') {
          assert.ok(warnings.some((w) => new RegExp(`^object [0-9a-f]+: ${id}: `).test(w)),
            `${name}: warned about ${id}: ${JSON.stringify(warnings)}`);
        } else {
          assert.deepEqual(warnings, [], name);
        }
      }
    }
  });

  test(`${fmt}: config turns the check off, or sets one id's severity`, async () => {
    let r = await cloneCase(fmt, 'dotgit', { config: { 'transfer.fsckObjects': false } });
    assert.equal(r.error, null);
    r = await cloneCase(fmt, 'zero-padded-filemode', { config: { 'transfer.fsckObjects': true } });
    assert.equal(r.error?.code, 'EFSCK', 'git\'s own setting refuses warnings');
    assert.match(r.error.message, /zeroPaddedFilemode/);
    r = await cloneCase(fmt, 'gitmodules-url-option', { config: { 'fetch.fsck.gitmodulesUrl': 'warn' } });
    assert.equal(r.error, null);
    assert.ok(r.warnings.some((w) => /gitmodulesUrl/.test(w)));
    await assert.rejects(wg.clone({ url: `${server.base}/git/${fmt}/dotgit.git`, dir: newDir(), config: 'x' }),
      (e) => e.code === 'EINVALID');
  });

  test(`${fmt}: a fetch that brings a .git tree moves no ref and keeps no pack`, async () => {
    const srv = path.join(tmp, 'corpus', fmt, 'fetch-target.git');
    fs.rmSync(srv, { recursive: true, force: true });
    git(['clone', '-q', '--bare', path.join(tmp, 'corpus', fmt, 'control-plain.git'), srv]);
    const dir = newDir();
    await wg.clone({ url: `${server.base}/git/${fmt}/fetch-target.git`, dir });
    const refs = await wg.listRefs({ dir });
    const packs = fs.readdirSync(path.join(dir, '.git/objects/pack')).sort();
    git(['-C', srv, 'fetch', '-q', path.join(tmp, 'corpus', fmt, 'dotgit.git'), '+main:main']);
    await assert.rejects(wg.fetch({ dir }), (e) => e.code === 'EFSCK' && /hasDotgit/.test(e.message));
    assert.deepEqual(await wg.listRefs({ dir }), refs);
    assert.deepEqual(fs.readdirSync(path.join(dir, '.git/objects/pack')).sort(), packs);
  });
}
