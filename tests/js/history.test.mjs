// The history queries of the JS API (log with ranges, paths and orders;
// mergeBase, isAncestor, aheadBehind) against the reference git, on a
// history written with git fast-import: branches merged back and forth
// (criss-cross, several merge bases), commits with equal dates and
// commits older than their parents, files added, edited, renamed and
// deleted in directories. log's follow against git log --follow on a
// history of renames with edits, copies, re-added names and renamed
// directories, also in a blob-less clone (the source search fetches the
// blobs it compares). Both object formats.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { loadWebgit, makeTmp, gitIn, startServerAt } from './lib.mjs';

let wg;
let tmp;
let git;

// a small deterministic generator (xorshift)
function rng(seed) {
  let x = seed >>> 0 || 1;
  return () => {
    x ^= x << 13; x >>>= 0; x ^= x >>> 17; x ^= x << 5; x >>>= 0;
    return x / 4294967296;
  };
}

function history(seed, n) {
  const rnd = rng(seed);
  const pick = (a) => a[Math.floor(rnd() * a.length)];
  const out = [];
  const files = new Map();   // mark -> Map(path -> n)
  const tips = new Map();
  let mark = 0;
  let date = 1600000000;
  const data = (s) => { out.push(`data ${Buffer.byteLength(s)}\n${s}\n`); };
  const commit = (branch, parents) => {
    mark++;
    const r = rnd();
    if (r < 0.3) { /* the same date */ } else if (r < 0.37) date -= 1 + Math.floor(rnd() * 5000); else date += 1 + Math.floor(rnd() * 3600);
    const f = new Map(parents.length ? files.get(parents[0]) : []);
    files.set(mark, f);
    out.push(`commit refs/heads/${branch}\nmark :${mark}\n`);
    out.push(`author A <a@x> ${date} +0100\ncommitter C <c@x> ${date} -0700\n`);
    data(`commit ${mark} on ${branch}\n`);
    if (parents.length) out.push(`from :${parents[0]}\n`);
    for (const p of parents.slice(1)) out.push(`merge :${p}\n`);
    for (let k = 0; k < 1 + Math.floor(rnd() * 2); k++) {
      const live = [...f.keys()].sort();
      const op = rnd();
      if (op < 0.6 || !live.length) {
        const p = pick(['', 'src/', 'src/lib/', 'docs/']) + pick(['a', 'b', 'c', 'd', 'e']) + pick(['.c', '.md']);
        f.set(p, (f.get(p) || 0) + 1);
        out.push(`M 100644 inline ${p}\n`);
        data(`${p} ${f.get(p)} ${mark}\n`);
      } else if (op < 0.8) {
        const src = pick(live);
        const dst = `moved/${src.replaceAll('/', '-')}`;
        if (f.has(dst)) continue;
        out.push(`R ${src} ${dst}\n`);
        f.set(dst, f.get(src));
        f.delete(src);
      } else {
        const v = pick(live);
        out.push(`D ${v}\n`);
        f.delete(v);
      }
    }
    out.push('\n');
    tips.set(branch, mark);
  };
  const branches = ['main'];
  commit('main', []);
  for (let i = 0; i < n; i++) {
    const r = rnd();
    if (r < 0.1 && branches.length < 4) {
      const b = `topic${branches.length}`;
      branches.push(b);
      commit(b, [tips.get(pick([...tips.keys()]))]);
    } else if (r < 0.25 && branches.length > 1) {
      const a = pick(branches);
      const b = pick(branches.filter((x) => x !== a));
      commit(a, [tips.get(a), tips.get(b)]);
    } else {
      const b = pick(branches);
      commit(b, [tips.get(b)]);
    }
  }
  return { stream: out.join(''), branches };
}

