#!/usr/bin/env node
// tests/server/front-proxy.mjs — a reverse proxy that stands in front of a
// test Git server (git-http-server.mjs, dulwich-server.py) and behaves like
// the front ends users meet: CDNs that gzip, proxies that drop headers they
// do not know, a repository that moved, rate limits and login walls. It also
// records what clients send, for the request comparison of
// tests/interop/t41-requests.sh. Node 20, no npm dependencies; listens on
// 127.0.0.1 only and forwards only to a 127.0.0.1 target.
//
// USAGE
//   node tests/server/front-proxy.mjs --target http://127.0.0.1:PORT
//        --port-file FILE [--pid-file FILE] [--log FILE] [--port N]
//        [--record DIR] [--gzip] [--drop-protocol] [--pin-protocol V]
//        [--redirect FROM=TO] [--throttle STATUS] [--retry-after VALUE]
//        [--auth USER:PASS] [--framing chunked|length|close] [--cors]
//
//   --record DIR         every request as DIR/NNNN.req (NNNN counting from
//                        0001): "METHOD PATH", the headers a Git server acts
//                        on (Git-Protocol, Content-Type, Content-Encoding,
//                        Accept), an empty line, then the body, gunzipped.
//                        Authorization is never written.
//   --gzip               answer with Content-Encoding: gzip whenever the
//                        request's Accept-Encoding allows it
//   --drop-protocol      remove Git-Protocol (the server then speaks v0)
//   --pin-protocol V     replace Git-Protocol by "version=V" on every request
//                        (V=1: a server that only ever speaks protocol v1)
//   --redirect FROM=TO   the repository moved from path prefix FROM to TO:
//                        a GET of FROM.../info/refs?... is answered 301 with
//                        Location TO.../info/refs?...; any other request
//                        under FROM is 404, as where a moved repository
//                        left nothing behind (so a client must move its later
//                        requests to TO, as git does). TO may also be an
//                        absolute http://127.0.0.1:PORT/... URL: the
//                        repository moved to another origin
//   --log-auth FILE      one line per request, "METHOD URL yes|no": whether
//                        it carried an Authorization header (never its value)
//   --throttle STATUS    the first request for each method and URL (query
//                        included) is answered STATUS (429 or 503) with
//                        Retry-After (below), its body read and dropped
//   --retry-after VALUE  the Retry-After value: seconds (default 1), or
//                        "date+N": an HTTP-date N seconds from now
//   --auth USER:PASS     401 with WWW-Authenticate: Basic realm="front" to
//                        every request without these Basic credentials
//                        (the header is passed on to the server)
//   --cors               answer CORS preflights (OPTIONS) and let any page
//                        origin read the responses: a page on another origin
//                        can reach a server that knows nothing of CORS
//                        (Dulwich's) through the front
//   --framing F          response bodies: chunked (the default for Node),
//                        length (Content-Length), close (neither: the body
//                        ends when the connection closes)
//
// LOG LINES: "METHOD PATH STATUS BYTES GZIP PROTOCOL": BYTES the response
// body's bytes as sent (after gzip), GZIP 1 or 0, PROTOCOL the Git-Protocol
// header the server got ("-" for none). Credentials are never logged.
//
// Stop it with SIGTERM (or SIGINT): it closes every connection and exits 0.
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import process from 'node:process';
import zlib from 'node:zlib';
import { HOST } from './lifecycle.mjs';

