// Driving one of the core's network operations with fetch().
//
// The C core never does network I/O (design rule 1): an operation hands out
// the HTTP request it wants made next, this file makes it with fetch() and
// streams the response body back in chunk by chunk, until the operation
// says it is complete. The caller frees the operation in every case; freed
// before completion, it undoes itself (a clone removes its directory).

import {
  M, ITEROVER, scratch, str, withStrings, check, lastError, makeError, abortError, limitsSpec, host,
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

// A kept-alive connection the server closed while this side was not
// looking (Node's fetch: the event loop was busy past the server's idle
// timeout) fails before any response. Browsers retry such a request
// themselves; Node's fetch does not, so we do, and only for requests
// that change nothing on the server: discovery (GET) and upload-pack,
// never a push. Each failure takes its dead connection out of fetch's
// pool, but the pool may hold several the server closed at the same
// moment (after parallel requests), so up to STALE_REPEATS times.
const STALE_REPEATS = 3;

function staleConnection(e) {
  const code = e?.cause?.code;
  return e instanceof TypeError && (code === 'UND_ERR_SOCKET' || code === 'ECONNRESET' ||
    code === 'EPIPE' || code === 'UND_ERR_CLOSED');
}

function safeToRepeat(req) {
  if (req.method === 'GET' || req.method === 'HEAD') return true;
  try {
    return new URL(req.url).pathname.endsWith('/git-upload-pack');
  } catch {
    return false;
  }
}

function ioError(req, e) {
  // Node's fetch says only "fetch failed"; the reason is in its cause
  const why = e?.cause?.message && e.cause.message !== e.message ? ` (${e.cause.message})` : '';
  return Object.assign(makeError('EIO', `${req.method} ${req.url}: ${e.message}${why}`), { cause: e });
}

// --- credentials ----------------------------------------------------------------------
//
// The core hands out request URLs without user information: credentials
// that were in a URL come as an "Authorization: Basic" header of the
// request, as the caller's own tokens come in `headers`. Neither may reach
// a message: every error drive() throws has them masked (the core masks
// the URL's password itself; a server could echo either back), and a
// header the Headers class refuses is reported without its value.

/** The strings a message must not contain: each credential header's value,
 * its token or base64 part, and for Basic the decoded "user:password" and
 * password. */
function secretsOf(headers) {
  const out = new Set();
  for (const [name, value] of headers) {
    if (!/^(authorization|proxy-authorization|cookie)$/i.test(name)) continue;
    out.add(value);
    const m = /^(\S+)\s+(.+)$/.exec(value);
    if (!m) continue;
    out.add(m[2]);
    if (/^basic$/i.test(m[1])) {
      try {
        const decoded = new TextDecoder().decode(Uint8Array.from(atob(m[2].trim()), (c) => c.charCodeAt(0)));
        out.add(decoded);
        const colon = decoded.indexOf(':');
        if (colon >= 0) out.add(decoded.slice(colon + 1));
      } catch {
        // not base64: the value itself is masked
      }
    }
  }
  // A few characters are not masked (every "1" of a message would go),
  // the longest first so that one inside another goes whole.
  return [...out].filter((x) => x.length >= 4).sort((a, b) => b.length - a.length);
}

function mask(text, secrets) {
  let t = String(text);
  for (const x of secrets) t = t.split(x).join('***');
  return t;
}

/** `e` with no secret in its message (or in its cause's). */
function masked(e, secrets) {
  if (!secrets.length || !e || typeof e !== 'object') return e;
  for (const err of [e, e.cause]) {
    if (!err || typeof err !== 'object' || typeof err.message !== 'string') continue;
    const m = mask(err.message, secrets);
    if (m === err.message) continue;
    try {
      err.message = m;
    } catch {
      // a read-only message (a DOMException): replace the error
      if (err === e) return makeError(e.code || 'ERROR', m);
    }
  }
  return e;
}

function originOf(url) {
  try {
    return new URL(url).origin;
  } catch {
    return null;
  }
}

const MAX_REDIRECTS = 5;

/**
 * fetch() for a request that may carry credentials. Without an
 * Authorization header it is plain fetch() (redirects followed). With one,
 * redirects are ours to follow: same-origin ones are (as the native client
 * does); one to another origin is followed only when `mayLeave` (an
 * operation's first request, the ref discovery: git's
 * http.followRedirects=initial), never from https to http, and without
 * the Authorization header, which was for the old origin. In a browser a
 * manual redirect is opaque (no Location): the request is then made again
 * with redirect 'follow', where the Fetch standard drops the Authorization
 * header on a cross-origin hop; landing on another origin is an error
 * unless `mayLeave`.
 */
async function fetchWithCredentials(fetchFn, req, headers, signal, mayLeave, quiet) {
  if (!headers.has('authorization')) {
    return fetchFn(req.url, { method: req.method, headers, body: req.body, signal, ...quiet });
  }
  const origin = originOf(req.url);
  let { url, method } = req;
  let { body } = req;
  for (let hops = 0; ; hops++) {
    const res = await fetchFn(url, { method, headers, body, signal, redirect: 'manual', ...quiet });
    if (res.type === 'opaqueredirect') {
      const followed = await fetchFn(url, { method, headers, body, signal, redirect: 'follow', ...quiet });
      if (followed.url && originOf(followed.url) !== origin && !mayLeave) {
        followed.body?.cancel().catch(() => {});
        throw makeError('EUNSUPPORTED', `${req.url} redirected to another origin ` +
          `(${originOf(followed.url)}); the credentials were not sent there`);
      }
      return followed;
    }
    const location = res.status >= 300 && res.status < 400 ? res.headers.get('location') : null;
    if (!location) return res;
    res.body?.cancel().catch(() => {});
    let next;
    try {
      next = new URL(location, url);
    } catch {
      throw makeError('ECORRUPT', `bad redirect from ${url}`);
    }
    if (next.origin !== origin && mayLeave && !next.username && !next.password &&
        !(new URL(req.url).protocol === 'https:' && next.protocol === 'http:')) {
      headers.delete('authorization');
      if (res.status === 303 || ((res.status === 301 || res.status === 302) && method === 'POST')) {
        method = 'GET';
        body = undefined;
      }
      return fetchFn(next.href, { method, headers, body, signal, ...quiet });
    }
    if (next.username || next.password || next.origin !== origin) {
      throw makeError('EUNSUPPORTED', `refusing the redirect from ${url} to ` +
        `${next.origin}${next.pathname}: it leaves the origin and the request carries ` +
        'credentials (only redirects on the same scheme, host and port are followed)');
    }
    if (hops >= MAX_REDIRECTS) {
      throw makeError('ERROR', `too many redirects (more than ${MAX_REDIRECTS}) from ${req.url}`);
    }
    // 303, and 301/302 after a POST, turn into GET as browsers do.
    if (res.status === 303 || ((res.status === 301 || res.status === 302) && method === 'POST')) {
      method = 'GET';
      body = undefined;
      headers.delete('content-type');
      headers.delete('content-encoding');
    }
    url = next.href;
  }
}

// 429 (Too Many Requests) and 503 (Service Unavailable) with a
// Retry-After the client can honour are asked again after that wait, as the
// native client does (cli/http/retry.h): at most MAX_RETRIES times per
// request, never a wait over MAX_RETRY_WAIT_MS (a server asking for more
// gets its error at once). git 2.53 gives up on both.
const MAX_RETRIES = 3;
const MAX_RETRY_WAIT_MS = 60000;

/** The wait a 429/503 response asks for, in ms, or null for no retry. */
export function retryAfterMs(res, now = Date.now()) {
  if (res.status !== 429 && res.status !== 503) return null;
  const value = (res.headers.get('retry-after') || '').trim();
  let ms;
  if (/^\d+$/.test(value)) {
    ms = Number(value) * 1000;
  } else {
    const when = value ? Date.parse(value) : NaN;
    if (Number.isNaN(when)) return null;
    ms = Math.max(0, when - now);
  }
  return ms <= MAX_RETRY_WAIT_MS ? ms : null;
}

function pause(ms, signal) {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(abortError(signal));
    const done = () => {
      signal?.removeEventListener('abort', stop);
      resolve();
    };
    const timer = setTimeout(done, ms);
    function stop() {
      clearTimeout(timer);
      reject(abortError(signal));
    }
    signal?.addEventListener('abort', stop, { once: true });
  });
}

