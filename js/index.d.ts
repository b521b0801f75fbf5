// Types of the webgit JavaScript API (js/index.js).

/** Errors from webgit carry the core's code: "ENOTFOUND", "ECORRUPT", "EIO", ...;
 * "EACCES" when the runtime may not use the disk where `dir` is (Deno
 * without --allow-read/--allow-write). */
export interface WebgitError extends Error {
  code:
    | 'ERROR' | 'ENOMEM' | 'ENOTFOUND' | 'EEXISTS' | 'EINVALID' | 'ECORRUPT' | 'EIO'
    | 'ECOLLISION' | 'EAMBIGUOUS' | 'EUNSUPPORTED' | 'ELOCKED' | 'EFSCK' | 'EAUTH' | 'ELIMIT' | 'EUNKNOWN'
    | 'EACCES'
    | (string & {});
}

export interface InitOptions {
  /**
   * The WebAssembly module: compiled (workerd imports it so), its bytes, a
   * Response (or a promise of one), or its URL (what a bundler's asset
   * import gives, e.g. Vite's `webgit/webgit.wasm?url` or esbuild's file
   * loader; a relative URL is taken against the page). Default:
   * webgit.wasm next to index.js.
   */
  wasm?: BufferSource | WebAssembly.Module | Response | Promise<Response> | URL | string;
  /**
   * Resolve a clone's or fetch's deltas on threads (the package's
   * webgit-mt module, Web Workers sharing its memory). Default: where the
   * runtime allows it and `wasm` is not given: Node, and pages and Workers
   * that are cross-origin isolated (served with
   * `Cross-Origin-Opener-Policy: same-origin` and
   * `Cross-Origin-Embedder-Policy: require-corp`) with webgit-mt.mjs,
   * webgit-mt.wasm and webgit-mt.worker.cjs served beside index.js. Else,
   * or with false, the single-threaded module. See memoryUsage().threads.
   */
  threads?: boolean;
  /**
   * Where repositories live. Default: what the runtime has.
   * - "node": the disk, through Node's fs API (Node; Deno and Bun through
   *   their Node compatibility). The default there; in Deno it needs
   *   --allow-read and --allow-write, else calls fail with "EACCES"
   *   (never a silent fallback to memory).
   * - "idb": IndexedDB, one database per repository (browsers: pages and
   *   Workers; calls of several tabs on one repository are serialized by a
   *   Web Lock). The default there.
   * - "memory": the module's memory, gone with the instance (the process,
   *   the tab). Only when asked for, or where there is no file system at
   *   all (workerd and other edge runtimes).
   */
  storage?: 'node' | 'idb' | 'memory';
  /** With dir: create a repository there (`git init`). */
  dir?: string;
  bare?: boolean;
  /** Default "sha256" (Git 3.0). */
  objectFormat?: 'sha256' | 'sha1';
  /** Default "reftable" (Git 3.0). */
  refFormat?: 'reftable' | 'files';
  /** Default "main". */
  defaultBranch?: string;
}

/** Load the WebAssembly module (done implicitly by the other functions); with `dir`, also `git init` there. */
export function init(options?: InitOptions): Promise<void>;

/** Where repositories live: the storage init() chose, else the runtime's ("node" in Node, Deno and Bun; "idb" in browsers; "memory" on edge runtimes). */
export function storage(): 'node' | 'idb' | 'memory';

/** How requests are made: defaults to globalThis.fetch. */
export type FetchFunction = (input: string, init: RequestInit) => Promise<Response>;

export interface AuthRequest {
  url: string;
  attempt: number;
  rejected: boolean;
}

export interface AuthAnswer {
  username: string;
  password: string;
}

export interface RemoteOptions {
  /** Custom fetch(), e.g. to add credentials or a proxy. */
  fetch?: FetchFunction;
  /** Extra request headers (e.g. Authorization); the protocol's own win on conflict. */
  headers?: HeadersInit;
  /** Cancels at any point; the repository is left as it was. */
  signal?: AbortSignal;
  /** Called once per finished HTTP request, with its body sizes. */
  onRequest?: (request: RequestStats) => void;
  /**
   * Asked when the server answers 401 (at most 3 times per call): return
   * the credentials to send (Basic), or null to give up (code "EAUTH").
   * What it returns goes with every later request of the same call and is
   * stored nowhere. `rejected`: the request already carried credentials.
   */
  onAuth?: (request: AuthRequest) => AuthAnswer | null | undefined |
    Promise<AuthAnswer | null | undefined>;
  /** Limits for this call alone, over the process-wide ones (see setLimits). */
  limits?: Limits;
}

