// The JS API beyond clone: init, writing objects and commits, push, fetch,
// refs, log, and the edge read without a clone; each result checked with
// the reference git (environment: see lib.mjs).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { loadWebgit, makeTmp, gitIn, startServer, startServerAt, SAMPLES } from './lib.mjs';

let wg;
let tmp;
let git;
let server;
let logFile;
let dirSeq = 0;
const newDir = (label) => path.join(tmp, 'work', `${label}-${++dirSeq}`);
const repoUrl = (name) => `${server.base}/git/${name}.git`;
const author = { name: 'Web Git', email: 'web@example.com', timestamp: 1700000000, timezone: '+0100' };

before(async () => {
  wg = await loadWebgit();
  await wg.init();
  tmp = makeTmp('api');
  git = gitIn(tmp);
  logFile = path.join(tmp, 'requests.log');
  server = startServer(tmp, ['--log', logFile]);
});

after(async () => {
  if (server) await server.stop();
  if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
});

test('init makes a SHA-256 reftable repository by default, and what we write git accepts', async () => {
  const dir = newDir('init');
  await wg.init({ dir });
  assert.equal(git(['-C', dir, 'rev-parse', '--show-object-format']).trim(), 'sha256');
  assert.equal(git(['-C', dir, 'rev-parse', '--show-ref-format']).trim(), 'reftable');
  assert.equal(await wg.currentBranch({ dir }), 'main');

  const blob = await wg.writeObject({ dir, type: 'blob', data: 'hello\n' });
  assert.equal(blob, git(['-C', dir, 'hash-object', '--stdin'], { input: 'hello\n', stdio: ['pipe', 'pipe', 'pipe'] }).trim());
  const sub = await wg.writeTree({ dir, entries: [{ mode: '100644', name: 'b.txt', oid: blob }] });
  // unsorted input, a directory sorting as "a/" after "a.txt"
  const tree = await wg.writeTree({
    dir,
    entries: [
      { mode: '40000', name: 'a', oid: sub },
      { mode: '100755', name: 'run.sh', oid: blob },
      { mode: '100644', name: 'a.txt', oid: blob },
    ],
  });
  assert.equal(git(['-C', dir, 'ls-tree', '--name-only', tree]).trim().split('\n').join(','), 'a.txt,a,run.sh');
  const c1 = await wg.commit({ dir, tree, message: 'first', author });
  const c2 = await wg.commit({ dir, tree, message: 'second\n\nbody', author });
  assert.equal(git(['-C', dir, 'rev-parse', 'main']).trim(), c2);
  assert.equal(git(['-C', dir, 'rev-parse', 'main~1']).trim(), c1);
  assert.equal(git(['-C', dir, 'log', '--format=%an <%ae> %at %ai|%s', 'main']).trim().split('\n')[0],
    'Web Git <web@example.com> 1700000000 2023-11-14 23:13:20 +0100|second');
  assert.deepEqual(git(['-C', dir, 'reflog', '--format=%gs', 'main']).trim().split('\n'),
    ['commit: second', 'commit (initial): first']);
  git(['-C', dir, 'fsck', '--strict']);

  // fsck's checks refuse what git would: a tree with ".git", a bad mode
  await assert.rejects(wg.writeTree({ dir, entries: [{ mode: '100644', name: '.git', oid: blob }] }),
    { code: 'EFSCK' });
  await assert.rejects(wg.writeObject({ dir, type: 'commit', data: 'tree nonsense\n\nx\n' }), { code: 'EFSCK' });
  // updateRef checks the old value
  await assert.rejects(wg.updateRef({ dir, ref: 'refs/heads/main', oid: c1, oldOid: c1 }),
    (e) => typeof e.code === 'string' && /expected|is at/.test(e.message));
  await wg.updateRef({ dir, ref: 'refs/heads/topic', oid: c1, oldOid: null, message: 'branch: Created' });
  assert.equal(git(['-C', dir, 'rev-parse', 'topic']).trim(), c1);
  const refs = await wg.listRefs({ dir });
  assert.deepEqual(refs.map((r) => `${r.oid} ${r.name}`),
    git(['-C', dir, 'for-each-ref', '--format=%(objectname) %(refname)']).trim().split('\n'));
});