// A history for --follow: multi-line files renamed (with edits or not),
// copied, deleted and re-added, directories renamed, renames on one
// branch and edits on another, merges.
function followHistory(seed, n) {
  const rnd = rng(seed);
  const pick = (a) => a[Math.floor(rnd() * a.length)];
  const int = (k) => Math.floor(rnd() * k);
  const out = [];
  const trees = new Map();
  const tips = new Map();
  const gone = [];
  let mark = 0;
  let date = 1600000000;
  const data = (s) => { out.push(`data ${Buffer.byteLength(s)}\n${s}\n`); };
  const body = () => Array.from({ length: 3 + int(10) }, () => `line ${int(100000)} ${pick(['a', 'b', 'c'])}`);
  const edit = (l) => { const c = [...l]; for (let k = 0; k <= int(3); k++) c.splice(int(c.length + 1), rnd() < 0.5 ? 1 : 0, `edit ${int(99999)}`); return c; };
  const free = (f, p) => !f.has(p) && ![...f.keys()].some((x) => x.startsWith(`${p}/`) || p.startsWith(`${x}/`));
  const put = (f, p, l) => { f.set(p, l); out.push(`M 100644 inline ${p}\n`); data(l.length ? `${l.join('\n')}\n` : ''); };
  const commit = (branch, parents) => {
    mark++;
    date += rnd() < 0.1 ? -int(4000) : 1 + int(3600);
    const f = new Map(parents.length ? trees.get(parents[0]) : []);
    trees.set(mark, f);
    out.push(`commit refs/heads/${branch}\nmark :${mark}\n`);
    out.push(`author A <a@x> ${date} +0000\ncommitter C <c@x> ${date} +0000\n`);
    data(`commit ${mark}\n`);
    if (parents.length) out.push(`from :${parents[0]}\n`);
    for (const p of parents.slice(1)) out.push(`merge :${p}\n`);
    if (parents.length > 1) {
      for (const [p, l] of trees.get(parents[1])) if (free(f, p) && rnd() < 0.7) put(f, p, l);
    } else {
      for (let k = 0; k <= int(2); k++) {
        const live = [...f.keys()].sort();
        const op = rnd();
        if (op < 0.15 || !live.length) {
          const p = pick(['', 'src/', 'docs/', 'lib/']) + pick(['x', 'y', 'z', 'w']) + pick(['.c', '.md', '']);
          if (free(f, p)) put(f, p, body());
        } else if (op < 0.4) {
          const p = pick(live);
          put(f, p, edit(f.get(p)));
        } else if (op < 0.6) {
          const src = pick(live);
          const dst = pick(['', 'src/', 'old/']) + pick(['mv-', 'r-', '']) + src.split('/').pop();
          if (!free(f, dst)) continue;
          out.push(`R ${src} ${dst}\n`);
          f.set(dst, f.get(src));
          f.delete(src);
          gone.push(src);
          if (rnd() < 0.5) put(f, dst, edit(f.get(dst)));
        } else if (op < 0.68) {
          const src = pick(live);
          const dst = `cp-${src.split('/').pop()}`;
          if (free(f, dst)) put(f, dst, rnd() < 0.5 ? edit(f.get(src)) : f.get(src));
        } else if (op < 0.76) {
          const v = pick(live);
          out.push(`D ${v}\n`);
          f.delete(v);
          gone.push(v);
        } else if (op < 0.84 && gone.length) {
          const p = pick(gone);
          if (free(f, p)) put(f, p, edit(rnd() < 0.5 ? f.get(pick(live)) : body()));
        } else {
          const dirs = [...new Set(live.filter((p) => p.includes('/')).map((p) => p.split('/')[0]))];
          if (!dirs.length) continue;
          const d = pick(dirs);
          const nd = `${pick(['pkg', 'moved', 'lib2'])}${int(3)}`;
          const moves = live.filter((p) => p.startsWith(`${d}/`)).map((p) => [p, nd + p.slice(d.length)]);
          if (moves.some(([, t]) => !free(f, t))) continue;
          for (const [a, b] of moves) { out.push(`R ${a} ${b}\n`); f.set(b, f.get(a)); f.delete(a); gone.push(a); }
        }
      }
    }
    out.push('\n');
    tips.set(branch, mark);
  };
  const branches = ['main'];
  commit('main', []);
  for (let i = 0; i < n; i++) {
    const r = rnd();
    if (r < 0.06 && branches.length < 3) {
      const b = `topic${branches.length}`;
      branches.push(b);
      commit(b, [tips.get('main')]);
    } else if (r < 0.16 && branches.length > 1) {
      const a = pick(branches);
      commit(a, [tips.get(a), tips.get(pick(branches.filter((x) => x !== a)))]);
    } else {
      const b = pick(branches);
      commit(b, [tips.get(b)]);
    }
  }
  return out.join('');
}

const repos = {};
const followRepos = {};
let server;