/**
 * Limits on what untrusted input may make webgit do (docs/limits.md); past
 * one, a call fails with code "ELIMIT" instead of exhausting memory.
 * Numbers, or strings with a k/m/g suffix ("64m"); 0 turns a check off.
 */
export interface Limits {
  /** Largest object, delta or delta result held in memory (default 1 GiB). */
  maxObjectSize?: number | string;
  /** Inflated/compressed ratio allowed past inflateRatioFloor (default 256). */
  maxInflateRatio?: number | string;
  /** Output below which the ratio is not checked (default 8 MiB). */
  inflateRatioFloor?: number | string;
  /** Objects a pack header may declare (default 50,000,000). */
  maxPackObjects?: number | string;
  /** Trees nested in trees (git's core.maxTreeDepth, default 2048). */
  maxTreeDepth?: number | string;
  /** Lines of a ref advertisement / refs of an ls-refs response (default 1,000,000). */
  maxRefs?: number | string;
  /** Bytes of a ref advertisement or ls-refs response (default 256 MiB). */
  maxAdvertisementBytes?: number | string;
}

/** Set the process-wide limits: the defaults with `limits` applied ({} restores them). Resolves to the limits now in force. */
export function setLimits(limits?: Limits): Promise<Required<{ [K in keyof Limits]: number }>>;
/** The limits in force. */
export function getLimits(): Promise<Required<{ [K in keyof Limits]: number }>>;
/** The WebAssembly instance's memory: heapBytes is its linear memory's size (it only grows: the peak since loading); threads, how many threads resolve deltas besides the caller's (0: the single-threaded module). */
export function memoryUsage(): Promise<{ heapBytes: number; threads: number }>;

export interface RequestStats {
  method: string;
  url: string;
  status: number;
  /** request body bytes */
  sent: number;
  /** response body bytes */
  received: number;
}

export interface RemoteRef {
  /** "HEAD" or "refs/..." */
  name: string;
  /** Hex object id; null for an unborn HEAD. */
  oid: string | null;
  /** The ref a symbolic ref points to (HEAD -> "refs/heads/main"). */
  target?: string;
  /** For an annotated tag: the id of what it points to. */
  peeled?: string;
  unborn?: true;
}

export interface ListRemoteRefsOptions extends RemoteOptions {
  /** Only refs starting with this prefix (or one of these). */
  prefix?: string | string[];
}

export function listRemoteRefs(url: string, options?: ListRemoteRefsOptions): Promise<RemoteRef[]>;

export interface CloneProgress {
  /** "Counting objects", "Receiving objects", "Resolving deltas", ... */
  phase: string;
  done: number;
  /** 0 if unknown */
  total: number;
  /** bytes received so far (receiving), else 0 */
  bytes: number;
  finished: boolean;
  /** reported by the server (its text is in line) */
  remote: boolean;
  line: string | null;
  /** a warning about a received object (phase "warning"): line is
   * "object <id>: <msgId>: <text>", as git prints it */
  warning: boolean;
  /** a notice (phase "notice"), git's "warning: redirecting to <url>/" when
   * the repository answered from another URL (every later request of the
   * operation goes there) */
  notice: boolean;
}

export interface CloneOptions extends RemoteOptions {
  url: string;
  /** Target directory (a host path in Node); must not exist, or be empty. */
  dir: string;
  /** Branch (or tag: HEAD detached there) for HEAD, as git clone -b; default: the remote's HEAD. */
  ref?: string;
  /**
   * A full commit id: that commit's history only, HEAD detached at it and no
   * refs, as `git clone --revision` (git 2.49); over protocol v2 the refs
   * are not even listed. Not with `ref`.
   */
  revision?: string;
  /** Shallow clone depth; 0 or absent: full history. */
  depth?: number;
  /** Partial clone filter spec, e.g. "blob:none", "tree:0". */
  filter?: string;
  /** Only `ref`'s branch (default: true when depth is given, as in git). */
  singleBranch?: boolean;
  /** No working tree (and no checkout). */
  bare?: boolean;
  /** As `git clone --no-checkout`: HEAD is set, no file is written, there is no index. */
  noCheckout?: boolean;
  /** Settings for the new repository before anything is fetched, as
   * `git clone -c`: e.g. { "transfer.fsckObjects": false } turns off the
   * check of received objects (on by default; a refused object fails the
   * clone with code "EFSCK" and git's message id). */
  config?: Record<string, string | number | boolean>;
  onProgress?: (progress: CloneProgress) => void;
}

