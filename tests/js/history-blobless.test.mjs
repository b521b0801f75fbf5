// blame(), lastModified() and a path-limited log() in a blob-less clone
// (--filter=blob:none) from the local server, in Node, against the
// reference git on the served repository (git blame --porcelain, git
// last-modified, git log -- paths), with the HTTP requests each makes,
// counted by onRequest and by the server's log, and printed: blame
// fetches the file's versions in one request per round (a rename with an
// edit needs its candidates' contents before the older name is known),
// never one per blob; last-modified and log read commits and trees only
// and fetch nothing. Both object formats. The same in Chromium:
// browser-history.test.mjs; in workerd: edge-history.test.mjs.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { loadWebgit, makeTmp, gitIn, startServerAt } from './lib.mjs';
import {
  makeBloblessHistory, porcelain, lastModifiedOf, logOf, serverRequests, describeRequests,
  LAST_MODIFIED_CASES, LOG_CASES,
} from './blobless-history.mjs';

let wg;
let tmp;
let git;
let server;
let serverLog;
const made = {};            // object format -> { bare, files }

before(async () => {
  wg = await loadWebgit();
  await wg.init();
  tmp = makeTmp('history-blobless');
  git = gitIn(tmp);
  for (const format of ['sha1', 'sha256']) {
    const bare = path.join(tmp, 'repos', `history-${format}.git`);
    made[format] = { bare, ...makeBloblessHistory(git, path.join(tmp, `work-${format}`), bare, format) };
  }
  serverLog = path.join(tmp, 'server.log');
  server = startServerAt(path.join(tmp, 'server'), path.join(tmp, 'repos'), ['--log', serverLog]);
});

after(async () => {
  if (server) await server.stop();
  if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
});

let cloneSeq = 0;
async function bloblessClone(format) {
  const dir = path.join(tmp, 'clones', `${format}-${++cloneSeq}`);
  // (counted, so that its last lines are in the log before the next count)
  await serverRequests(serverLog, () =>
    wg.clone({ url: `${server.base}/git/history-${format}.git`, dir, filter: 'blob:none', noCheckout: true }));
  return dir;
}

// Of the blobs of the whole history, those the clone has (asked without
// fetching, one git call).
function blobsPresent(bare, clone) {
  const all = git(['-C', bare, 'cat-file', '--batch-all-objects', '--batch-check'])
    .split('\n').filter((l) => / blob /.test(l)).map((l) => l.split(' ')[0]);
  const env = { ...process.env, GIT_NO_LAZY_FETCH: '1', GIT_CONFIG_NOSYSTEM: '1', GIT_CONFIG_GLOBAL: '/dev/null', HOME: tmp };
  const out = git(['-C', clone, 'cat-file', '--batch-check'], { env, input: `${all.join('\n')}\n` });
  return { all, present: out.split('\n').filter((l) => l && !l.endsWith(' missing')).map((l) => l.split(' ')[0]) };
}

// fn(onRequest) with the requests onRequest saw and the server logged
async function counted(fn) {
  const api = [];
  const { result, requests } = await serverRequests(serverLog, () => fn((r) => api.push(r)));
  assert.equal(api.length, requests.length, `onRequest saw ${api.length}, the server ${requests.length}`);
  return { result, requests, posts: requests.filter((r) => r.method === 'POST').length };
}

