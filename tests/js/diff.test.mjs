// diff() (js/diff.js over wasm/exports_diff.c) against the reference git:
// on a history made by git with the cases a diff gets wrong first (renames
// with edits, mode and type changes, symlinks, binary files, files without
// a final newline, empty files, names git quotes), the patch text equals
// `git diff` byte for byte for every commit, with other context settings,
// paths and without renames; the structured files describe exactly that
// patch (re-rendered here, line numbers checked against the blobs) and
// their numbers are git's --numstat and --name-status. A blob-less clone
// from the local server fetches what a diff reads in one request and
// gives the full clone's result.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { loadWebgit, makeTmp, gitIn, startServerAt } from './lib.mjs';

let wg;
let tmp;
let git;
let server;
const repos = {};         // object format -> path of the generated repository
let commits = {};         // object format -> commit ids, oldest first

const WIDE = 100;          // files the wide commit edits
const lines = (n, f) => Array.from({ length: n }, (_, i) => f(i)).join('');

// The history: each step is a function of the work tree (git commands run
// in it), then a commit.
function makeHistory(dir, format) {
  const g = (args, opts) => git(['-C', dir, ...args], opts);
  git(['init', '-q', `--object-format=${format}`, '-b', 'main', dir]);
  const w = (name, data) => {
    fs.mkdirSync(path.dirname(path.join(dir, name)), { recursive: true });
    fs.writeFileSync(path.join(dir, name), data);
  };
  const commit = (msg) => {
    g(['add', '-A']);
    g(['commit', '-q', '--allow-empty', '-m', msg]);
    return g(['rev-parse', 'HEAD']).trim();
  };
  const ids = [];
  const code = (tag) => lines(40, (i) => (i % 10 === 0 ? `function f${i}() {\n` : `    ${tag} line ${i}\n`));
  w('a.c', code('a'));
  w('b.txt', lines(12, (i) => `b ${i}\n`));
  w('name with space.txt', 'spaced\n');
  w('tab\there', 'tab\n');
  w('ünï.txt', 'unicode name\n');
  w('"quoted".txt', 'quotes\n');
  w('empty', '');
  w('bin.dat', Buffer.from([0, 1, 2, 3, 0, 255, 10, 65]));
  w('script.sh', '#!/bin/sh\necho hi\n');
  w('nonl.txt', 'one\ntwo');
  w('dir/deep/keep.txt', lines(30, (i) => `keep ${i}\n`));
  fs.symlinkSync('a.c', path.join(dir, 'link'));
  for (let i = 0; i < WIDE; i++) w(`many/f${i}.txt`, lines(6, (k) => `file ${i} line ${k}\n`));
  ids.push(commit('root'));

  // a rename with edits, a mode change, a binary edit, deletions, additions
  fs.renameSync(path.join(dir, 'a.c'), path.join(dir, 'src/moved.c').replace('src/moved.c', 'moved.c'));
  fs.mkdirSync(path.join(dir, 'src'));
  fs.renameSync(path.join(dir, 'moved.c'), path.join(dir, 'src/moved.c'));
  w('src/moved.c', code('a').replace('a line 5\n', 'a line five\n').replace('a line 33\n', ''));
  fs.chmodSync(path.join(dir, 'script.sh'), 0o755);
  w('nonl.txt', 'one\ntwo\nthree');
  w('bin.dat', Buffer.from([0, 1, 2, 3, 0, 254, 10, 65, 66]));
  fs.unlinkSync(path.join(dir, 'b.txt'));
  w('new.txt', 'brand\nnew\n');
  w('tab\there', 'tab\nmore\n');
  ids.push(commit('renames and modes'));

  // type changes both ways, an empty file filled, a final newline added,
  // two hunks far apart and two joined by context, a function header
  fs.unlinkSync(path.join(dir, 'link'));
  w('link', 'now a file\n');
  fs.unlinkSync(path.join(dir, 'new.txt'));
  fs.symlinkSync('src/moved.c', path.join(dir, 'new.txt'));
  w('empty', 'no longer\n');
  w('nonl.txt', 'one\ntwo\nthree\n');
  w('dir/deep/keep.txt', lines(30, (i) => (i === 2 || i === 8 || i === 27 ? `changed ${i}\n` : `keep ${i}\n`)));
  w('src/moved.c', code('a').replace('a line 5\n', 'a line five\n').replace('a line 33\n', '')
    .replace('a line 22\n', 'a line 22 edited\n'));
  ids.push(commit('type changes'));

  // a pure rename, a binary deletion, a mode change with an edit, an
  // emptied file, a file that loses its final newline, a long function line
  g(['mv', 'name with space.txt', 'renamed plain.txt']);
  fs.unlinkSync(path.join(dir, 'bin.dat'));
  w('script.sh', '#!/bin/sh\necho bye\n');
  fs.chmodSync(path.join(dir, 'script.sh'), 0o644);
  w('empty', '');
  w('nonl.txt', 'one\ntwo\nthree');
  w('ünï.txt', 'unicode name\nand more ünïcödé\n');
  w('long.c', `${'x'.repeat(150)} header\n${lines(8, (i) => `  body ${i}\n`)}`);
  ids.push(commit('pure rename'));

  w('long.c', `${'x'.repeat(150)} header\n${lines(8, (i) => (i === 6 ? '  body six\n' : `  body ${i}\n`))}`);
  w('"quoted".txt', 'quotes\nchanged\n');
  ids.push(commit('function header'));

  // a wide commit: every one of WIDE files edited
  for (let i = 0; i < WIDE; i++) w(`many/f${i}.txt`, lines(6, (k) => `file ${i} line ${k}${k === 3 ? ' edited' : ''}\n`));
  ids.push(commit('wide'));
  return ids;
}