/** `git clone`: HEAD's tree is checked out (a blob-less clone fetches the
 * blobs it needs in one request) unless noCheckout or bare. On error or
 * abort nothing is left at dir. */
export function clone(options: CloneOptions): Promise<void>;

export interface RepoOptions {
  /** The repository (its working tree or git directory): a host path
   * with "node" storage (Node, Deno, Bun); an absolute path such as
   * "/repos/app" with "idb" (browsers: each one its own IndexedDB
   * database, saved after every call that changed it, shared safely by the
   * origin's tabs and Workers) and "memory" storage. */
  dir: string;
}

/** Reads of a partial clone fetch what it lacks from its promisor remote
 * (git's lazy fetch), with these transport options; lazy: false does not. */
export interface ReadOptions extends RepoOptions, RemoteOptions {
  lazy?: boolean;
}

/** The object id a revision names ("main", "v1^{commit}", "HEAD~2", ...). Default ref: "HEAD". */
export function resolveRef(options: ReadOptions & { ref?: string }): Promise<string>;

export type ObjectType = 'commit' | 'tree' | 'blob' | 'tag';

export function readObject(options: ReadOptions & { oid: string }): Promise<{ type: ObjectType; data: Uint8Array }>;

/** A file read with `details: true`: its bytes and its blob id (an ETag that never lies). */
export interface FileRead {
  data: Uint8Array;
  oid: string;
}

/** The bytes of the file at path in revision ref (default "HEAD") of the repository dir. */
export function readFile(options: ReadOptions & { ref?: string; path: string; details?: false }): Promise<Uint8Array>;
/** The same with the file's blob id. */
export function readFile(options: ReadOptions & { ref?: string; path: string; details: true }): Promise<FileRead>;
/**
 * The same from a remote, without a clone. A smart Git server is first
 * taken to speak protocol v2: 3 requests (ls-refs for the one ref, a
 * shallow blob-less fetch of the commit and its trees, the blob), 2 for a
 * full object id; a server that does not (v0/v1, SHA-256 when SHA-1 was
 * assumed, no filter support, a static host) fails that try and the read
 * starts again with smart discovery, as git asks. What a server turned
 * out to be is remembered for later reads of the URL in this runtime. On
 * a static host (the files of a bare repository after
 * `git update-server-info`: S3, R2, any web server) only the byte ranges
 * needed are fetched with HTTP Range requests (index slices and the pack
 * entries of the commit, trees and file; a host that ignores Range fails
 * with code "EUNSUPPORTED"). `static: true` reads the host as static at
 * once, `static: false` never does. `ref`: a revision expression, a
 * branch, tag, full ref name, HEAD, "@" or (smart servers) a full object
 * id, followed by any of ~<n>, ^<n>, ^{<type>}, ^{}. `objectFormat`: what
 * the server uses, when known ('sha1' is assumed first).
 */
export function readFile(options: RemoteOptions & {
  url: string; ref?: string; path: string; static?: boolean; objectFormat?: 'sha1' | 'sha256'; details?: false;
}): Promise<Uint8Array>;
/** The same with the file's blob id (same requests). */
export function readFile(options: RemoteOptions & {
  url: string; ref?: string; path: string; static?: boolean; objectFormat?: 'sha1' | 'sha256'; details: true;
}): Promise<FileRead>;

export interface TreeEntry {
  /** Octal, as git ls-tree prints it: "100644", "100755", "040000", "120000", "160000". */
  mode: string;
  type: 'blob' | 'tree' | 'commit';
  oid: string;
  name: string;
}

/** The entries of the tree at path (default: the root) of revision ref (default "HEAD"), or of the tree/commit oid. */
export function readTree(options: ReadOptions & { ref?: string; oid?: string; path?: string }): Promise<TreeEntry[]>;
/** readTree's older name. */
export function listTree(options: ReadOptions & { ref?: string; oid?: string; path?: string }): Promise<TreeEntry[]>;

export interface Ref {
  name: string;
  /** null for a symbolic ref */
  oid: string | null;
  target?: string;
  peeled?: string;
}

/** The refs under prefix (default: every ref under refs/), sorted by name. */
export function listRefs(options: RepoOptions & { prefix?: string }): Promise<Ref[]>;

