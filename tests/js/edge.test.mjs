// The JS API in Cloudflare's workerd: tests/js/edge/worker.mjs, a Worker that
// imports the built package (index.js, the glue webgit.mjs, and webgit.wasm
// as a Wasm module), answers ls-remote and no-clone file reads over the
// local Git HTTP server; diff, blame, last-modified and a path-limited log
// in blob-less clones in memory, with the requests they make; checked
// against the reference git.
//
//   WEBGIT_JS_DIR=build/h-wasm/js node --test tests/js/edge.test.mjs
//
// workerd comes from tests/node_modules (`cd tests && npm ci`). The config
// is generated at test time in a temporary directory; workerd listens on a
// free port of 127.0.0.1 and is stopped by its PID.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import {
  JS_DIR, SAMPLES, gitIn, lsRemoteLines, makeTmp, serverLogDuring, startServer, stopPid,
} from './lib.mjs';
import { startWorkerd } from './workerd.mjs';
import {
  makeBloblessHistory, porcelain, lastModifiedOf, logOf, LAST_MODIFIED_CASES, LOG_CASES,
} from './blobless-history.mjs';

let tmp;           // everything this file writes
let git;           // the reference git
let server;        // the Git server, { base, repos, stop }
let serverLog;     // its --log file
let workerd;       // the workerd child process
let edge;          // workerd's socket, http://127.0.0.1:PORT
let history;       // blobless-history.mjs's repository, served as history.git

const REPOS = SAMPLES;
const repoUrl = (name) => `${server.base}/git/${name}.git`;
const gitDir = (name) => path.join(server.repos, `${name}.git`);

before(async () => {
  for (const f of ['index.js', 'webgit.mjs', 'webgit.wasm']) {
    assert.ok(fs.existsSync(path.join(JS_DIR, f)), `no ${f} in WEBGIT_JS_DIR=${JS_DIR}`);
  }
  tmp = makeTmp('edge');
  git = gitIn(tmp);
  serverLog = path.join(tmp, 'server.log');
  server = startServer(tmp, ['--log', serverLog]);
  history = makeBloblessHistory(git, path.join(tmp, 'history-work'), path.join(server.repos, 'history.git'));
  ({ url: edge, child: workerd } = await startWorkerd(path.join(tmp, 'workerd')));
});

after(async () => {
  if (workerd?.pid && workerd.exitCode === null && workerd.signalCode === null) {
    await stopPid(workerd.pid);
  }
  if (server) await server.stop();
  if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
});

// The server's log lines written while fn() ran.
const serverRequests = (fn) => serverLogDuring(serverLog, fn);

const edgeUrl = (route, params) => `${edge}/${route}?${new URLSearchParams(params)}`;

async function getFile(name, ref, p) {
  const params = { url: repoUrl(name), path: p };
  if (ref !== undefined) params.ref = ref;
  const res = await fetch(edgeUrl('file', params));
  return { res, body: Buffer.from(await res.arrayBuffer()) };
}

for (const name of REPOS) {
  test(`workerd: /refs equals git ls-remote (${name})`, async () => {
    const res = await fetch(edgeUrl('refs', { url: repoUrl(name) }));
    const text = await res.text();
    assert.equal(res.status, 200, text);
    const refs = JSON.parse(text);
    assert.deepEqual(lsRemoteLines(refs), git(['ls-remote', repoUrl(name)]).trimEnd().split('\n'));
    assert.equal(refs.find((r) => r.name === 'HEAD')?.target, 'refs/heads/main');
    const hexlen = name.includes('sha256') ? 64 : 40;
    for (const r of refs) assert.equal(r.oid.length, hexlen, r.name);
  });
}

