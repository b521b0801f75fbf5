// Network calls: listRemoteRefs, clone, fetch, push, and reading one file
// of a remote without a clone (for edge functions).

import {
  M, ready, str, withStrings, withStringArray, takeObject, records, makeError,
  throwIfAborted, withProgress, check,
} from './runtime.js';
import { withDir, withScratchDir } from './storage.js';
import { runOperation } from './transport.js';
import { withRepo, withRepoAt, readFileIn } from './repo.js';
import { beginSwitch, finishSwitch } from './worktree.js';

/** The refs of a remote repository, as `git ls-remote` lists them. */
export async function listRemoteRefs(url, { prefix, ...transport } = {}) {
  await ready();
  const prefixes = prefix === undefined || prefix === null ? [] : [].concat(prefix);
  return runOperation(
    () => withStrings([url], (u) => withStringArray(prefixes, (a, n) => M._wgjs_ls_remote_new(u, a, n))),
    transport,
    (op) => {
      const refs = [];
      const n = M._wgjs_ls_remote_count(op);
      for (let i = 0; i < n; i++) {
        const ref = { name: str(M._wgjs_ls_remote_name(op, i)), oid: str(M._wgjs_ls_remote_oid(op, i)) };
        const target = str(M._wgjs_ls_remote_target(op, i));
        const peeled = str(M._wgjs_ls_remote_peeled(op, i));
        if (target !== null) ref.target = target;
        if (peeled !== null) ref.peeled = peeled;
        if (M._wgjs_ls_remote_unborn(op, i)) {
          ref.unborn = true;
          ref.oid = null;
        }
        refs.push(ref);
      }
      return refs;
    });
}

/** `git clone -c`: { "transfer.fsckObjects": false, ... } as "key=value". */
function configList(config) {
  if (config === undefined || config === null) return [];
  if (typeof config !== 'object') throw makeError('EINVALID', 'config must be an object of key: value');
  return Object.entries(config).map(([k, v]) => `${k}=${v}`);
}

function cloneAt(path, {
  url, ref, depth, filter, singleBranch, bare, config, noCheckout = false, onProgress, ...transport
}) {
  // As with git, a shallow clone takes one branch unless told otherwise.
  const single = singleBranch ?? (depth > 0);
  const settings = configList(config);
  const checkout = !bare && !noCheckout;
  return withProgress(onProgress, (token) => runOperation(
    () => withStrings([url, path, ref, filter], (u, p, b, f) => withStringArray(settings, (c, nc) =>
      M._wgjs_clone_new(u, p, bare ? 1 : 0, b, single ? 1 : 0, depth | 0, f, c, nc,
        checkout ? 1 : 0, token))),
    transport,
    checkout ? (op) => checkoutClone(op, transport) : undefined));
}

// git clone's checkout of HEAD, while the clone is still unpublished (a
// failure leaves nothing), the blobs a blob-less clone lacks fetched in
// one request first.
async function checkoutClone(op, transport) {
  const repo = M._wgjs_clone_checkout_repo(op);
  if (repo) {
    const sw = await beginSwitch(repo, transport, () => M._wgjs_switch_begin(repo, 0, 0, 0, 0, 0));
    await finishSwitch(repo, sw, transport);
  }
  check(M._wgjs_clone_publish(op));
}

/** `git clone` (noCheckout: `--no-checkout`; a bare clone has no working
 * tree); on error or abort nothing is left. */
export async function clone(options = {}) {
  await ready();
  const { url, dir, signal } = options;
  if (typeof url !== 'string' || !url) throw makeError('EINVALID', 'url is required');
  if (typeof dir !== 'string' || !dir) throw makeError('EINVALID', 'dir is required');
  throwIfAborted(signal);
  await withDir(dir, { create: true, signal }, (path) => cloneAt(path, options));
}

/** `git fetch [--prune] [--no-tags] <remote> [<refspec>...]`. */
export async function fetch({
  dir, remote = 'origin', refspecs, prune = false, tags = true, onProgress, ...transport
} = {}) {
  return withRepo(dir, { write: true, signal: transport.signal }, (repo) => withProgress(onProgress, (token) => runOperation(
    () => withStrings([remote], (r) => withStringArray(refspecs ? [].concat(refspecs) : [],
      (a, n) => M._wgjs_fetch_new(repo, r, a, n, prune ? 1 : 0, tags ? 0 : 1, token))),
    transport,
    (op) => ({
      updates: records(takeObject(M._wgjs_fetch_updates(op)).data, 5)
        .map(([flag, remoteRef, localRef, oldOid, newOid]) => ({
          flag, remoteRef, localRef: localRef || null, oldOid, newOid,
        })),
      packBytes: M._wgjs_fetch_pack_bytes(op),
    }))));
}

