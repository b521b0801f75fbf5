// Shared by the JS tests: the built package, the reference git, the
// local Git HTTP server with the sample repositories (started by PID,
// stopped by PID), and Debian's Chromium through playwright-core.
//
//   WEBGIT_JS_DIR  the built package (<build>/js from wasm/wasm.cmake;
//                  default build/wasm/js)
//   GIT            the reference git (default .cache/git-ref/bin/git)
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createRequire } from 'node:module';
import { fileURLToPath, pathToFileURL } from 'node:url';

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
export const JS_DIR = path.resolve(ROOT, process.env.WEBGIT_JS_DIR || 'build/wasm/js');
export const GIT = process.env.GIT || path.join(ROOT, '.cache/git-ref/bin/git');
export const SAMPLES = ['sample-sha1-files', 'sample-sha256-reftable'];
export const CHROMIUM = '/usr/bin/chromium';

export const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/**
 * The lines the test server (--log FILE: METHOD PATH STATUS REQ_BYTES
 * RESP_BYTES MS PROTO) wrote while fn() ran, as { result, lines } with
 * lines [{ method, path, status, reqBytes, respBytes, ms }].
 */
export async function serverLogDuring(logFile, fn) {
  const size = () => (fs.existsSync(logFile) ? fs.statSync(logFile).size : 0);
  const start = size();
  const result = await fn();
  // the server logs when each response finishes: let the lines land
  let last = -1;
  for (let i = 0; i < 20 && size() !== last; i++) {
    last = size();
    await sleep(50);
  }
  const text = fs.readFileSync(logFile).subarray(start).toString('utf8');
  const lines = text.split('\n').filter(Boolean).map((l) => {
    const [method, p, status, reqBytes, respBytes, ms] = l.split(' ');
    return {
      method, path: p, status: Number(status), reqBytes: Number(reqBytes), respBytes: Number(respBytes), ms: Number(ms),
    };
  });
  return { result, lines };
}

/** The API under test. */
export function loadWebgit() {
  return import(pathToFileURL(path.join(JS_DIR, 'index.js')).href);
}

/** A fresh temporary directory for one test file. */
/** What a clone or init left at `dir`: the directory itself, and any
 * staging directory beside it ("<dir>.webgit-tmp-XXXXXX", where a new
 * repository is built before it is renamed into place). */
export function leftAt(dir) {
  const base = `${path.basename(dir)}.webgit-tmp-`;
  const parent = path.dirname(dir);
  const staged = fs.existsSync(parent) ? fs.readdirSync(parent).filter((n) => n.startsWith(base)) : [];
  return [...(fs.existsSync(dir) ? [path.basename(dir)] : []), ...staged];
}

export function makeTmp(label) {
  return fs.mkdtempSync(path.join(os.tmpdir(), `webgit-${label}-`));
}

/**
 * The reference git with no user or system configuration; HOME is `home`.
 * opts go to execFileSync (opts.input is its stdin).
 */