before(async () => {
  wg = await loadWebgit();
  await wg.init();
  tmp = makeTmp('diff');
  git = gitIn(tmp);
  for (const format of ['sha1', 'sha256']) {
    repos[format] = path.join(tmp, 'repos', `history-${format}.git`);
    const work = path.join(tmp, `work-${format}`);
    commits[format] = makeHistory(work, format);
    git(['clone', '-q', '--bare', work, repos[format]]);
    git(['-C', repos[format], 'config', 'uploadpack.allowFilter', 'true']);
    git(['-C', repos[format], 'config', 'uploadpack.allowAnySHA1InWant', 'true']);
    repos[`${format}-work`] = work;
  }
  server = startServerAt(path.join(tmp, 'server'), path.join(tmp, 'repos'));
});

after(async () => {
  if (server) await server.stop();
  if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
});

const emptyTree = (dir) => git(['-C', dir, 'hash-object', '-t', 'tree', '/dev/null']).trim();

// git diff's base for a commit: its first parent, or the empty tree
function base(dir, id) {
  const parents = git(['-C', dir, 'rev-list', '--parents', '-n', '1', id]).trim().split(' ').slice(1);
  return parents[0] || emptyTree(dir);
}

// The structured files rendered back into the hunk part of git's patch
function renderHunks(file) {
  let out = '';
  for (const h of file.hunks) {
    const range = (s, n) => (n === 1 ? `${s}` : `${s},${n}`);
    out += `@@ -${range(h.oldStart, h.oldLines)} +${range(h.newStart, h.newLines)} @@${h.header ? ` ${h.header}` : ''}\n`;
    for (const l of h.lines) {
      out += `${l.type}${l.text}\n`;
      if (l.noNewlineAtEnd) out += '\\ No newline at end of file\n';
    }
  }
  return out;
}

// git's patch cut at each "diff --git" line
function splitPatch(patch) {
  return patch.split(/^(?=diff --git )/m).filter((s) => s);
}

