// Branches and tags: git branch and git tag. The core creates, deletes,
// renames and lists them (repo/branch.h, repo/tag.h), writing the
// reflogs, the branch.<name>.* config and annotated tag objects as git
// does; this file passes names and shapes the results.

import {
  M, str, withStrings, withStringArray, withBytes, takeObject, records, lastError, check,
  makeError,
} from './runtime.js';
import { withRepo, identText } from './repo.js';

const utf8in = new TextEncoder();

function needName(value, what) {
  if (typeof value !== 'string' || !value) throw makeError('EINVALID', `${what} is required`);
}

/**
 * `git branch [-f] [--track | --no-track] <name> [<startPoint>]`: create
 * refs/heads/<name> at startPoint (default HEAD). track: undefined does as
 * git's branch.autoSetupMerge (the default tracks a remote-tracking start
 * point), true tracks a local branch too, false never. force resets an
 * existing branch (never the checked-out one). Resolves with
 * { name, ref, oid, upstream } (upstream: "origin/main", or null).
 */
export async function branch({ dir, name, startPoint = null, force = false, track } = {}) {
  needName(name, 'name');
  const trackMode = track === undefined ? 0 : track ? 2 : 1;
  return withRepo(dir, { write: true }, (repo) => {
    const up = withStrings([name, startPoint], (n, s) =>
      str(M._wgjs_branch_create(repo, n, s, force ? 1 : 0, trackMode)));
    if (up === null) throw lastError();
    const oid = withStrings([`refs/heads/${name}`], (r) => str(M._wgjs_revparse(repo, r)));
    return { name, ref: `refs/heads/${name}`, oid, upstream: up || null };
  });
}

/**
 * `git branch --list`: the local branches (remote: the remote-tracking
 * ones instead; all: both), in name order:
 *   { name, ref, oid, head, upstream, symref }
 * head is true for the branch HEAD names; upstream is the short name of a
 * local branch's upstream or null; symref, for a symbolic ref such as
 * origin/HEAD, the short name of its target (null otherwise).
 */
export async function listBranches({ dir, remote = false, all = false } = {}) {
  const kinds = all ? 3 : remote ? 2 : 1;
  return withRepo(dir, {}, (repo) => {
    const { data } = takeObject(M._wgjs_branch_list(repo, kinds));
    return records(data, 6).map(([name, ref, oid, symref, head, upstream]) => ({
      name, ref, oid: oid || null, head: head === '1', upstream: upstream || null,
      symref: symref || null,
    }));
  });
}

/**
 * `git branch -d <name>` (force: -D; remote: -r, a remote-tracking
 * branch), with its branch.<name> config. A branch not merged into its
 * upstream (or HEAD) is refused (code EINVALID, git's "not fully merged"
 * message) unless force; the checked-out branch always is. Resolves with
 * { oid }, the value it had.
 */
export async function deleteBranch({ dir, name, force = false, remote = false } = {}) {
  needName(name, 'name');
  return withRepo(dir, { write: true }, (repo) => {
    const oid = withStrings([name], (n) =>
      str(M._wgjs_branch_delete(repo, n, force ? 1 : 0, remote ? 1 : 0)));
    if (oid === null) throw lastError();
    return { oid };
  });
}

/**
 * `git branch -m [<oldName>] <newName>` (force: -M; copy: -c / -C): the
 * branch with its reflog and branch.<name> config; renaming the current
 * branch (the default oldName) moves HEAD along.
 */
export async function renameBranch({ dir, oldName = null, newName, force = false, copy = false } = {}) {
  needName(newName, 'newName');
  return withRepo(dir, { write: true }, (repo) => {
    check(withStrings([oldName, newName], (o, n) =>
      M._wgjs_branch_rename(repo, o, n, force ? 1 : 0, copy ? 1 : 0)));
  });
}

/**
 * `git branch -u <upstream> [<name>]` (upstream null: --unset-upstream).
 * Resolves with the upstream's short name (null when unset).
 */
export async function setUpstream({ dir, name, upstream } = {}) {
  needName(name, 'name');
  return withRepo(dir, { write: true }, (repo) => {
    if (upstream === null || upstream === undefined) {
      check(withStrings([name], (n) => M._wgjs_branch_unset_upstream(repo, n)));
      return null;
    }
    const up = withStrings([name, upstream], (n, u) => str(M._wgjs_branch_set_upstream(repo, n, u)));
    if (up === null) throw lastError();
    return up;
  });
}

/**
 * `git tag [-f] <name> [<target>]`, or with message `git tag -a -m`: an
 * annotated tag, its tagger the ident given ({ name, email, timestamp?,
 * timezone? }), the message cleaned up as git's -m does. An existing tag
 * is refused (EEXISTS) unless force. Resolves with { name, ref, oid,
 * previous }: oid the ref's value (the tag object when annotated),
 * previous the value it had (null when new).
 */
export async function tag({ dir, name, target = null, message, tagger, force = false } = {}) {
  needName(name, 'name');
  if (message !== undefined && typeof message !== 'string') {
    throw makeError('EINVALID', 'message must be a string');
  }
  return withRepo(dir, { write: true }, (repo) => {
    const who = message !== undefined ? identText(tagger, 'tagger') : null;
    const bytes = utf8in.encode(message ?? '');
    const obj = withBytes(bytes, (m, len) => withStrings([name, target, who], (n, t, w) =>
      M._wgjs_tag_create(repo, n, t, force ? 1 : 0, message !== undefined ? m : 0, len, w)));
    const [[oid, previous]] = records(takeObject(obj).data, 2);
    return { name, ref: `refs/tags/${name}`, oid, previous: previous || null };
  });
}

/** `git tag -d <name>`: resolves with { oid }, the value it had. */
export async function deleteTag({ dir, name } = {}) {
  needName(name, 'name');
  return withRepo(dir, { write: true }, (repo) => {
    const oid = withStrings([name], (n) => str(M._wgjs_tag_delete(repo, n)));
    if (oid === null) throw lastError();
    return { oid };
  });
}

/**
 * `git tag -l [<pattern>...]`: the tags in name order whose names match
 * one of `patterns` (git's glob: '*', '?', '[...]'; none: all), as
 * { name, ref, oid } (oid: the ref's value, a tag object for an annotated
 * tag).
 */
export async function listTags({ dir, patterns = [] } = {}) {
  if (!Array.isArray(patterns)) throw makeError('EINVALID', 'patterns must be an array');
  return withRepo(dir, {}, (repo) => {
    const obj = withStringArray(patterns, (a, n) => M._wgjs_tag_list(repo, a, n));
    return records(takeObject(obj).data, 2).map(([name, oid]) => ({
      name, ref: `refs/tags/${name}`, oid,
    }));
  });
}