/** The branch HEAD is on ("main"), or null when detached. */
export function currentBranch(options: RepoOptions): Promise<string | null>;

export interface Ident {
  name: string;
  email: string;
  /** seconds since the epoch; default now */
  timestamp?: number;
  /** "+0100"; default the host's */
  timezone?: string;
}

export interface Commit {
  oid: string;
  tree: string;
  parents: string[];
  author: Required<Ident>;
  committer: Required<Ident>;
  message: string;
  /** log({ patch: true }) only: git log -p's patch of the commit against its first parent ('' for a merge unless firstParent). */
  patch?: string;
}

/** git log: commits reachable from ref (default HEAD) or the revisions of range ('a..b', 'a...b', '^x', ...), in
 * git's order (or order 'topo' / 'date', reverse), limited to commits that changed paths (git pathspecs from the
 * top; history simplified as git's default unless fullHistory), first parents only with firstParent, merges left
 * out (noMerges) or only merges (merges), skipping skip, at most depth of them. follow: git log --follow for the
 * one path of paths, its renames and copies followed backwards as git follows them (in a blob-less clone the
 * blobs a source search compares are fetched, in one request; lazy: false forbids it). patch: git log -p, each
 * commit with its patch text (limited to paths; renames, contextLines, interHunkContext and algorithm as diff()
 * takes them); in a blob-less clone a commit's blobs are fetched in one request when it is reached. */
export function log(options: ReadOptions & {
  ref?: string; range?: string | string[]; depth?: number; paths?: string | string[];
  firstParent?: boolean; order?: 'default' | 'topo' | 'date'; reverse?: boolean;
  noMerges?: boolean; merges?: boolean; fullHistory?: boolean; skip?: number; follow?: boolean;
  patch?: boolean; renames?: boolean; contextLines?: number; interHunkContext?: number;
  algorithm?: 'myers' | 'default' | 'minimal' | 'patience' | 'histogram';
}): AsyncIterableIterator<Commit>;
/** git merge-base: the best common ancestor of the commits (null if none), or with all every one (newest first);
 * octopus: of all of them at once. */
export function mergeBase(options: RepoOptions & { commits: string[]; all?: false; octopus?: boolean }): Promise<string | null>;
export function mergeBase(options: RepoOptions & { commits: string[]; all: true; octopus?: boolean }): Promise<string[]>;
/** git last-modified: for each entry of ref's tree (files below it with recursive, trees too with showTrees), the
 * commit that last changed it, in git's order; paths (pathspecs from the top) limit it. */
export function lastModified(options: ReadOptions & {
  ref?: string; paths?: string | string[]; recursive?: boolean; showTrees?: boolean;
}): Promise<{ path: string; commit: string }[]>;
/** git merge-base --is-ancestor: is ancestor reachable from commit? */
export function isAncestor(options: RepoOptions & { ancestor: string; commit: string }): Promise<boolean>;
/** Commits reachable from ref and not base (ahead), and from base and not ref (behind). */
export function aheadBehind(options: RepoOptions & { ref: string; base: string }): Promise<{ ahead: number; behind: number }>;

export interface DiffOptions extends ReadOptions {
  /** The old side: a revision naming a commit or a tree. Default: the first parent of `to`, or the empty tree when `to` has none (as `git show`); required when `to` names a tree. */
  from?: string;
  /** The new side: a revision naming a commit or a tree. Default "HEAD". Not with staged or worktree. */
  to?: string;
  /**
   * `git diff --cached [from]`: from `from` (default HEAD; none yet: the
   * empty tree) to the index. Intent-to-add entries are not in it.
   */
  staged?: boolean;
  /**
   * `git diff [from]`: to the working tree, from the index (no `from`) or
   * from `from`, what an editor shows of unsaved-to-Git work. Files are
   * read only where their stat data says they changed; their side is what
   * `add` would store (line-ending conversions applied), with `newOid` the
   * id it would get. Untracked files are not in it (as in git);
   * intent-to-add ones are new files. `copies: 'harder'` looks among the
   * changed files only.
   */
  worktree?: boolean;
  /** Only these paths (each a file or a directory and what is below it). Default: all. */
  paths?: string | string[];
  /** Pair deletions with additions as git's diffcore-rename does (diff.renameLimit applies). Default true. */
  renames?: boolean;
  /** Copies too (status "C"), as git's diffcore-rename finds them: true is `-C` (sources: the deleted and the modified
   * files), "harder" `-C -C` / `--find-copies-harder` (every file of `from`); implies renames. Default false. */
  copies?: boolean | 'harder';
  /** Lines of context (`-U<n>`). Default 3. */
  contextLines?: number;
  /** `--inter-hunk-context=<n>`. Default 0. */
  interHunkContext?: number;
  /** git's --diff-algorithm: "myers" (or "default"), "minimal", "patience" or "histogram"; another is "EINVALID". */
  algorithm?: 'myers' | 'default' | 'minimal' | 'patience' | 'histogram';
  /** "files" (default): structured files; "patch": `git diff <from> <to>`'s text, byte for byte (decoded as UTF-8). */
  format?: 'files' | 'patch';
}