for (const format of ['sha1', 'sha256']) {
  test(`blame in a blob-less clone equals git blame, the file's versions in a request per rename (${format})`, async (t) => {
    const { bare, files } = made[format];
    const dir = await bloblessClone(format);
    assert.equal(blobsPresent(bare, dir).present.length, 0, 'the clone has no blobs');
    // The first blame follows src/core.c through a rename with an edit
    // (core.c among other deletions) and a pure rename (lib.c), on both
    // sides of a merge: one request for the versions under src/core.c and
    // the rename candidates, one for those under core.c and lib.c.
    const expectPosts = { 'HEAD:src/core.c': 2, 'HEAD:notes.md': 1, 'HEAD~1:src/core.c': 0, 'origin/side:core.c': 0 };
    let fetchedSoFar = 0;
    for (const [ref, file] of files) {
      const t0 = performance.now();
      const { result, requests, posts } = await counted((onRequest) => wg.blame({ dir, ref, path: file, onRequest }));
      const ms = performance.now() - t0;
      assert.deepEqual(result, porcelain(git, bare, ref, file), `${ref}:${file}`);
      const now = blobsPresent(bare, dir).present.length;
      t.diagnostic(`${format} blame ${ref}:${file}: ${now - fetchedSoFar} blobs fetched in ` +
        `${describeRequests(requests)}, ${posts} fetch${posts === 1 ? '' : 'es'}; ${ms.toFixed(0)} ms`);
      assert.equal(posts, expectPosts[`${ref}:${file}`], `fetches for ${ref}:${file}: ${describeRequests(requests)}`);
      // each fetch is an advertisement and an upload-pack POST
      assert.equal(requests.length, 2 * posts, describeRequests(requests));
      if (posts) assert.ok(now - fetchedSoFar > posts, `${now - fetchedSoFar} blobs in ${posts} fetches: batched`);
      fetchedSoFar = now;
      // all there now: the same result without a request
      const again = await counted((onRequest) => wg.blame({ dir, ref, path: file, onRequest }));
      assert.deepEqual(again.result, result);
      assert.equal(again.requests.length, 0, describeRequests(again.requests));
    }
    const { all, present } = blobsPresent(bare, dir);
    t.diagnostic(`${format}: ${present.length} of the history's ${all.length} blobs fetched for ${files.length} blames`);
    assert.ok(present.length < all.length, 'not every blob of the history');
    git(['-C', dir, 'fsck']);
  });

  test(`blame with lazy: false fetches nothing and says what is missing (${format})`, async () => {
    const dir = await bloblessClone(format);
    const { requests } = await counted((onRequest) =>
      assert.rejects(wg.blame({ dir, path: 'src/core.c', lazy: false, onRequest }), { code: 'ENOTFOUND' }));
    assert.equal(requests.length, 0);
    await assert.rejects(wg.blame({ dir, path: 'no/such' }), { code: 'ENOTFOUND', message: /no such path/ });
    await assert.rejects(wg.blame({ dir, ref: 'no-such', path: 'src/core.c' }), { code: 'ENOTFOUND' });
  });

  test(`lastModified and log with paths in a blob-less clone equal git, with no request (${format})`, async (t) => {
    const { bare } = made[format];
    const dir = await bloblessClone(format);
    let compared = 0;
    for (const [opts, args] of LAST_MODIFIED_CASES) {
      const want = lastModifiedOf(git, bare, args);
      const { result, requests } = await counted((onRequest) => wg.lastModified({ dir, ...opts, onRequest }));
      assert.deepEqual(result, want, `last-modified ${args.join(' ')}`);
      assert.equal(requests.length, 0, `last-modified ${args.join(' ')}: ${describeRequests(requests)}`);
      compared += want.length;
    }
    for (const [opts, args] of LOG_CASES) {
      const want = logOf(git, bare, args);
      assert.ok(want.length > 0, `git log ${args.join(' ')} lists commits`);
      const { result, requests } = await serverRequests(serverLog, async () => {
        const ids = [];
        for await (const c of wg.log({ dir, ...opts })) ids.push(c.oid);
        return ids;
      });
      assert.deepEqual(result, want, `log ${args.join(' ')}`);
      assert.equal(requests.length, 0, `log ${args.join(' ')}: ${describeRequests(requests)}`);
      compared += want.length;
    }
    assert.equal(blobsPresent(bare, dir).present.length, 0, 'still no blob in the clone');
    t.diagnostic(`${format}: ${LAST_MODIFIED_CASES.length} last-modified and ${LOG_CASES.length} path-limited logs ` +
      `(${compared} entries) in the blob-less clone: 0 requests, 0 blobs fetched`);
  });
}