const blobCache = new Map();
function readBlob(dir, oid) {
  if (!blobCache.has(oid)) blobCache.set(oid, git(['-C', dir, 'cat-file', 'blob', oid], { encoding: 'buffer' }).toString('utf8'));
  return blobCache.get(oid);
}

// Each file's hunks and numbers are what the patch and git say, and the
// lines are at the numbers they claim in the two blobs.
function checkStructured(dir, files, patch, nameStatus, numstat) {
  const chunks = splitPatch(patch);
  let at = 0;
  files.forEach((f, i) => {
    const parts = chunks.slice(at, at + (f.status === 'T' ? 2 : 1));
    at += parts.length;
    const hunkText = parts.map((c) => (c.indexOf('\n@@ ') >= 0 ? c.slice(c.indexOf('\n@@ ') + 1) : '')).join('');
    assert.equal(renderHunks(f), hunkText, `hunks of ${f.newPath ?? f.oldPath}`);
    assert.equal(f.binary, parts.some((c) => /^Binary files /m.test(c)) ||
      (f.binary && f.hunks.length === 0), `binary ${f.newPath}`);
    const [st, ...names] = nameStatus[i];
    assert.equal(f.status + (/[RC]/.test(f.status) ? String(f.similarity).padStart(3, '0') : ''), st);
    const expectNames = {
      A: [f.newPath], D: [f.oldPath], M: [f.newPath], T: [f.newPath], R: [f.oldPath, f.newPath], C: [f.oldPath, f.newPath],
    };
    assert.deepEqual(expectNames[f.status], names);
    if (f.status === 'M' || f.status === 'T') assert.equal(f.oldPath, f.newPath);
    const [add, del] = numstat[i].split('\t');
    assert.equal(f.additions === null ? '-' : String(f.additions), add, `additions of ${f.newPath}`);
    assert.equal(f.deletions === null ? '-' : String(f.deletions), del, `deletions of ${f.newPath}`);
    if (f.status === 'T') return;
    const blob = (oid) => (oid ? readBlob(dir, oid).split('\n') : []);
    const oldText = blob(f.oldOid);
    const newText = blob(f.newOid);
    for (const h of f.hunks) {
      let o = h.oldLines ? h.oldStart : h.oldStart + 1;
      let n = h.newLines ? h.newStart : h.newStart + 1;
      for (const l of h.lines) {
        if (l.type !== '+') {
          assert.equal(l.oldLine, o, 'old line number');
          assert.equal(oldText[o - 1], l.text);
          o++;
        } else assert.equal(l.oldLine, null);
        if (l.type !== '-') {
          assert.equal(l.newLine, n, 'new line number');
          assert.equal(newText[n - 1], l.text);
          n++;
        } else assert.equal(l.newLine, null);
      }
      assert.equal(o - (h.oldLines ? h.oldStart : h.oldStart + 1), h.oldLines);
      assert.equal(n - (h.newLines ? h.newStart : h.newStart + 1), h.newLines);
    }
  });
  assert.equal(at, chunks.length, 'every part of the patch is described');
}

const z = (s) => s.split('\0');
// name-status and numstat with -z, paired up into the forms compared above
function gitNames(dir, args) {
  const f = z(git(['-C', dir, 'diff', '-z', '--name-status', ...args])).filter((s, i, a) => i < a.length - 1);
  const out = [];
  for (let i = 0; i < f.length;) {
    const st = f[i++];
    const n = /^[RC]/.test(st) ? 2 : 1;
    out.push([st, ...f.slice(i, i + n)]);
    i += n;
  }
  const ns = git(['-C', dir, 'diff', '--numstat', ...args]).split('\n').filter((s) => s)
    .map((l) => l.split('\t').slice(0, 2).join('\t'));
  return { nameStatus: out, numstat: ns };
}

