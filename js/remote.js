// Network calls: listRemoteRefs, clone, fetch, push, and reading one file
// of a remote without a clone (for edge functions).

import {
  M, ready, str, withStrings, withStringArray, takeObject, records, makeError,
  throwIfAborted, withProgress, check, lastError,
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
  url, ref, revision, depth, filter, singleBranch, bare, config, noCheckout = false, onProgress,
  ...transport
}) {
  // As with git, a shallow clone takes one branch unless told otherwise.
  const single = singleBranch ?? (depth > 0);
  const settings = configList(config);
  const checkout = !bare && !noCheckout;
  return withProgress(onProgress, (token) => runOperation(
    () => withStrings([url, path, ref, filter, revision], (u, p, b, f, r) => withStringArray(settings, (c, nc) =>
      M._wgjs_clone_new(u, p, bare ? 1 : 0, b, single ? 1 : 0, depth | 0, f, c, nc,
        checkout ? 1 : 0, token, r))),
    transport,
    async (op) => {
      if (checkout) await checkoutClone(op, transport);
      return { protocol: M._wgjs_clone_protocol(op) };
    }));
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
const RESULT_TYPE = 'application/x-git-upload-pack-result';
const DISCOVERY = '/info/refs?service=git-upload-pack';

// What earlier reads in this runtime (an edge isolate lives across
// requests) learnt of a server: { v2: object format } when it answered a
// read that skipped the advertisement, { probe: true } when it did not.
// Only which requests to try first depends on it, never a result.
const servers = new Map();
const SERVERS_KEPT = 256;

function serverKey(url) {
  try {
    const u = new URL(url);
    u.username = '';
    u.password = '';
    return String(u).replace(/\/+$/, '');
  } catch {
    return url;
  }
}

function learn(url, what) {
  const key = serverKey(url);
  servers.delete(key);
  servers.set(key, what);
  if (servers.size > SERVERS_KEPT) servers.delete(servers.keys().next().value);
}

/**
 * The bytes of `path` at `ref` of the remote `url`, without a clone.
 *
 * `ref` is a revision expression: a branch, tag or other ref name, HEAD
 * or "@", followed by any of ~<n>, ^<n>, ^{<type>} (core/remote/rev_plan.h).
 *
 * A smart server is first taken to speak protocol v2 (git's own servers
 * do, GitHub's and GitLab's too): three requests, ls-refs for that one ref,
 * a shallow blob-less fetch of the commit with its trees (deep enough for
 * the expression), then the one blob by id, in a throwaway in-memory
 * clone. A server that answers otherwise (v0 only, a SHA-256 repository
 * when SHA-1 was assumed, no filter, a static host) fails the first or
 * second request, and the read starts again the way git asks: smart
 * discovery first. On a static host (the files of a bare repository with
 * `git update-server-info` run, as on S3 or R2) only the byte ranges
 * needed are then fetched with HTTP Range requests
 * (core/remote/static_read.h); when a smart server answers that request,
 * its advertisement is kept and given to the clone and the blob's fetch,
 * so no request is made twice. What a server turned out to be is kept
 * for later reads of the same URL in this runtime.
 *
 * `static: true` reads the host as static straight away (no Git-Protocol
 * header either); `static: false` never reads it so; `objectFormat`
 * ('sha1', 'sha256') says what a smart server uses when known.
 */
export async function readRemoteFile({
  url, ref, path, static: isStatic, objectFormat, details, ...transport
}) {
  const got = await readRemote({ url, ref, path, isStatic, objectFormat, transport });
  return details ? got : got.data;
}

// readRemoteFile's work: { data, oid } of the blob.
async function readRemote({ url, ref, path, isStatic, objectFormat, transport }) {
  await ready();
  if (typeof path !== 'string' || !path) throw makeError('EINVALID', 'path is required');
  const plan = revPlan(ref);
  const known = servers.get(serverKey(url));
  let tried = null;
  if (isStatic !== true && !known?.probe) {
    const format = objectFormat || known?.v2 || 'sha1';
    tried = format;
    const got = await readAssumingV2({ url, plan, path, format, ...transport });
    if (got !== RETRY) {
      learn(url, { v2: format });
      return got;
    }
    learn(url, { probe: true });
  }
  if (isStatic === false) return (await readThroughClone({ url, plan, path, ...transport })).file;
  const baseFetch = transport.fetch || globalThis.fetch;
  let kept = null;
  const probing = async (u, init) => {
    const res = await baseFetch(u, init);
    const type = res.headers.get('content-type') || '';
    if (!isStatic && !kept && String(u).endsWith(DISCOVERY) && res.status === 200 &&
        type.startsWith(SMART_TYPE)) {
      // a smart server: its advertisement is small, kept for the clone
      const body = new Uint8Array(await res.arrayBuffer());
      kept = {
        url: String(u), status: res.status, headers: new Headers(res.headers), body, finalUrl: res.url,
      };
      return new Response(body, { status: res.status, headers: kept.headers });
    }
    return res;
  };
  try {
    return await runOperation(
      () => withStrings([url, plan.spec === 'HEAD' ? null : plan.spec, path],
        (u, r, p) => M._wgjs_static_read_new(u, r, p, isStatic ? 1 : 0)),
      // a smart server's discovery is reported by the clone that uses it
      { ...transport, fetch: probing, onRequest: (r) => { if (!kept) transport.onRequest?.(r); } },
      (op) => {
        const p = M._wgjs_static_read_data(op) >>> 0;
        return {
          data: M.HEAPU8.slice(p, p + M._wgjs_static_read_len(op)),
          oid: str(M._wgjs_static_read_oid(op)),
        };
      });
  } catch (e) {
    if (!kept) throw e;
  }
  // the clone's discovery and the blob fetch's are both answered with it
  const replay = (u, init) => {
    if (String(u) === kept.url && (init?.method ?? 'GET') === 'GET') {
      const res = new Response(kept.body, { status: kept.status, headers: kept.headers });
      // where it came from: a redirected discovery moves the repository
      if (kept.finalUrl) Object.defineProperty(res, 'url', { value: kept.finalUrl });
      return Promise.resolve(res);
    }
    return baseFetch(u, init);
  };
  // reported once, as the request it is (the probe did not report it)
  let reported = false;
  const onRequest = (r) => {
    if (r.method === 'GET' && String(r.url) === kept.url) {
      if (reported) return;
      reported = true;
    }
    transport.onRequest?.(r);
  };
  const got = await readThroughClone({ url, plan, path, ...transport, fetch: replay, onRequest });
  // a v2 server that failed the try only for its object format gets the
  // right one next time; otherwise the try is not worth repeating
  if (tried && got.protocol === 2 && got.format !== tried) learn(url, { v2: got.format });
  return got.file;
}

const RETRY = Symbol('retry');

// The expression split (rev_plan.h): the name to clone, and how deep.
function revPlan(ref) {
  const spec = ref === undefined || ref === null || ref === '' ? 'HEAD' : String(ref);
  if (withStrings([spec], (s) => M._wgjs_rev_plan(s))) throw lastError();
  const len = M._wgjs_rev_plan_name_len();
  const name = spec.slice(0, len);
  return {
    spec,
    name: name === 'HEAD' || name === '@' ? undefined : name.replace(/^refs\/(heads|tags)\//, ''),
    navigation: spec.slice(len),
    depth: M._wgjs_rev_plan_generations() + 1,
  };
}

// A full object id is cloned as git clone --revision does (over v2, no
// ref listing either).
const FULL_ID = /^(?:[0-9a-f]{40}|[0-9a-f]{64})$/;

function scratchClone(dir, url, plan, transport) {
  const byId = FULL_ID.test(plan.name ?? '');
  return cloneAt(dir, {
    url, ref: byId ? undefined : plan.name, revision: byId ? plan.name : undefined,
    depth: plan.depth, filter: 'blob:none', singleBranch: true, bare: true, ...transport,
  });
}

// The three-request read; RETRY when the server is not as assumed.
async function readAssumingV2({ url, plan, path, format, ...transport }) {
  const baseFetch = transport.fetch || globalThis.fetch;
  let smartAnswer;   // whether the first response was a smart result
  const watching = async (u, init) => {
    const res = await baseFetch(u, init);
    smartAnswer ??= res.status === 200 &&
      (res.headers.get('content-type') || '').startsWith(RESULT_TYPE);
    return res;
  };
  const assumed = { ...transport, fetch: watching, assumeV2: format };
  return withScratchDir(async (dir) => {
    try {
      await scratchClone(dir, url, plan, assumed);
    } catch (e) {
      // the ref is not there (ls-refs answered): so it is
      if (e.name === 'AbortError' || transport.signal?.aborted ||
          (e.code === 'ENOTFOUND' && smartAnswer)) throw e;
      return RETRY;
    }
    return withRepoAt(dir, (repo) => readFileIn(repo, {}, `HEAD${plan.navigation}`, path, assumed));
  });
}

function readThroughClone({ url, plan, path, ...transport }) {
  return withScratchDir(async (dir) => {
    const { protocol } = await scratchClone(dir, url, plan, transport);
    return withRepoAt(dir, async (repo) => ({
      protocol,
      format: str(M._wgjs_repo_object_format(repo)),
      file: await readFileIn(repo, {}, `HEAD${plan.navigation}`, path, transport),
    }));
  });
}
