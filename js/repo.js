// Local repository calls: open, read (fetching what a partial clone lacks),
// write objects and refs, commit.

import {
  M, ready, str, withStrings, withStringArray, withBytes, takeObject, records, check,
  lastError, makeError, throwIfAborted,
} from './runtime.js';
import { withDir } from './storage.js';
import { runOperation } from './transport.js';

const utf8in = new TextEncoder();
const utf8 = new TextDecoder();

/** Run fn(repo) with the repository at the module path `path` open. */
export async function withRepoAt(path, fn) {
  const repo = withStrings([path], (p) => M._wgjs_repo_open(p));
  if (!repo) throw lastError();
  try {
    return await fn(repo);
  } finally {
    M._wgjs_repo_free(repo);
  }
}

/** Run fn(repo, state) with the repository `dir` open (see withDir). */
export async function withRepo(dir, { write = false, signal } = {}, fn) {
  await ready();
  return withDir(dir, { write, signal }, (path, state) => withRepoAt(path, (repo) => fn(repo, state)));
}

/** Is there a repository at this module path? */
export function looksLikeRepo(path) {
  const repo = withStrings([path], (p) => M._wgjs_repo_open(p));
  if (!repo) return false;
  M._wgjs_repo_free(repo);
  return true;
}

/**
 * Fetch `oids` (hex ids a partial clone lacks) from the promisor remote in
 * one request. False, without a request, when there is nothing to fetch,
 * no promisor remote, or `remote.lazy` is false. `state` (may be null)
 * is marked changed.
 */
export async function fetchPromised(repo, state, oids, remote) {
  if (!oids.length || !M._wgjs_repo_promisor_remote(repo) || remote?.lazy === false) return false;
  throwIfAborted(remote?.signal);
  await runOperation(() => withStringArray(oids, (a, n) => M._wgjs_promisor_fetch_new(repo, a, n)), remote);
  if (state) state.changed = true;
  return true;
}

/** The ids a wgjs_*_missing listing names (one hex id per record). */
export const missingIds = (listing) => records(takeObject(listing).data, 1).map(([h]) => h);

/**
 * Run the synchronous read fn(); when it fails because a partial clone
 * lacks an object, fetch that object from the promisor remote and run it
 * again (git's lazy fetch). `remote` holds the transport options (fetch,
 * headers, signal, onRequest); lazy: false turns fetching off.
 */
export async function lazily(repo, state, remote, fn) {
  let fetched = null;
  for (;;) {
    const before = str(M._wgjs_repo_last_missing(repo));
    try {
      return fn();
    } catch (e) {
      if (e.code !== 'ENOTFOUND' || remote?.lazy === false) throw e;
      const missing = str(M._wgjs_repo_last_missing(repo));
      if (!missing || missing === before || missing === fetched ||
          !(await fetchPromised(repo, state, [missing], remote))) {
        throw e;
      }
      fetched = missing;
    }
  }
}

export function revparse(repo, spec) {
  const oid = withStrings([spec], (s) => str(M._wgjs_revparse(repo, s)));
  if (oid === null) throw lastError();
  return oid;
}

function readRaw(repo, oid) {
  return takeObject(withStrings([oid], (s) => M._wgjs_object_read(repo, s)));
}

// --- repositories -------------------------------------------------------------------------

/** `git init`: SHA-256 and reftable unless told otherwise (Git 3.0's defaults). */
export async function initRepo({ dir, bare = false, objectFormat, refFormat, defaultBranch } = {}) {
  await ready();
  return withDir(dir, { create: true }, async (path) => {
    check(withStrings([path, objectFormat, refFormat, defaultBranch],
      (p, o, r, b) => M._wgjs_repo_init(p, bare ? 1 : 0, o, r, b)));
  });
}

// --- reading ------------------------------------------------------------------------------------

export async function resolveRef({ dir, ref = 'HEAD', ...remote } = {}) {
  return withRepo(dir, {}, (repo, state) => lazily(repo, state, remote, () => revparse(repo, ref)));
}

export async function readObject({ dir, oid, ...remote } = {}) {
  return withRepo(dir, {}, (repo, state) => lazily(repo, state, remote, () => readRaw(repo, oid)));
}

export async function readFile({ dir, ref = 'HEAD', path, details, ...remote } = {}) {
  if (typeof path !== 'string' || !path) throw makeError('EINVALID', 'path is required');
  return withRepo(dir, {}, async (repo, state) => {
    const got = await readFileIn(repo, state, ref, path, remote);
    return details ? got : got.data;
  });
}

/** readFile's work inside an open repository (also used by the edge
 * read): { data, oid } of the blob. */
export async function readFileIn(repo, state, ref, path, remote) {
  const spec = `${ref}:${path.replace(/^\/+/, '')}`;
  const oid = await lazily(repo, state, remote, () => revparse(repo, spec));
  const obj = await lazily(repo, state, remote, () => readRaw(repo, oid));
  if (obj.type !== 'blob') throw makeError('EINVALID', `'${spec}' is a ${obj.type}, not a file`);
  return { data: obj.data, oid };
}

