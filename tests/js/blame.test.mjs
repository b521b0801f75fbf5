// blame() against git blame --porcelain on a history with edits, a rename
// with an edit, a merge of two branches that changed the same file, an
// empty file and a file without a final newline; with moves and copies
// (-M, -C, -C -C, -C -C -C and their scores) on a history of blocks moved
// and copied between files; in both object formats (environment: see
// lib.mjs).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { loadWebgit, makeTmp, gitIn } from './lib.mjs';
import { parseBlamePorcelain } from './blame-porcelain.mjs';

let wg;
let tmp;
let git;

before(async () => {
  wg = await loadWebgit();
  await wg.init();
  tmp = makeTmp('blame');
  git = gitIn(tmp);
});

after(() => {
  if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
});

// git blame --porcelain as the groups blame() returns.
function porcelain(dir, ref, file, opts = []) {
  return parseBlamePorcelain(git(['-C', dir, 'blame', '--porcelain', ...opts, ref, '--', file]));
}

function makeHistory(dir, format) {
  git(['init', '-q', '-b', 'main', `--object-format=${format}`, dir]);
  let when = 1700000000;
  const commit = (msg, name = 'Ann', tz = '+0100') => {
    when += 3600;
    git(['-C', dir, 'add', '-A']);
    git(['-C', dir, 'commit', '-q', '-m', msg], {
      env: {
        ...process.env, GIT_CONFIG_NOSYSTEM: '1', GIT_CONFIG_GLOBAL: '/dev/null', HOME: tmp,
        GIT_AUTHOR_NAME: name, GIT_AUTHOR_EMAIL: `${name.toLowerCase()}@example.com`,
        GIT_COMMITTER_NAME: 'C', GIT_COMMITTER_EMAIL: 'c@example.com',
        GIT_AUTHOR_DATE: `${when} ${tz}`, GIT_COMMITTER_DATE: `${when} +0000`,
      },
    });
  };
  const put = (f, text) => fs.writeFileSync(path.join(dir, f), text);
  const body = (n, tag = '') => Array.from({ length: n }, (_, i) => `line ${i}${i % 5 === 2 ? tag : ''}`).join('\n') + '\n';
  put('a.c', body(20));
  put('empty', '');
  put('tail.txt', 'one\ntwo');
  commit('first');
  put('a.c', body(22, ' edited'));
  commit('edit', 'Bo', '-0530');
  git(['-C', dir, 'mv', 'a.c', 'b.c']);
  put('b.c', body(22, ' edited').replace('line 0\n', 'line zero\n'));
  commit('rename with an edit', 'Cy', '+1345');
  git(['-C', dir, 'checkout', '-q', '-b', 'side']);
  put('b.c', fs.readFileSync(path.join(dir, 'b.c'), 'utf8') + 'side end\n');
  put('tail.txt', 'one\ntwo\nthree');
  commit('side');
  git(['-C', dir, 'checkout', '-q', 'main']);
  put('b.c', 'top\n' + fs.readFileSync(path.join(dir, 'b.c'), 'utf8'));
  commit('main');
  git(['-C', dir, 'merge', '-q', '--no-ff', '-m', 'merge side', 'side']);
}

for (const format of ['sha1', 'sha256']) {
  test(`blame matches git blame --porcelain (${format})`, async () => {
    const dir = path.join(tmp, format);
    makeHistory(dir, format);
    for (const [ref, file] of [['HEAD', 'b.c'], ['HEAD', 'tail.txt'], ['HEAD', 'empty'], ['HEAD~1', 'b.c'], ['side', 'tail.txt'], ['HEAD~3', 'a.c']]) {
      const ours = await wg.blame({ dir, ref, path: file });
      assert.deepEqual(ours, porcelain(dir, ref, file), `${ref}:${file}`);
    }
    const groups = await wg.blame({ dir, path: 'b.c' });
    assert.ok(groups.some((g) => g.origPath === 'a.c'), 'lines followed through the rename');
    assert.ok(groups.some((g) => g.boundary), 'the root commit is a boundary');
    assert.equal(groups.reduce((n, g) => n + g.count, 0), 24);
  });
}

