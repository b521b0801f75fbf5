// The JavaScript API (js/index.js over the WebAssembly build) against the
// local Git HTTP server and the reference git, under Node 20's node:test.
//
//   WEBGIT_JS_DIR=build/h-wasm/js node --test tests/js/
//
// (environment: see lib.mjs). tests/js/run.sh builds and runs this.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { loadWebgit, makeTmp, gitIn, startServer, lsRemoteLines, leftAt, SAMPLES } from './lib.mjs';

let wg;          // the API under test
let tmp;         // everything this file writes
let git;         // the reference git
let server;      // { base, stop }

const REPOS = SAMPLES;
const repoUrl = (name) => `${server.base}/git/${name}.git`;
let dirSeq = 0;
const newDir = (label) => path.join(tmp, 'clones', `${label}-${++dirSeq}`);

before(async () => {
  wg = await loadWebgit();
  await wg.init();
  tmp = makeTmp('js');
  git = gitIn(tmp);
  server = startServer(tmp);
});

after(async () => {
  if (server) await server.stop();
  if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
});

for (const name of REPOS) {
  test(`listRemoteRefs equals git ls-remote (${name})`, async () => {
    const refs = await wg.listRemoteRefs(repoUrl(name));
    const expected = git(['ls-remote', repoUrl(name)]).trimEnd().split('\n');
    assert.deepEqual(lsRemoteLines(refs), expected);
    const head = refs.find((r) => r.name === 'HEAD');
    assert.equal(head.target, 'refs/heads/main');
    const algo = name.includes('sha256') ? 64 : 40;
    for (const r of refs) assert.equal(r.oid.length, algo);
  });
}

test('listRemoteRefs with a prefix', async () => {
  const url = repoUrl(REPOS[0]);
  const tags = await wg.listRemoteRefs(url, { prefix: 'refs/tags/' });
  const all = await wg.listRemoteRefs(url);
  assert.ok(tags.length > 0);
  assert.deepEqual(tags, all.filter((r) => r.name.startsWith('refs/tags/')));
  const both = await wg.listRemoteRefs(url, { prefix: ['refs/heads/main', 'refs/tags/v1.0'] });
  assert.deepEqual(both.map((r) => r.name).sort(),
    all.filter((r) => r.name.startsWith('refs/heads/main') || r.name.startsWith('refs/tags/v1.0'))
      .map((r) => r.name).sort());
});

// Every file of `ref` read with readFile equals `git show ref:path`.
async function checkFiles(dir, ref) {
  const paths = git(['-C', dir, 'ls-tree', '-r', '-z', '--name-only', ref]).split('\0').filter(Boolean);
  assert.ok(paths.length > 5, `${paths.length} files`);
  for (const p of paths) {
    const ours = await wg.readFile({ dir, ref, path: p });
    const theirs = git(['-C', dir, 'cat-file', 'blob', `${ref}:${p}`], { encoding: 'buffer' });
    assert.ok(ours instanceof Uint8Array);
    assert.ok(Buffer.from(ours).equals(theirs), `readFile ${ref}:${p}`);
  }
}

for (const name of REPOS) {
  test(`clone, full (${name})`, async () => {
    const dir = newDir('full');
    const phases = new Set();
    await wg.clone({ url: repoUrl(name), dir, onProgress: (p) => phases.add(p.phase) });
    assert.ok(phases.size > 0, 'progress was reported');
    git(['-C', dir, 'fsck', '--strict']);
    for (const ref of ['main', 'HEAD', 'v1.0', 'origin/dev']) {
      assert.equal(await wg.resolveRef({ dir, ref }), git(['-C', dir, 'rev-parse', ref]).trim(), ref);
    }
    await checkFiles(dir, 'main');
    // git show main:<path>, literally, for a nested file
    const nested = git(['-C', dir, 'ls-tree', '-r', '--name-only', 'main']).split('\n')
      .find((p) => p.includes('/'));
    assert.equal(Buffer.from(await wg.readFile({ dir, ref: 'main', path: nested })).toString(),
      git(['-C', dir, 'show', `main:${nested}`]));
    // readObject and listTree
    const head = await wg.resolveRef({ dir, ref: 'HEAD' });
    const obj = await wg.readObject({ dir, oid: head });
    assert.equal(obj.type, 'commit');
    assert.ok(Buffer.from(obj.data).equals(git(['-C', dir, 'cat-file', 'commit', head], { encoding: 'buffer' })));
    const tree = await wg.listTree({ dir, ref: 'main' });
    const lsTree = git(['-C', dir, 'ls-tree', '-z', 'main']).split('\0').filter(Boolean);
    assert.deepEqual(tree.map((e) => `${e.mode} ${e.type} ${e.oid}\t${e.name}`), lsTree);
  });
}