for (const name of REPOS) {
  test(`workerd: /file equals git show, nested path at revisions, in 3 requests (${name})`, async (t) => {
    const dir = gitDir(name);
    // The first read of a SHA-256 server assumes SHA-1 and fails its first
    // request, then asks as git does; every other read (and every later one
    // of that server, which the worker remembers) is three requests.
    let first = true;
    const byId = git(['--git-dir', dir, 'rev-parse', 'main~1']).trim();
    for (const ref of ['v1.0', 'HEAD', undefined, 'main~1', 'v1.0^{}~1', '@^{commit}', byId, `${byId}~1`]) {
      const rev = ref ?? 'HEAD';
      const nested = git(['--git-dir', dir, 'ls-tree', '-r', '--name-only', rev]).split('\n')
        .find((p) => p.includes('/'));
      assert.ok(nested, `a nested path at ${rev}`);
      const { result: { res, body }, lines } = await serverRequests(() => getFile(name, ref, nested));
      assert.equal(res.status, 200, `${rev}:${nested}: ${body.toString()}`);
      const expected = git(['--git-dir', dir, 'show', `${rev}:${nested}`], { encoding: 'buffer' });
      assert.ok(body.equals(expected), `${rev}:${nested}: ${body.length} bytes, git show gave ${expected.length}`);
      const wire = lines.reduce((n, l) => n + l.respBytes, 0);
      const sent = lines.reduce((n, l) => n + l.reqBytes, 0);
      const h = (k) => Number(res.headers.get(`x-webgit-${k}`));
      t.diagnostic(`${name} ${ref === undefined ? '(no ref)' : ref}:${nested}: edge read made ` +
        `${lines.length} HTTP requests, ${wire} bytes received, ${sent} bytes sent ` +
        `(server log: ${lines.map((l) => `${l.method} ${l.respBytes}`).join(', ')}; ` +
        `onRequest: ${h('api-requests')} requests, ${h('api-received')} received, ${h('api-sent')} sent)`);
      assert.ok(lines.length > 0, 'the server saw the requests');
      const seen = lines.map((l) => `${l.method} ${l.path} ${l.status}`).join(', ');
      assert.equal(h('requests'), lines.length, `requests made by the worker's fetch and seen by the server: ${seen}`);
      assert.equal(h('api-requests'), lines.length, `requests reported by onRequest and seen by the server: ${seen}`);
      assert.equal(h('api-received'), h('bytes'), 'bytes reported by onRequest and read through fetch()');
      for (const l of lines) assert.ok(l.status < 400, `${l.method} ${l.path} ${l.status}`);
      // by id, as git clone --revision: no ref listing either
      const want = first && name.includes('sha256') ? 5 : ref?.startsWith(byId) ? 2 : 3;
      assert.equal(lines.length, want, `the requests of ${rev}:${nested}: ${seen}`);
      assert.equal(lines.filter((l) => l.method === 'GET').length, want === 5 ? 1 : 0, seen);
      first = false;
    }
  });
}

for (const name of REPOS) {
  test(`workerd: /diff in a blob-less clone equals git diff, its blobs in one fetch (${name})`, async (t) => {
    const dir = gitDir(name);
    const to = git(['--git-dir', dir, 'rev-parse', 'HEAD']).trim();
    const from = git(['--git-dir', dir, 'rev-list', '--max-parents=0', 'HEAD']).trim().split('\n')[0];
    const expected = git(['--git-dir', dir, 'diff', from, to]);
    assert.ok(expected.length > 0, 'the sample history changes something');
    const { result: res, lines } = await serverRequests(() => fetch(edgeUrl('diff', { url: repoUrl(name), from, to })));
    const body = await res.text();
    assert.equal(res.status, 200, body);
    assert.equal(body, expected);
    const diffRequests = Number(res.headers.get('x-webgit-diff-requests'));
    const posts = lines.filter((l) => l.method === 'POST').length;
    t.diagnostic(`${name}: clone + diff of ${from.slice(0, 7)}..${to.slice(0, 7)} in workerd: ` +
      `${lines.length} HTTP requests in all (${posts} POST), the diff's own: ${diffRequests}`);
    // the clone: advertisement and fetch; the diff: at most one more of each
    assert.ok(diffRequests <= 2, `${diffRequests} requests for the diff`);
    assert.equal(Number(res.headers.get('x-webgit-api-requests')), lines.length);
  });
}

// /history: the operations [[op, opts], ...] in turn in one blob-less
// clone: [{ result, requests, posts }] with the requests each made
// (onRequest), and all the requests the server logged (the clone's too)
async function historyOps(ops) {
  const { result: res, lines } = await serverRequests(() =>
    fetch(edgeUrl('history', { url: repoUrl('history'), ops: JSON.stringify(ops) })));
  const text = await res.text();
  assert.equal(res.status, 200, text);
  assert.equal(Number(res.headers.get('x-webgit-api-requests')), lines.length, 'onRequest saw what the server logged');
  return { results: JSON.parse(text), all: lines.length };
}

