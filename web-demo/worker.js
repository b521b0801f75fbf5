// web-demo/worker.js — the demo's webgit calls, run in a module Worker so
// that cloning and reading never block the page (app.js falls back to
// importing this file into the page when module workers are unavailable).
//
// Protocol (structured-clone messages):
//   page -> worker  { type: 'call', id, method, args }   run handlers[method](args)
//                   { type: 'abort', id }                 abort call `id` (its AbortSignal)
//   worker -> page  { type: 'ready' }                     once, after loading
//                   { type: 'progress', id, progress }    clone progress, throttled
//                   { type: 'result', id, result }        the call resolved
//                   { type: 'error', id, error: { name, code, message } }
//
// Every repository is a directory of the module's file system such as
// /repos/sample-sha1-files; the API persists it in IndexedDB by itself.
import * as webgit from './webgit/index.js';

// No queue of our own: the API runs the calls on one repository one at a
// time (js/storage.js), so a read never sees another call's half-made
// changes.

// --- refs -------------------------------------------------------------------

// The branch HEAD is on (headTarget, a full ref name; null when detached)
// and every ref under refs/ with the commit it names (null if none).
async function refs({ dir }) {
  const branch = await webgit.currentBranch({ dir });     // "main", or null when detached
  // (currentBranch shortens refs/heads/ only: anything else comes in full)
  const headTarget = branch === null ? null : branch.startsWith('refs/') ? branch : `refs/heads/${branch}`;
  const out = [];
  for (const r of await webgit.listRefs({ dir, prefix: 'refs/' })) {
    // refs/remotes/origin/HEAD only repeats a branch that is listed anyway.
    if (/^refs\/remotes\/[^/]+\/HEAD$/.test(r.name)) continue;
    let commit = null;
    try {
      commit = await webgit.resolveRef({ dir, ref: `${r.name}^{commit}` });
    } catch {
      // a tag of a tree or a blob: listed, but there is nothing to browse
    }
    out.push({ name: r.name, commit });
  }
  return { headTarget, refs: out };
}

// The commit a ref (or commit id) names.
async function resolve({ dir, ref }) {
  return webgit.resolveRef({ dir, ref: `${ref}^{commit}` });
}

// --- trees, files, the log ----------------------------------------------------------

async function tree({ dir, ref, path = '' }) {
  return webgit.readTree({ dir, ref, path });
}

async function file({ dir, ref, path }) {
  const data = await webgit.readFile({ dir, ref, path });
  return { size: data.byteLength, data };
}

// The newest `depth` commits from ref, as git log orders them; collected
// here so that the page gets them in one message.
async function log({ dir, ref, depth = 50 }) {
  const commits = [];
  for await (const c of webgit.log({ dir, ref, depth })) commits.push(c);
  return { commits };
}

// --- repositories ------------------------------------------------------------------

async function repos() {
  return { dirs: await webgit.listRepos() };
}

async function deleteRepo({ dir }) {
  return webgit.deleteRepo({ dir });
}

async function clone({ url, dir, depth }, { signal, progress }) {
  const t0 = performance.now();
  await webgit.clone({ url, dir, depth: depth || undefined, onProgress: progress, signal });
  return { ms: Math.round(performance.now() - t0) };
}

// Load the module now, so that a page that cannot load it says so at once.
async function hello() {
  await webgit.init();
  // 'idb' (kept in IndexedDB), 'memory' (gone with the page) or 'node';
  // threads: 0 unless the page is cross-origin isolated (scripts/demo.sh
  // serves it so), then the threads a clone resolves deltas on.
  return { storage: webgit.storage(), threads: (await webgit.memoryUsage()).threads };
}

export const handlers = { hello, clone, refs, resolve, tree, file, log, repos, deleteRepo };

// --- the worker side of the protocol ------------------------------------------------

export function errorInfo(e) {
  return {
    name: e?.name || 'Error',
    code: e?.code !== undefined ? String(e.code) : (e?.name === 'AbortError' ? 'ABORT_ERR' : 'ERROR'),
    message: e?.message || String(e),
  };
}

// A progress callback that posts at most every 50 ms, but always the
// reports that end a phase.
export function throttled(post) {
  let last = 0, pending = null, timer = 0;
  const flush = () => {
    timer = 0;
    if (pending) { post(pending); pending = null; last = performance.now(); }
  };
  return (p) => {
    const { phase, done, total, bytes, finished, remote, line } = p;
    pending = { phase, done, total, bytes, finished, remote, line };
    const now = performance.now();
    if (finished || now - last >= 50) {
      if (timer) { clearTimeout(timer); timer = 0; }
      flush();
    } else if (!timer) {
      timer = setTimeout(flush, 50 - (now - last));
    }
  };
}

const inWorker = typeof WorkerGlobalScope !== 'undefined' && self instanceof WorkerGlobalScope;
if (inWorker) {
  const controllers = new Map();
  self.addEventListener('message', async (event) => {
    const msg = event.data;
    if (msg?.type === 'abort') {
      controllers.get(msg.id)?.abort();
      return;
    }
    if (msg?.type !== 'call') return;
    const { id, method, args } = msg;
    const ac = new AbortController();
    controllers.set(id, ac);
    try {
      const fn = handlers[method];
      if (!fn) throw Object.assign(new Error(`no such method ${method}`), { code: 'EINVALID' });
      const result = await fn(args || {}, {
        signal: ac.signal,
        progress: throttled((progress) => self.postMessage({ type: 'progress', id, progress })),
      });
      const transfer = result?.data instanceof Uint8Array ? [result.data.buffer] : [];
      self.postMessage({ type: 'result', id, result }, transfer);
    } catch (e) {
      self.postMessage({ type: 'error', id, error: errorInfo(e) });
    } finally {
      controllers.delete(id);
    }
  });
  self.postMessage({ type: 'ready' });
}