test('clone, bare with a branch', async () => {
  const dir = newDir('bare') + '.git';
  await wg.clone({ url: repoUrl(REPOS[1]), dir, bare: true, ref: 'dev' });
  git(['--git-dir', dir, 'fsck', '--strict']);
  assert.equal(git(['--git-dir', dir, 'symbolic-ref', 'HEAD']).trim(), 'refs/heads/dev');
  assert.equal(await wg.resolveRef({ dir, ref: 'HEAD' }), git(['--git-dir', dir, 'rev-parse', 'dev']).trim());
});

for (const name of REPOS) {
  test(`clone, depth 1 (${name})`, async () => {
    const dir = newDir('shallow');
    await wg.clone({ url: repoUrl(name), dir, depth: 1 });
    assert.equal(git(['-C', dir, 'rev-parse', '--is-shallow-repository']).trim(), 'true');
    assert.equal(git(['-C', dir, 'rev-list', '--count', 'main']).trim(), '1');
    git(['-C', dir, 'fsck', '--strict']);
    await checkFiles(dir, 'main');
  });
}

for (const name of REPOS) {
  test(`clone, filter blob:none (${name})`, async () => {
    const dir = newDir('blobless');
    await wg.clone({ url: repoUrl(name), dir, filter: 'blob:none', noCheckout: true });
    assert.equal(git(['-C', dir, 'config', 'remote.origin.promisor']).trim(), 'true');
    assert.equal(git(['-C', dir, 'config', 'remote.origin.partialclonefilter']).trim(), 'blob:none');
    git(['-C', dir, 'fsck']);
    assert.equal(await wg.resolveRef({ dir, ref: 'main' }), git(['-C', dir, 'rev-parse', 'main']).trim());
    const tree = await wg.listTree({ dir, ref: 'main' });
    assert.ok(tree.length > 0);
    // Blobs were not fetched (except the tagged one); reading one fetches
    // it (git's lazy fetch) in one request pair, and git then has it.
    const noLazyGit = { env: { ...process.env, GIT_NO_LAZY_FETCH: '1', GIT_CONFIG_NOSYSTEM: '1', HOME: tmp } };
    const missing = tree.filter((e) => e.type === 'blob').filter((e) => {
      try {
        git(['-C', dir, 'cat-file', '-e', e.oid], noLazyGit);
        return false;
      } catch {
        return true;
      }
    });
    assert.ok(missing.length >= 2, `${missing.length} blobs missing`);
    const requests = [];
    const obj = await wg.readObject({ dir, oid: missing[0].oid, onRequest: (r) => requests.push(r) });
    assert.equal(obj.type, 'blob');
    assert.ok(requests.length >= 1 && requests.length <= 2, `${requests.length} requests`);
    git(['-C', dir, 'cat-file', '-e', missing[0].oid], noLazyGit);
    assert.ok(Buffer.from(obj.data).equals(git(['-C', dir, 'cat-file', 'blob', missing[0].oid], { encoding: 'buffer' })));
    // readFile fetches too; with lazy: false a missing blob stays missing
    await assert.rejects(wg.readObject({ dir, oid: missing[1].oid, lazy: false }), { code: 'ENOTFOUND' });
    const data = await wg.readFile({ dir, ref: 'main', path: missing[1].name });
    assert.ok(Buffer.from(data).equals(git(['-C', dir, 'cat-file', 'blob', missing[1].oid], { encoding: 'buffer' })));
    git(['-C', dir, 'fsck', '--strict']);
  });
}

test('clone aborted after the first chunk of the pack leaves no directory', async () => {
  const dir = newDir('aborted');
  const ac = new AbortController();
  let existedAtAbort = null;
  // The clone is built beside its directory and renamed into place at the
  // end (core/util/staged_dir.h): at the abort only the staging exists.
  const text = new TextDecoder();
  // A fetch() that aborts right after passing on the first chunk of the
  // response to the fetch command (by then the repository exists).
  const abortingFetch = async (url, init) => {
    const res = await fetch(url, init);
    const req = init.body ? text.decode(init.body) : '';
    if (!req.includes('command=fetch') && !req.includes('want ')) return res;
    const reader = res.body.getReader();
    const body = new ReadableStream({
      async pull(controller) {
        const { done, value } = await reader.read();
        if (done) return controller.close();
        controller.enqueue(value);
        if (existedAtAbort === null) {
          existedAtAbort = leftAt(dir).map((n) => n.replace(/-tmp-.*/, '-tmp-*'));
          ac.abort();
        }
      },
      cancel(reason) {
        return reader.cancel(reason);
      },
    });
    return new Response(body, { status: res.status, headers: res.headers });
  };
  await assert.rejects(
    wg.clone({ url: repoUrl(REPOS[0]), dir, fetch: abortingFetch, signal: ac.signal }),
    { name: 'AbortError' });
  assert.deepEqual(existedAtAbort, [`${path.basename(dir)}.webgit-tmp-*`],
    'the repository was being built beside its directory when the abort fired');
  assert.deepEqual(leftAt(dir), [], 'nothing left, the staging directory removed too');
  // and the same directory can be cloned into afterwards
  await wg.clone({ url: repoUrl(REPOS[0]), dir, depth: 1 });
  git(['-C', dir, 'fsck', '--strict']);
});