/**
 * Make the requests `op` asks for until it is complete. Throws on error or
 * abort. Options: fetch (default globalThis.fetch), headers (added to every
 * request; the protocol's own win, credentials from the URL included),
 * signal, onRequest({ method, url, status, sent, received }) once per
 * finished request (body bytes). No error's message holds a credential
 * (see secretsOf); a request with an Authorization header follows only
 * same-origin redirects, but for the discovery's (see fetchWithCredentials).
 */
export async function drive(op, options = {}) {
  let secrets = [];
  try {
    await driveRequests(op, options, (s) => { secrets = s; });
  } catch (e) {
    throw masked(e, secrets);
  }
}

function buildHeaders(extra, own) {
  let headers;
  try {
    headers = new Headers(extra || undefined);
  } catch {
    // the Headers class repeats a bad value in its message: not ours
    throw makeError('EINVALID', 'invalid request headers (a name or value the Fetch API refuses; ' +
      'the value is not shown)');
  }
  for (const [k, v] of own) headers.set(k, v);
  return headers;
}

/** Basic credentials from onAuth's answer, or null for none. */
function basicFrom(answer) {
  if (!answer || typeof answer !== 'object') return null;
  const { username = '', password = '' } = answer;
  if (typeof username !== 'string' || typeof password !== 'string' || (!username && !password)) {
    return null;
  }
  const bytes = new TextEncoder().encode(`${username}:${password}`);
  return `Basic ${btoa(String.fromCharCode(...bytes))}`;
}