test('workerd: /history blame in a blob-less clone equals git blame, the file\'s versions in a request per rename', async (t) => {
  const dir = path.join(server.repos, 'history.git');
  // upload-pack POSTs per blame, in turn in one clone, as in Node
  // (history-blobless.test.mjs); then each again, with nothing to fetch
  const expectPosts = { 'HEAD:src/core.c': 2, 'HEAD:notes.md': 1, 'HEAD~1:src/core.c': 0, 'origin/side:core.c': 0 };
  const blames = history.files.map(([ref, file]) => ['blame', { ref, path: file }]);
  const { results, all } = await historyOps([...blames, ...blames]);
  results.forEach((r, i) => {
    const [ref, file] = history.files[i % history.files.length];
    const again = i >= history.files.length;
    t.diagnostic(`blame ${ref}:${file}${again ? ' again' : ''} in workerd: ${r.requests} requests (${r.posts} POST)`);
    assert.deepEqual(r.result, porcelain(git, dir, ref, file), `${ref}:${file}`);
    assert.equal(r.posts, again ? 0 : expectPosts[`${ref}:${file}`], `${ref}:${file}`);
    assert.equal(r.requests, 2 * r.posts, 'an advertisement and a POST per fetch');
  });
  t.diagnostic(`workerd: clone and ${results.length} blames: ${all} HTTP requests in all`);
});

test('workerd: /history lastModified and log with paths in a blob-less clone equal git, with no request', async (t) => {
  const dir = path.join(server.repos, 'history.git');
  const { results, all } = await historyOps([
    ...LAST_MODIFIED_CASES.map(([opts]) => ['lastModified', opts]),
    ...LOG_CASES.map(([opts]) => ['log', opts]),
  ]);
  const wants = [
    ...LAST_MODIFIED_CASES.map(([, args]) => [`last-modified ${args.join(' ')}`, lastModifiedOf(git, dir, args)]),
    ...LOG_CASES.map(([, args]) => [`log ${args.join(' ')}`, logOf(git, dir, args)]),
  ];
  wants.forEach(([what, want], i) => {
    assert.deepEqual(results[i].result, want, what);
    assert.equal(results[i].requests, 0, what);
  });
  t.diagnostic(`workerd: clone, ${LAST_MODIFIED_CASES.length} last-modified and ${LOG_CASES.length} path-limited logs: ` +
    `${all} HTTP requests in all, 0 of them after the clone`);
});

test('workerd: /file of a binary file and an executable at a branch', async () => {
  const name = REPOS[0];
  const dir = gitDir(name);
  const entries = git(['--git-dir', dir, 'ls-tree', '-r', '-z', 'main']).split('\0').filter(Boolean)
    .map((l) => { const [meta, p] = l.split('\t'); const [mode, type, oid] = meta.split(' '); return { mode, type, oid, p }; });
  const binary = entries.find((e) => e.type === 'blob' &&
    git(['--git-dir', dir, 'cat-file', 'blob', e.oid], { encoding: 'buffer' }).includes(0));
  const exec = entries.find((e) => e.mode === '100755');
  for (const e of [binary, exec].filter(Boolean)) {
    const { res, body } = await getFile(name, 'main', e.p);
    assert.equal(res.status, 200, body.toString());
    assert.ok(body.equals(git(['--git-dir', dir, 'cat-file', 'blob', e.oid], { encoding: 'buffer' })), e.p);
  }
  assert.ok(binary, 'the sample has a binary file');
});

for (const name of REPOS) {
  test(`workerd: a missing path is a 404 with the error code (${name})`, async () => {
    const { res, body } = await getFile(name, 'v1.0', 'no/such/file.txt');
    assert.equal(res.status, 404, body.toString());
    const err = JSON.parse(body.toString());
    assert.equal(err.code, 'ENOTFOUND');
    assert.ok(typeof err.message === 'string' && err.message.length > 0, 'a message');
  });
}

test('workerd: a missing repository is a 404 with the error code', async () => {
  const res = await fetch(edgeUrl('refs', { url: repoUrl('no-such-repo') }));
  const err = await res.json();
  assert.equal(res.status, 404, JSON.stringify(err));
  assert.equal(err.code, 'ENOTFOUND');
  const file = await getFile('no-such-repo', 'main', 'README.md');
  assert.equal(file.res.status, 404, file.body.toString());
  assert.equal(JSON.parse(file.body.toString()).code, 'ENOTFOUND');
});
