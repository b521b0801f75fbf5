// blame(), lastModified() and a path-limited log() in Chromium (Debian's,
// headless, through playwright-core; see browser-lib.mjs), in the page and
// in a module Worker, each in its own blob-less clone in IndexedDB,
// against the reference git on the served repository, with the HTTP
// requests each made as the server logged them, printed: blame fetches
// the file's versions in one request per round (see
// history-blobless.test.mjs, the same in Node), last-modified and log
// fetch nothing; a second blame, after a reload, nothing either.
//
//   WEBGIT_JS_DIR=build/wasm/js node --test tests/js/browser-history.test.mjs
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { gitIn, makeTmp } from './lib.mjs';
import { openTestSite } from './browser-lib.mjs';
import {
  makeBloblessHistory, porcelain, lastModifiedOf, logOf, serverRequests, describeRequests,
  LAST_MODIFIED_CASES, LOG_CASES,
} from './blobless-history.mjs';

let tmp;
let git;
let site;
let bare;
let files;
let serverLog;

before(async () => {
  tmp = makeTmp('browser-history');
  git = gitIn(tmp);
  bare = path.join(tmp, 'repos', 'history.git');
  ({ files } = makeBloblessHistory(git, path.join(tmp, 'work'), bare));
  serverLog = path.join(tmp, 'server.log');
  site = await openTestSite(tmp, path.join(tmp, 'repos'), ['--log', serverLog]);
});

after(async () => {
  if (site) await site.close();
  if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
});

// As in Node (history-blobless.test.mjs): upload-pack POSTs per blame
const EXPECT_POSTS = { 'HEAD:src/core.c': 2, 'HEAD:notes.md': 1, 'HEAD~1:src/core.c': 0, 'origin/side:core.c': 0 };

for (const where of ['page', 'worker']) {
  test(`browser ${where}: blame, lastModified and log in a blob-less clone equal git, with their requests`, async (t) => {
    const call = (fn, opts) => site.call(where, fn, opts);
    const dir = `/repos/history-${where}`;
    // (counted too, so that its last lines are in the log before the next count)
    const cloned = await serverRequests(serverLog, () =>
      call('clone', { url: `${site.base}/git/history.git`, dir, filter: 'blob:none', noCheckout: true }));
    t.diagnostic(`${where}: the blob-less clone: ${describeRequests(cloned.requests)}`);
    // nothing to fetch for last-modified and log: commits and trees only
    for (const [opts, args] of LAST_MODIFIED_CASES) {
      const { result, requests } = await serverRequests(serverLog, () => call('lastModified', { dir, ...opts }));
      assert.deepEqual(result, lastModifiedOf(git, bare, args), `last-modified ${args.join(' ')}`);
      assert.equal(requests.length, 0, `last-modified ${args.join(' ')}: ${describeRequests(requests)}`);
    }
    for (const [opts, args] of LOG_CASES) {
      const { result, requests } = await serverRequests(serverLog, () => call('log', { dir, ...opts }));
      assert.deepEqual(result.map((c) => c.oid), logOf(git, bare, args), `log ${args.join(' ')}`);
      assert.equal(requests.length, 0, `log ${args.join(' ')}: ${describeRequests(requests)}`);
    }
    t.diagnostic(`${where}: ${LAST_MODIFIED_CASES.length} last-modified and ${LOG_CASES.length} path-limited logs: 0 requests`);
    for (const [ref, file] of files) {
      const t0 = Date.now();
      const { result, requests } = await serverRequests(serverLog, () => call('blame', { dir, ref, path: file }));
      const posts = requests.filter((r) => r.method === 'POST').length;
      t.diagnostic(`${where}: blame ${ref}:${file} in Chromium: ${describeRequests(requests)}, ${Date.now() - t0} ms`);
      assert.deepEqual(result, porcelain(git, bare, ref, file), `${ref}:${file}`);
      assert.equal(posts, EXPECT_POSTS[`${ref}:${file}`], describeRequests(requests));
      assert.equal(requests.length, 2 * posts, describeRequests(requests));
    }
    // kept in IndexedDB: after a reload, the blames need nothing
    await site.reload();
    for (const [ref, file] of files) {
      const { result, requests } = await serverRequests(serverLog, () => call('blame', { dir, ref, path: file }));
      assert.deepEqual(result, porcelain(git, bare, ref, file), `${ref}:${file} after a reload`);
      assert.equal(requests.length, 0, `${ref}:${file} after a reload: ${describeRequests(requests)}`);
    }
    await call('deleteRepo', { dir });
  });
}
