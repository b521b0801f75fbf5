#!/usr/bin/env node
// tests/server/git-http-server.mjs — a local smart-HTTP Git server for tests,
// benchmarks and the web demo. Node 20, no npm dependencies.
//
// It runs the reference `git http-backend` as a CGI for every Git request, so
// what clients talk to is real git (protocol v2 and v0/v1, fetch, push, partial
// clone), and this script only does HTTP: routing, Basic auth for pushes,
// static files, logging.
//
// USAGE
//   node tests/server/git-http-server.mjs --root DIR [options]
//
//   --root DIR        directory holding the repositories (GIT_PROJECT_ROOT)
//   --host 127.0.0.1  the only address accepted: the server never listens
//                     on anything but the loopback interface
//   --port N          port to listen on; 0 (the default) picks a free one
//   --pid-file FILE   write the server's PID to FILE
//   --port-file FILE  write the port to FILE once listening (atomically)
//   --git PATH        the git whose http-backend runs (default: git on PATH)
//   --v0              never pass the client's Git-Protocol header on, so
//                     upload-pack only speaks protocol v0
//   --auth USER:PASS  require HTTP Basic auth for pushes (receive-pack)
//   --auth-all        with --auth: fetches need the credentials too
//   --redirect-to B   /redirect/<path> answers 307 to B/git/<path> (query
//                     kept) instead of to this server's /git/<path>: B may
//                     be another origin (credentials must not follow)
//   --static DIR      serve the files of DIR at / (for the web demo); the
//                     same as --mount /=DIR
//   --mount /P/=DIR   serve the files of DIR under the URL prefix /P/
//                     (repeatable; the longest matching prefix wins; not
//                     under /git/). The web demo: --static web-demo
//                     --mount /webgit/=<build>/js
//   --cors            answer CORS preflights and add Access-Control-* headers
//                     (for pages served from another origin)
//   --isolate         send the static files with COOP and COEP headers, so
//                     that the pages are cross-origin isolated (webgit's
//                     threaded module loads there)
//   --credentialless /P/  with --isolate, the files under /P/ are sent with
//                     COEP "credentialless" rather than "require-corp": a
//                     page there is isolated too, and still shows images of
//                     other sites that send no CORP header (the forge's
//                     README badges), loaded without cookies (repeatable)
//   --log FILE        append one line per request to FILE (format below)
//
// URL LAYOUT
//   http://127.0.0.1:PORT/git/<path>   Git, <path> relative to --root, e.g.
//                                      /git/sample-sha1-files.git (the ".git"
//                                      may be left out, as http-backend
//                                      tries <path>.git too)
//   http://127.0.0.1:PORT/<file>       --static DIR/<file> ("/" is
//                                      index.html); 404 without --static
//   http://127.0.0.1:PORT/P/<file>     --mount /P/=DIR: DIR/<file> (a
//                                      directory gives its index.html;
//                                      /P redirects to /P/)
//
// STATIC FILES are GET and HEAD only, with a Content-Type from the file's
// extension (.html, .js/.mjs text/javascript, .wasm application/wasm, .css,
// .json, .png, ...; else application/octet-stream) and Cache-Control:
// no-cache. A path with a ".." segment, raw or percent-encoded (%2e%2e,
// ..%2f), or a NUL is refused with 403, and so is a file that resolves
// (through a symlink) outside its directory.
//
// AUTH (--auth): `GET /git/<repo>/info/refs?service=git-receive-pack` and
// `POST /git/<repo>/git-receive-pack` need the credentials, otherwise 401 with
// `WWW-Authenticate: Basic realm="webgit-test"`. Valid credentials on any
// request set REMOTE_USER. Fetches never need them, unless --auth-all. Without
// --auth anyone may push to a repository whose config has http.receivepack=true.
//
// REDIRECTS: any request for /redirect/<path> answers 307 (method and body
// kept) with Location /git/<path>, or --redirect-to's base + /git/<path>.
//
// LOG LINE (--log), space separated, one per finished request:
//   METHOD PATH STATUS REQ_BYTES RESP_BYTES MS GIT_PROTOCOL
// PATH includes the query string; REQ_BYTES and RESP_BYTES count body bytes as
// sent on the wire (a gzip request body compressed; no headers, no chunk
// framing); MS is the time from request to the last byte; GIT_PROTOCOL is the
// Git-Protocol header passed to the backend, or "-".
//
// On SIGTERM or SIGINT the server stops accepting, kills running CGIs, closes
// its connections and exits 0.