function parseTreeList(data) {
  const entries = [];
  let start = 0;
  for (let i = 0; i < data.length; i++) {
    if (data[i] !== 0) continue;
    const line = data.subarray(start, i);
    const sp1 = line.indexOf(0x20);
    const sp2 = line.indexOf(0x20, sp1 + 1);
    const sp3 = line.indexOf(0x20, sp2 + 1);
    entries.push({
      mode: utf8.decode(line.subarray(0, sp1)).padStart(6, '0'),
      type: utf8.decode(line.subarray(sp1 + 1, sp2)),
      oid: utf8.decode(line.subarray(sp2 + 1, sp3)),
      name: utf8.decode(line.subarray(sp3 + 1)),
    });
    start = i + 1;
  }
  return entries;
}

/** The entries of the tree at `path` (default: the root) of revision `ref`,
 * or of the tree (or commit) `oid`. */
export async function readTree({ dir, ref = 'HEAD', oid, path = '', ...remote } = {}) {
  return withRepo(dir, {}, async (repo, state) => {
    const p = path.replace(/^\/+|\/+$/g, '');
    const base = oid || ref;
    const spec = p ? `${base}:${p}` : `${base}^{tree}`;
    const treeOid = await lazily(repo, state, remote, () => revparse(repo, spec));
    const { data } = await lazily(repo, state, remote,
      () => takeObject(withStrings([treeOid], (s) => M._wgjs_tree_list(repo, s))));
    return parseTreeList(data);
  });
}

/** The refs under `prefix` (default: all under refs/), sorted by name:
 * [{ name, oid, target?, peeled? }]. */
export async function listRefs({ dir, prefix } = {}) {
  return withRepo(dir, {}, (repo) => {
    const { data } = takeObject(withStrings([prefix || null], (p) => M._wgjs_refs_list(repo, p)));
    return records(data, 4).map(([name, oid, target, peeled]) => {
      const ref = { name, oid: oid || null };
      if (target) ref.target = target;
      if (peeled) ref.peeled = peeled;
      return ref;
    });
  });
}

/** The branch HEAD is on ("main"), or null when HEAD is detached. */
export async function currentBranch({ dir } = {}) {
  return withRepo(dir, {}, (repo) => {
    const obj = withStrings(['HEAD'], (h) => M._wgjs_ref_target(repo, h));
    if (!obj) {
      const e = lastError();
      if (e.code === 'EINVALID') return null;
      throw e;
    }
    const target = utf8.decode(takeObject(obj).data);
    return target.startsWith('refs/heads/') ? target.slice(11) : target;
  });
}

// --- writing ------------------------------------------------------------------------------

function writeRaw(repo, type, data) {
  const bytes = typeof data === 'string' ? utf8in.encode(data) : data;
  if (!(bytes instanceof Uint8Array)) throw makeError('EINVALID', 'data must be a Uint8Array or a string');
  const oid = withStrings([type], (t) => withBytes(bytes, (p, n) => str(M._wgjs_object_write(repo, t, p, n))));
  if (oid === null) throw lastError();
  return oid;
}

/** Store an object ("blob", "tree", "commit", "tag"); its id. Objects that
 * `git fsck --strict` would reject are refused (code EFSCK). */
export async function writeObject({ dir, type = 'blob', data } = {}) {
  return withRepo(dir, { write: true }, (repo) => writeRaw(repo, type, data));
}

/** Store a tree from entries [{ mode: "100644"|"100755"|"120000"|"40000"|"160000",
 * name, oid }] in any order (the core sorts them as git does); its id. */
export async function writeTree({ dir, entries } = {}) {
  if (!Array.isArray(entries)) throw makeError('EINVALID', 'entries must be an array');
  for (const e of entries) {
    if (!e || typeof e.name !== 'string') throw makeError('EINVALID', 'every entry needs a name');
    if (e.name.includes('\0')) throw makeError('EINVALID', `a tree entry name may not hold a NUL: ${JSON.stringify(e.name)}`);
  }
  return withRepo(dir, { write: true }, (repo) => {
    const oid = withStringArray(entries.map((e) => String(e.mode)), (modes) =>
      withStringArray(entries.map((e) => e.name), (names) =>
        withStringArray(entries.map((e) => String(e.oid)), (oids, n) =>
          str(M._wgjs_tree_write(repo, modes, names, oids, n)))));
    if (oid === null) throw lastError();
    return oid;
  });
}

// --- commits ------------------------------------------------------------------------------

// "+0100": the host's offset at `date` (Date's is minutes west of UTC).
function localTimezone(date) {
  const east = -date.getTimezoneOffset();
  const abs = Math.abs(east);
  return `${east < 0 ? '-' : '+'}${String(Math.floor(abs / 60)).padStart(2, '0')}${String(abs % 60).padStart(2, '0')}`;
}

/** { name, email, timestamp?, timezone? } -> "Name <email> 1700000000 +0100",
 * formatted by the core as git does; timestamp defaults to now, timezone
 * to the host's. */