export interface DiffLine {
  /** ' ' context, '-' removed, '+' added */
  type: ' ' | '-' | '+';
  /** The line without its newline (decoded as UTF-8). */
  text: string;
  /** 1-based numbers in the old and the new file; null on the side that lacks the line. */
  oldLine: number | null;
  newLine: number | null;
  /** The file ends here without a newline (git's "\ No newline at end of file"). */
  noNewlineAtEnd: boolean;
}

export interface DiffHunk {
  /** The numbers of the "@@ -oldStart,oldLines +newStart,newLines @@" header (an empty range's start is the line before it). */
  oldStart: number;
  oldLines: number;
  newStart: number;
  newLines: number;
  /** The function-context text git prints after the second "@@ " ("" when none). */
  header: string;
  lines: DiffLine[];
}

export interface DiffFile {
  /** Added, deleted, modified, renamed, copied (with the copies option), type changed (file to symlink and so on). */
  status: 'A' | 'D' | 'M' | 'R' | 'C' | 'T';
  /** null on the absent side of an addition or a deletion */
  oldPath: string | null;
  newPath: string | null;
  /** Octal as git prints it ("100644", "100755", "120000", "160000"); null when absent. */
  oldMode: string | null;
  newMode: string | null;
  oldOid: string | null;
  newOid: string | null;
  /** R, C: the similarity in percent; else null. */
  similarity: number | null;
  /** git's binary guess (a NUL in the first 8000 bytes of either side): no hunks, "Binary files ... differ". */
  binary: boolean;
  /** As `git diff --numstat` counts them; null for binary files (numstat's "-"). */
  additions: number | null;
  deletions: number | null;
  /** The hunks of the patch in order. A type change ("T") is printed by git as a deletion and then a creation, and its hunks are those of both, in that order. */
  hunks: DiffHunk[];
}

/** `git diff <from> <to>`: the changed files (structured), or with format "patch" the patch text. In a partial clone the blobs it reads are fetched first, in one request. */
export function diff(options: DiffOptions & { format: 'patch' }): Promise<string>;
export function diff(options: DiffOptions & { format?: 'files' }): Promise<DiffFile[]>;

/** One group of lines of blame(): start and origStart are 1-based, as in git blame --porcelain. */
export interface BlameEntry {
  start: number;
  count: number;
  commit: string;
  /** the file's path in commit (it differs after a rename) */
  origPath: string;
  origStart: number;
  /** a root (without --root) or shallow boundary commit: git's "^" */
  boundary: boolean;
  author: Required<Ident>;
  committer: Required<Ident>;
  summary: string;
  /** the parent commit the lines were compared with (porcelain's "previous"), or null */
  previous: string | null;
  /** the path in `previous` (porcelain's "previous" second half), or null */
  previousPath: string | null;
}

export interface BlameOptions extends ReadOptions {
  ref?: string;
  path: string;
  /** `git blame <path>` with no revision: the working tree's version (saved edits included); its uncommitted lines have commit "000…0", author and committer "Not Committed Yet" at the time of the call. Not with ref. */
  worktree?: boolean;
  /** git blame -M: lines moved or copied within the file; a number is the -M score (default 20) */
  moves?: boolean | number;
  /** git blame -C given 1, 2 or 3 times: lines from files the commit changed, also from any file of the parent when the file is new, from any file always; implies moves */
  copies?: 0 | 1 | 2 | 3;
  /** the -C score (default 40) */
  copyScore?: number;
}

/** `git blame --porcelain [-M] [-C...] <ref> -- <path>` (ref default HEAD) as groups of lines, in line order. In a
 * partial clone the file's versions are fetched first, one request per rename along its history. */
export function blame(options: BlameOptions): Promise<BlameEntry[]>;

