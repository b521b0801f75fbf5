// History edits through the JS API (reword, split; core/worktree/
// history_edit.h), checked with the reference git in the same repository:
// every rewritten commit is byte for byte the commit this file computes
// from git's own objects (the original with its parents mapped, the new
// committer, no signature), hashed by git hash-object; trees are git's;
// only the local refs that held the old history move, with their reflogs;
// the working tree stays clean; fsck --strict passes; and every refusal
// (published history, a merge to split, paths matching nothing or
// everything, a commit on no branch) moves no ref. Both object and ref
// formats.
//
//   WEBGIT_JS_DIR=build/wasm/js node --test tests/js/edit.test.mjs
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { loadWebgit, makeTmp, gitIn } from './lib.mjs';

let wg;
let tmp;
let git;
let seq = 0;

before(async () => {
  wg = await loadWebgit();
  await wg.init();
  tmp = makeTmp('edit');
  git = gitIn(tmp);
});

after(() => {
  if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
});

const FORMATS = [['sha1', 'files'], ['sha256', 'reftable']];
const ME = { name: 'E Ditor', email: 'editor@example.com', timestamp: 1700001000, timezone: '+0200' };
const ME_TEXT = 'E Ditor <editor@example.com> 1700001000 +0200';

function gitAt(dir, args, { date = 1700000000, input } = {}) {
  const env = {
    ...process.env, GIT_CONFIG_NOSYSTEM: '1', GIT_CONFIG_GLOBAL: '/dev/null', HOME: tmp, LC_ALL: 'C',
    TZ: 'UTC', GIT_AUTHOR_NAME: 'A U Thor', GIT_AUTHOR_EMAIL: 'author@example.com',
    GIT_COMMITTER_NAME: 'C O Mitter', GIT_COMMITTER_EMAIL: 'committer@example.com',
    GIT_AUTHOR_DATE: `${date} +0000`, GIT_COMMITTER_DATE: `${date} +0000`,
  };
  return git(['-C', dir, ...args], { env, input });
}

function write(dir, file, text) {
  fs.mkdirSync(path.dirname(path.join(dir, file)), { recursive: true });
  fs.writeFileSync(path.join(dir, file), text);
}

// c1 (a, b) - c2 (a changed, c and dir/x added) - c3 (d) - m (merge of topic)
//                 \- t1 (e) on topic ------------------/
// old at c1, tag v1 and origin/main at c1; HEAD on main.
function makeRepo(fmt, refs) {
  const dir = path.join(tmp, `repo-${fmt}-${refs}-${++seq}`);
  git(['init', '-q', '-b', 'main', `--object-format=${fmt}`, `--ref-format=${refs}`, dir]);
  let t = 1700000000;
  const commit = (msg) => gitAt(dir, ['commit', '-q', '-m', msg], { date: t += 60 });
  write(dir, 'a', 'a1\n');
  write(dir, 'b', 'b1\n');
  gitAt(dir, ['add', '.']);
  commit('one');
  write(dir, 'a', 'a2\n');
  write(dir, 'c', 'c\n');
  write(dir, 'dir/x', 'x\n');
  gitAt(dir, ['add', '.']);
  commit('two\n\nwith a body');
  gitAt(dir, ['branch', 'topic']);
  write(dir, 'd', 'd\n');
  gitAt(dir, ['add', 'd']);
  commit('three');
  gitAt(dir, ['checkout', '-q', 'topic']);
  write(dir, 'e', 'e\n');
  gitAt(dir, ['add', 'e']);
  commit('side');
  gitAt(dir, ['checkout', '-q', 'main']);
  gitAt(dir, ['merge', '-q', '--no-ff', '-m', 'merge topic', 'topic'], { date: t += 60 });
  gitAt(dir, ['branch', 'old', 'main~1~1~1']);
  gitAt(dir, ['tag', 'v1', 'old']);
  gitAt(dir, ['update-ref', 'refs/remotes/origin/main', 'old']);
  return dir;
}

const rev = (dir, r) => gitAt(dir, ['rev-parse', r]).trim();
const refsOf = (dir) => gitAt(dir, ['for-each-ref', '--format=%(refname) %(objectname)']) +
  gitAt(dir, ['rev-parse', 'HEAD']);
const fsck = (dir) => gitAt(dir, ['fsck', '--strict', '--no-dangling', '--no-progress']);