const opt = { port: 0, framing: 'chunked', retryAfter: '1' };
const argv = process.argv.slice(2);
for (let i = 0; i < argv.length; i++) {
	const a = argv[i];
	const take = () => {
		if (i + 1 >= argv.length) usage(`${a} needs a value`);
		return argv[++i];
	};
	switch (a) {
	case '--target': opt.target = take(); break;
	case '--port': opt.port = Number(take()); break;
	case '--port-file': opt.portFile = take(); break;
	case '--pid-file': opt.pidFile = take(); break;
	case '--log': opt.log = take(); break;
	case '--log-auth': opt.logAuth = take(); break;
	case '--record': opt.record = take(); break;
	case '--gzip': opt.gzip = true; break;
	case '--drop-protocol': opt.dropProtocol = true; break;
	case '--pin-protocol': opt.pinProtocol = take(); break;
	case '--redirect': opt.redirect = take(); break;
	case '--throttle': opt.throttle = Number(take()); break;
	case '--retry-after': opt.retryAfter = take(); break;
	case '--auth': opt.auth = take(); break;
	case '--framing': opt.framing = take(); break;
	case '--cors': opt.cors = true; break;
	default: usage(`unknown argument ${a}`);
	}
}
function usage(msg) {
	process.stderr.write(`front-proxy: ${msg}\n`);
	process.exit(2);
}
if (!Number.isInteger(opt.port) || opt.port < 0 || opt.port > 65535) usage('bad --port');
let target;
try {
	target = new URL(opt.target);
} catch {
	usage('--target must be a URL such as http://127.0.0.1:8080');
}
if (target.protocol !== 'http:' || !['127.0.0.1', 'localhost'].includes(target.hostname)) {
	usage('--target must be http:// on 127.0.0.1');
}
if (!['chunked', 'length', 'close'].includes(opt.framing)) usage(`bad --framing ${opt.framing}`);
if (opt.throttle && ![429, 503].includes(opt.throttle)) usage('--throttle takes 429 or 503');
let from, to;
if (opt.redirect) {
	[from, to] = opt.redirect.split('=');
	if (!from?.startsWith('/') || !/^(\/|http:\/\/127\.0\.0\.1:\d+\/)/.test(to ?? '')) {
		usage('--redirect takes /FROM=/TO or /FROM=http://127.0.0.1:PORT/TO');
	}
}
if (opt.record) fs.mkdirSync(opt.record, { recursive: true });
const expected = opt.auth ? `Basic ${Buffer.from(opt.auth).toString('base64')}` : null;

const HOP = new Set(['connection', 'proxy-connection', 'keep-alive', 'te', 'trailer',
	'transfer-encoding', 'upgrade', 'host', 'content-length']);
const throttled = new Set();
let recorded = 0;

function log(line) {
	if (opt.log) fs.appendFileSync(opt.log, `${line}\n`);
}

function retryAfter() {
	const m = /^date\+(\d+)$/.exec(opt.retryAfter);
	if (!m) return opt.retryAfter;
	// HTTP-date has whole seconds: round up so the wait is never shorter
	return new Date(Math.ceil(Date.now() / 1000) * 1000 + Number(m[1]) * 1000).toUTCString();
}

function record(req, body) {
	if (!opt.record) return;
	let plain = body;
	try {
		if (/gzip/i.test(req.headers['content-encoding'] || '')) plain = zlib.gunzipSync(body);
	} catch {
		plain = body;
	}
	const head = [`${req.method} ${req.url}`];
	for (const h of ['git-protocol', 'content-type', 'content-encoding', 'accept']) {
		if (req.headers[h] !== undefined) head.push(`${h}: ${req.headers[h]}`);
	}
	const name = path.join(opt.record, `${String(++recorded).padStart(4, '0')}.req`);
	fs.writeFileSync(name, Buffer.concat([Buffer.from(`${head.join('\n')}\n\n`), plain]));
}

