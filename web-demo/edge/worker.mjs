// web-demo/edge/worker.mjs — the edge example: a Cloudflare Worker (workerd
// runs it locally) that serves a Git server's repositories over plain HTTP
// with the webgit package and no disk, the way an edge function in front of
// a forge would:
//
//   GET /<repo>/refs                    JSON: the repository's refs (git ls-remote)
//   GET /<repo>/raw/<ref>/<path>        the file's bytes at <ref>
//   GET /<repo>/commits/<ref>[?limit=N] JSON: the newest N commits (default 30,
//                                       at most 100) in git log's order
//
// <repo> is one path segment, the repository's name on the server
// (UPSTREAM/<repo>). <ref> is a branch, a tag, HEAD or a full commit id
// (raw also takes an expression such as main~2 or v1.0^{}); a name with a
// slash is written with %2F (feature%2Fx). Configuration: the text binding
// UPSTREAM, the server's base URL (https://git.example.com/git).
//
// Caching is keyed on object ids. A file's ETag is its blob id, a commit
// list's the id of its newest commit with the limit, the refs' a digest of
// them; If-None-Match answers 304 without a body. What a full commit id
// names never changes, so those answers are cached for a year (immutable);
// answers by name for a minute. Every answer says what it cost upstream:
// X-Upstream-Requests and X-Upstream-Bytes (received).
//
// Deployment: any bundler that treats a .wasm import as a compiled module
// (wrangler does; tests/js/package.test.mjs bundles this file with
// esbuild's copy loader and runs it in workerd from the packed package).
import {
  init, listRemoteRefs, readFile, clone, log, deleteRepo,
} from 'webgit';
import wasm from 'webgit/webgit.wasm';

const FULL_ID = /^(?:[0-9a-f]{40}|[0-9a-f]{64})$/;
const IMMUTABLE = 'public, max-age=31536000, immutable';
const BY_NAME = 'public, max-age=60';
const STATUS = { ENOTFOUND: 404, EINVALID: 400, EAUTH: 502 };

let ready = null;

export default {
  async fetch(request, env) {
    // No I/O at global scope in a Worker: instantiate on the first request.
    ready ??= init({ wasm }).catch((e) => { ready = null; throw e; });
    await ready;
    if (request.method !== 'GET' && request.method !== 'HEAD') {
      return text(405, 'only GET and HEAD\n', { Allow: 'GET, HEAD' });
    }
    if (!env.UPSTREAM) return text(500, 'the UPSTREAM binding (the Git server\'s base URL) is not set\n');
    const url = new URL(request.url);
    const parts = url.pathname.split('/').slice(1);
    const [repo, route] = parts;
    if (!repo || !route) return usage();
    const upstream = { url: `${env.UPSTREAM.replace(/\/+$/, '')}/${repo}`, requests: 0, bytes: 0 };
    upstream.onRequest = ({ received }) => { upstream.requests++; upstream.bytes += received; };
    try {
      let answer;
      if (route === 'refs' && parts.length === 2) {
        answer = await refs(upstream);
      } else if (route === 'raw' && parts.length >= 4) {
        answer = await raw(upstream, decode(parts[2]), parts.slice(3).map(decode).join('/'));
      } else if (route === 'commits' && parts.length === 3) {
        answer = await commits(upstream, decode(parts[2]), url.searchParams.get('limit'));
      } else {
        return usage();
      }
      return respond(request, answer, upstream);
    } catch (e) {
      const status = STATUS[e.code] || (e instanceof URIError ? 400 : 502);
      return new Response(JSON.stringify({ code: e.code || 'EINVALID', message: String(e.message) }), {
        status,
        headers: { 'Content-Type': 'application/json', ...costHeaders(upstream) },
      });
    }
  },
};

// { name, oid, target?, peeled? } for every ref, as the server lists them.
async function refs(upstream) {
  const list = await listRemoteRefs(upstream.url, { onRequest: upstream.onRequest });
  const body = JSON.stringify(list);
  return { body, type: 'application/json', etag: `"refs-${await digest(body)}"`, cache: 'public, max-age=10' };
}

// One file by the edge read (3 requests, 2 for a full id).
async function raw(upstream, ref, path) {
  const file = await readFile({ url: upstream.url, ref, path, details: true, onRequest: upstream.onRequest });
  const binary = file.data.subarray(0, 8000).includes(0);
  return {
    body: file.data,
    // the bytes as they are: a page must not run what a repository holds
    type: binary ? 'application/octet-stream' : 'text/plain; charset=utf-8',
    etag: `"${file.oid}"`,
    cache: FULL_ID.test(ref) ? IMMUTABLE : BY_NAME,
    extra: { 'Content-Security-Policy': "default-src 'none'; sandbox", 'X-Content-Type-Options': 'nosniff' },
  };
}

// A blob-less clone of `limit` commits in memory, its log, then nothing
// left behind.
async function commits(upstream, ref, limitParam) {
  const limit = limitParam === null ? 30 : Number(limitParam);
  if (!Number.isInteger(limit) || limit < 1 || limit > 100) {
    throw Object.assign(new Error(`limit must be a whole number from 1 to 100, not '${limitParam}'`),
      { code: 'EINVALID' });
  }
  const dir = `/edge/commits-${crypto.randomUUID()}`;
  const byId = FULL_ID.test(ref);
  try {
    await clone({
      url: upstream.url, dir, bare: true, filter: 'blob:none', depth: limit,
      ...(ref === 'HEAD' ? {} : byId ? { revision: ref } : { ref }),
      onRequest: upstream.onRequest,
    });
    const list = [];
    for await (const c of log({ dir, depth: limit })) {
      list.push({
        oid: c.oid, tree: c.tree, parents: c.parents, author: c.author, committer: c.committer, message: c.message,
      });
    }
    return {
      body: JSON.stringify(list),
      type: 'application/json',
      etag: `"${list[0].oid}-${limit}"`,
      cache: byId ? IMMUTABLE : BY_NAME,
    };
  } finally {
    await deleteRepo({ dir }).catch(() => {});
  }
}

function respond(request, answer, upstream) {
  const headers = {
    'Content-Type': answer.type,
    ETag: answer.etag,
    'Cache-Control': answer.cache,
    ...answer.extra,
    ...costHeaders(upstream),
  };
  const match = request.headers.get('If-None-Match');
  if (match && match.split(',').map((t) => t.trim().replace(/^W\//, '')).includes(answer.etag)) {
    return new Response(null, { status: 304, headers });
  }
  return new Response(request.method === 'HEAD' ? null : answer.body, { status: 200, headers });
}

const costHeaders = (upstream) => ({
  'X-Upstream-Requests': String(upstream.requests),
  'X-Upstream-Bytes': String(upstream.bytes),
});

const decode = (segment) => decodeURIComponent(segment);

async function digest(textValue) {
  const hash = await crypto.subtle.digest('SHA-256', new TextEncoder().encode(textValue));
  return [...new Uint8Array(hash).subarray(0, 12)].map((b) => b.toString(16).padStart(2, '0')).join('');
}

function text(status, body, headers = {}) {
  return new Response(body, { status, headers: { 'Content-Type': 'text/plain; charset=utf-8', ...headers } });
}

function usage() {
  return text(404, 'GET /<repo>/refs, /<repo>/raw/<ref>/<path> or /<repo>/commits/<ref>[?limit=N]\n');
}
