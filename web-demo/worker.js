// web-demo/worker.js — the demo's webgit calls, run in a module Worker so
// that cloning and reading never block the page (app.js falls back to
// importing this file into the page when module workers are unavailable).
//
// Protocol (structured-clone messages):
//   page -> worker  { type: 'call', id, method, args }   run handlers[method](args)
//                   { type: 'abort', id }                 abort call `id` (its AbortSignal)
//   worker -> page  { type: 'ready', api: [names...] }    once, after loading
//                   { type: 'progress', id, progress }    clone progress, throttled
//                   { type: 'result', id, result }        the call resolved
//                   { type: 'error', id, error: { name, code, message } }
//
// Every repository is a directory of the module's file system such as
// /repos/sample-sha1-files; the API persists it in IndexedDB by itself.
import * as webgit from './webgit/index.js';

const has = (name) => typeof webgit[name] === 'function';

// One operation at a time per repository directory: a read never runs in
// the middle of another call's changes to the same repository.
const queues = new Map();
function serialized(dir, fn) {
  const prev = queues.get(dir) || Promise.resolve();
  const run = prev.then(fn, fn);
  const tail = run.catch(() => {});
  queues.set(dir, tail);
  tail.then(() => { if (queues.get(dir) === tail) queues.delete(dir); });
  return run;
}

// --- refs -------------------------------------------------------------------

// The clone's refs as [{ name, oid, target? }], from listRefs when the API
// has it, otherwise from the remote's refs mapped to what a clone makes of
// them (refs/heads/X -> refs/remotes/origin/X, plus the local branch of
// HEAD; tags as they are), keeping only those the clone really has.
async function localRefs(dir, url) {
  // (prefix 'refs/': HEAD is asked for on its own)
  if (has('listRefs')) return webgit.listRefs({ dir, prefix: 'refs/' });
  if (!url) return [];
  const remote = await webgit.listRemoteRefs(url);
  const candidates = [];
  for (const r of remote) {
    if (r.name === 'HEAD') {
      if (r.target) candidates.push({ name: r.target, symbolicHead: true });
    } else if (r.name.startsWith('refs/heads/')) {
      candidates.push({ name: `refs/remotes/origin/${r.name.slice('refs/heads/'.length)}` });
    } else if (r.name.startsWith('refs/tags/')) {
      candidates.push({ name: r.name });
    }
  }
  const out = [];
  for (const c of candidates) {
    try {
      out.push({ name: c.name, oid: await webgit.resolveRef({ dir, ref: c.name }) });
    } catch {
      // not in this clone (a single-branch or shallow clone, say)
    }
  }
  return out;
}

async function refs({ dir, url }) {
  return serialized(dir, async () => {
    const head = await webgit.resolveRef({ dir, ref: 'HEAD' });
    const list = await localRefs(dir, url);
    let headTarget = list.find((r) => r.name === 'HEAD')?.target || null;
    if (!headTarget && has('currentBranch')) {
      const branch = await webgit.currentBranch({ dir });   // "main", or null when detached
      if (branch) headTarget = branch.startsWith('refs/') ? branch : `refs/heads/${branch}`;
    }
    const out = [];
    for (const r of list) {
      if (r.name === 'HEAD' || /^refs\/remotes\/[^/]+\/HEAD$/.test(r.name)) continue;
      let commit = null;
      try {
        commit = await webgit.resolveRef({ dir, ref: `${r.name}^{commit}` });
      } catch {
        // a tag of a tree or a blob: listed, but there is nothing to browse
      }
      out.push({ name: r.name, oid: r.oid || null, commit });
    }
    if (!headTarget) {
      // Without a symbolic HEAD: the local branch that HEAD's commit is on.
      headTarget = (out.find((r) => r.name.startsWith('refs/heads/') && r.commit === head) ||
        out.find((r) => r.commit === head))?.name || null;
    }
    return { head, headTarget, refs: out, source: has('listRefs') ? 'listRefs' : 'listRemoteRefs' };
  });
}

// The commit a ref (or commit id) names.
async function resolve({ dir, ref }) {
  return serialized(dir, () => webgit.resolveRef({ dir, ref: `${ref}^{commit}` }));
}

