// The JavaScript API behind the front ends users meet between them and a
// Git server (tests/server/front-proxy.mjs in front of git http-backend, as
// tests/interop/t40-front-ends.sh does for the CLI): a front that gzips, one
// that drops Git-Protocol (protocol v0), one pinned to protocol v1, a moved
// repository (the discovery redirected, everything else at the old place
// 404: later requests must follow, as in git), a rate limit (429 with
// Retry-After, once per request kind), a login wall (401 without
// credentials) and bodies that end with the connection. Through each:
// clone (git's refs and objects), fetch of a new commit, and push.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { loadWebgit, makeTmp, gitIn, startServerAt, stopPid, ROOT, JS_DIR } from './lib.mjs';

let wg;
let tmp;
let git;
let server;
const fronts = [];
const PW = 'secret-front-js';

const refsOf = (dir) => git(['-C', dir, 'for-each-ref', '--format=%(refname) %(objectname)']);
const objectsOf = (dir) => git(['-C', dir, 'rev-list', '--all', '--objects']).split('\n').sort().join('\n');
const withPw = (u) => (u.includes('@') ? u : u.replace('http://', `http://pusher:${PW}@`));

function startFront(name, args) {
  const state = path.join(tmp, name);
  const log = path.join(tmp, `${name}.log`);
  const base = execFileSync(path.join(ROOT, 'tests/server/start.sh'),
    [state, '--front', '--target', server.base, '--log', log, ...args],
    { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }).trim();
  const pid = Number(fs.readFileSync(path.join(state, 'pid'), 'utf8'));
  fronts.push(pid);
  return { base, log: () => (fs.existsSync(log) ? fs.readFileSync(log, 'utf8') : '') };
}

before(async () => {
  wg = await loadWebgit();
  await wg.init();
  tmp = makeTmp('front-ends');
  git = gitIn(tmp);
  const work = path.join(tmp, 'work');
  git(['init', '-q', '-b', 'main', work]);
  for (let i = 1; i <= 8; i++) {
    fs.writeFileSync(path.join(work, `f${i % 3}`), `${'line\n'.repeat(i * 20)}${i}\n`);
    git(['-C', work, 'add', '.']);
    git(['-C', work, 'commit', '-qm', `commit ${i}`]);
  }
  git(['-C', work, 'tag', '-a', '-m', 'v1', 'v1', 'HEAD~2']);
  const repos = path.join(tmp, 'repos');
  fs.mkdirSync(repos);
  git(['clone', '-q', '--bare', work, path.join(repos, 'r.git')]);
  git(['-C', path.join(repos, 'r.git'), 'config', 'http.receivepack', 'true']);
  server = startServerAt(path.join(tmp, 'server'), repos, ['--auth', `pusher:${PW}`]);
});

after(async () => {
  for (const pid of fronts) await stopPid(pid);
  if (server) await server.stop();
  if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
});

/** Clone, fetch and push through `url`; returns the progress events. */
async function through(name, url) {
  const served = path.join(server.repos, 'r.git');
  const gitClone = path.join(tmp, `g-${name}`);
  git(['clone', '-q', `${server.base}/git/r.git`, gitClone]);
  const dir = path.join(tmp, `w-${name}`);
  const events = [];
  await wg.clone({ url, dir, onProgress: (p) => events.push(p) });
  assert.equal(refsOf(dir), refsOf(gitClone), `${name}: git's refs`);
  assert.equal(objectsOf(dir), objectsOf(gitClone), `${name}: git's objects`);
  git(['-C', dir, 'fsck', '--strict', '--no-progress']);
  // a file without a clone: where protocol v2 is not spoken, the read's v2
  // try fails and it starts again the way git asks
  for (const ref of ['v1', 'main~1', 'main']) {
    const data = await wg.readFile({ url, ref, path: 'f1' });
    assert.ok(Buffer.from(data).equals(git(['-C', served, 'show', `${ref}:f1`], { encoding: 'buffer' })),
      `${name}: readFile ${ref}:f1`);
  }
  // the server moves on; fetch
  const tip = git(['-C', served, 'rev-parse', 'main']).trim();
  const next = git(['-C', served, 'commit-tree', '-p', tip, '-m', `for ${name}`, `${tip}^{tree}`]).trim();
  git(['-C', served, 'update-ref', `refs/heads/new-${name}`, next]);
  await wg.fetch({ dir, remote: url, refspecs: [`+refs/heads/*:refs/remotes/origin/*`] });
  assert.equal(git(['-C', dir, 'rev-parse', `refs/remotes/origin/new-${name}`]).trim(), next);
  // push a commit of our own (the server wants credentials for pushes)
  const mine = git(['-C', dir, 'commit-tree', '-p', next, '-m', `pushed through ${name}`, `${next}^{tree}`]).trim();
  await wg.push({ dir, remote: withPw(url), refspecs: [`${mine}:refs/heads/pushed-${name}`] });
  assert.equal(git(['-C', served, 'rev-parse', `refs/heads/pushed-${name}`]).trim(), mine);
  return events;
}