before(async () => {
  wg = await loadWebgit();
  await wg.init();
  tmp = makeTmp('history');
  git = gitIn(tmp);
  for (const fmt of ['sha1', 'sha256']) {
    const dir = path.join(tmp, fmt);
    git(['init', '-q', `--object-format=${fmt}`, '-b', 'main', dir]);
    const { stream, branches } = history(fmt === 'sha1' ? 7 : 11, 150);
    git(['-C', dir, 'fast-import', '--quiet'], { input: stream });
    repos[fmt] = { dir, branches };
    const fdir = path.join(tmp, 'repos', `follow-${fmt}.git`);
    git(['init', '-q', '--bare', `--object-format=${fmt}`, '-b', 'main', fdir]);
    git(['-C', fdir, 'fast-import', '--quiet'], { input: followHistory(fmt === 'sha1' ? 5 : 9, 160) });
    git(['-C', fdir, 'config', 'uploadpack.allowFilter', 'true']);
    git(['-C', fdir, 'config', 'uploadpack.allowAnySHA1InWant', 'true']);
    followRepos[fmt] = fdir;
  }
  server = startServerAt(path.join(tmp, 'server'), path.join(tmp, 'repos'));
});

after(async () => {
  if (server) await server.stop();
  if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
});

async function ids(options) {
  const out = [];
  for await (const c of wg.log(options)) out.push(c.oid);
  return out;
}
const lines = (s) => s.split('\n').filter(Boolean);

for (const fmt of ['sha1', 'sha256']) {
  test(`${fmt}: log walks, orders, ranges and paths as git log does`, async () => {
    const { dir, branches } = repos[fmt];
    const t = branches[1];
    const cases = [
      [{}, []],
      [{ ref: t }, [t]],
      [{ order: 'topo' }, ['--topo-order']],
      [{ order: 'date', reverse: true }, ['--date-order', '--reverse']],
      [{ firstParent: true }, ['--first-parent']],
      [{ noMerges: true, skip: 3, depth: 10 }, ['--no-merges', '--skip=3', '-n10']],
      [{ merges: true }, ['--merges']],
      [{ range: `${t}..main` }, [`${t}..main`]],
      [{ range: `${t}...main`, order: 'topo' }, [`${t}...main`, '--topo-order']],
      [{ range: ['main', `^${branches[2] ?? 'main~4'}`] }, ['main', `^${branches[2] ?? 'main~4'}`]],
      [{ paths: 'src' }, ['--', 'src']],
      [{ paths: ['docs', '*.md'], fullHistory: true }, ['--full-history', '--', 'docs', '*.md']],
      [{ paths: 'moved', firstParent: true }, ['--first-parent', '--', 'moved']],
      [{ range: `${t}...main`, paths: 'src/lib' }, [`${t}...main`, '--', 'src/lib']],
      // empty ranges (a walk that ends at once, its roots read on the way)
      [{ range: ['main', '^main'] }, ['main', '^main']],
      [{ range: ['main', '^main'], depth: 15 }, ['main', '^main', '-n15']],
    ];
    let checked = 0;
    for (const [opts, args] of cases) {
      const want = lines(git(['-C', dir, 'log', '--format=%H', ...args]));
      assert.deepEqual(await ids({ dir, ...opts }), want, `log ${args.join(' ')}`);
      checked += want.length;
    }
    assert.ok(checked > 300, `${checked} commits compared`);
    // the commit fields, for one commit
    const [c] = await (async () => { for await (const x of wg.log({ dir, ref: t, depth: 1 })) return [x]; })();
    const raw = git(['-C', dir, 'log', '-1', '--format=%H%n%T%n%P%n%at%n%ct%n%B', t]).split('\n');
    assert.equal(c.oid, raw[0]);
    assert.equal(c.tree, raw[1]);
    assert.deepEqual(c.parents, raw[2] ? raw[2].split(' ') : []);
    assert.equal(c.author.timestamp, Number(raw[3]));
    assert.equal(c.committer.timestamp, Number(raw[4]));
  });

  test(`${fmt}: mergeBase, isAncestor and aheadBehind agree with git`, async () => {
    const { dir, branches } = repos[fmt];
    const all = lines(git(['-C', dir, 'rev-list', '--all']));
    const sample = all.filter((_, i) => i % 7 === 3).slice(0, 16);
    for (let i = 0; i + 1 < sample.length; i += 2) {
      const [a, b] = [sample[i], sample[i + 1]];
      let want = [];
      try { want = lines(git(['-C', dir, 'merge-base', '--all', a, b])); } catch { want = []; }
      assert.deepEqual(await wg.mergeBase({ dir, commits: [a, b], all: true }), want);
      assert.equal(await wg.mergeBase({ dir, commits: [a, b] }), want[0] ?? null);
      for (const [x, y] of [[a, b], [b, a]]) {
        let yes = true;
        try { git(['-C', dir, 'merge-base', '--is-ancestor', x, y]); } catch { yes = false; }
        assert.equal(await wg.isAncestor({ dir, ancestor: x, commit: y }), yes);
      }
      const [ahead, behind] = git(['-C', dir, 'rev-list', '--left-right', '--count', `${a}...${b}`]).trim().split('\t').map(Number);
      assert.deepEqual(await wg.aheadBehind({ dir, ref: a, base: b }), { ahead, behind });
    }
    const oct = lines(git(['-C', dir, 'merge-base', '--octopus', '--all', ...branches]));
    assert.deepEqual(await wg.mergeBase({ dir, commits: branches, all: true, octopus: true }), oct);
    await assert.rejects(wg.mergeBase({ dir, commits: ['main', 'no-such'] }), (e) => e.code === 'ENOTFOUND');
    await assert.rejects(wg.mergeBase({ dir, commits: ['main'] }), (e) => e.code === 'EINVALID');
    await assert.rejects(ids({ dir, range: 'main..no-such' }), (e) => e.code === 'ENOTFOUND');
    await assert.rejects(ids({ dir, order: 'sideways' }), (e) => e.code === 'EINVALID');
  });

  test(`${fmt}: lastModified is git last-modified`, async () => {
    const { dir, branches } = repos[fmt];
    const parse = (s) => lines(s).map((l) => { const [commit, path] = l.split('\t'); return { path, commit }; });
    for (const [opts, args] of [
      [{}, []], [{ recursive: true }, ['-r']], [{ recursive: true, showTrees: true }, ['-r', '-t']],
      [{ ref: branches[1], recursive: true }, ['-r', branches[1]]],
      [{ recursive: true, paths: 'src' }, ['-r', '--', 'src']],
    ]) {
      const want = parse(git(['-C', dir, 'last-modified', ...args]));
      assert.ok(want.length > 0);
      assert.deepEqual(await wg.lastModified({ dir, ...opts }), want, `last-modified ${args.join(' ')}`);
    }
    await assert.rejects(wg.lastModified({ dir, ref: 'no-such' }), (e) => e.code === 'ENOTFOUND');
  });
}