export function gitIn(home) {
  return (args, opts = {}) => execFileSync(GIT, args, {
    encoding: opts.encoding === undefined ? 'utf8' : opts.encoding,
    maxBuffer: 64 << 20,
    stdio: [opts.input === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'],
    env: {
      ...process.env, GIT_CONFIG_NOSYSTEM: '1', GIT_CONFIG_GLOBAL: '/dev/null', HOME: home,
      XDG_CONFIG_HOME: home, LC_ALL: 'C', TZ: 'UTC',
      GIT_AUTHOR_NAME: 'A U Thor', GIT_AUTHOR_EMAIL: 'author@example.com',
      GIT_COMMITTER_NAME: 'C O Mitter', GIT_COMMITTER_EMAIL: 'committer@example.com',
    },
    ...opts,
  });
}

/**
 * Make the sample repositories (bare, served as /git/NAME.git) in `dir`;
 * `options` go to make-repos.sh (e.g. ['--format', 'sha1']).
 */
export function makeRepos(dir, options = []) {
  execFileSync(path.join(ROOT, 'tests/server/make-repos.sh'), [...options, dir], {
    env: { ...process.env, GIT }, stdio: ['ignore', 'ignore', 'pipe'],
  });
  return dir;
}

/**
 * Serve the repositories in `repos` with its state in the directory `state`;
 * returns { base, repos, pid, stop }. `args` are extra server options
 * (e.g. --log FILE, --static DIR, --mount /PREFIX/=DIR).
 */
export function startServerAt(state, repos, args = []) {
  const base = execFileSync(path.join(ROOT, 'tests/server/start.sh'), [state, '--root', repos, ...args], {
    env: { ...process.env, GIT }, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'],
  }).trim();
  const pid = Number(fs.readFileSync(path.join(state, 'pid'), 'utf8'));
  if (!/^http:\/\/127\.0\.0\.1:\d+$/.test(base)) throw new Error(`server said ${base}`);
  return { base, repos, pid, stop: () => stopPid(pid) };
}

/**
 * Make the sample repositories under tmp/repos and serve them (state in
 * tmp/server); returns { base, repos, pid, stop }. `args` as for
 * startServerAt.
 */
export function startServer(tmp, args = []) {
  return startServerAt(path.join(tmp, 'server'), makeRepos(path.join(tmp, 'repos')), args);
}

/** SIGTERM, wait up to 5 s, then SIGKILL. */
export async function stopPid(pid) {
  if (!pid) return;
  try {
    process.kill(pid, 'SIGTERM');
    for (let i = 0; i < 50; i++) {
      process.kill(pid, 0);          // throws once it is gone
      await sleep(100);
    }
    process.kill(pid, 'SIGKILL');
  } catch {
    // exited
  }
}

/**
 * Our refs (listRemoteRefs) in `git ls-remote` format: "<oid>\t<name>",
 * then "<peeled>\t<name>^{}" for an annotated tag.
 */
export function lsRemoteLines(refs) {
  const lines = [];
  for (const r of refs) {
    if (r.unborn) continue;
    lines.push(`${r.oid}\t${r.name}`);
    if (r.peeled) lines.push(`${r.peeled}\t${r.name}^{}`);
  }
  return lines;
}

/**
 * Debian's Chromium (CHROMIUM, headless) on a persistent context in
 * userDataDir, driven by playwright-core from tests/node_modules; `options`
 * add to or override playwright's launchPersistentContext options. Throws
 * if the browser or playwright-core is missing: no browser is ever
 * downloaded.
 */
export async function launchChromium(userDataDir, options = {}) {
  if (!fs.existsSync(CHROMIUM)) {
    throw new Error(`${CHROMIUM} is missing: install Debian's chromium (scripts/bootstrap.sh does, or ` +
      'apt-get install chromium). This test never downloads a browser.');
  }
  const require = createRequire(path.join(ROOT, 'tests/package.json'));
  let chromium;
  try {
    ({ chromium } = require('playwright-core'));
  } catch (e) {
    throw new Error('playwright-core is not installed in tests/node_modules: run scripts/bootstrap.sh ' +
      `(or cd tests && npm ci): ${e.message}`);
  }
  return chromium.launchPersistentContext(userDataDir, {
    executablePath: CHROMIUM,
    headless: true,
    // --disable-dev-shm-usage: containers often give /dev/shm 64 MB, which
    // Chromium outgrows.
    args: ['--no-sandbox', '--disable-background-networking', '--disable-dev-shm-usage'],
    ...options,
  });
}

/** The Deno binary: $DENO, else tests/node_modules/.bin/deno (the "deno"
 * npm package, tests/package.json), else `deno` on PATH; or an Error
 * saying why there is none. */
export function findDeno() {
  const candidates = [process.env.DENO, path.join(ROOT, 'tests/node_modules/.bin/deno')].filter(Boolean);
  for (const c of candidates) if (fs.existsSync(c)) return c;
  try {
    execFileSync('deno', ['--version'], { stdio: 'ignore' });
    return 'deno';
  } catch {
    return new Error('no Deno: install the test tools (scripts/bootstrap.sh, or cd tests && npm ci: ' +
      'the "deno" npm package), or set DENO');
  }
}

/** Write a file under dir (its directories made as needed). */
export function writeFileIn(dir, file, data) {
  fs.mkdirSync(path.dirname(path.join(dir, file)), { recursive: true });
  fs.writeFileSync(path.join(dir, file), data);
}
