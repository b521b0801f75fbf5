// Driving one of the core's network operations with fetch().
//
// The C core never does network I/O (design rule 1): an operation hands out
// the HTTP request it wants made next, this file makes it with fetch() and
// streams the response body back in chunk by chunk, until the operation
// says it is complete. The caller frees the operation in every case; freed
// before completion, it undoes itself (a clone removes its directory).

import {
  M, ITEROVER, scratch, str, withStrings, check, lastError, makeError, abortError, limitsSpec,
} from './runtime.js';

let feedBuf = 0;
let feedCap = 0;
// The most the WASM heap holds of a response at once: a larger chunk (a
// custom fetch() may hand over a whole body) is fed in slices.
const FEED_MAX = 256 * 1024;

function feed(op, chunk) {
  for (let off = 0; off < chunk.byteLength; off += FEED_MAX) {
    const part = chunk.subarray(off, Math.min(off + FEED_MAX, chunk.byteLength));
    if (part.byteLength > feedCap) {
      if (feedBuf) M._free(feedBuf);
      feedCap = Math.max(part.byteLength, 64 * 1024);
      feedBuf = M._malloc(feedCap);
      if (!feedBuf) {
        feedCap = 0;
        throw makeError('ENOMEM', 'out of memory');
      }
    }
    M.HEAPU8.set(part, feedBuf >>> 0);   // re-read HEAPU8: memory may have grown
    check(M._wgjs_op_feed(op, feedBuf, part.byteLength));
  }
}

function readRequest(req) {
  const method = str(M._wgjs_req_method(req));
  const url = str(M._wgjs_req_url(req));
  const headers = [];
  const n = M._wgjs_req_nheaders(req);
  for (let i = 0; i < n; i++) {
    const h = str(M._wgjs_req_header(req, i));
    const colon = h.indexOf(':');
    headers.push([h.slice(0, colon).trim(), h.slice(colon + 1).trim()]);
  }
  const len = M._wgjs_req_body_len(req) >>> 0;
  let body;
  if (len) {
    const p = M._wgjs_req_body(req) >>> 0;
    body = M.HEAPU8.slice(p, p + len);
  }
  return { method, url, headers, body };
}

function ioError(req, e) {
  return Object.assign(makeError('EIO', `${req.method} ${req.url}: ${e.message}`), { cause: e });
}

/**
 * Make the requests `op` asks for until it is complete. Throws on error or
 * abort. Options: fetch (default globalThis.fetch), headers (added to every
 * request; the protocol's own win), signal, onRequest({ method, url,
 * status, sent, received }) once per finished request (body bytes).
 */
export async function drive(op, {
  fetch: fetchFn = globalThis.fetch, headers: extra, signal, onRequest,
} = {}) {
  if (typeof fetchFn !== 'function') throw makeError('EINVALID', 'no fetch() available');
  for (;;) {
    if (signal?.aborted) throw abortError(signal);
    const rc = M._wgjs_op_next_request(op, scratch);
    if (rc === ITEROVER) return;
    check(rc);
    const req = readRequest(M.HEAPU32[scratch >>> 2]);
    const headers = new Headers(extra || undefined);
    for (const [k, v] of req.headers) headers.set(k, v);
    let res;
    try {
      res = await fetchFn(req.url, { method: req.method, headers, body: req.body, signal });
    } catch (e) {
      if (signal?.aborted) throw abortError(signal);
      throw ioError(req, e);
    }
    const reader = res.body ? res.body.getReader() : null;
    let received = 0;
    try {
      check(withStrings([res.headers.get('content-type')],
        (ct) => M._wgjs_op_response_begin(op, res.status, ct)));
      if (reader) {
        for (;;) {
          let step;
          try {
            step = await reader.read();
          } catch (e) {
            if (signal?.aborted) throw abortError(signal);
            throw ioError(req, e);
          }
          if (step.done) break;
          received += step.value.byteLength;
          feed(op, step.value);
          if (signal?.aborted) throw abortError(signal);
        }
      }
      check(M._wgjs_op_response_end(op));
    } catch (e) {
      if (reader) reader.cancel().catch(() => {});
      throw e;
    } finally {
      if (typeof onRequest === 'function') {
        try {
          onRequest({
            method: req.method, url: req.url, status: res.status,
            sent: req.body ? req.body.byteLength : 0, received,
          });
        } catch {
          // a statistics callback must not break the transfer
        }
      }
    }
  }
}

/** Run an operation made by `start()` (a pointer, or NULL with the core's
 * error) to completion; `finish(op)` reads its results before it is freed.
 * options.limits: this operation's limits (over the process-wide ones). */
export async function runOperation(start, options, finish) {
  const op = start();
  if (!op) throw lastError();
  try {
    // Per-call limits on what the server may send (docs/limits.md).
    if (options?.limits !== undefined) {
      check(withStrings([limitsSpec(options.limits)], (s) => M._wgjs_op_set_limits(op, s)));
    }
    await drive(op, options);
    return finish ? finish(op) : undefined;
  } finally {
    M._wgjs_op_free(op);
  }
}