// Blocks moved within a file, cut from one file into another, copied from
// a file the commit left alone, and a new file made of pieces of others.
function makeMoves(dir, format) {
  git(['init', '-q', '-b', 'main', `--object-format=${format}`, dir]);
  let when = 1700000000;
  const commit = (msg) => {
    when += 3600;
    git(['-C', dir, 'add', '-A']);
    git(['-C', dir, 'commit', '-q', '-m', msg], {
      env: {
        ...process.env, GIT_CONFIG_NOSYSTEM: '1', GIT_CONFIG_GLOBAL: '/dev/null', HOME: tmp,
        GIT_AUTHOR_NAME: 'Ann', GIT_AUTHOR_EMAIL: 'ann@example.com',
        GIT_COMMITTER_NAME: 'C', GIT_COMMITTER_EMAIL: 'c@example.com',
        GIT_AUTHOR_DATE: `${when} +0100`, GIT_COMMITTER_DATE: `${when} +0000`,
      },
    });
  };
  const put = (f, lines) => fs.writeFileSync(path.join(dir, f), lines.join('\n') + '\n');
  const fn = (name, n) => [`static int ${name}(void)`, '{',
    ...Array.from({ length: n }, (_, i) => `\t${name}_value_${i} = compute_${name}(${i});`), '}', ''];
  const a = [...fn('alpha', 4), ...fn('beta', 3), ...fn('gamma', 5)];
  const b = [...fn('delta', 3), ...fn('epsilon', 6)];
  put('a.c', a);
  put('b.c', b);
  commit('first');
  put('a.c', [...fn('gamma', 5), 'int x;', ...fn('alpha', 4), ...fn('beta', 3)]);
  commit('move gamma up');
  put('b.c', [...fn('delta', 3), ...fn('beta', 3)]);
  put('a.c', [...fn('gamma', 5), 'int x;', ...fn('alpha', 4), ...fn('epsilon', 6).slice(0, 5)]);
  commit('beta to b.c, part of epsilon to a.c');
  put('c.c', ['/* c */', ...fn('delta', 3), ...fn('alpha', 4).slice(1, 5)]);
  commit('c.c from pieces');
  put('b.c', [...fn('delta', 3), ...fn('beta', 3), ...fn('gamma', 5).slice(0, 4)]);
  commit('gamma copied into b.c');
}

for (const format of ['sha1', 'sha256']) {
  test(`blame with moves and copies matches git (${format})`, async () => {
    const dir = path.join(tmp, `moves-${format}`);
    makeMoves(dir, format);
    const cases = [
      [{}, []], [{ moves: true }, ['-M']], [{ moves: 5 }, ['-M5']], [{ moves: 40 }, ['-M40']],
      [{ copies: 1 }, ['-C']], [{ copies: 1, copyScore: 10 }, ['-C10']],
      [{ copies: 2 }, ['-C', '-C']], [{ copies: 3 }, ['-C', '-C', '-C']],
    ];
    let fromOthers = 0;
    for (const file of ['a.c', 'b.c', 'c.c']) {
      for (const [opts, args] of cases) {
        const ours = await wg.blame({ dir, path: file, ...opts });
        assert.deepEqual(ours, porcelain(dir, 'HEAD', file, args), `${file} ${args.join(' ')}`);
        fromOthers += ours.filter((g) => g.origPath !== file).length;
      }
    }
    assert.ok(fromOthers > 0, 'some lines come from other files');
  });
}

test('blame refuses bad move and copy options', async () => {
  const dir = path.join(tmp, 'moves-sha1');
  await assert.rejects(wg.blame({ dir, path: 'a.c', copies: 4 }), TypeError);
  await assert.rejects(wg.blame({ dir, path: 'a.c', moves: -1 }), TypeError);
  await assert.rejects(wg.blame({ dir, path: 'a.c', copyScore: 1.5 }), TypeError);
});

