// tests/js/edge/worker.mjs — a Cloudflare Worker (ES module, run by workerd in
// tests/js/edge.test.mjs) that reads Git over HTTP with the webgit package
// and no disk:
//
//   GET /refs?url=URL                    JSON of listRemoteRefs(URL)
//   GET /file?url=URL&ref=REF&path=PATH  the bytes of readFile({url, ref, path})
//   GET /diff?url=URL&to=REV[&from=REV]  diff({format: 'patch'}) in a blob-less
//                                        clone made in memory for it (deleted
//                                        after); X-Webgit-Diff-Requests counts
//                                        the diff's own requests (onRequest)
//   GET /history?url=URL&ops=JSON        [[op, opts], ...] run in turn in one
//                                        blob-less clone made in memory for
//                                        them (deleted after), op one of blame,
//                                        lastModified, log (its commits' ids):
//                                        JSON [{ result, requests, posts }],
//                                        each with the requests it made itself
//                                        (onRequest)
//
// Errors answer JSON {code, message}: 404 for ENOTFOUND, 400 for EINVALID,
// else 502. Every answer carries the HTTP requests the read made to the Git
// server, counted twice: by a wrapping fetch(), X-Webgit-Requests (count)
// and X-Webgit-Bytes (response body bytes); and by the API's onRequest
// callback, X-Webgit-Api-Requests, X-Webgit-Api-Received and
// X-Webgit-Api-Sent (body bytes).
//
// The test's generated config names the modules "worker.mjs", "index.js",
// "webgit.mjs" and "webgit.wasm" (a Wasm module: the import is already a
// compiled WebAssembly.Module, since workerd forbids compiling at run time).
import {
  init, listRemoteRefs, readFile, clone, diff, blame, lastModified, log, deleteRepo,
} from './index.js';
import wasm from './webgit.wasm';

let ready = null;
let diffSeq = 0;
let historySeq = 0;

const HISTORY = {
  blame: (opts) => blame(opts),
  lastModified: (opts) => lastModified(opts),
  log: async (opts) => {
    const ids = [];
    for await (const c of log(opts)) ids.push(c.oid);
    return ids;
  },
};

const STATUS = { ENOTFOUND: 404, EINVALID: 400 };

function json(status, value, headers = {}) {
  return new Response(JSON.stringify(value), {
    status, headers: { 'Content-Type': 'application/json', ...headers },
  });
}

// A fetch() that counts requests and the body bytes of their responses.
function countingFetch(stats) {
  return async (input, options) => {
    stats.requests++;
    const res = await fetch(input, options);
    if (!res.body) return res;
    const counted = res.body.pipeThrough(new TransformStream({
      transform(chunk, controller) {
        stats.bytes += chunk.byteLength;
        controller.enqueue(chunk);
      },
    }));
    return new Response(counted, { status: res.status, statusText: res.statusText, headers: res.headers });
  };
}

export default {
  async fetch(request) {
    // No I/O at global scope in a Worker: instantiate on the first request.
    ready ??= init({ wasm }).catch((e) => { ready = null; throw e; });
    const stats = { requests: 0, bytes: 0 };
    const api = { requests: 0, received: 0, sent: 0 };
    const onRequest = ({ sent, received }) => {
      api.requests++;
      api.received += received;
      api.sent += sent;
    };
    const statHeaders = () => ({
      'X-Webgit-Requests': String(stats.requests),
      'X-Webgit-Bytes': String(stats.bytes),
      'X-Webgit-Api-Requests': String(api.requests),
      'X-Webgit-Api-Received': String(api.received),
      'X-Webgit-Api-Sent': String(api.sent),
    });
    try {
      await ready;
      const u = new URL(request.url);
      const url = u.searchParams.get('url');
      if (!url) return json(400, { code: 'EINVALID', message: 'url is required' });
      const fetchFn = countingFetch(stats);
      if (u.pathname === '/refs') {
        const refs = await listRemoteRefs(url, { fetch: fetchFn, onRequest });
        return json(200, refs, statHeaders());
      }
      if (u.pathname === '/file') {
        const opts = {
          url,
          path: u.searchParams.get('path'),
          fetch: fetchFn,
          onRequest,
        };
        if (u.searchParams.has('ref')) opts.ref = u.searchParams.get('ref');
        const bytes = await readFile(opts);
        return new Response(bytes, {
          headers: { 'Content-Type': 'application/octet-stream', ...statHeaders() },
        });
      }
      if (u.pathname === '/diff') {
        const dir = `/diff-${++diffSeq}`;
        const diffApi = { requests: 0 };
        try {
          await clone({ url, dir, filter: 'blob:none', noCheckout: true, fetch: fetchFn, onRequest });
          const opts = { dir, to: u.searchParams.get('to'), format: 'patch', fetch: fetchFn };
          if (u.searchParams.has('from')) opts.from = u.searchParams.get('from');
          opts.onRequest = (r) => {
            diffApi.requests++;
            onRequest(r);
          };
          const patch = await diff(opts);
          return new Response(patch, {
            headers: {
              'Content-Type': 'text/plain', 'X-Webgit-Diff-Requests': String(diffApi.requests), ...statHeaders(),
            },
          });
        } finally {
          await deleteRepo({ dir }).catch(() => {});
        }
      }
      if (u.pathname === '/history') {
        const ops = JSON.parse(u.searchParams.get('ops') || '[]');
        if (!ops.every(([op]) => HISTORY[op])) {
          return json(400, { code: 'EINVALID', message: 'ops must be blame, lastModified or log' });
        }
        const dir = `/history-${++historySeq}`;
        try {
          await clone({ url, dir, filter: 'blob:none', noCheckout: true, fetch: fetchFn, onRequest });
          const out = [];
          for (const [op, opts] of ops) {
            const own = { requests: 0, posts: 0 };
            const result = await HISTORY[op]({
              ...opts,
              dir,
              fetch: fetchFn,
              onRequest: (r) => {
                own.requests++;
                if (r.method === 'POST') own.posts++;
                onRequest(r);
              },
            });
            out.push({ result, ...own });
          }
          return json(200, out, statHeaders());
        } finally {
          await deleteRepo({ dir }).catch(() => {});
        }
      }
      return json(404, { code: 'ENOTFOUND', message: `no route ${u.pathname}` });
    } catch (e) {
      const code = (e && e.code) || 'ERROR';
      return json(STATUS[code] || 502, { code, message: String(e && e.message) }, statHeaders());
    }
  },
};