for (const format of ['sha1', 'sha256']) {
  test(`diff of every commit equals git diff, patch and structure (${format})`, async () => {
    const dir = repos[format];
    for (const id of commits[format]) {
      const b = base(dir, id);
      const expected = git(['-C', dir, 'diff', b, id]);
      assert.equal(await wg.diff({ dir, to: id, format: 'patch' }), expected, `patch of ${id}`);
      assert.equal(await wg.diff({ dir, from: b, to: id, format: 'patch' }), expected);
      const files = await wg.diff({ dir, to: id });
      const { nameStatus, numstat } = gitNames(dir, [b, id]);
      assert.equal(files.length, nameStatus.length);
      checkStructured(dir, files, expected, nameStatus, numstat);
    }
  });

  test(`diff options match git's (${format})`, async () => {
    const dir = repos[format];
    const [c1, c2, c3, , c5] = commits[format];
    const cases = [
      [{ contextLines: 0 }, ['-U0']],
      [{ contextLines: 1 }, ['-U1']],
      [{ contextLines: 1, interHunkContext: 4 }, ['-U1', '--inter-hunk-context=4']],
      [{ contextLines: 20 }, ['-U20']],
      [{ renames: false }, ['--no-renames']],
      [{ paths: ['src', 'nonl.txt'] }, null],
      [{ paths: 'dir/deep/' }, null],
    ];
    for (const [from, to] of [[c1, c2], [c2, c3], [c1, c5], [c5, c1]]) {
      for (const [opts, args] of cases) {
        const gitArgs = args ? [...args, from, to] : [from, to, '--', ...[opts.paths].flat()];
        const expected = git(['-C', dir, 'diff', ...gitArgs]);
        assert.equal(await wg.diff({ dir, from, to, format: 'patch', ...opts }), expected, JSON.stringify(opts));
        const files = await wg.diff({ dir, from, to, ...opts });
        const { nameStatus, numstat } = gitNames(dir, gitArgs);
        checkStructured(dir, files, expected, nameStatus, numstat);
      }
    }
    // trees and other revision forms
    assert.equal(await wg.diff({ dir, from: `${c1}^{tree}`, to: `${c3}^{tree}`, format: 'patch' }),
      git(['-C', dir, 'diff', c1, c3]));
    assert.equal(await wg.diff({ dir, format: 'patch' }), git(['-C', dir, 'diff', 'HEAD~', 'HEAD']));
    assert.deepEqual(await wg.diff({ dir, from: c2, to: c2 }), []);
    // every algorithm git has, as git prints it
    for (const algorithm of ['minimal', 'patience', 'histogram']) {
      for (const [from, to] of [[c1, c3], [c2, 'HEAD']]) {
        assert.equal(await wg.diff({ dir, from, to, algorithm, format: 'patch' }),
          git(['-C', dir, 'diff', `--diff-algorithm=${algorithm}`, from, to]), `${algorithm} ${from}..${to}`);
      }
    }
  });
}