/** Store an object; its id. What `git fsck --strict` would reject is refused (code "EFSCK"). */
export function writeObject(options: RepoOptions & { type?: ObjectType; data: Uint8Array | string }): Promise<string>;

/** Store a tree from entries in any order (the core sorts them as git does); its id. "EINVALID" for a bad mode, name or id, "EEXISTS" for a name given twice. */
export function writeTree(options: RepoOptions & { entries: { mode: string; name: string; oid: string }[] }): Promise<string>;

/** `git update-ref`: oid null-id deletes; oldOid undefined: no check, null: must not exist. */
export function updateRef(options: RepoOptions & {
  ref: string; oid: string; oldOid?: string | null; message?: string; committer?: Ident;
}): Promise<void>;

/** Commit tree on ref (default HEAD: the current branch), parent = the ref's commit unless parents is given; moves the ref. Its id. */
export function commit(options: RepoOptions & {
  ref?: string; tree: string; parents?: string[]; message: string; author: Ident; committer?: Ident;
}): Promise<string>;
/** `git commit` of the index on HEAD (git's message cleanup; amend replaces
 * HEAD's commit, keeping its message and author unless given); nothing to
 * commit is "EEXISTS" unless allowEmpty. Its id. */
export function commit(options: RepoOptions & {
  tree?: undefined; message?: string; author: Ident; committer?: Ident; amend?: boolean; allowEmpty?: boolean;
}): Promise<string>;

export interface FetchUpdate {
  /** " " fast-forward, "+" forced, "*" new, "-" pruned, "=" unchanged */
  flag: string;
  remoteRef: string;
  localRef: string | null;
  oldOid: string;
  newOid: string;
}

/** `git fetch [--prune] [--no-tags] <remote> [<refspec>...]`. `remote` is a
 * configured remote's name (default "origin") or a URL (FETCH_HEAD only,
 * unless a refspec has a destination); credentials in a URL authenticate
 * the requests and are never stored. */
export function fetch(options: RepoOptions & RemoteOptions & {
  remote?: string; refspecs?: string | string[]; prune?: boolean; tags?: boolean;
  onProgress?: (progress: CloneProgress) => void;
}): Promise<{ updates: FetchUpdate[]; packBytes: number }>;

export interface PushRefResult {
  status: 'ok' | 'up-to-date' | 'rejected-non-fast-forward' | 'rejected-fetch-first' | 'remote-rejected' | 'atomic-push-failed';
  src: string | null;
  dst: string;
  oldOid: string;
  newOid: string;
  /** the server's reason, for remote-rejected */
  reason: string | null;
}

/** `git push`: refspecs like "main", "+topic", "HEAD:refs/heads/x", ":gone". Refused refs are reported, not thrown.
 * `remote` is a configured remote's name (default "origin") or a URL (no remote-tracking refs move). */
export function push(options: RepoOptions & RemoteOptions & {
  remote?: string; refspecs: string | string[]; force?: boolean; atomic?: boolean; pushOptions?: string[];
  onProgress?: (progress: CloneProgress) => void;
}): Promise<{ ok: boolean; refs: PushRefResult[] }>;

/** The repositories in this runtime's storage (browsers: IndexedDB; edge: memory). */
export function listRepos(): Promise<string[]>;

/** Delete a repository (in Node, from disk; refused for what is not a repository). */
export function deleteRepo(options: RepoOptions): Promise<void>;

// --- the working tree ---------------------------------------------------------

/** Where HEAD is after a switch: its branch (null when detached) and commit. */
export interface HeadState {
  branch: string | null;
  oid: string;
}

/** Options of the calls that move the working tree: local changes that
 * would be overwritten refuse the call (code "EEXISTS", git's message with
 * the paths) unless force; the blobs a blob-less clone lacks are fetched
 * with the transport options. */
export interface SwitchOptions extends RepoOptions, RemoteOptions {
  force?: boolean;
  lazy?: boolean;
}

/** `git checkout <ref>`: a branch switches to it, a name only one remote has
 * becomes a new branch tracking it, anything else detaches HEAD (always,
 * with detach). "ENOTFOUND" when ref names nothing. */
export function checkout(options: SwitchOptions & { ref: string; detach?: boolean }): Promise<HeadState>;

/** `git switch <branch>`; create: `git switch -c <branch> [<startPoint>]`
 * ("EEXISTS" if it exists), forceCreate: `-C` (resets it). */
export function switchBranch(options: SwitchOptions & {
  branch: string; create?: boolean; forceCreate?: boolean; startPoint?: string;
}): Promise<HeadState>;