test('the SHA-1 / files formats on request', async () => {
  const dir = newDir('init-sha1');
  await wg.init({ dir, objectFormat: 'sha1', refFormat: 'files', defaultBranch: 'trunk' });
  assert.equal(git(['-C', dir, 'rev-parse', '--show-object-format']).trim(), 'sha1');
  assert.equal(git(['-C', dir, 'rev-parse', '--show-ref-format']).trim(), 'files');
  assert.equal(await wg.currentBranch({ dir }), 'trunk');
  assert.deepEqual(await wg.listRefs({ dir }), []);
  const tree = await wg.writeTree({ dir, entries: [] });
  const oid = await wg.commit({ dir, tree, message: 'root', author });
  await wg.updateRef({ dir, ref: 'refs/tags/t', oid });
  const refs = await wg.listRefs({ dir });
  assert.deepEqual(refs.map((r) => `${r.oid} ${r.name}`),
    git(['-C', dir, 'for-each-ref', '--format=%(objectname) %(refname)']).trim().split('\n'));
  assert.deepEqual((await wg.listRefs({ dir, prefix: 'refs/tags/' })).map((r) => r.name), ['refs/tags/t']);
  git(['-C', dir, 'fsck', '--strict']);
});

test('commits and trees are made by the core: the ids git commit-tree and mktree give; bad input refused', async () => {
  const dir = newDir('core-commit');
  await wg.init({ dir, objectFormat: 'sha1', refFormat: 'files' });
  const blob = await wg.writeObject({ dir, data: 'x\n' });
  const tree = await wg.writeTree({ dir, entries: [{ mode: '100644', name: 'z', oid: blob }, { mode: '040000', name: 'd', oid: await wg.writeTree({ dir, entries: [] }) }] });
  assert.equal(tree, git(['-C', dir, 'mktree'], { input: git(['-C', dir, 'ls-tree', tree]), stdio: ['pipe', 'pipe', 'pipe'] }).trim());
  const committer = { name: ' C. O. Mitter ', email: 'c@example.com', timestamp: 1700000100, timezone: '-0530' };
  const oid = await wg.commit({ dir, tree, message: 'subject\n\nbody', author, committer });
  const env = {
    ...process.env, GIT_CONFIG_NOSYSTEM: '1', GIT_CONFIG_GLOBAL: '/dev/null', HOME: tmp,
    GIT_AUTHOR_NAME: author.name, GIT_AUTHOR_EMAIL: author.email, GIT_AUTHOR_DATE: '1700000000 +0100',
    GIT_COMMITTER_NAME: committer.name, GIT_COMMITTER_EMAIL: committer.email, GIT_COMMITTER_DATE: '1700000100 -0530',
  };
  assert.equal(oid, git(['-C', dir, 'commit-tree', tree, '-m', 'subject', '-m', 'body'], { env }).trim());
  const [c] = await (async () => { const out = []; for await (const x of wg.log({ dir })) out.push(x); return out; })();
  assert.deepEqual(c, {
    oid, tree, parents: [],
    author: { name: 'Web Git', email: 'web@example.com', timestamp: 1700000000, timezone: '+0100' },
    committer: { name: 'C. O. Mitter', email: 'c@example.com', timestamp: 1700000100, timezone: '-0530' },
    message: 'subject\n\nbody\n',
  });

  await assert.rejects(wg.writeTree({ dir, entries: [{ mode: '100644', name: 'a', oid: blob }, { mode: '100755', name: 'a', oid: blob }] }), { code: 'EEXISTS' });
  await assert.rejects(wg.writeTree({ dir, entries: [{ mode: '100600', name: 'a', oid: blob }] }), { code: 'EINVALID' });
  await assert.rejects(wg.writeTree({ dir, entries: [{ mode: '100644', name: 'a/b', oid: blob }] }), { code: 'EINVALID' });
  await assert.rejects(wg.writeTree({ dir, entries: [{ mode: '100644', name: 'a', oid: 'abc' }] }), { code: 'EINVALID' });
  await assert.rejects(wg.writeTree({ dir, entries: [{ mode: '100644', name: 'a\0b', oid: blob }] }), { code: 'EINVALID' });
  await assert.rejects(wg.commit({ dir, tree, message: 'm', author: { ...author, timezone: '+1' } }), { code: 'EINVALID' });
  await assert.rejects(wg.commit({ dir, tree, message: 'm', author: { name: '<>', email: 'e@x' } }), { code: 'EINVALID' });
  await assert.rejects(wg.commit({ dir, tree, message: 'm', author, parents: ['nope'] }), { code: 'EINVALID' });
  assert.equal(await wg.resolveRef({ dir, ref: 'main' }), oid, 'a refused commit moves nothing');
  git(['-C', dir, 'fsck', '--strict']);
});