// copies (-C, -C -C) on a history made for them: a copy with an edit, a
// copy of a modified file, copies of an unchanged file (-C -C only), a
// deleted file copied twice and renamed once
test('copies as git diff -C and -C -C find them, patch and structure', async () => {
  for (const format of ['sha1', 'sha256']) {
    const dir = path.join(tmp, `copies-${format}`);
    const g = (args) => git(['-C', dir, ...args]);
    git(['init', '-q', `--object-format=${format}`, dir]);
    const w = (name, data) => {
      fs.mkdirSync(path.dirname(path.join(dir, name)), { recursive: true });
      fs.writeFileSync(path.join(dir, name), data);
    };
    const text = (tag) => lines(30, (i) => `${tag} line ${i} with some words\n`);
    for (const t of ['a', 'b', 'c', 'd']) w(`src/${t}.c`, text(t));
    g(['add', '-A']);
    g(['commit', '-q', '-m', 'base']);
    w('lib/a.c', `${text('a')}extra\n`);
    w('lib/b.c', text('b'));
    w('src/b.c', `${text('b')}more\n`);
    w('docs/c.c', text('c').replace('c line 3 ', 'c line three '));
    w('docs/c2.c', text('c'));
    w('x/d1.c', text('d'));
    w('x/d2.c', text('d').replace('d line 7 ', 'seven '));
    w('x/d3.c', text('d').replace('d line 9 ', 'nine '));
    fs.unlinkSync(path.join(dir, 'src/d.c'));
    g(['add', '-A']);
    g(['commit', '-q', '-m', 'copies']);
    for (const [opts, args] of [[{ copies: true }, ['-C']], [{ copies: 'harder' }, ['-C', '-C']],
      [{ copies: true, renames: false }, ['-C']], [{ copies: false }, ['-M']]]) {
      const gitArgs = [...args, 'HEAD~', 'HEAD'];
      const expected = g(['diff', ...gitArgs]);
      assert.equal(await wg.diff({ dir, from: 'HEAD~', to: 'HEAD', format: 'patch', ...opts }), expected,
        `${format} ${JSON.stringify(opts)}`);
      const files = await wg.diff({ dir, from: 'HEAD~', to: 'HEAD', ...opts });
      const { nameStatus, numstat } = gitNames(dir, gitArgs);
      assert.equal(files.length, nameStatus.length);
      checkStructured(dir, files, expected, nameStatus, numstat);
    }
    const harder = await wg.diff({ dir, from: 'HEAD~', to: 'HEAD', copies: 'harder' });
    assert.deepEqual(harder.filter((f) => f.status === 'C').map((f) => `${f.oldPath}>${f.newPath}`).sort(),
      ['src/a.c>lib/a.c', 'src/b.c>lib/b.c', 'src/c.c>docs/c.c', 'src/c.c>docs/c2.c', 'src/d.c>x/d1.c',
        'src/d.c>x/d2.c'].sort(), 'the copies');
    assert.deepEqual(harder.filter((f) => f.status === 'R').map((f) => f.newPath), ['x/d3.c'], 'the rename');
  }
});

test('diff rejects bad input with clear errors', async () => {
  const dir = repos.sha1;
  const [c1] = commits.sha1;
  await assert.rejects(wg.diff({ dir, algorithm: 'bogus' }), { code: 'EINVALID', message: /bogus/ });
  assert.equal(await wg.diff({ dir, algorithm: 'default', format: 'patch' }), await wg.diff({ dir, format: 'patch' }));
  await assert.rejects(wg.diff({ dir, contextLines: -1 }), { code: 'EINVALID' });
  await assert.rejects(wg.diff({ dir, contextLines: 'x' }), { code: 'EINVALID' });
  await assert.rejects(wg.diff({ dir, format: 'html' }), { code: 'EINVALID' });
  await assert.rejects(wg.diff({ dir, copies: 'hard' }), { code: 'EINVALID', message: /copies/ });
  await assert.rejects(wg.diff({ dir, to: 'no-such-ref' }), { code: 'ENOTFOUND' });
  await assert.rejects(wg.diff({ dir, from: 'no-such-ref', to: c1 }), { code: 'ENOTFOUND' });
  // a tree has no parent to diff against
  await assert.rejects(wg.diff({ dir, to: `${c1}^{tree}` }), { code: 'EINVALID', message: /not a commit/ });
  // a blob is no tree
  await assert.rejects(wg.diff({ dir, from: `${c1}:script.sh`, to: c1 }), { code: 'EINVALID' });
});

test('a shallow clone\'s boundary commit is diffed against the empty tree, as git show does', async () => {
  const dir = path.join(tmp, 'clones', 'shallow');
  await wg.clone({ url: `${server.base}/git/history-sha1.git`, dir, depth: 1, noCheckout: true });
  const head = git(['-C', dir, 'rev-parse', 'HEAD']).trim();
  assert.equal(fs.readFileSync(path.join(dir, '.git', 'shallow'), 'utf8'), `${head}\n`, 'HEAD is the boundary');
  assert.throws(() => git(['-C', dir, 'rev-parse', 'HEAD~']), 'HEAD~ is cut off');
  assert.equal(await wg.diff({ dir, format: 'patch' }), git(['-C', dir, 'show', '--format=', head]));
});