import http from 'node:http';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import process from 'node:process';
import { serve, parseServerArgs, findBackend, HOST } from './lifecycle.mjs';

const GIT_PREFIX = '/git/';
const REALM = 'webgit-test';

function usage(msg) {
	if (msg) process.stderr.write(`git-http-server: ${msg}\n`);
	process.stderr.write('usage: git-http-server.mjs --root DIR [--host 127.0.0.1] [--port N] ' +
		'[--pid-file FILE] [--port-file FILE] [--git PATH] [--v0] [--auth USER:PASS] [--auth-all] ' +
		'[--redirect-to BASE] ' +
		'[--static DIR] [--mount /PREFIX/=DIR]... [--cors] [--isolate] [--credentialless /PREFIX/]... ' +
		'[--log FILE]\n');
	process.exit(2);
}

function parseArgs(argv) {
	const opt = parseServerArgs(argv, usage, {
		values: [['--auth', 'auth'], ['--static', 'staticDir'], ['--redirect-to', 'redirectTo']],
		flags: [['--v0', 'v0'], ['--cors', 'cors'], ['--auth-all', 'authAll'], ['--isolate', 'isolate']],
		repeated: [['--mount', 'mounts'], ['--credentialless', 'credentialless']],
	});
	for (const p of opt.credentialless) {
		if (!/^\/([^/]+\/)*$/.test(p)) usage(`--credentialless wants /PREFIX/, not ${p}`);
	}
	opt.mounts = opt.mounts.map((v) => {
		const m = /^(\/[^=]*)=(.+)$/.exec(v);
		if (!m) usage(`--mount wants /PREFIX/=DIR, not ${v}`);
		return { prefix: m[1], dir: m[2], option: '--mount' };
	});
	if (opt.staticDir) opt.mounts.push({ prefix: '/', dir: opt.staticDir, option: '--static' });
	const seen = new Set();
	for (const m of opt.mounts) {
		// "/webgit" and "/webgit/" are the same mount.
		if (!m.prefix.endsWith('/')) m.prefix += '/';
		const segs = m.prefix.split('/');
		if (segs.includes('..') || segs.includes('.') || m.prefix.includes('//') || /[\0?#%\\]/.test(m.prefix)) {
			usage(`${m.option}: bad URL prefix ${m.prefix}`);
		}
		if (m.prefix.startsWith(GIT_PREFIX)) usage(`${m.option}: ${m.prefix} is under ${GIT_PREFIX}, which is Git's`);
		if (seen.has(m.prefix)) usage(`${m.option}: ${m.prefix} is mounted twice`);
		seen.add(m.prefix);
		m.dir = path.resolve(m.dir);
		if (!fs.statSync(m.dir, { throwIfNoEntry: false })?.isDirectory()) usage(`${m.option} ${m.dir} is not a directory`);
		m.real = fs.realpathSync(m.dir);
	}
	// Longest prefix first: the first match is the most specific.
	opt.mounts.sort((a, b) => b.prefix.length - a.prefix.length);
	if (opt.auth !== undefined && !/^[^:]+:/.test(opt.auth)) usage('--auth wants USER:PASS');
	if (opt.authAll && opt.auth === undefined) usage('--auth-all needs --auth');
	if (opt.redirectTo !== undefined && !/^https?:\/\/[^/]+$/.test(opt.redirectTo)) {
		usage('--redirect-to wants a base URL such as http://127.0.0.1:8080');
	}
	return opt;
}

const opt = parseArgs(process.argv.slice(2));

const backend = findBackend(opt.git, usage);

// ---- logging -------------------------------------------------------------

const logStream = opt.log ? fs.createWriteStream(opt.log, { flags: 'a' }) : null;
logStream?.on('error', (err) => {
	process.stderr.write(`git-http-server: --log ${opt.log}: ${err.message}\n`);
	process.exit(2);
});

// Count body bytes both ways and write the log line when the exchange ends
// (finished or aborted: an aborted download still moved bytes).
function trackRequest(req, res) {
	const t0 = process.hrtime.bigint();
	let reqBytes = 0, respBytes = 0, done = false;
	req.on('data', (c) => { reqBytes += c.length; });
	const write = res.write, end = res.end;
	res.write = function (chunk, ...rest) {
		if (chunk && typeof chunk !== 'function') respBytes += Buffer.byteLength(chunk);
		return write.call(this, chunk, ...rest);
	};
	res.end = function (chunk, ...rest) {
		if (chunk && typeof chunk !== 'function') respBytes += Buffer.byteLength(chunk);
		return end.call(this, chunk, ...rest);
	};
	const finish = () => {
		if (done) return;
		done = true;
		if (!logStream) return;
		const ms = Number((process.hrtime.bigint() - t0) / 1000000n);
		const proto = res.gitProtocol || '-';
		logStream.write(`${req.method} ${req.url} ${res.statusCode} ${reqBytes} ${respBytes} ${ms} ${proto}\n`);
	};
	res.on('finish', finish);
	res.on('close', finish);
}

// ---- small responses -----------------------------------------------------

function sendText(res, status, text, headers = {}) {
	const body = Buffer.from(text);
	res.writeHead(status, { 'Content-Type': 'text/plain; charset=utf-8', 'Content-Length': body.length, ...headers });
	res.end(body);
}

function addCors(req, res) {
	if (!opt.cors) return;
	// Echo the origin rather than "*" so credentialed requests are allowed too.
	res.setHeader('Access-Control-Allow-Origin', req.headers.origin || '*');
	res.setHeader('Access-Control-Allow-Credentials', 'true');
	res.setHeader('Access-Control-Expose-Headers', 'Content-Type, Content-Length, WWW-Authenticate');
	res.setHeader('Vary', 'Origin');
}

// ---- auth ------------------------------------------------------------------

// The user name when the request carries the --auth credentials, else null.
function authenticatedUser(req) {
	if (opt.auth === undefined) return null;
	const m = /^Basic\s+([A-Za-z0-9+/=]+)\s*$/i.exec(req.headers.authorization || '');
	if (!m) return null;
	const given = Buffer.from(m[1], 'base64').toString('utf8');
	return given === opt.auth ? given.slice(0, given.indexOf(':')) : null;
}

function isPush(method, pathInfo, query) {
	if (method === 'POST' && pathInfo.endsWith('/git-receive-pack')) return true;
	return pathInfo.endsWith('/info/refs') &&
		new URLSearchParams(query).get('service') === 'git-receive-pack';
}

// ---- the CGI -----------------------------------------------------------------

const children = new Set();

// Variables that would point git somewhere else or change what it speaks:
// never inherit them from whoever started the server.
const SCRUB = /^(GIT_(DIR|WORK_TREE|COMMON_DIR|INDEX_FILE|OBJECT_DIRECTORY|ALTERNATE_OBJECT_DIRECTORIES|NAMESPACE|PROTOCOL|QUARANTINE_PATH|CONFIG_PARAMETERS|CONFIG_COUNT|CONFIG_KEY_\d+|CONFIG_VALUE_\d+|PROJECT_ROOT|HTTP_EXPORT_ALL)|HTTP_.*|PATH_INFO|PATH_TRANSLATED|QUERY_STRING|REQUEST_METHOD|CONTENT_TYPE|CONTENT_LENGTH|REMOTE_USER|REMOTE_ADDR|SERVER_PROTOCOL)$/;
const baseEnv = Object.fromEntries(Object.entries(process.env).filter(([k]) => !SCRUB.test(k)));

function cgiEnv(req, pathInfo, query, user) {
	const env = {
		...baseEnv,
		GIT_PROJECT_ROOT: opt.root,
		GIT_HTTP_EXPORT_ALL: '1',
		GATEWAY_INTERFACE: 'CGI/1.1',
		SERVER_SOFTWARE: 'webgit-test-server',
		SERVER_PROTOCOL: `HTTP/${req.httpVersion}`,
		SERVER_NAME: HOST,
		SERVER_PORT: String(req.socket.localPort),
		SCRIPT_NAME: GIT_PREFIX.slice(0, -1),
		PATH_INFO: pathInfo,
		QUERY_STRING: query,
		REQUEST_METHOD: req.method,
		REMOTE_ADDR: req.socket.remoteAddress || '',
		REMOTE_PORT: String(req.socket.remotePort || ''),
	};
	if (req.headers['content-type']) env.CONTENT_TYPE = req.headers['content-type'];
	// Only when the client said so: with chunked requests there is no length
	// and http-backend then reads the body up to EOF.
	if (req.headers['content-length'] !== undefined) env.CONTENT_LENGTH = req.headers['content-length'];
	// http-backend inflates gzip bodies itself (git's client gzips fetch requests).
	if (req.headers['content-encoding']) env.HTTP_CONTENT_ENCODING = req.headers['content-encoding'];
	if (user) env.REMOTE_USER = user;
	const proto = req.headers['git-protocol'];
	// GIT_PROTOCOL reaches upload-pack through http-backend's environment;
	// that is how the client asks for protocol v2. --v0 drops it, so only
	// v0 is spoken. (http-backend would also copy HTTP_GIT_PROTOCOL into
	// GIT_PROTOCOL; that variable is never set here.)
	if (proto && !opt.v0) {
		env.GIT_PROTOCOL = proto.replace(/[^\x20-\x7e]/g, '');
	}
	return env;
}

// Split "Name: value" CGI header lines into a status and a header object.
function parseCgiHeaders(text) {
	let status = 200, reason;
	const headers = {};
	for (const line of text.split(/\r?\n/)) {
		if (!line) continue;
		const i = line.indexOf(':');
		if (i <= 0) continue;
		const name = line.slice(0, i).trim(), value = line.slice(i + 1).trim();
		if (name.toLowerCase() === 'status') {
			const m = /^(\d{3})\s*(.*)$/.exec(value);
			if (m) { status = Number(m[1]); reason = m[2] || undefined; }
		} else if (headers[name] === undefined) {
			headers[name] = value;
		} else {
			headers[name] = [].concat(headers[name], value);
		}
	}
	return { status, reason, headers };
}

// Find the blank line ending the CGI headers; returns [headerEnd, bodyStart].
function headerEnd(buf) {
	const crlf = buf.indexOf('\r\n\r\n');
	const lf = buf.indexOf('\n\n');
	if (crlf >= 0 && (lf < 0 || crlf < lf)) return [crlf, crlf + 4];
	if (lf >= 0) return [lf, lf + 2];
	return null;
}

function serveGit(req, res, pathInfo, query) {
	const user = authenticatedUser(req);
	if (opt.auth !== undefined && !user && (opt.authAll || isPush(req.method, pathInfo, query))) {
		req.resume();
		return sendText(res, 401, 'authentication required\n', {
			'WWW-Authenticate': `Basic realm="${REALM}"`,
		});
	}
	const env = cgiEnv(req, pathInfo, query, user);
	res.gitProtocol = env.GIT_PROTOCOL; // for the log

	const child = spawn(backend, [], { env, stdio: ['pipe', 'pipe', 'pipe'] });
	children.add(child);
	let spawnError = null;
	child.on('error', (err) => { spawnError = err; });
	child.on('close', (code, signal) => {
		children.delete(child);
		if (!res.headersSent) {
			const why = spawnError ? spawnError.message : `exit ${code ?? signal}`;
			sendText(res, 502, `git http-backend sent no response (${why})\n`);
		} else if (!res.writableEnded) {
			res.end();
		}
	});
	// The backend's complaints ("fatal: ...") go to our stderr.
	child.stderr.on('data', (c) => process.stderr.write(c));

	// The request body streams into the CGI. A backend that exits early
	// (a 403, say) closes its stdin: ignore EPIPE then.
	child.stdin.on('error', () => {});
	req.pipe(child.stdin);

	// A client that goes away (mid-upload or mid-download) takes its
	// backend with it.
	const abandon = () => {
		if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
	};
	req.on('error', abandon);
	res.on('error', abandon);
	res.on('close', () => { if (!res.writableFinished) abandon(); });

	let head = Buffer.alloc(0);
	const onHeadData = (chunk) => {
		head = Buffer.concat([head, chunk]);
		const end = headerEnd(head);
		if (!end) {
			if (head.length > 65536) {
				child.stdout.off('data', onHeadData);
				child.kill('SIGTERM');
				sendText(res, 502, 'CGI headers too long\n');
			}
			return;
		}
		child.stdout.off('data', onHeadData);
		child.stdout.pause();
		const { status, reason, headers } = parseCgiHeaders(head.subarray(0, end[0]).toString('latin1'));
		// No Content-Length from the CGI: Node then uses chunked encoding.
		if (reason) res.writeHead(status, reason, headers);
		else res.writeHead(status, headers);
		const rest = head.subarray(end[1]);
		if (rest.length) res.write(rest);
		child.stdout.pipe(res, { end: false });
	};
	child.stdout.on('data', onHeadData);
}

// ---- static files --------------------------------------------------------------

const MIME = {
	'.html': 'text/html; charset=utf-8', '.htm': 'text/html; charset=utf-8',
	'.js': 'text/javascript; charset=utf-8', '.mjs': 'text/javascript; charset=utf-8',
	'.cjs': 'text/javascript; charset=utf-8',
	'.css': 'text/css; charset=utf-8', '.json': 'application/json; charset=utf-8',
	'.map': 'application/json; charset=utf-8', '.wasm': 'application/wasm',
	'.txt': 'text/plain; charset=utf-8', '.md': 'text/markdown; charset=utf-8',
	'.svg': 'image/svg+xml', '.png': 'image/png', '.jpg': 'image/jpeg',
	'.jpeg': 'image/jpeg', '.gif': 'image/gif', '.ico': 'image/x-icon',
	'.webp': 'image/webp', '.woff': 'font/woff', '.woff2': 'font/woff2',
	'.ttf': 'font/ttf', '.xml': 'application/xml', '.pdf': 'application/pdf',
	'.webmanifest': 'application/manifest+json',
};

// The mount serving urlPath, or null.
function mountFor(urlPath) {
	return opt.mounts.find((m) => urlPath.startsWith(m.prefix)) || null;
}

// True if `p` is `root` or inside it.
const inside = (root, p) => p === root || p.startsWith(root.endsWith(path.sep) ? root : root + path.sep);

function serveStatic(req, res, urlPath) {
	// "/webgit" for the mount "/webgit/": send the browser to the directory.
	const dirMount = opt.mounts.find((m) => m.prefix === `${urlPath}/`);
	if (dirMount && (req.method === 'GET' || req.method === 'HEAD')) {
		const q = req.url.indexOf('?');
		res.writeHead(301, { Location: dirMount.prefix + (q < 0 ? '' : req.url.slice(q)), 'Content-Length': 0 });
		return res.end();
	}
	const mount = mountFor(urlPath);
	if (!mount) {
		req.resume();
		return sendText(res, 404, 'not found\n');
	}
	if (req.method !== 'GET' && req.method !== 'HEAD') {
		req.resume();
		return sendText(res, 405, 'method not allowed\n', { Allow: 'GET, HEAD' });
	}
	let rel;
	try { rel = decodeURIComponent(urlPath.slice(mount.prefix.length)); } catch { return sendText(res, 400, 'bad path\n'); }
	// No way out of the directory: no ".." segment, raw or percent-encoded
	// (also as "..\\" or with an encoded "/"), no NUL.
	const segments = [...urlPath.split('/'), ...rel.split(/[/\\]/)];
	if (rel.includes('\0') || segments.includes('..')) return sendText(res, 403, 'forbidden\n');
	const file = path.join(mount.dir, path.normalize('/' + rel));
	if (!inside(mount.dir, file)) return sendText(res, 403, 'forbidden\n');
	let target = file, st = fs.statSync(target, { throwIfNoEntry: false });
	if (st?.isDirectory()) {
		target = path.join(target, 'index.html');
		st = fs.statSync(target, { throwIfNoEntry: false });
	}
	if (!st?.isFile()) return sendText(res, 404, 'not found\n');
	// Nor through a symlink.
	let real;
	try { real = fs.realpathSync(target); } catch { return sendText(res, 404, 'not found\n'); }
	if (!inside(mount.real, real)) return sendText(res, 403, 'forbidden\n');
	const headers = {
		'Content-Type': MIME[path.extname(target).toLowerCase()] || 'application/octet-stream',
		'Content-Length': st.size,
		// A dev server: always fetch the latest build.
		'Cache-Control': 'no-cache',
	};
	if (opt.isolate) {
		// cross-origin isolated: SharedArrayBuffer, so webgit's threads
		headers['Cross-Origin-Opener-Policy'] = 'same-origin';
		headers['Cross-Origin-Embedder-Policy'] =
			opt.credentialless.some((p) => urlPath.startsWith(p)) ? 'credentialless' : 'require-corp';
	}
	res.writeHead(200, headers);
	if (req.method === 'HEAD') return res.end();
	fs.createReadStream(target).on('error', () => res.destroy()).pipe(res);
}

// ---- routing --------------------------------------------------------------------

function handle(req, res) {
	trackRequest(req, res);
	// On every answer, errors and 401s included: a page must see those.
	addCors(req, res);
	const q = req.url.indexOf('?');
	const urlPath = q < 0 ? req.url : req.url.slice(0, q);
	const query = q < 0 ? '' : req.url.slice(q + 1);

	if (opt.cors && req.method === 'OPTIONS') {
		res.writeHead(204, {
			'Access-Control-Allow-Methods': 'GET, POST, HEAD, OPTIONS',
			'Access-Control-Allow-Headers': req.headers['access-control-request-headers'] ||
				'Content-Type, Content-Encoding, Git-Protocol, Authorization',
			'Access-Control-Max-Age': '600',
		});
		return res.end();
	}
	if (urlPath.startsWith('/redirect/')) {
		req.resume();
		const to = `${opt.redirectTo || ''}${GIT_PREFIX}${urlPath.slice('/redirect/'.length)}` +
			(q < 0 ? '' : `?${query}`);
		return sendText(res, 307, `see ${to}\n`, { Location: to });
	}
	if (urlPath.startsWith(GIT_PREFIX)) {
		let pathInfo;
		try { pathInfo = decodeURIComponent(urlPath.slice(GIT_PREFIX.length - 1)); } catch { pathInfo = null; }
		// http-backend refuses ".." itself; refuse early and plainly.
		if (pathInfo === null || pathInfo.includes('\0') || pathInfo.split('/').includes('..')) {
			req.resume();
			return sendText(res, 400, 'bad repository path\n');
		}
		return serveGit(req, res, pathInfo, query);
	}
	return serveStatic(req, res, urlPath);
}

// ---- lifecycle -----------------------------------------------------------------

const server = http.createServer(handle);
// Long clones of big repositories: no request timeout.
server.requestTimeout = 0;
server.headersTimeout = 60000;
// Idle connections are kept 30 s: with Node's 5 s, a test whose event
// loop was busy longer met a connection closed under it (the client's
// repeat of such requests has its own test, in clone.test.mjs).
server.keepAliveTimeout = 30000;

serve(server, {
	name: 'git-http-server', port: opt.port, pidFile: opt.pidFile, portFile: opt.portFile, children,
	finish: (done) => (logStream ? logStream.end(done) : done()),
});