/** `git push [-f] [--atomic] [-o <option>...] <remote> <refspec>...`.
 * Resolves with { ok, refs: [{ status, src, dst, oldOid, newOid, reason }] };
 * refs the remote or a local check refused are in `refs` with ok false. */
export async function push({
  dir, remote = 'origin', refspecs, force = false, atomic = false, pushOptions, onProgress, ...transport
} = {}) {
  const specs = refspecs === undefined ? [] : [].concat(refspecs);
  if (!specs.length) throw makeError('EINVALID', 'refspecs are required (e.g. "main" or "HEAD:refs/heads/main")');
  return withRepo(dir, { write: true, signal: transport.signal }, (repo) => withProgress(onProgress, (token) => runOperation(
    () => withStrings([remote], (r) => withStringArray(specs, (a, n) =>
      withStringArray(pushOptions ? [].concat(pushOptions) : [], (o, no) =>
        M._wgjs_push_new(repo, r, a, n, force ? 1 : 0, atomic ? 1 : 0, o, no, token)))),
    transport,
    (op) => {
      const refs = records(takeObject(M._wgjs_push_results(op)).data, 6)
        .map(([status, src, dst, oldOid, newOid, reason]) => ({
          status, src: src || null, dst, oldOid, newOid, reason: reason || null,
        }));
      return { ok: refs.every((r) => r.status === 'ok' || r.status === 'up-to-date'), refs };
    })));
}

// The response that tells a smart Git server from a static host: smart
// discovery's content type (git's own rule for a dumb server is its absence).
const SMART_TYPE = 'application/x-git-upload-pack-advertisement';
const DISCOVERY = '/info/refs?service=git-upload-pack';

/**
 * The bytes of `path` at `ref` of the remote `url`, without a clone.
 *
 * On a static host (the files of a bare repository with `git
 * update-server-info` run, as on S3 or R2) only the byte ranges needed are
 * fetched with HTTP Range requests (core/remote/static_read.h): the index
 * slices and pack entries of the commit, the trees on the path and the
 * file. Its first request is smart discovery's; when a smart server answers
 * it, that response is kept and handed to a throwaway in-memory partial
 * clone (filter blob:none, depth 1, that one ref), then the one blob is
 * fetched by id: no request is made twice. `static: true` reads the host as
 * static without that probe (no Git-Protocol header either), `static:
 * false` goes straight to the clone.
 */
export async function readRemoteFile({ url, ref, path, static: isStatic, ...transport }) {
  await ready();
  if (typeof path !== 'string' || !path) throw makeError('EINVALID', 'path is required');
  if (isStatic === false) return readThroughClone({ url, ref, path, ...transport });
  const baseFetch = transport.fetch || globalThis.fetch;
  let kept = null;
  const probing = async (u, init) => {
    const res = await baseFetch(u, init);
    const type = res.headers.get('content-type') || '';
    if (!isStatic && !kept && String(u).endsWith(DISCOVERY) && res.status === 200 &&
        type.startsWith(SMART_TYPE)) {
      // a smart server: its advertisement is small, kept for the clone
      const body = new Uint8Array(await res.arrayBuffer());
      kept = { url: String(u), status: res.status, headers: new Headers(res.headers), body };
      return new Response(body, { status: res.status, headers: kept.headers });
    }
    return res;
  };
  try {
    return await runOperation(
      () => withStrings([url, ref && ref !== 'HEAD' ? ref : null, path],
        (u, r, p) => M._wgjs_static_read_new(u, r, p, isStatic ? 1 : 0)),
      // a smart server's discovery is reported by the clone that uses it
      { ...transport, fetch: probing, onRequest: (r) => { if (!kept) transport.onRequest?.(r); } },
      (op) => {
        const p = M._wgjs_static_read_data(op) >>> 0;
        return M.HEAPU8.slice(p, p + M._wgjs_static_read_len(op));
      });
  } catch (e) {
    if (!kept) throw e;
  }
  const replay = (u, init) => {
    if (kept && String(u) === kept.url && (init?.method ?? 'GET') === 'GET') {
      const k = kept;
      kept = null;
      return Promise.resolve(new Response(k.body, { status: k.status, headers: k.headers }));
    }
    return baseFetch(u, init);
  };
  return readThroughClone({ url, ref, path, ...transport, fetch: replay });
}

function readThroughClone({ url, ref, path, ...transport }) {
  const branch = ref && ref !== 'HEAD' ? ref.replace(/^refs\/(heads|tags)\//, '') : undefined;
  return withScratchDir(async (dir) => {
    await cloneAt(dir, {
      url, ref: branch, depth: 1, filter: 'blob:none', singleBranch: true, bare: true, ...transport,
    });
    return withRepoAt(dir, (repo) => readFileIn(repo, {}, 'HEAD', path, transport));
  });
}