for (const fmt of ['sha1', 'sha256']) {
  test(`${fmt}: log follow is git log --follow, in a blob-less clone too`, async () => {
    const dir = followRepos[fmt];
    const tip = lines(git(['-C', dir, 'ls-tree', '-r', '--name-only', 'main']));
    let renamed = 0;
    for (const p of tip) {
      const want = lines(git(['-C', dir, 'log', '--follow', '--format=%H', '--', p]));
      assert.deepEqual(await ids({ dir, paths: p, follow: true }), want, `log --follow -- ${p}`);
      renamed += lines(git(['-C', dir, 'log', '--follow', '--format=', '--name-status', '--', p]))
        .filter((l) => /^[RC]/.test(l)).length;
    }
    assert.ok(renamed > 20, `${renamed} renames and copies followed`);
    const some = tip.filter((_, i) => i % 5 === 0);
    for (const p of some) {
      for (const [opts, args] of [
        [{ reverse: true }, ['--reverse']],
        [{ firstParent: true }, ['--first-parent']],
        [{ depth: 2 }, ['-n2']],
        [{ reverse: true, depth: 30, skip: 1 }, ['--reverse', '-n30', '--skip=1']],
        [{ ref: 'main~3' }, ['main~3']],
      ]) {
        const want = lines(git(['-C', dir, 'log', '--follow', '--format=%H', ...args, '--', p]));
        assert.deepEqual(await ids({ dir, paths: p, follow: true, ...opts }), want, `log --follow ${args.join(' ')} -- ${p}`);
      }
    }
    await assert.rejects(ids({ dir, paths: ['a', 'b'], follow: true }), (e) => e.code === 'EINVALID');
    await assert.rejects(ids({ dir, follow: true }), (e) => e.code === 'EINVALID');

    // a blob-less clone fetches what a source search compares, and finds
    // the same history
    const lazy = path.join(tmp, 'clones', `follow-${fmt}`);
    await wg.clone({ url: `${server.base}/git/follow-${fmt}.git`, dir: lazy, filter: 'blob:none', noCheckout: true });
    let requests = 0;
    for (const p of some) {
      const want = lines(git(['-C', dir, 'log', '--follow', '--format=%H', '--', p]));
      const got = [];
      for await (const c of wg.log({ dir: lazy, paths: p, follow: true, onRequest: () => { requests++; } })) got.push(c.oid);
      assert.deepEqual(got, want, `blob-less log --follow -- ${p}`);
    }
    assert.ok(requests > 0, 'the blob-less clone fetched blobs');
    // with lazy fetches off, a search that needs a blob fails cleanly
    const lazy2 = path.join(tmp, 'clones', `follow-${fmt}-nolazy`);
    await wg.clone({ url: `${server.base}/git/follow-${fmt}.git`, dir: lazy2, filter: 'blob:none', noCheckout: true });
    let failed = 0;
    for (const p of some) {
      try { await ids({ dir: lazy2, paths: p, follow: true, lazy: false }); } catch (e) { assert.equal(e.code, 'ENOTFOUND'); failed++; }
    }
    assert.ok(failed > 0, 'some search needed a blob');
  });
}