for (const name of SAMPLES) {
  test(`commit, push, and fetch it back (${name})`, async () => {
    const dir = newDir('push');
    await wg.clone({ url: repoUrl(name), dir });
    const other = newDir('fetch');
    await wg.clone({ url: repoUrl(name), dir: other, depth: 1, ref: 'main', singleBranch: false });
    const base = await wg.resolveRef({ dir, ref: 'main' });
    const readme = await wg.readFile({ dir, ref: 'main', path: 'README.md' });
    const blob = await wg.writeObject({ dir, data: new TextEncoder().encode('pushed from JS\n') });
    const root = await wg.readTree({ dir, ref: 'main' });
    const tree = await wg.writeTree({
      dir, entries: [...root.filter((e) => e.name !== 'PUSHED'), { mode: '100644', name: 'PUSHED', oid: blob }],
    });
    const branch = `js-${dirSeq}`;
    const oid = await wg.commit({ dir, ref: `refs/heads/${branch}`, tree, parents: [base], message: 'from JS', author });
    const progress = [];
    const result = await wg.push({ dir, refspecs: [branch], onProgress: (p) => progress.push(p) });
    assert.equal(result.ok, true);
    assert.deepEqual(result.refs.map((r) => [r.status, r.dst, r.newOid]), [['ok', `refs/heads/${branch}`, oid]]);
    const remoteDir = path.join(server.repos, `${name}.git`);
    assert.equal(git(['-C', remoteDir, 'rev-parse', branch]).trim(), oid);
    assert.equal(git(['-C', remoteDir, 'show', `${branch}:PUSHED`]), 'pushed from JS\n');
    git(['-C', remoteDir, 'fsck', '--strict', '--no-dangling']);
    assert.equal(git(['-C', dir, 'rev-parse', `origin/${branch}`]).trim(), oid, 'remote-tracking ref updated');

    // The other clone fetches it; a non-fast-forward push is refused.
    const fetched = await wg.fetch({ dir: other });
    assert.ok(fetched.updates.some((u) => u.remoteRef === `refs/heads/${branch}` && u.newOid === oid && u.flag === '*'),
      JSON.stringify(fetched.updates));
    assert.equal(git(['-C', other, 'rev-parse', `origin/${branch}`]).trim(), oid);
    const again = await wg.fetch({ dir: other });
    assert.ok(again.updates.every((u) => u.flag === '='), 'nothing new');
    assert.equal(again.packBytes, 0);
    git(['-C', other, 'fsck', '--strict']);
    assert.ok(Buffer.from(readme).equals(git(['-C', other, 'cat-file', 'blob', 'main:README.md'], { encoding: 'buffer' })));

    const side = await wg.commit({ dir, ref: `refs/heads/${branch}`, tree, parents: [base], message: 'side', author });
    const refused = await wg.push({ dir, refspecs: [`${branch}`] });
    assert.equal(refused.ok, false);
    assert.match(refused.refs[0].status, /^rejected/);
    assert.equal(git(['-C', remoteDir, 'rev-parse', branch]).trim(), oid, 'the server ref did not move');
    const forced = await wg.push({ dir, refspecs: [`+${branch}`] });
    assert.equal(forced.ok, true);
    assert.equal(git(['-C', remoteDir, 'rev-parse', branch]).trim(), side);
  });
}