test('a connection the server closed while idle is retried for a fetch (three times at most), never for a push', async () => {
  // The failure Node's fetch gives when it reuses a kept-alive connection
  // the server has already closed.
  const stale = () => Object.assign(new TypeError('fetch failed'),
    { cause: Object.assign(new Error('other side closed'), { code: 'UND_ERR_SOCKET' }) });
  const calls = [];
  const failing = (pred, times) => async (url, init) => {
    calls.push(`${init.method} ${new URL(url).pathname}`);
    if (pred(url, init) && times-- > 0) throw stale();
    return fetch(url, init);
  };
  const isUploadPost = (url, init) => init.method === 'POST' && url.endsWith('/git-upload-pack');

  // once on the fetch request, once on discovery: both made again, the clone completes
  const dir = newDir('stale');
  await wg.clone({ url: repoUrl(REPOS[0]), dir, fetch: failing(isUploadPost, 1) });
  assert.equal(calls.filter((c) => c.startsWith('POST') && c.endsWith('/git-upload-pack')).length,
    calls.filter((c) => c.startsWith('POST')).length, 'only upload-pack POSTs');
  git(['-C', dir, 'fsck', '--strict']);
  calls.length = 0;
  await wg.listRemoteRefs(repoUrl(REPOS[0]), { fetch: failing((url, init) => init.method === 'GET', 1) });
  assert.equal(calls.filter((c) => c.startsWith('GET')).length, 2, 'the discovery was made twice');

  // three dead connections in a row (a pool's worth closed at once) are made again too
  calls.length = 0;
  await wg.clone({ url: repoUrl(REPOS[0]), dir: newDir('stale3'), fetch: failing(isUploadPost, 3) });
  // ls-refs (the first POST) four times, then the fetch once
  assert.equal(calls.filter((c) => c === `POST ${new URL(repoUrl(REPOS[0])).pathname}/git-upload-pack`).length, 5);
  // four in a row is an error (EIO with the request in the message)
  await assert.rejects(wg.clone({ url: repoUrl(REPOS[0]), dir: newDir('stale2'), fetch: failing(isUploadPost, 4) }),
    (e) => e.code === 'EIO' && /other side closed/.test(e.message) && /git-upload-pack/.test(e.message));

  // a push is never repeated: it may have reached the server
  calls.length = 0;
  await assert.rejects(wg.push({
    dir, refspecs: 'HEAD:refs/heads/never', fetch: failing((url, init) =>
      init.method === 'POST' && url.endsWith('/git-receive-pack'), 1),
  }), { code: 'EIO' });
  assert.equal(calls.filter((c) => c.endsWith('/git-receive-pack') && c.startsWith('POST')).length, 1);
});

test('a missing repository is ENOTFOUND', async () => {
  await assert.rejects(wg.listRemoteRefs(repoUrl('no-such-repo')), (e) => {
    assert.equal(e.code, 'ENOTFOUND');
    assert.ok(e instanceof Error);
    assert.match(e.message, /no-such-repo/);
    return true;
  });
  const dir = newDir('missing');
  await assert.rejects(wg.clone({ url: repoUrl('no-such-repo'), dir }), { code: 'ENOTFOUND' });
  assert.deepEqual(leftAt(dir), []);
});

test('local errors carry codes', async () => {
  const dir = newDir('errors');
  await wg.clone({ url: repoUrl(REPOS[0]), dir, depth: 1 });
  await assert.rejects(wg.resolveRef({ dir, ref: 'no-such-branch' }), { code: 'ENOTFOUND' });
  await assert.rejects(wg.readFile({ dir, ref: 'main', path: 'no/such/file' }), { code: 'ENOTFOUND' });
  await assert.rejects(wg.readObject({ dir, oid: 'xyz' }), { code: 'EINVALID' });
  await assert.rejects(wg.resolveRef({ dir: path.join(tmp, 'nowhere'), ref: 'main' }), (e) => typeof e.code === 'string');
  // cloning into a non-empty directory is refused and leaves it alone
  await assert.rejects(wg.clone({ url: repoUrl(REPOS[0]), dir }), (e) => typeof e.code === 'string');
  assert.ok(fs.existsSync(path.join(dir, '.git')));
});