test('blob-less clone: one request per diff, the full clone\'s result', async (t) => {
  const url = `${server.base}/git/history-sha1.git`;
  const full = path.join(tmp, 'clones', 'full');
  const lazy = path.join(tmp, 'clones', 'blobless');
  await wg.clone({ url, dir: full, noCheckout: true });
  await wg.clone({ url, dir: lazy, filter: 'blob:none', noCheckout: true });
  const [c1, c2, c3] = commits.sha1;
  const noLazy = { env: { ...process.env, GIT_NO_LAZY_FETCH: '1', GIT_CONFIG_NOSYSTEM: '1', HOME: tmp } };
  // which of oids the blob-less clone has, without fetching (one git call)
  const present = (oids) => {
    const out = git(['-C', lazy, 'cat-file', '--batch-check'], { ...noLazy, input: `${[...oids].join('\n')}\n` });
    return new Set(out.split('\n').filter((l) => l && !l.endsWith(' missing')).map((l) => l.split(' ')[0]));
  };
  // The cost of one lazy fetch of one blob, for reference
  const ls = git(['-C', full, 'ls-tree', '-r', c1]).split('\n').filter((l) => / blob /.test(l));
  const inC1 = ls.map((l) => l.split(/\s+/)[2]);
  const there = present(inC1);
  const one = inC1.find((o) => !there.has(o));
  const single = [];
  await wg.readObject({ dir: lazy, oid: one, onRequest: (r) => single.push(r) });
  for (const [from, to] of [[c1, c2], [c2, c3], [commits.sha1[4], commits.sha1[5]]]) {
    const t0 = performance.now();
    const files = await wg.diff({ dir: full, from, to });
    const ms = performance.now() - t0;
    const all = files.flatMap((f) => [f.oldOid, f.newOid]).filter((o) => o);
    const before = present(all);
    const blobs = new Set(all.filter((o) => !before.has(o)));
    assert.ok(blobs.size >= 5, `${blobs.size} blobs missing`);
    const requests = [];
    const t1 = performance.now();
    const got = await wg.diff({ dir: lazy, from, to, onRequest: (r) => requests.push(r) });
    // one fetch for all of them: the same requests as for one blob, one
    // upload-pack POST among them
    assert.equal(requests.length, single.length, `${blobs.size} blobs in ${requests.length} requests (one blob: ${single.length})`);
    assert.equal(requests.filter((r) => r.method === 'POST').length, 1,
      requests.map((r) => `${r.method} ${r.url}`).join(', '));
    t.diagnostic(`diff ${from.slice(0, 7)}..${to.slice(0, 7)}: ${files.length} files, ${blobs.size} missing blobs, ` +
      `${requests.length} requests (${requests.map((r) => `${r.method} ${new URL(r.url).pathname.split('/').pop()}${new URL(r.url).search}`).join(', ')}); one blob: ${single.length}; ` +
      `${ms.toFixed(0)} ms in the full clone, ${(performance.now() - t1).toFixed(0)} ms with the fetch`);
    assert.deepEqual(got, files);
    const after = present(blobs);
    for (const b of blobs) assert.ok(after.has(b), `${b} fetched`);
    // all there now: no request at all
    const again = [];
    assert.equal(await wg.diff({ dir: lazy, from, to, format: 'patch', onRequest: (r) => again.push(r) }),
      await wg.diff({ dir: full, from, to, format: 'patch' }));
    assert.equal(again.length, 0);
  }
  // lazy: false leaves the blobs missing and says so
  await assert.rejects(wg.diff({ dir: lazy, from: commits.sha1[2], to: commits.sha1[4], lazy: false }), { code: 'ENOTFOUND' });
  git(['-C', lazy, 'fsck']);
});