// The commit git would hold for `old` rewritten: parents mapped through
// `map`, the committer replaced, a signature dropped, the message
// replaced when given; hashed by git itself.
function expected(dir, old, map, message) {
  const raw = gitAt(dir, ['cat-file', 'commit', old]);
  const at = raw.indexOf('\n\n');
  // a signature (its header and continuation lines) no longer holds
  const kept = [];
  for (const l of raw.slice(0, at).split('\n')) {
    if (/^gpgsig(-sha256)? /.test(l) || (l.startsWith(' ') && kept.dropping)) {
      kept.dropping = true;
      continue;
    }
    kept.dropping = false;
    kept.push(l);
  }
  let head = kept
    .map((l) => (l.startsWith('parent ') ? `parent ${map.get(l.slice(7)) ?? l.slice(7)}` : l))
    .map((l) => (l.startsWith('committer ') ? `committer ${ME_TEXT}` : l));
  head = head.join('\n');
  const body = message ?? raw.slice(at + 2);
  return gitAt(dir, ['hash-object', '-t', 'commit', '-w', '--stdin'], { input: `${head}\n\n${body}` }).trim();
}

for (const [fmt, refs] of FORMATS) {
  test(`reword rewrites the descendants on every local branch (${fmt}/${refs})`, async () => {
    const dir = makeRepo(fmt, refs);
    const before = {
      c2: rev(dir, 'main~1~1'), c3: rev(dir, 'main~1'), t1: rev(dir, 'topic'), m: rev(dir, 'main'),
      old: rev(dir, 'old'), tree: rev(dir, 'main^{tree}'),
    };
    const out = await wg.reword({ dir, commit: 'main~1~1', message: 'two, reworded\n\n\nbody  \n', committer: ME });

    // what git computes from its own objects
    const map = new Map();
    const c2 = expected(dir, before.c2, map, 'two, reworded\n\nbody\n');
    map.set(before.c2, c2);
    for (const k of ['c3', 't1', 'm']) map.set(before[k], expected(dir, before[k], map));
    assert.equal(out.oid, c2);
    assert.deepEqual(out.rewritten.map((r) => r.from).sort(), [before.c2, before.c3, before.t1, before.m].sort());
    assert.equal(out.rewritten[0].from, before.c2, 'the edited commit first');
    for (const r of out.rewritten) assert.equal(r.to, map.get(r.from), `rewrite of ${r.from}`);
    // parents first
    const at = new Map(out.rewritten.map((r, i) => [r.to, i]));
    assert.ok(at.get(map.get(before.c3)) < at.get(map.get(before.m)));
    assert.ok(at.get(map.get(before.t1)) < at.get(map.get(before.m)));
    assert.deepEqual(out.refs.sort(), ['refs/heads/main', 'refs/heads/topic']);

    assert.equal(rev(dir, 'main'), map.get(before.m));
    assert.equal(rev(dir, 'topic'), map.get(before.t1));
    assert.equal(rev(dir, 'old'), before.old, 'a branch behind the commit stays');
    assert.equal(rev(dir, 'v1'), before.old);
    assert.equal(rev(dir, 'main^{tree}'), before.tree);
    assert.equal(gitAt(dir, ['log', '-1', '--format=%B', 'main~1~1']), 'two, reworded\n\nbody\n\n');
    assert.equal(gitAt(dir, ['log', '-1', '--format=%an|%ad|%cn|%cd', '--date=raw', 'main~1~1']).trim(),
      `A U Thor|${gitAt(dir, ['log', '-1', '--format=%ad', '--date=raw', before.c2]).trim()}|E Ditor|1700001000 +0200`);
    assert.equal(gitAt(dir, ['reflog', 'show', '-1', '--format=%gs', 'main']).trim(), 'reword: two, reworded');
    assert.equal(gitAt(dir, ['reflog', 'show', '-1', '--format=%gs', 'HEAD']).trim(), 'reword: two, reworded');
    assert.equal(gitAt(dir, ['reflog', 'show', '-1', '--format=%gs', 'topic']).trim(), 'reword: two, reworded');
    assert.equal(gitAt(dir, ['status', '--porcelain']), '', 'the working tree and index are clean');
    fsck(dir);
  });

  test(`split takes the changes to the paths given first (${fmt}/${refs})`, async () => {
    const dir = makeRepo(fmt, refs);
    const c2 = rev(dir, 'main~1~1');
    const tree = rev(dir, 'main^{tree}');
    const out = await wg.split({ dir, commit: c2, paths: ['a', 'dir/'], message: 'two: a and dir', committer: ME });
    assert.equal(gitAt(dir, ['diff-tree', '-r', '--name-status', out.first]), `${out.first}\nM\ta\nA\tdir/x\n`);
    assert.equal(gitAt(dir, ['diff-tree', '-r', '--name-status', out.second]), `${out.second}\nA\tc\n`);
    assert.equal(rev(dir, `${out.first}^`), rev(dir, 'old'));
    assert.equal(rev(dir, `${out.second}^`), out.first);
    assert.equal(rev(dir, `${out.second}^{tree}`), rev(dir, `${c2}^{tree}`));
    assert.equal(gitAt(dir, ['log', '-1', '--format=%B', out.first]), 'two: a and dir\n\n');
    assert.equal(gitAt(dir, ['log', '-1', '--format=%B', out.second]), 'two\n\nwith a body\n\n');
    assert.equal(gitAt(dir, ['log', '-1', '--format=%an <%ae> %ad', '--date=raw', out.first]),
      gitAt(dir, ['log', '-1', '--format=%an <%ae> %ad', '--date=raw', c2]));
    // the second commit and the descendants are what git computes
    const map = new Map([[c2, out.second]]);
    for (const r of out.rewritten.slice(1)) {
      map.set(r.from, expected(dir, r.from, map));
      assert.equal(r.to, map.get(r.from), `rewrite of ${r.from}`);
    }
    assert.equal(out.rewritten.length, 4);
    assert.equal(rev(dir, 'main^{tree}'), tree);
    assert.equal(rev(dir, 'main~1~1'), out.second);
    assert.equal(rev(dir, 'main~1~1~1'), out.first);
    assert.equal(rev(dir, 'topic~1'), out.second);
    assert.equal(gitAt(dir, ['reflog', 'show', '-1', '--format=%gs', 'main']).trim(), 'split: two: a and dir');
    assert.equal(gitAt(dir, ['status', '--porcelain']), '');
    fsck(dir);

    // a branch's tip, a pattern among the paths, and a second message
    gitAt(dir, ['checkout', '-q', 'topic']);
    write(dir, 'f', 'f\n');
    write(dir, 'sub/g.txt', 'g\n');
    gitAt(dir, ['add', '.']);
    gitAt(dir, ['commit', '-q', '-m', 'f and g'], { date: 1700009000 });
    const main = rev(dir, 'main');
    const tip = await wg.split({
      dir, commit: 'topic', paths: ['*.none', 'sub/*.txt'], secondMessage: 'f alone', committer: ME,
    });
    assert.equal(tip.rewritten.length, 1);
    assert.deepEqual(tip.refs, ['refs/heads/topic']);
    assert.equal(rev(dir, 'topic'), tip.second);
    assert.equal(gitAt(dir, ['diff-tree', '-r', '--name-only', tip.first]), `${tip.first}\nsub/g.txt\n`);
    assert.equal(gitAt(dir, ['diff-tree', '-r', '--name-only', tip.second]), `${tip.second}\nf\n`);
    assert.equal(gitAt(dir, ['log', '-1', '--format=%s', tip.first]).trim(), 'f and g');
    assert.equal(gitAt(dir, ['log', '-1', '--format=%s', tip.second]).trim(), 'f alone');
    assert.equal(rev(dir, 'main'), main, 'main does not descend from topic\'s tip');
    assert.equal(gitAt(dir, ['reflog', 'show', '-1', '--format=%gs', 'HEAD']).trim(), 'split: f and g');
    assert.equal(gitAt(dir, ['status', '--porcelain']), '');
    fsck(dir);
  });

  test(`split takes hunks as git apply takes them from git diff -U0 (${fmt}/${refs})`, async () => {
    const dir = makeRepo(fmt, refs);
    const lines = Array.from({ length: 30 }, (_, i) => `line ${i + 1}`);
    write(dir, 'f.txt', `${lines.join('\n')}\n`);
    write(dir, 'bin', 'a\0b\n');
    write(dir, 'gone', 'x\ny\n');
    gitAt(dir, ['add', '.']);
    gitAt(dir, ['commit', '-q', '-m', 'base'], { date: 1700005000 });
    const changed = [...lines];
    changed[1] = 'line 2, changed';
    changed.splice(12, 0, 'inserted after 12', 'and another');
    changed.splice(26, 2);
    write(dir, 'f.txt', `${changed.join('\n')}\n`);
    write(dir, 'g.txt', 'new file\n');
    write(dir, 'bin', 'a\0c\n');
    fs.rmSync(path.join(dir, 'gone'));
    gitAt(dir, ['add', '-A']);
    gitAt(dir, ['commit', '-q', '-m', 'many changes'], { date: 1700005060 });
    const c = rev(dir, 'HEAD');
    const refsBefore = refsOf(dir);

    // the hunks, as diff() lists them with no context, are git's -U0 hunks
    const u0 = gitAt(dir, ['diff', '-U0', 'HEAD~1', 'HEAD', '--', 'f.txt']);
    const headers = u0.split('\n').filter((l) => l.startsWith('@@'));
    const [file] = await wg.diff({ dir, to: 'HEAD', paths: ['f.txt'], contextLines: 0 });
    assert.equal(file.hunks.length, 3);
    assert.deepEqual(file.hunks.map((h) => `@@ -${h.oldStart},${h.oldLines} +${h.newStart},${h.newLines} @@`),
      headers.map((l) => l.replace(/ @@.*/, ' @@').replace(/-(\d+) /, '-$1,1 ').replace(/\+(\d+) /, '+$1,1 ')));

    // refused, nothing moved: a hunk that is not there, a binary file, a
    // deletion in part, a path the commit does not change
    await assert.rejects(wg.split({ dir, hunks: { 'f.txt': [3] }, committer: ME }),
      { code: 'EINVALID', message: "split: 'f.txt' has 3 hunk(s), no hunk 3" });
    await assert.rejects(wg.split({ dir, hunks: { bin: [0] }, committer: ME }),
      { code: 'EINVALID', message: /'bin' is binary/ });
    await assert.rejects(wg.split({ dir, hunks: { 'a': [0] }, committer: ME }),
      { code: 'EINVALID', message: /'a' is not changed by/ });
    await assert.rejects(wg.split({ dir, hunks: { 'f.txt': [-1] }, committer: ME }), { code: 'EINVALID' });
    assert.equal(refsOf(dir), refsBefore);

    // hunks 0 and 2 of f.txt, and g.txt whole
    const out = await wg.split({ dir, paths: ['g.txt'], hunks: { 'f.txt': [2, 0], gone: [] }, message: 'part one', committer: ME });
    // what git apply makes of the same hunks on the parent
    const keep = [0, 2];
    const body = u0.split(/(?=^@@)/m);
    const patch = body[0] + keep.map((k) => body[k + 1]).join('');
    const index = path.join(tmp, `index-${seq}`);
    const env = { ...process.env, GIT_INDEX_FILE: index, GIT_CONFIG_NOSYSTEM: '1', GIT_CONFIG_GLOBAL: '/dev/null', HOME: tmp };
    git(['-C', dir, 'read-tree', `${c}~1`], { env });
    git(['-C', dir, 'apply', '--cached', '--unidiff-zero'], { env, input: patch });
    git(['-C', dir, 'update-index', '--add', '--cacheinfo', `100644,${rev(dir, `${c}:g.txt`)},g.txt`], { env });
    assert.equal(rev(dir, `${out.first}^{tree}`), git(['-C', dir, 'write-tree'], { env }).trim());
    assert.equal(rev(dir, `${out.second}^{tree}`), rev(dir, `${c}^{tree}`));
    assert.equal(gitAt(dir, ['diff-tree', '-r', '--name-status', out.second]),
      `${out.second}\nM\tbin\nM\tf.txt\nD\tgone\n`);
    fsck(dir);

    // a deletion taken whole through its hunks
    const del = await wg.split({ dir, commit: out.second, hunks: { gone: [0] }, committer: ME });
    assert.equal(gitAt(dir, ['diff-tree', '-r', '--name-status', del.first]), `${del.first}\nD\tgone\n`);
    fsck(dir);
  });

  test(`refusals move no ref (${fmt}/${refs})`, async () => {
    const dir = makeRepo(fmt, refs);
    const refsBefore = refsOf(dir);
    const tree = rev(dir, 'main^{tree}');
    const c2 = rev(dir, 'main~1~1');
    await assert.rejects(wg.reword({ dir, commit: 'old', message: 'x', committer: ME }),
      { code: 'EINVALID', message: /is in published history \(refs\/(remotes\/origin\/main|tags\/v1) holds it\)/ });
    await assert.rejects(wg.reword({ dir, commit: c2, message: ' \n\n', committer: ME }),
      { code: 'EINVALID', message: 'Aborting commit due to empty commit message.' });
    await assert.rejects(wg.reword({ dir, commit: c2, message: 'x' }), { code: 'EINVALID' });
    await assert.rejects(wg.split({ dir, commit: 'main', paths: ['e'], committer: ME }),
      { code: 'EUNSUPPORTED', message: /is a merge/ });
    await assert.rejects(wg.split({ dir, commit: c2, paths: ['nothing-here'], committer: ME }),
      { code: 'EINVALID', message: /no change of .* matches the paths given/ });
    await assert.rejects(wg.split({ dir, commit: c2, paths: ['a', 'c', 'dir'], committer: ME }),
      { code: 'EINVALID', message: /the second commit would be empty/ });
    await assert.rejects(wg.split({ dir, commit: c2, paths: [], committer: ME }), { code: 'EINVALID' });
    await assert.rejects(wg.reword({ dir, commit: 'no-such-rev', message: 'x', committer: ME }), { code: 'ENOTFOUND' });
    // a commit no local branch holds
    const loose = gitAt(dir, ['commit-tree', '-p', 'main', '-m', 'nowhere', 'main^{tree}']).trim();
    await assert.rejects(wg.reword({ dir, commit: loose, message: 'x', committer: ME }),
      { code: 'ENOTFOUND', message: /is not on a local branch/ });
    assert.equal(refsOf(dir), refsBefore);
    fsck(dir);

    // published, when asked: every local branch moves, tags never
    const out = await wg.reword({ dir, commit: 'old', message: 'one!', committer: ME, allowPublished: true });
    assert.deepEqual(out.refs.sort(), ['refs/heads/main', 'refs/heads/old', 'refs/heads/topic']);
    assert.equal(rev(dir, 'old'), out.oid);
    assert.equal(rev(dir, 'v1'), rev(dir, 'origin/main'));
    assert.equal(rev(dir, 'main^{tree}'), tree);
    assert.equal(gitAt(dir, ['rev-list', '--count', 'main']).trim(), '5', 'no commit twice');
    fsck(dir);
  });

  test(`signatures are dropped, other extra headers kept (${fmt}/${refs})`, async () => {
    const dir = makeRepo(fmt, refs);
    // a signed commit with an encoding and a header of its own, on main
    const raw = gitAt(dir, ['cat-file', 'commit', 'main']);
    const at = raw.indexOf('\n\n');
    const signed = `${raw.slice(0, at)}\nencoding ISO-8859-1\nx-custom kept\ngpgsig -----BEGIN PGP SIGNATURE-----\n \n abcd\n -----END PGP SIGNATURE-----\n\nsigned tip\n`;
    const tip = gitAt(dir, ['hash-object', '-t', 'commit', '-w', '--stdin'], { input: signed }).trim();
    gitAt(dir, ['update-ref', 'refs/heads/main', tip]);
    const old = rev(dir, 'main~1');
    const out = await wg.reword({ dir, commit: 'main~1', message: 'merge, reworded', committer: ME });
    const map = new Map([[old, out.oid]]);
    assert.equal(rev(dir, 'main'), expected(dir, tip, map));
    const now = gitAt(dir, ['cat-file', 'commit', 'main']);
    assert.doesNotMatch(now, /gpgsig/);
    assert.match(now, /\nencoding ISO-8859-1\nx-custom kept\n\nsigned tip\n$/);
    fsck(dir);
  });

  test(`a detached HEAD moves with its history (${fmt}/${refs})`, async () => {
    const dir = makeRepo(fmt, refs);
    gitAt(dir, ['checkout', '-q', '--detach', 'main~1']);
    write(dir, 'f', 'f\n');
    gitAt(dir, ['add', 'f']);
    gitAt(dir, ['commit', '-q', '-m', 'detached work'], { date: 1700009000 });
    const c2 = rev(dir, 'HEAD~1~1');
    const out = await wg.reword({ dir, commit: c2, message: 'reworded', committer: ME });
    assert.deepEqual(out.refs.sort(), ['HEAD', 'refs/heads/main', 'refs/heads/topic']);
    assert.equal(rev(dir, 'HEAD~1~1'), out.oid);
    assert.equal(rev(dir, 'main~1~1'), out.oid);
    assert.throws(() => gitAt(dir, ['symbolic-ref', '-q', 'HEAD']), 'HEAD stays detached');
    assert.equal(gitAt(dir, ['reflog', 'show', '-1', '--format=%gs', 'HEAD']).trim(), 'reword: reworded');
    assert.equal(gitAt(dir, ['status', '--porcelain']), '');
    fsck(dir);
  });
}