test('a front that gzips every response', async () => {
  const f = startFront('gz', ['--gzip', '--framing', 'length']);
  await through('gzip', `${f.base}/git/r.git`);
  // whether fetch() asked for gzip is the runtime's business; Node's does
  assert.match(f.log(), /^POST \/git\/r\.git\/git-upload-pack 200 \d+ 1 /m);
  assert.match(f.log(), /^POST \/git\/r\.git\/git-receive-pack 200 \d+ 1 /m);
});

test('a proxy that drops Git-Protocol: protocol v0', async () => {
  const f = startFront('v0', ['--drop-protocol']);
  await through('v0', `${f.base}/git/r.git`);
  assert.doesNotMatch(f.log(), / version=\d$/m);
});

test('a server pinned to protocol v1', async () => {
  const f = startFront('v1', ['--pin-protocol', '1']);
  await through('v1', `${f.base}/git/r.git`);
  const lines = f.log().trim().split('\n');
  assert.ok(lines.length >= 5 && lines.every((l) => l.endsWith(' version=1')), f.log());
  const refs = await wg.listRemoteRefs(`${f.base}/git/r.git`);
  assert.equal(refs.find((r) => r.name === 'refs/heads/main').oid,
    git(['-C', path.join(server.repos, 'r.git'), 'rev-parse', 'main']).trim());
});

test('a moved repository: the discovery redirect moves every later request, with git\'s notice', async () => {
  const f = startFront('mv', ['--redirect', '/git/old.git=/git/r.git']);
  const events = await through('redirect', `${f.base}/git/old.git`);
  const notices = events.filter((e) => e.notice);
  assert.deepEqual(notices.map((e) => e.line), [`redirecting to ${f.base}/git/r.git/`]);
  assert.match(f.log(), /^POST \/git\/r\.git\/git-upload-pack 200 /m);
  assert.match(f.log(), /^POST \/git\/r\.git\/git-receive-pack 200 /m);
  // the only request to the old place after discovery: the first
  // readFile's v2 try, which skips discovery (then starts again with it,
  // and later reads of this URL start with it)
  assert.deepEqual(f.log().match(/^POST \/git\/old\.git\S* \d+/mg),
    ['POST /git/old.git/git-upload-pack 404']);
});

test('a repository moved to another origin: followed, the URL\'s credentials stay with the old one', async () => {
  // the new host: a second front that logs whether requests carried credentials
  const authLog = path.join(tmp, 'xnew.auth');
  const fresh = startFront('xnew', ['--log-auth', authLog]);
  const f = startFront('xw', ['--auth', `pusher:${PW}`, '--redirect', `/git/old.git=${fresh.base}/git/r.git`]);
  const gitClone = path.join(tmp, 'g-xw');
  git(['clone', '-q', `${server.base}/git/r.git`, gitClone]);
  const dir = path.join(tmp, 'w-xw');
  const events = [];
  await wg.clone({ url: withPw(`${f.base}/git/old.git`), dir, onProgress: (p) => events.push(p) });
  assert.equal(refsOf(dir), refsOf(gitClone));
  assert.equal(objectsOf(dir), objectsOf(gitClone));
  assert.deepEqual(events.filter((e) => e.notice).map((e) => e.line),
    [`redirecting to ${fresh.base}/git/r.git/`]);
  const seen = fs.readFileSync(authLog, 'utf8').trim().split('\n');
  assert.ok(seen.length >= 2 && seen.every((l) => l.endsWith(' no')), seen.join('\n'));
  assert.match(f.log(), /^GET \/git\/old\.git\/info\/refs\?service=git-upload-pack 301 /m);
  // a push by the old URL with its credentials: the new host asks (the
  // server wants credentials for pushes) and onAuth answers for it
  const tip = git(['-C', dir, 'rev-parse', 'HEAD']).trim();
  const mine = git(['-C', dir, 'commit-tree', '-p', tip, '-m', 'pushed after the move', `${tip}^{tree}`]).trim();
  const asked = [];
  await wg.push({ dir, remote: withPw(`${f.base}/git/old.git`), refspecs: [`${mine}:refs/heads/moved`],
    onAuth: (a) => { asked.push(a.url); return { username: 'pusher', password: PW }; } });
  assert.equal(git(['-C', path.join(server.repos, 'r.git'), 'rev-parse', 'refs/heads/moved']).trim(), mine);
  assert.ok(asked.length === 1 && asked[0].startsWith(`${fresh.base}/git/r.git/`), asked.join(' '));
});