export function identText(ident, what) {
  if (!ident || typeof ident.name !== 'string' || typeof ident.email !== 'string') {
    throw makeError('EINVALID', `${what} needs { name, email }`);
  }
  if (ident.name.includes('\0') || ident.email.includes('\0')) {
    throw makeError('EINVALID', `${what}: name and email may not hold a NUL`);
  }
  let date = null;
  if (ident.timestamp !== undefined || ident.timezone !== undefined) {
    const timestamp = ident.timestamp ?? Math.floor(Date.now() / 1000);
    if (!Number.isSafeInteger(timestamp) || timestamp < 0) throw makeError('EINVALID', `${what}: bad timestamp`);
    const timezone = ident.timezone ?? localTimezone(new Date(timestamp * 1000));
    if (typeof timezone !== 'string' || !/^[+-]\d{4}$/.test(timezone)) {
      throw makeError('EINVALID', `${what}: timezone must look like "+0100"`);
    }
    date = `${timestamp} ${timezone}`;
  }
  const text = withStrings([ident.name, ident.email, date], (n, e, d) => str(M._wgjs_ident_format(n, e, d)));
  if (text === null) {
    const e = lastError();
    e.message = `${what}: ${e.message}`;
    throw e;
  }
  return text;
}

/** The first line of a message (a reflog's "commit: <subject>"). */
function subject(message) {
  return message.split('\n').find((l) => l.trim()) || '';
}

function updateRefIn(repo, ref, oid, oldOid, message, committer) {
  check(withStrings([ref, oid, oldOid, message, committer],
    (r, n, o, m, c) => M._wgjs_ref_update(repo, r, n, o, m, c)));
}

/** `git update-ref`: set `ref` to `oid` (a null id deletes it). oldOid:
 * undefined checks nothing, null requires that the ref does not exist, an
 * id requires that value (code ELOCKED or EEXISTS otherwise). */
export async function updateRef({ dir, ref, oid, oldOid, message = null, committer } = {}) {
  if (typeof ref !== 'string' || !ref) throw makeError('EINVALID', 'ref is required');
  return withRepo(dir, { write: true }, (repo) => {
    const c = committer ? identText(committer, 'committer') : null;
    updateRefIn(repo, ref, oid, oldOid === undefined ? null : (oldOid === null ? '' : oldOid), message, c);
  });
}

/**
 * `git commit`: without `tree`, the index becomes a commit on HEAD (git's
 * message cleanup; amend replaces HEAD's commit, keeping its message when
 * none is given and its author when none is given; allowEmpty as
 * --allow-empty; nothing to commit is EEXISTS). With `tree`: a commit of
 * that tree on `ref` (default HEAD, i.e. the current branch), its parent
 * being the ref's current commit unless `parents` is given, and the ref
 * moved there if nobody moved it meanwhile. Returns the new id.
 */
export async function commit({
  dir, ref = 'HEAD', tree, parents, message, author, committer, amend = false, allowEmpty = false,
} = {}) {
  if (tree === undefined) {
    return commitIndex({ dir, message, author, committer, amend, allowEmpty });
  }
  if (typeof message !== 'string') throw makeError('EINVALID', 'message is required');
  if (parents !== undefined && parents !== null && !Array.isArray(parents)) {
    throw makeError('EINVALID', 'parents must be an array of commit ids');
  }
  return withRepo(dir, { write: true }, (repo) => {
    let current = null;
    try {
      current = revparse(repo, ref);
    } catch (e) {
      if (e.code !== 'ENOTFOUND') throw e;   // an unborn branch: a root commit
    }
    const treeOid = revparse(repo, `${tree}^{tree}`);
    const a = identText(author, 'author');
    const ident = committer ? identText(committer, 'committer') : a;
    const list = (parents ?? (current ? [current] : [])).map(String);
    const oid = withStringArray(list, (ps, n) => withStrings([treeOid, a, ident], (t, ap, cp) =>
      withBytes(utf8in.encode(message), (m, len) => str(M._wgjs_commit_write(repo, t, ps, n, ap, cp, m, len)))));
    if (oid === null) throw lastError();
    const kind = current ? 'commit' : 'commit (initial)';
    updateRefIn(repo, ref, oid, current || '', `${kind}: ${subject(message)}`, ident);
    return oid;
  });
}

async function commitIndex({ dir, message, author, committer, amend, allowEmpty }) {
  if (typeof message !== 'string' && !(amend && message === undefined)) {
    throw makeError('EINVALID', 'message is required');
  }
  return withRepo(dir, { write: true }, (repo) => {
    const who = author ? identText(author, 'author') : null;
    const by = committer ? identText(committer, 'committer') : who;
    if (!by) throw makeError('EINVALID', 'author (or committer) is required');
    const bytes = typeof message === 'string' ? utf8in.encode(message) : null;
    const call = (m, len) => withStrings([who, by], (a, c) =>
      str(M._wgjs_commit_index(repo, m, len, a, c, amend ? 1 : 0, allowEmpty ? 1 : 0)));
    const oid = bytes ? withBytes(bytes, call) : call(0, 0);
    if (oid === null) throw lastError();
    return oid;
  });
}
