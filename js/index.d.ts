// Types of the webgit JavaScript API (js/index.js).

/** Errors from webgit carry the core's code: "ENOTFOUND", "ECORRUPT", "EIO", ... */
export interface WebgitError extends Error {
  code:
    | 'ERROR' | 'ENOMEM' | 'ENOTFOUND' | 'EEXISTS' | 'EINVALID' | 'ECORRUPT' | 'EIO'
    | 'ECOLLISION' | 'EAMBIGUOUS' | 'EUNSUPPORTED' | 'ELOCKED' | 'EFSCK' | 'EUNKNOWN'
    | (string & {});
}

export interface InitOptions {
  /** The module's bytes, or the compiled module. Default: webgit.wasm next to index.js. */
  wasm?: BufferSource | WebAssembly.Module;
}

/** Load the WebAssembly module (done implicitly by the other functions). */
export function init(options?: InitOptions): Promise<void>;

/** How requests are made: defaults to globalThis.fetch. */
export type FetchFunction = (input: string, init: RequestInit) => Promise<Response>;

export interface RemoteOptions {
  /** Custom fetch(), e.g. to add credentials or a proxy. */
  fetch?: FetchFunction;
  /** Extra request headers (e.g. Authorization); the protocol's own win on conflict. */
  headers?: HeadersInit;
  signal?: AbortSignal;
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
}

export interface CloneOptions extends RemoteOptions {
  url: string;
  /** Target directory (a host path in Node); must not exist, or be empty. */
  dir: string;
  /** Branch to check out as HEAD (git clone -b); default: the remote's HEAD. */
  ref?: string;
  /** Shallow clone depth; 0 or absent: full history. */
  depth?: number;
  /** Partial clone filter spec, e.g. "blob:none", "tree:0". */
  filter?: string;
  singleBranch?: boolean;
  bare?: boolean;
  onProgress?: (progress: CloneProgress) => void;
}

/** Clone like `git clone --no-checkout`. On error or abort nothing is left at dir. */
export function clone(options: CloneOptions): Promise<void>;

export interface RepoOptions {
  /** The repository (its working tree or git directory); a host path in Node. */
  dir: string;
}

/** The object id a revision names ("main", "v1^{commit}", "HEAD~2", ...). Default ref: "HEAD". */
export function resolveRef(options: RepoOptions & { ref?: string }): Promise<string>;

export type ObjectType = 'commit' | 'tree' | 'blob' | 'tag';

export function readObject(options: RepoOptions & { oid: string }): Promise<{ type: ObjectType; data: Uint8Array }>;

/** The bytes of the file at path in revision ref (default "HEAD"). */
export function readFile(options: RepoOptions & { ref?: string; path: string }): Promise<Uint8Array>;

export interface TreeEntry {
  /** Octal, as git ls-tree prints it: "100644", "100755", "040000", "120000", "160000". */
  mode: string;
  type: 'blob' | 'tree' | 'commit';
  oid: string;
  name: string;
}

/** The entries of the tree at path (default: the root) in revision ref (default "HEAD"). */
export function listTree(options: RepoOptions & { ref?: string; path?: string }): Promise<TreeEntry[]>;