test('log walks like git log', async () => {
  const dir = newDir('log');
  await wg.clone({ url: repoUrl(SAMPLES[0]), dir, bare: true });
  const ours = [];
  for await (const c of wg.log({ dir, ref: 'main' })) ours.push(`${c.oid} ${c.parents.join(',')} ${c.committer.timestamp} ${c.message.split('\n')[0]}`);
  const theirs = git(['--git-dir', dir, 'log', '--format=%H %P %ct %s', 'main']).trim().split('\n')
    .map((l) => l.replace(/^(\S+) (\S*(?: \S{40,})*) /, (m, h, p) => `${h} ${p.split(' ').filter(Boolean).join(',')} `));
  assert.equal(ours.length, theirs.length);
  assert.deepEqual(ours, theirs);
  const first = [];
  for await (const c of wg.log({ dir, ref: 'v1.0', depth: 3 })) first.push(c.oid);
  assert.deepEqual(first, git(['--git-dir', dir, 'log', '--format=%H', '-3', 'v1.0']).trim().split('\n'));
  // a shallow clone's log ends at its boundary
  const shallow = newDir('log-shallow');
  await wg.clone({ url: repoUrl(SAMPLES[1]), dir: shallow, depth: 2 });
  const n = [];
  for await (const c of wg.log({ dir: shallow })) n.push(c.oid);
  assert.deepEqual(n, git(['-C', shallow, 'log', '--format=%H']).trim().split('\n'));
});

test('tree:0 clone: readFile fetches the trees on the path, then the blob', async () => {
  const dir = newDir('tree0');
  await wg.clone({ url: repoUrl(SAMPLES[1]), dir, filter: 'tree:0', noCheckout: true });
  const nested = git(['-C', dir, 'ls-tree', '-r', '--name-only', 'main']).split('\n').find((p) => p.split('/').length >= 3);
  const requests = [];
  const data = await wg.readFile({ dir, ref: 'main', path: nested, onRequest: (r) => requests.push(r) });
  assert.ok(Buffer.from(data).equals(git(['-C', dir, 'show', `main:${nested}`], { encoding: 'buffer' })));
  assert.ok(requests.length >= 2, `${requests.length} requests`);
  git(['-C', dir, 'fsck']);
});

for (const name of SAMPLES) {
  test(`readFile from a URL without a clone (${name})`, async () => {
    const url = repoUrl(name);
    const bare = path.join(server.repos, `${name}.git`);
    const cases = [
      ['HEAD', 'README.md'],
      ['main', git(['-C', bare, 'ls-tree', '-r', '--name-only', 'main']).split('\n').find((p) => p.includes('/'))],
      ['v1.0', 'README.md'],
      ['refs/heads/dev', 'README.md'],
    ];
    // told the object format, the first read of a SHA-256 server is as
    // short as the others (edge.test.mjs reads one without being told)
    const objectFormat = name.includes('sha256') ? 'sha256' : undefined;
    for (const [ref, file] of cases) {
      const requests = [];
      const data = await wg.readFile({ url, ref, path: file, objectFormat, onRequest: (r) => requests.push(r) });
      assert.ok(Buffer.from(data).equals(git(['-C', bare, 'show', `${ref}:${file}`], { encoding: 'buffer' })), `${ref}:${file}`);
      const bytes = requests.reduce((n, r) => n + r.sent + r.received, 0);
      // ls-refs, the commit and its trees, the blob
      assert.deepEqual(requests.map((r) => `${r.method} ${r.status}`), ['POST 200', 'POST 200', 'POST 200']);
      console.log(`# edge readFile ${name} ${ref}:${file}: ${requests.length} requests, ${bytes} bytes`);
    }
    await assert.rejects(wg.readFile({ url, ref: 'main', path: 'no/such/file' }), { code: 'ENOTFOUND' });
  });
}

test('deleteRepo removes a repository, and refuses what is not one', async () => {
  const dir = newDir('delete');
  await wg.init({ dir });
  await wg.deleteRepo({ dir });
  assert.equal(fs.existsSync(dir), false);
  const plain = newDir('plain');
  fs.mkdirSync(plain, { recursive: true });
  await assert.rejects(wg.deleteRepo({ dir: plain }), { code: 'EINVALID' });
  assert.equal(fs.existsSync(plain), true);
});