/** A change letter of git status --porcelain=v2: "." none, "M" modified,
 * "T" type changed, "A" added, "D" deleted, "R" renamed, "U" unmerged,
 * "?" untracked, "!" ignored. */
export type StatusLetter = '.' | 'M' | 'T' | 'A' | 'D' | 'R' | 'U' | '?' | '!';

export interface StatusEntry {
  /** Relative to the top of the working tree; an untracked or ignored directory ends with "/". */
  path: string;
  /** The staged change (HEAD to index). */
  index: StatusLetter;
  /** The unstaged change (index to working tree). */
  worktree: StatusLetter;
  conflict: boolean;
  untracked?: true;
  ignored?: true;
  /** File modes as numbers (0o100644, 0o100755, 0o120000, 0o160000); 0: absent. */
  headMode: number;
  indexMode: number;
  worktreeMode: number;
  headOid: string | null;
  indexOid: string | null;
  /** A staged rename's source (index "R"; headMode and headOid are its), else null. */
  from: string | null;
  /** A rename's similarity in percent. */
  score?: number;
}

/** `git status`: the paths that differ, tracked first, then untracked, then ignored. */
export function status(options: RepoOptions & {
  untracked?: 'no' | 'normal' | 'all'; ignored?: boolean;
}): Promise<StatusEntry[]>;

/** `git add <paths>` (none: everything, as `git add -A`): pathspecs,
 * directories, deletions; update: `-u`; force: ignored files too
 * (otherwise naming one rejects with "EINVALID" after the rest is staged). */
export function add(options: RepoOptions & { paths?: string | string[]; force?: boolean; update?: boolean }): Promise<void>;

/** `git rm [--cached] [-r] [-f] <paths>`; local changes refuse it ("EEXISTS") unless force. */
export function remove(options: RepoOptions & {
  paths: string | string[]; cached?: boolean; recursive?: boolean; force?: boolean;
}): Promise<void>;

/** `git reset [--soft | --mixed | --hard] [<ref>]` (ref: HEAD by
 * default): HEAD and its branch move, ORIG_HEAD keeps the old commit; the
 * index follows (mixed) and the working tree too (hard). With paths:
 * `git reset [<ref>] -- <paths>`, only those index entries change.
 * "ENOTFOUND" when ref names no commit. */
export function reset(options: SwitchOptions & {
  ref?: string; mode?: 'soft' | 'mixed' | 'hard'; paths?: string | string[];
}): Promise<{ oid: string | null; unstaged: { path: string; status: 'M' | 'D' | 'T' | 'U' }[] }>;

/** `git restore [--staged] [--worktree] [--source=<ref>] -- <paths>`:
 * files from the index (or source), index entries (staged) from source
 * (default HEAD); a path the source lacks is removed. "ENOTFOUND" (git's
 * message) for a path that matches nothing or is unmerged; nothing is
 * written then. */
export function restore(options: SwitchOptions & {
  paths: string | string[]; staged?: boolean; worktree?: boolean; source?: string;
}): Promise<void>;

/** A working-tree file's bytes (a symbolic link: its target); "ENOTFOUND"
 * when absent, "EINVALID" for a path into .git, out of the tree or through a link. */
export function readWorkFile(options: RepoOptions & { path: string; encoding: 'utf8' }): Promise<string>;
export function readWorkFile(options: RepoOptions & { path: string; encoding?: undefined }): Promise<Uint8Array>;

/** Create or replace a working-tree file, whole (directories on the way are made). */
export function writeWorkFile(options: RepoOptions & {
  path: string; data: Uint8Array | string; executable?: boolean;
}): Promise<void>;

/** Remove a working-tree file and the directories it leaves empty. */
export function removeWorkFile(options: RepoOptions & { path: string }): Promise<void>;

export interface WorkDirEntry {
  name: string;
  type: 'file' | 'dir' | 'symlink';
  size: number;
  executable: boolean;
}

/** The entries of a working-tree directory (default: the top), sorted, without .git. */
export function listWorkDir(options: RepoOptions & { path?: string }): Promise<WorkDirEntry[]>;

export interface Branch {
  /** short name: "main", or "origin/main" for a remote-tracking branch */
  name: string;
  ref: string;
  /** null for a symref that points at nothing */
  oid: string | null;
  /** the branch HEAD names */
  head: boolean;
  /** a local branch's upstream, short ("origin/main"), or null */
  upstream: string | null;
  /** a symref's target, short ("origin/main" for origin/HEAD), or null */
  symref: string | null;
}