// log({ patch: true }) as git log -p --format=%H prints it: the id, then
// a blank line and the patch when there is one.
async function logPatchText(options) {
  const out = [];
  for await (const c of wg.log({ ...options, patch: true })) {
    assert.equal(typeof c.patch, 'string');
    out.push(`${c.oid}\n`);
    if (c.patch) out.push(`\n${c.patch}`);
  }
  return out.join('');
}

for (const fmt of ['sha1', 'sha256']) {
  test(`${fmt}: log patch is git log -p, its options and paths too, and fetches a blob-less clone's blobs a commit at a time`, async () => {
    const { dir, branches } = repos[fmt];
    let merges = 0;
    for (const [opts, args] of [
      [{}, []],
      [{ firstParent: true }, ['--first-parent']],   // merges diffed against their first parent
      [{ ref: branches[1], algorithm: 'histogram', contextLines: 1 }, ['--histogram', '-U1', branches[1]]],
      [{ renames: false, interHunkContext: 2 }, ['--no-renames', '--inter-hunk-context=2']],
      [{ paths: 'src', algorithm: 'patience' }, ['--patience', '--', 'src']],
      [{ range: `${branches[1]}..main`, order: 'topo' }, ['--topo-order', `${branches[1]}..main`]],
    ]) {
      const want = git(['-C', dir, 'log', '-p', '--format=%H', ...args]);
      assert.ok(want.includes('diff --git'), `git log -p ${args.join(' ')} has patches`);
      assert.equal(await logPatchText({ dir, ...opts }), want, `log -p ${args.join(' ')}`);
    }
    for await (const c of wg.log({ dir, patch: true })) {
      if (c.parents.length > 1) { merges++; assert.equal(c.patch, '', 'a merge has no patch, as git log -p'); }
    }
    assert.ok(merges > 0);
    // renames are on by default, as git's diff.renames
    assert.ok((await logPatchText({ dir })).includes('\nrename from '));
    // without patch, no patch field
    for await (const c of wg.log({ dir, depth: 1 })) assert.equal(c.patch, undefined);
    await assert.rejects(logPatchText({ dir, contextLines: -1 }), (e) => e.code === 'EINVALID');
    await assert.rejects(logPatchText({ dir, algorithm: 'sideways' }), (e) => e.code === 'EINVALID');

    // a blob-less clone: each commit's blobs in one request, fetched when
    // the walk reaches it; the same text
    const fdir = followRepos[fmt];
    const lazy = path.join(tmp, 'clones', `patch-${fmt}`);
    await wg.clone({ url: `${server.base}/git/follow-${fmt}.git`, dir: lazy, filter: 'blob:none', noCheckout: true });
    let requests = 0;
    let fetches = 0;
    const count = (r) => { requests++; if (r.method === 'POST') fetches++; };
    const want = git(['-C', fdir, 'log', '-p', '--format=%H', '-n', '12']);
    const got = await logPatchText({ dir: lazy, depth: 12, onRequest: count });
    assert.equal(got, want);
    const withBlobs = lines(git(['-C', fdir, 'log', '--format=%H', '-n', '12', '--no-merges'])).length;
    assert.ok(fetches > 0 && fetches <= withBlobs, `${fetches} fetches (${requests} requests) for ${withBlobs} commits`);
    // fetched once: a second walk asks nothing
    requests = 0;
    assert.equal(await logPatchText({ dir: lazy, depth: 12, onRequest: () => { requests++; } }), want);
    assert.equal(requests, 0);
    // with lazy fetches off, a commit whose blobs are missing fails cleanly
    const lazy2 = path.join(tmp, 'clones', `patch-${fmt}-nolazy`);
    await wg.clone({ url: `${server.base}/git/follow-${fmt}.git`, dir: lazy2, filter: 'blob:none', noCheckout: true });
    await assert.rejects(logPatchText({ dir: lazy2, depth: 3, lazy: false }), (e) => e.code === 'ENOTFOUND');
  });
}
