// Shared by the JS tests: the built package, the reference git, and the
// local Git HTTP server with the sample repositories (started by PID,
// stopped by PID).
//
//   WEBGIT_JS_DIR  the built package (<build>/js from wasm/wasm.cmake;
//                  default build/wasm/js)
//   GIT            the reference git (default .cache/git-ref/bin/git)
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
export const JS_DIR = path.resolve(ROOT, process.env.WEBGIT_JS_DIR || 'build/wasm/js');
export const GIT = process.env.GIT || path.join(ROOT, '.cache/git-ref/bin/git');
export const SAMPLES = ['sample-sha1-files', 'sample-sha256-reftable'];

/** The API under test. */
export function loadWebgit() {
  return import(pathToFileURL(path.join(JS_DIR, 'index.js')).href);
}

/** A fresh temporary directory for one test file. */
export function makeTmp(label) {
  return fs.mkdtempSync(path.join(os.tmpdir(), `webgit-${label}-`));
}

/** The reference git with no user or system configuration; HOME is `home`. */
export function gitIn(home) {
  return (args, opts = {}) => execFileSync(GIT, args, {
    encoding: opts.encoding === undefined ? 'utf8' : opts.encoding,
    maxBuffer: 64 << 20,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: {
      ...process.env, GIT_CONFIG_NOSYSTEM: '1', HOME: home, XDG_CONFIG_HOME: home, LC_ALL: 'C',
      GIT_AUTHOR_NAME: 'A U Thor', GIT_AUTHOR_EMAIL: 'author@example.com',
      GIT_COMMITTER_NAME: 'C O Mitter', GIT_COMMITTER_EMAIL: 'committer@example.com',
    },
    ...opts,
  });
}

/**
 * Make the sample repositories under tmp/repos and serve them; returns
 * { base, repos, stop }. `args` are extra server options (e.g. --log FILE).
 */
export function startServer(tmp, args = []) {
  const repos = path.join(tmp, 'repos');
  execFileSync(path.join(ROOT, 'tests/server/make-repos.sh'), [repos], {
    env: { ...process.env, GIT }, stdio: ['ignore', 'ignore', 'pipe'],
  });
  const state = path.join(tmp, 'server');
  const base = execFileSync(path.join(ROOT, 'tests/server/start.sh'), [state, '--root', repos, ...args], {
    env: { ...process.env, GIT }, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'],
  }).trim();
  const pid = Number(fs.readFileSync(path.join(state, 'pid'), 'utf8'));
  if (!/^http:\/\/127\.0\.0\.1:\d+$/.test(base)) throw new Error(`server said ${base}`);
  return { base, repos, pid, stop: () => stopPid(pid) };
}

/** SIGTERM, wait up to 5 s, then SIGKILL. */
export async function stopPid(pid) {
  if (!pid) return;
  try {
    process.kill(pid, 'SIGTERM');
    for (let i = 0; i < 50; i++) {
      process.kill(pid, 0);          // throws once it is gone
      await new Promise((r) => setTimeout(r, 100));
    }
    process.kill(pid, 'SIGKILL');
  } catch {
    // exited
  }
}