/** `git branch [-f] [--track | --no-track] <name> [<startPoint>]` (startPoint default HEAD). track undefined: as
 * branch.autoSetupMerge (tracks a remote-tracking start point); true: a local one too; false: never.
 * An existing branch is "EEXISTS" unless force; the checked-out branch is never reset. */
export function branch(options: RepoOptions & {
  name: string; startPoint?: string | null; force?: boolean; track?: boolean;
}): Promise<{ name: string; ref: string; oid: string; upstream: string | null }>;

/** `git branch --list` (remote: `-r`; all: `-a`), in name order. */
export function listBranches(options: RepoOptions & { remote?: boolean; all?: boolean }): Promise<Branch[]>;

/** `git branch -d` (force: -D; remote: -r) with its branch.<name> config. Not fully merged (into its upstream, or HEAD):
 * "EINVALID" with git's message unless force; the checked-out branch is always refused. Resolves with the value it had. */
export function deleteBranch(options: RepoOptions & {
  name: string; force?: boolean; remote?: boolean;
}): Promise<{ oid: string }>;

/** `git branch -m [<oldName>] <newName>` (force: -M; copy: -c / -C), reflog and config along; the current branch by
 * default, HEAD following a rename. */
export function renameBranch(options: RepoOptions & {
  oldName?: string | null; newName: string; force?: boolean; copy?: boolean;
}): Promise<void>;

/** `git branch -u <upstream> <name>`, or with upstream null `--unset-upstream`; the upstream's short name. */
export function setUpstream(options: RepoOptions & { name: string; upstream: string | null }): Promise<string | null>;

/** `git tag [-f] <name> [<target>]`, annotated (`-a -m`) when message is given (tagger required). "EEXISTS" for an
 * existing tag unless force. oid: the ref's new value (the tag object if annotated); previous: its old value. */
export function tag(options: RepoOptions & {
  name: string; target?: string | null; message?: string; tagger?: Ident; force?: boolean;
}): Promise<{ name: string; ref: string; oid: string; previous: string | null }>;

/** `git tag -d <name>`; "ENOTFOUND" if there is none. Resolves with the value it had. */
export function deleteTag(options: RepoOptions & { name: string }): Promise<{ oid: string }>;

/** `git tag -l [<pattern>...]`, in name order. */
export function listTags(options: RepoOptions & { patterns?: string[] }): Promise<{ name: string; ref: string; oid: string }[]>;

/** What a history edit did: each rewritten commit (the edited one first, then its descendants, parents first) and the
 * refs moved (local branches, "HEAD" when detached). */
export interface HistoryRewrite {
  rewritten: { from: string; to: string }[];
  refs: string[];
}

/** Options shared by the history edits. The commits rewritten get `committer` (required); a commit a
 * remote-tracking branch or a tag holds is refused ("EINVALID") unless allowPublished. */
export interface HistoryEditOptions extends RepoOptions {
  /** a revision naming a commit on a local branch or a detached HEAD (default HEAD); elsewhere "ENOTFOUND" */
  commit?: string;
  committer: Ident;
  allowPublished?: boolean;
}

/** Jujutsu's describe: give `commit` a new message (cleaned as `git commit -m` cleans it; empty is "EINVALID"). Every
 * commit of the local branches that descends from it is rewritten onto it (trees unchanged), the branches moved in
 * one transaction ("reword: <subject>" in their reflogs); the index and working tree are not touched. `oid`: the
 * reworded commit's new id. */
export function reword(options: HistoryEditOptions & { message: string }): Promise<HistoryRewrite & { oid: string }>;

/** Jujutsu's split: `commit` (not a merge: "EUNSUPPORTED") becomes two commits, first its changes to the files `paths`
 * matches (pathspecs from the top) and the parts of files `hunks` names (path to hunk numbers, from 0, as `diff` with
 * `contextLines: 0` lists them; regular text files only), with `message` (default: the commit's own), then the rest,
 * with `secondMessage` (default: the commit's own). "EINVALID" when nothing or everything is taken, or for a hunk that
 * is not there. Descendants are rewritten onto the second, as for reword ("split: <subject>"). */
export function split(options: HistoryEditOptions & (
  { paths: string[]; hunks?: Record<string, number[]> } | { paths?: string[]; hunks: Record<string, number[]> }
) & { message?: string; secondMessage?: string }): Promise<HistoryRewrite & { first: string; second: string }>;