// --- trees and files ------------------------------------------------------------

async function tree({ dir, ref, path = '' }) {
  return serialized(dir, () => webgit.listTree({ dir, ref, path }));
}

async function file({ dir, ref, path }) {
  return serialized(dir, async () => {
    const data = await webgit.readFile({ dir, ref, path });
    return { size: data.byteLength, data };
  });
}

// --- the log --------------------------------------------------------------------

const text = new TextDecoder();

function parseIdent(s) {
  const m = /^(.*?) ?<([^>]*)> (\d+) ([+-])(\d\d)(\d\d)$/.exec(s);
  if (!m) return { name: s, email: '', timestamp: 0, timezoneOffset: 0 };
  const minutes = Number(m[5]) * 60 + Number(m[6]);
  // As Date#getTimezoneOffset: minutes to add to local time to get UTC.
  return { name: m[1], email: m[2], timestamp: Number(m[3]), timezoneOffset: m[4] === '-' ? minutes : -minutes };
}

function parseCommit(oid, data) {
  const s = text.decode(data);
  const end = s.indexOf('\n\n');
  const head = end < 0 ? s : s.slice(0, end);
  const c = { oid, tree: null, parents: [], author: null, committer: null, message: end < 0 ? '' : s.slice(end + 2) };
  for (const line of head.split('\n')) {
    if (line.startsWith(' ')) continue;          // a continued header (gpgsig)
    const sp = line.indexOf(' ');
    const key = line.slice(0, sp), value = line.slice(sp + 1);
    if (key === 'tree') c.tree = value;
    else if (key === 'parent') c.parents.push(value);
    else if (key === 'author' || key === 'committer') c[key] = parseIdent(value);
  }
  return c;
}

// Without webgit.log: newest first by committer date, as `git log` does,
// reading the commits with readObject. Parents a shallow clone lacks end
// their line of history.
async function* walk(dir, start, depth) {
  const seen = new Set([start]);
  const queue = [];
  const load = async (oid) => {
    try {
      const obj = await webgit.readObject({ dir, oid });
      if (obj.type === 'commit') queue.push(parseCommit(oid, obj.data));
    } catch (e) {
      if (e.code !== 'ENOTFOUND') throw e;
    }
  };
  await load(start);
  for (let n = 0; n < depth && queue.length; n++) {
    queue.sort((a, b) => (b.committer?.timestamp || 0) - (a.committer?.timestamp || 0));
    const c = queue.shift();
    yield c;
    for (const p of c.parents) {
      if (!seen.has(p)) {
        seen.add(p);
        await load(p);
      }
    }
  }
}

async function log({ dir, ref, depth = 50 }) {
  return serialized(dir, async () => {
    const out = [];
    const iter = has('log') ? webgit.log({ dir, ref, depth }) : walk(dir, await webgit.resolveRef({ dir, ref }), depth);
    for await (const c of iter) {
      out.push({
        oid: c.oid, parents: c.parents, author: c.author, committer: c.committer,
        message: c.message,
      });
      if (out.length >= depth) break;
    }
    return { commits: out, source: has('log') ? 'log' : 'readObject' };
  });
}

// --- repositories ------------------------------------------------------------------

async function repos() {
  return { dirs: has('listRepos') ? await webgit.listRepos() : null };
}

async function deleteRepo({ dir }) {
  if (!has('deleteRepo')) {
    throw Object.assign(new Error('this webgit has no deleteRepo()'), { code: 'EUNSUPPORTED' });
  }
  return serialized(dir, () => webgit.deleteRepo({ dir }));
}

async function clone({ url, dir, depth }, { signal, progress }) {
  return serialized(dir, async () => {
    const t0 = performance.now();
    await webgit.clone({ url, dir, depth: depth || undefined, onProgress: progress, signal });
    return { ms: Math.round(performance.now() - t0) };
  });
}

async function hello() {
  await webgit.init();
  // 'idb' (kept in IndexedDB), 'memory' (gone with the page) or 'node'.
  const storage = has('storage') ? webgit.storage() : (has('listRepos') ? 'idb' : 'memory');
  return { api: Object.keys(webgit).filter(has), storage };
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
