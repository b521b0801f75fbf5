// Credentials never persist and never leak (Node): a URL's user
// information authenticates the requests (the server wants Basic auth for
// every request, fetches too) and appears in no stored file, no progress
// event and no error message; neither does a token given in `headers`.
// A request with credentials follows no redirect to another origin, but
// for the discovery's, which goes there without them.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { loadWebgit, makeTmp, gitIn, startServer, leftAt, SAMPLES } from './lib.mjs';

const PW = 'SECRET-js-pw-1';
const TOKEN = 'Bearer SECRET-token-2';
let wg;
let tmp;
let git;
let server;
let spy;
const spied = [];
const seen = [];     // every progress event and error message of the tests
let dirSeq = 0;
const newDir = (label) => path.join(tmp, 'work', `${label}-${++dirSeq}`);
const name = SAMPLES[0];
const host = () => server.base.replace('http://', '');
const plain = () => `${server.base}/git/${name}.git`;
const withPw = (pw = PW) => `http://alice:${pw}@${host()}/git/${name}.git`;
const author = { name: 'Web Git', email: 'web@example.com', timestamp: 1700000000, timezone: '+0000' };

// Every file under dir whose bytes hold `needle`.
function grep(dir, needle) {
  const hits = [];
  const walk = (d) => {
    for (const e of fs.readdirSync(d, { withFileTypes: true })) {
      const p = path.join(d, e.name);
      if (e.isDirectory()) walk(p);
      else if (e.isSymbolicLink()) { if (fs.readlinkSync(p).includes(needle)) hits.push(p); }
      else if (fs.readFileSync(p).includes(needle)) hits.push(p);
    }
  };
  if (fs.existsSync(dir)) walk(dir);
  return hits;
}

const progress = (label) => (p) => seen.push(`${label} progress ${JSON.stringify(p)}`);

// Rejects, with `code`, a message without the secret (recorded for the
// final check too).
async function rejectsClean(promise, code) {
  await assert.rejects(promise, (e) => {
    seen.push(`error ${e.code}: ${e.message} ${e.cause?.message ?? ''}`);
    if (code) assert.equal(e.code, code, e.message);
    assert.ok(!e.message.includes('SECRET'), `the message holds the secret: ${e.message}`);
    assert.ok(!String(e.cause?.message ?? '').includes('SECRET'), 'the cause holds the secret');
    return true;
  });
}

before(async () => {
  wg = await loadWebgit();
  await wg.init();
  tmp = makeTmp('creds');
  git = gitIn(tmp);
  // A spy on another origin: what a redirect would have sent there.
  spy = http.createServer((req, res) => {
    spied.push({ url: req.url, authorization: req.headers.authorization ?? null });
    req.resume();
    res.writeHead(404).end();
  });
  await new Promise((r) => spy.listen(0, '127.0.0.1', r));
  server = startServer(tmp, ['--auth', `alice:${PW}`, '--auth-all',
    '--redirect-to', `http://127.0.0.1:${spy.address().port}`]);
});

after(async () => {
  if (server) await server.stop();
  spy?.close();
  if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
});

test('credentials: the server wants them (a clone without is EAUTH)', async () => {
  await rejectsClean(wg.clone({ url: plain(), dir: newDir('none') }), 'EAUTH');
});

test('credentials in the URL: clone, fetch <url>, push <url> authenticate and store none', async () => {
  const dir = newDir('clone');
  await wg.clone({ url: withPw(), dir, onProgress: progress('clone') });
  assert.ok(seen.some((s) => s.startsWith('clone progress')), 'progress was reported');
  assert.equal(git(['-C', dir, 'config', 'remote.origin.url']).trim(), plain());
  assert.equal(git(['-C', dir, 'reflog', '-1', '--format=%gs', 'refs/heads/main']).trim(),
    `clone: from ${plain()}`);
  assert.deepEqual(grep(dir, 'SECRET'), []);

  const refs = await wg.listRemoteRefs(withPw());
  assert.ok(refs.some((r) => r.name === 'refs/heads/main'));

  // fetch <url>: FETCH_HEAD only, the URL in it without credentials
  const remoteDir = path.join(server.repos, `${name}.git`);
  const main = git(['-C', remoteDir, 'rev-parse', 'main']).trim();
  const tree = git(['-C', remoteDir, 'rev-parse', 'main^{tree}']).trim();
  const next = git(['-C', remoteDir, 'commit-tree', tree, '-p', main, '-m', 'js next']).trim();
  git(['-C', remoteDir, 'update-ref', 'refs/heads/js-next', next]);
  const before = git(['-C', dir, 'for-each-ref']);
  const r1 = await wg.fetch({ dir, remote: withPw(), refspecs: ['js-next'], onProgress: progress('fetch') });
  assert.equal(git(['-C', dir, 'for-each-ref']), before, 'no ref changed');
  assert.equal(fs.readFileSync(path.join(dir, '.git/FETCH_HEAD'), 'utf8'),
    `${next}\t\tbranch 'js-next' of ${plain().replace(/\.git$/, '')}\n`);
  assert.ok(r1.updates.every((u) => u.localRef === null));
  const r2 = await wg.fetch({ dir, remote: withPw(), refspecs: ['js-next:refs/heads/fetched'] });
  assert.ok(r2.updates.some((u) => u.localRef === 'refs/heads/fetched'));
  assert.equal(git(['-C', dir, 'rev-parse', 'refs/heads/fetched']).trim(), next);
  assert.equal(git(['-C', dir, 'for-each-ref', 'refs/remotes/']).includes('js-next'), false);

  // push <url>: no remote-tracking ref
  const c = await wg.commit({ dir, ref: 'refs/heads/js-push', tree, parents: [next], message: 'js push', author });
  const pushed = await wg.push({ dir, remote: withPw(), refspecs: ['js-push:refs/heads/js-by-url'], onProgress: progress('push') });
  assert.equal(pushed.ok, true);
  assert.equal(git(['-C', remoteDir, 'rev-parse', 'refs/heads/js-by-url']).trim(), c);
  assert.equal(git(['-C', dir, 'for-each-ref', 'refs/remotes/']).includes('js-by-url'), false);

  // Nothing was kept: fetch origin has no credentials, headers give them.
  await rejectsClean(wg.fetch({ dir }), 'EAUTH');
  const basic = `Basic ${Buffer.from(`alice:${PW}`).toString('base64')}`;
  await wg.fetch({ dir, headers: { Authorization: basic } });
  assert.equal(git(['-C', dir, 'rev-parse', 'refs/remotes/origin/js-next']).trim(), next);

  assert.deepEqual(grep(dir, 'SECRET'), []);
  assert.deepEqual(grep(dir, Buffer.from(`alice:${PW}`).toString('base64')), []);
});