// An onAuth callback is asked at most this many times per operation: a
// user who keeps giving wrong credentials gets EAUTH, not a loop.
const MAX_AUTH_ASKS = 3;

async function driveRequests(op, {
  fetch: fetchFn = globalThis.fetch, headers: extra, signal, onRequest, onAuth,
} = {}, setSecrets) {
  if (typeof fetchFn !== 'function') throw makeError('EINVALID', 'no fetch() available');
  // With onAuth the page answers 401s itself: a browser must not put up
  // its own login prompt first (a fetch() that sends the page's
  // credentials does, and waits on it), so none are sent (cookies, the
  // browser's cached Basic auth); Authorization headers still are.
  // Elsewhere the option is left out (workerd refuses it).
  const quiet = typeof onAuth === 'function' && host === 'browser' ? { credentials: 'omit' } : {};
  // credentials onAuth gave: they go with every later request of the
  // operation (as git keeps what its credential helper said)
  let asked = 0;
  let auth = null;
  let authOrigin = null;
  for (let first = true; ; first = false) {
    if (signal?.aborted) throw abortError(signal);
    const rc = M._wgjs_op_next_request(op, scratch);
    if (rc === ITEROVER) return;
    check(rc);
    const req = readRequest(M.HEAPU32[scratch >>> 2]);
    const headers = buildHeaders(extra, req.headers);
    if (auth && !headers.has('authorization')) headers.set('authorization', auth);
    setSecrets(secretsOf(headers));
    let res;
    // the request as made: after a discovery moved to another origin
    // answered 401, it is asked again there, not at the old place
    let target = req;
    for (let attempt = 0, waits = 0; ; attempt++) {
      try {
        res = await fetchWithCredentials(fetchFn, target, headers, signal, first && target === req, quiet);
      } catch (e) {
        if (signal?.aborted) throw abortError(signal);
        if (e?.code && e.code !== 'ABORT_ERR' && !(e instanceof TypeError)) throw e;
        if (attempt < STALE_REPEATS && staleConnection(e) && safeToRepeat(req)) continue;
        throw ioError(req, e);
      }
      if (res.status === 401 && typeof onAuth === 'function' && asked < MAX_AUTH_ASKS) {
        // 401: ask the host application (a login form, a token store),
        // then make the same request again with what it gave
        res.body?.cancel().catch(() => {});
        asked++;
        if (res.url && originOf(res.url) !== originOf(target.url)) {
          target = { ...req, url: res.url };
          headers.delete('authorization');
        }
        let answer;
        try {
          answer = await onAuth({ url: target.url, attempt: asked, rejected: headers.has('authorization') });
        } catch (e) {
          const err = makeError('EAUTH', `Authentication failed for '${target.url}': onAuth threw`);
          err.cause = e;
          throw err;
        }
        if (signal?.aborted) throw abortError(signal);
        const given = basicFrom(answer);
        if (!given) throw makeError('EAUTH', `Authentication failed for '${target.url}' (no credentials given)`);
        auth = given;
        authOrigin = originOf(target.url);
        headers.set('authorization', auth);
        setSecrets(secretsOf(headers));
        continue;
      }
      const wait = waits < MAX_RETRIES ? retryAfterMs(res) : null;
      if (wait === null) break;
      res.body?.cancel().catch(() => {});
      await pause(wait, signal);
      waits++;
    }
    const reader = res.body ? res.body.getReader() : null;
    let received = 0;
    try {
      // A redirected ref discovery moves the repository (git's rule): the
      // core sends every later request to where it landed.
      if (res.url && res.url !== req.url) {
        check(withStrings([res.url], (u) => M._wgjs_op_response_url(op, u)));
        // onAuth's answer for the old origin stays there (the core drops the URL's)
        if (auth && authOrigin !== originOf(res.url)) auth = null;
      }
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
    // A server known to speak v2 in this object format: no advertisement
    // is asked for (remote/operation.h, wg_remote_op_assume_v2).
    if (options?.assumeV2) {
      check(withStrings([options.assumeV2], (s) => M._wgjs_op_assume_v2(op, s)));
    }
    await drive(op, options);
    // awaited here: an async finish still needs the operation
    return finish ? await finish(op) : undefined;
  } finally {
    M._wgjs_op_free(op);
  }
}