// Send a whole response with the framing asked for, gzipped if allowed.
function send(req, res, status, headers, body, protocol) {
	const out = { ...headers };
	if (opt.cors) {
		out['access-control-allow-origin'] = req.headers.origin || '*';
		out['access-control-expose-headers'] = 'Content-Type, Retry-After, WWW-Authenticate';
	}
	let gz = 0;
	if (opt.gzip && body.length && /\bgzip\b/i.test(req.headers['accept-encoding'] || '') &&
	    !out['content-encoding']) {
		body = zlib.gzipSync(body);
		out['content-encoding'] = 'gzip';
		gz = 1;
	}
	if (opt.framing === 'length') {
		out['content-length'] = String(body.length);
	} else if (opt.framing === 'close') {
		// neither length nor chunks: the body ends with the connection
		res.useChunkedEncodingByDefault = false;
		res.shouldKeepAlive = false;
		out.connection = 'close';
	}
	log(`${req.method} ${req.url} ${status} ${body.length} ${gz} ${protocol ?? '-'}`);
	res.writeHead(status, out);
	res.end(body);
}

const server = http.createServer((req, res) => {
	const chunks = [];
	req.on('data', (c) => chunks.push(c));
	req.on('end', () => handle(req, res, Buffer.concat(chunks)));
});

function handle(req, res, body) {
	const plain = (status, text, headers = {}) =>
		send(req, res, status, { 'content-type': 'text/plain', ...headers }, Buffer.from(text));
	if (opt.cors && req.method === 'OPTIONS') {
		return send(req, res, 204, {
			'access-control-allow-methods': 'GET, POST',
			'access-control-allow-headers': req.headers['access-control-request-headers'] || '*',
			'access-control-max-age': '600',
		}, Buffer.alloc(0));
	}
	record(req, body);
	if (opt.logAuth) {
		fs.appendFileSync(opt.logAuth, `${req.method} ${req.url} ${req.headers.authorization ? 'yes' : 'no'}\n`);
	}
	if (expected && req.headers.authorization !== expected) {
		return plain(401, 'credentials needed\n', { 'www-authenticate': 'Basic realm="front"' });
	}
	const key = `${req.method} ${req.url}`;
	if (opt.throttle && !throttled.has(key)) {
		throttled.add(key);
		return plain(opt.throttle, 'slow down\n', { 'retry-after': retryAfter() });
	}
	const upPath = req.url;
	if (from && req.url.startsWith(from)) {
		if (req.method === 'GET' && /\/info\/refs(\?|$)/.test(req.url)) {
			return plain(301, 'moved\n', { location: to + req.url.slice(from.length) });
		}
		return plain(404, 'not here any more\n');
	}
	const headers = {};
	for (const [k, v] of Object.entries(req.headers)) if (!HOP.has(k)) headers[k] = v;
	if (opt.dropProtocol) delete headers['git-protocol'];
	if (opt.pinProtocol) headers['git-protocol'] = `version=${opt.pinProtocol}`;
	// the server's own gzip would hide ours; ask it for plain bytes
	delete headers['accept-encoding'];
	headers['content-length'] = String(body.length);
	const up = http.request({
		host: target.hostname, port: target.port, method: req.method, path: upPath, headers,
	}, (ur) => {
		const back = [];
		ur.on('data', (c) => back.push(c));
		ur.on('end', () => {
			const h = {};
			for (const [k, v] of Object.entries(ur.headers)) if (!HOP.has(k)) h[k] = v;
			send(req, res, ur.statusCode, h, Buffer.concat(back), headers['git-protocol']);
		});
	});
	up.on('error', (err) => plain(502, `bad gateway: ${err.message}\n`));
	up.end(body);
}

server.on('error', (err) => {
	process.stderr.write(`front-proxy: ${err.message}\n`);
	process.exit(1);
});
server.listen(opt.port, HOST, () => {
	const bound = server.address().port;
	if (opt.pidFile) fs.writeFileSync(opt.pidFile, `${process.pid}\n`);
	if (opt.portFile) {
		fs.writeFileSync(`${opt.portFile}.tmp`, `${bound}\n`);
		fs.renameSync(`${opt.portFile}.tmp`, opt.portFile);
	}
	process.stdout.write(`listening on http://${HOST}:${bound}\n`);
});
const stop = () => {
	server.close();
	server.closeAllConnections();
	process.exit(0);
};
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