test('a rate limit: 429 with Retry-After is waited out, a long one is an error at once', async () => {
  const f = startFront('rl', ['--throttle', '429', '--retry-after', '1']);
  const t0 = Date.now();
  await through('429', `${f.base}/git/r.git`);
  assert.ok(Date.now() - t0 >= 4000, 'four request kinds, a second each');
  assert.ok((f.log().match(/ 429 /g) || []).length >= 4, f.log());
  const long = startFront('rlong', ['--throttle', '503', '--retry-after', '3600']);
  const t1 = Date.now();
  const dir = path.join(tmp, 'w-long');
  await assert.rejects(wg.clone({ url: `${long.base}/git/r.git`, dir }), /503/);
  assert.ok(Date.now() - t1 < 15000, 'no waiting an hour');
  assert.equal(fs.existsSync(dir), false);
});

test('a login wall: 401 until credentials come', async () => {
  const f = startFront('au', ['--auth', `pusher:${PW}`]);
  await assert.rejects(wg.clone({ url: `${f.base}/git/r.git`, dir: path.join(tmp, 'w-noauth') }),
    (e) => e.code === 'EAUTH');
  await through('auth', withPw(`${f.base}/git/r.git`));
  assert.match(f.log(), / 401 /);
  const config = fs.readFileSync(path.join(tmp, 'w-auth', '.git', 'config'), 'utf8');
  assert.ok(!config.includes(PW), 'the password is not stored');
});

test('bodies that end with the connection', async () => {
  const f = startFront('cl', ['--framing', 'close']);
  await through('close', `${f.base}/git/r.git`);
});

test('retryAfterMs reads seconds and HTTP-dates, and refuses the rest', async () => {
  const { retryAfterMs } = await import(path.join(JS_DIR, 'transport.js'));
  const res = (status, v) => ({ status, headers: new Headers(v === undefined ? {} : { 'retry-after': v }) });
  const now = Date.parse('Sun, 06 Dec 2026 12:00:00 GMT');
  assert.equal(retryAfterMs(res(429, '2'), now), 2000);
  assert.equal(retryAfterMs(res(503, ' 0 '), now), 0);
  assert.equal(retryAfterMs(res(429, 'Sun, 06 Dec 2026 12:00:05 GMT'), now), 5000);
  assert.equal(retryAfterMs(res(429, 'Sun, 06 Dec 2026 11:00:00 GMT'), now), 0);
  assert.equal(retryAfterMs(res(429, '61'), now), null);
  assert.equal(retryAfterMs(res(429, 'soon'), now), null);
  assert.equal(retryAfterMs(res(429), now), null);
  assert.equal(retryAfterMs(res(500, '1'), now), null);
  assert.equal(retryAfterMs(res(200, '1'), now), null);
});

test('onAuth answers the login wall: asked once per call, wrong answers asked again, then EAUTH', async () => {
  const f = startFront('au2', ['--auth', `pusher:${PW}`]);
  const u = `${f.base}/git/r.git`;
  const asks = [];
  const dir = path.join(tmp, 'w-onauth');
  await wg.clone({
    url: u, dir,
    onAuth: (req) => { asks.push(req); return { username: 'pusher', password: PW }; },
  });
  assert.equal(asks.length, 1, 'asked once: the answer goes with the later requests');
  assert.equal(asks[0].attempt, 1);
  assert.equal(asks[0].rejected, false);
  assert.match(asks[0].url, /info\/refs/);
  assert.equal(git(['-C', dir, 'rev-parse', 'refs/remotes/origin/main']).trim(),
    git(['-C', path.join(server.repos, 'r.git'), 'rev-parse', 'main']).trim());
  assert.ok(!fs.readFileSync(path.join(dir, '.git', 'config'), 'utf8').includes(PW));
  // a push through the wall (the server wants the credentials too)
  const tip = git(['-C', dir, 'rev-parse', 'HEAD']).trim();
  const mine = git(['-C', dir, 'commit-tree', '-p', tip, '-m', 'onAuth push', `${tip}^{tree}`]).trim();
  await wg.push({ dir, refspecs: [`${mine}:refs/heads/onauth`], onAuth: () => ({ username: 'pusher', password: PW }) });
  assert.equal(git(['-C', path.join(server.repos, 'r.git'), 'rev-parse', 'refs/heads/onauth']).trim(), mine);

  // wrong, wrong, wrong: three asks, then EAUTH, nothing left behind, no secret in the error
  const wrong = [];
  const bad = path.join(tmp, 'w-onauth-bad');
  await assert.rejects(wg.clone({
    url: u, dir: bad, onAuth: (req) => { wrong.push(req); return { username: 'pusher', password: 'WRONG-pw-xyz' }; },
  }), (e) => e.code === 'EAUTH' && !e.message.includes('WRONG-pw-xyz'));
  assert.deepEqual(wrong.map((r) => [r.attempt, r.rejected]), [[1, false], [2, true], [3, true]]);
  assert.equal(fs.existsSync(bad), false);
  // giving up
  await assert.rejects(wg.clone({ url: u, dir: bad, onAuth: () => null }), (e) => e.code === 'EAUTH');
  await assert.rejects(wg.clone({ url: u, dir: bad, onAuth: async () => { throw new Error('user cancelled'); } }),
    (e) => e.code === 'EAUTH' && e.cause?.message === 'user cancelled');
});