test('blame refuses a missing path and a bad revision', async () => {
  const dir = path.join(tmp, 'sha1');
  await assert.rejects(wg.blame({ dir, path: 'no/such' }), /no such path/);
  await assert.rejects(wg.blame({ dir, path: 'src' }));
  await assert.rejects(wg.blame({ dir, ref: 'nosuchrev', path: 'b.c' }));
});

// The working tree's version (git blame <path>, no revision): edits not
// committed yet, a file new in the index, a file renamed in the working
// tree, lines copied from another changed file (-C). The uncommitted
// lines' times are "now", taken by each tool in its own second: compared
// with the clock instead.
for (const format of ['sha1', 'sha256']) {
  test(`blame of the working tree matches git blame <path> (${format})`, async () => {
    const dir = path.join(tmp, `wt-${format}`);
    makeMoves(dir, format);
    const put = (f, text) => fs.writeFileSync(path.join(dir, f), text);
    const read = (f) => fs.readFileSync(path.join(dir, f), 'utf8');
    put('a.c', read('a.c').replace('int x;\n', 'int y; /* edited */\n') + 'appended\n');
    put('b.c', read('b.c').split('\n').slice(2).join('\n') + read('a.c').split('\n').slice(0, 8).join('\n') + '\n');
    put('new.c', 'staged\n');
    git(['-C', dir, 'add', 'new.c']);
    put('new.c', 'staged\nthen edited\n');
    git(['-C', dir, 'mv', 'c.c', 'moved.c']);
    put('moved.c', `${read('moved.c')}after the move\n`);
    const zero = '0'.repeat(format === 'sha1' ? 40 : 64);
    const now = Math.floor(Date.now() / 1000);
    let uncommitted = 0;
    for (const file of ['a.c', 'b.c', 'new.c', 'moved.c']) {
      for (const [opts, args] of [[{}, []], [{ moves: true }, ['-M']], [{ copies: 1 }, ['-C']], [{ copies: 2 }, ['-C', '-C']]]) {
        const want = parseBlamePorcelain(git(['-C', dir, 'blame', '--porcelain', ...args, '--', file]));
        const ours = await wg.blame({ dir, path: file, worktree: true, ...opts });
        for (const [w, o] of want.map((g, i) => [g, ours[i]])) {
          if (w.commit !== zero || !o) continue;
          uncommitted++;
          assert.equal(o.author.name, 'Not Committed Yet');
          assert.equal(o.summary, `Version of ${file} from ${file}`);
          for (const who of ['author', 'committer']) {
            assert.ok(Math.abs(o[who].timestamp - now) < 120, `${who} time is now`);
            w[who].timestamp = o[who].timestamp;
          }
        }
        assert.deepEqual(ours, want, `${file} ${args.join(' ')}`);
      }
    }
    assert.ok(uncommitted > 8, `${uncommitted} groups of uncommitted lines`);
    const moved = await wg.blame({ dir, path: 'moved.c', worktree: true });
    assert.ok(moved.some((g) => g.origPath === 'c.c'), 'a rename in the working tree is followed');
    assert.ok((await wg.blame({ dir, path: 'b.c', worktree: true, copies: 1 })).some((g) => g.origPath === 'a.c'),
      'lines copied from another changed file are found');
    // a ref and worktree together, a file gone from the working tree, an
    // untracked file
    await assert.rejects(wg.blame({ dir, path: 'a.c', worktree: true, ref: 'HEAD' }), (e) => e.code === 'EINVALID');
    fs.rmSync(path.join(dir, 'a.c'));
    await assert.rejects(wg.blame({ dir, path: 'a.c', worktree: true }), (e) => e.code === 'ENOTFOUND' && /lstat/.test(e.message));
    put('untracked.c', 'x\n');
    await assert.rejects(wg.blame({ dir, path: 'untracked.c', worktree: true }), /no such path 'untracked.c' in HEAD/);
  });
}