test('credentials: failures say nothing of the password or the token', async () => {
  const dir = newDir('fail');
  await rejectsClean(wg.clone({ url: withPw('WRONG-SECRET-3'), dir, onProgress: progress('bad') }), 'EAUTH');
  assert.deepEqual(leftAt(dir), []);
  await rejectsClean(wg.clone({ url: `http://alice:${PW}@${host()}/git/no-such.git`, dir }), 'ENOTFOUND');
  await rejectsClean(wg.listRemoteRefs(withPw('WRONG-SECRET-4')), 'EAUTH');
  await rejectsClean(wg.listRemoteRefs(`http://alice:SECRET%zz@${host()}/git/${name}.git`), 'EINVALID');
  await rejectsClean(wg.listRemoteRefs(plain(), { headers: { Authorization: TOKEN } }), 'EAUTH');
  // a value the Headers class refuses: its own message would repeat it
  await rejectsClean(wg.listRemoteRefs(plain(), { headers: { Authorization: `${TOKEN}\nX-Evil: 1` } }), 'EINVALID');
  // a fetch() whose error repeats what it was given
  const echo = (input, init) => Promise.reject(new TypeError(
    `cannot reach ${input} with ${new Headers(init.headers).get('authorization')}`));
  await rejectsClean(wg.listRemoteRefs(withPw(), { fetch: echo }), 'EIO');
  await rejectsClean(wg.listRemoteRefs(plain(), { fetch: echo, headers: { Authorization: TOKEN } }), 'EIO');
  // one that repeats them decoded ("alice:<password>")
  const echoDecoded = (input, init) => Promise.reject(new Error(
    `refused ${atob(new Headers(init.headers).get('authorization').slice(6))}`));
  await rejectsClean(wg.listRemoteRefs(withPw(), { fetch: echoDecoded }), 'EIO');
  assert.deepEqual(grep(path.join(tmp, 'work'), 'SECRET'), []);
});

test('credentials: a discovery redirected to another origin goes there without them', async () => {
  // git follows the discovery's redirect (http.followRedirects=initial);
  // the URL's credentials, and an Authorization header the caller gave,
  // were for this origin: the spy on the other one must see neither (it
  // answers 404)
  spied.length = 0;
  const calls = [];
  const recording = (input, init) => {
    calls.push({ url: String(input), redirect: init.redirect, auth: new Headers(init.headers).has('authorization') });
    return fetch(input, init);
  };
  const crossUrl = `http://alice:${PW}@${host()}/redirect/${name}.git`;
  await rejectsClean(wg.clone({ url: crossUrl, dir: newDir('cross'), fetch: recording }), 'ENOTFOUND');
  assert.equal(spied.length, 1, JSON.stringify(spied));
  assert.equal(spied[0].authorization, null);
  assert.ok(calls.length === 2 && calls[0].redirect === 'manual' && calls[0].auth &&
    !calls[1].auth && !calls[1].url.includes(host()),
    `credentials went with the first request only: ${JSON.stringify(calls)}`);
  await rejectsClean(wg.listRemoteRefs(`${server.base}/redirect/${name}.git`, { headers: { Authorization: TOKEN } }),
    'ENOTFOUND');
  assert.equal(spied.length, 2);
  assert.equal(spied[1].authorization, null);
  // without credentials, fetch() follows as well
  await rejectsClean(wg.listRemoteRefs(`${server.base}/redirect/${name}.git`), 'ENOTFOUND');
  assert.equal(spied.length, 3);
  assert.equal(spied[2].authorization, null);
});

test('credentials: a same-origin redirect keeps them', async () => {
  const other = startServer(path.join(tmp, 'same'), ['--auth', `alice:${PW}`, '--auth-all']);
  try {
    const refs = await wg.listRemoteRefs(`http://alice:${PW}@${other.base.replace('http://', '')}/redirect/${name}.git`);
    assert.ok(refs.some((r) => r.name === 'refs/heads/main'));
  } finally {
    await other.stop();
  }
});

test('credentials: no progress event or error message held the secret', () => {
  assert.ok(seen.length > 5);
  const bad = seen.filter((s) => s.includes('SECRET'));
  assert.deepEqual(bad, []);
});