test('credentials: headers and a custom fetch() authenticate a push; none is EAUTH', async () => {
  const auth = startServerAt(path.join(tmp, 'auth-server'), server.repos, ['--auth', 'web:secret']);
  try {
    const name = SAMPLES[0];
    const url = `${auth.base}/git/${name}.git`;
    const dir = newDir('auth');
    await wg.clone({ url, dir, depth: 1 });     // fetches need no credentials
    const base = await wg.resolveRef({ dir, ref: 'main' });
    const tree = await wg.resolveRef({ dir, ref: 'main^{tree}' });
    const basic = `Basic ${Buffer.from('web:secret').toString('base64')}`;
    const remoteDir = path.join(server.repos, `${name}.git`);

    const c1 = await wg.commit({ dir, ref: 'refs/heads/auth-1', tree, parents: [base], message: 'auth 1', author });
    await assert.rejects(wg.push({ dir, refspecs: ['auth-1'] }), (e) => {
      assert.equal(e.code, 'EAUTH');
      assert.match(e.message, /Authentication failed/);
      return true;
    });
    await assert.rejects(wg.push({ dir, refspecs: ['auth-1'], headers: { Authorization: 'Basic d3Jvbmc6d3Jvbmc=' } }),
      { code: 'EAUTH' });
    assert.throws(() => git(['-C', remoteDir, 'rev-parse', '--verify', '-q', 'auth-1']));

    const viaHeaders = await wg.push({ dir, refspecs: ['auth-1'], headers: { Authorization: basic } });
    assert.equal(viaHeaders.ok, true);
    assert.equal(git(['-C', remoteDir, 'rev-parse', 'auth-1']).trim(), c1);

    const c2 = await wg.commit({ dir, ref: 'refs/heads/auth-2', tree, parents: [base], message: 'auth 2', author });
    const seen = [];
    const viaFetch = await wg.push({
      dir,
      refspecs: ['auth-2'],
      fetch: (input, init) => {
        seen.push(input);
        const headers = new Headers(init.headers);
        headers.set('Authorization', basic);
        return fetch(input, { ...init, headers });
      },
    });
    assert.equal(viaFetch.ok, true);
    assert.ok(seen.some((u) => u.endsWith('/git-receive-pack')), 'the custom fetch made the requests');
    assert.equal(git(['-C', remoteDir, 'rev-parse', 'auth-2']).trim(), c2);
  } finally {
    await auth.stop();
  }
});

// init({ wasm }) that cannot give a module fails with a code saying why,
// and a later init() with a good module still works: each case in a
// fresh Node process, since a process loads the module once.
test('init({ wasm }) failures have codes, and a good init works after one', async () => {
  const { execFileSync } = await import('node:child_process');
  const { pathToFileURL } = await import('node:url');
  const { JS_DIR } = await import('./lib.mjs');
  const index = pathToFileURL(path.join(JS_DIR, 'index.js')).href;
  const run = (expr) => JSON.parse(execFileSync(process.execPath, ['--input-type=module', '-e', `
    const wg = await import(${JSON.stringify(index)});
    let first;
    try { await wg.init({ wasm: ${expr} }); first = 'loaded'; } catch (e) { first = e.code ?? 'no code: ' + e.message; }
    let then;
    try { await wg.init(); then = 'loaded'; } catch (e) { then = e.code ?? e.message; }
    console.log(JSON.stringify({ first, then }));
  `], { encoding: 'utf8' }));
  for (const [expr, code] of [
    ['42', 'EINVALID'],
    ['new Uint8Array([1, 2, 3, 4])', 'ECORRUPT'],
    ["new Response('nope', { status: 404 })", 'ENOTFOUND'],
    ["new Response('nope', { status: 503 })", 'EIO'],
    ["new Response('not wasm', { headers: { 'content-type': 'application/wasm' } })", 'ECORRUPT'],
    [JSON.stringify(pathToFileURL(path.join(tmp, 'no-such.wasm')).href), 'ENOTFOUND'],
  ]) {
    assert.deepEqual(run(expr), { first: code, then: 'loaded' }, `init({ wasm: ${expr} })`);
  }
});
