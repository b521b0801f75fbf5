#!/usr/bin/env node
// tests/server/mock-http.mjs — a scriptable HTTP/1.1 server for the native
// HTTP client's interop test (tests/interop/t11-http-client.sh). Node 20, no
// npm dependencies. It listens on 127.0.0.1 only.
//
// Most endpoints answer through node:http/node:https; the ones that must
// misbehave in ways node:http never would (chunk extensions, split writes,
// bad chunk sizes, endless headers, stalls) write raw bytes to the socket and
// then close it.
//
// USAGE
//   node tests/server/mock-http.mjs --port-file FILE [--cert PEM --key PEM]
//        [--parent PID] [--lifetime SECONDS]
//
//   --port-file FILE  written atomically once listening: "http PORT" and,
//                     with --cert/--key, "https PORT" lines
//   --cert, --key     also serve HTTPS with this certificate and key
//   --parent PID      exit when process PID is gone (so a test that dies
//                     never leaves the server behind)
//   --lifetime S      exit after S seconds whatever happens (default 600)
//
// ENDPOINTS (any method unless noted; request bodies are always read)
//   /text                 "hello, world\n", Content-Length, X-Mock-Name: mock
//   /conn                 the id of the TCP connection serving the request
//   /lines                "line 1\n" .. "line 20000\n", chunked (many writes)
//   /lines-gzip           the same gzipped with Content-Length; 400 unless the
//                         request said Accept-Encoding: gzip
//   /lines-gzip-chunked   the same gzipped through a stream, chunked
//   /chunk-ext            raw: chunks with extensions, split across writes,
//                         and a trailer: "hello world, split\n"
//   /trickle              raw: a gzipped chunked response, one byte per write
//   /close-delimited      raw: no length, body ends when the socket closes
//   /early-hints          raw: a 103 response, then the 200
//   /http10               raw: an HTTP/1.0 response (not kept alive)
//   /close-header         200 with Connection: close
//   /echo                 the request body (gunzipped if Content-Encoding:
//                         gzip) with X-Method, X-Body-Encoding (gzip|identity),
//                         X-Body-Framing (chunked|length|none), X-Body-Bytes
//                         (bytes on the wire)
//   /method               "<METHOD>\n" followed by the request body
//   /redir/N              N > 0: 302 to /redir/N-1 (odd N: an absolute
//                         Location, even N: a relative one); N = 0: "arrived\n"
//   /status/CODE?to=PATH  answers CODE, with Location: PATH if given
//   /cross                302 to http://localhost:PORT/text (another host)
//   /cross-port           302 to http://127.0.0.1:1/text
//   /cross-scheme         302 to the other scheme on this port
//   /private              Basic alice:"p@ss word" -> "welcome alice\n", else
//                         401 with WWW-Authenticate: Basic realm="mock"
//   /bearer               Bearer tok-123 -> "token ok\n", else 401 Bearer
//   /sni                  the TLS server name the client sent
//   /arm-hangup           "armed\n"; the next request on this connection is
//                         answered by closing the connection
//   /drop-after           "dropped\n", then the connection is closed
//   /hangup               closes the connection without answering
//   /short                raw: Content-Length 100, 10 bytes, close
//   /stall                raw: Content-Length 100, 10 bytes, then silence
//   /stall-head           silence
//   /endless-header       raw: a status line and headers that never end
//   /bad-chunk/KIND       raw chunked body with a bad chunk size line:
//                         zz, 5x, neg, overflow, space, empty, long
//   /bad-gzip             Content-Encoding: gzip with bytes that are not gzip
//   /gzip-bomb            Content-Encoding: gzip, 64 MiB of zeros in ~64 KiB
//   /unknown-encoding     Content-Encoding: br
//   /garbage              raw: not an HTTP status line
//   anything else         404

import fs from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import zlib from 'node:zlib';

let gzipBomb = null;

const args = process.argv.slice(2);
const opt = {};
for (let i = 0; i < args.length; i++) {
	const a = args[i];
	if (!a.startsWith('--') || i + 1 >= args.length) {
		console.error(`mock-http: bad argument ${a}`);
		process.exit(2);
	}
	opt[a.slice(2)] = args[++i];
}
if (!opt['port-file']) {
	console.error('mock-http: --port-file is required');
	process.exit(2);
}

const HOST = '127.0.0.1';
const LINES = Array.from({ length: 20000 }, (_, i) => `line ${i + 1}\n`).join('');
let connections = 0;
const ports = {};

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

function readBody(req) {
	return new Promise((resolve, reject) => {
		const parts = [];
		req.on('data', (d) => parts.push(d));
		req.on('end', () => resolve(Buffer.concat(parts)));
		req.on('error', reject);
	});
}

function send(res, status, body, headers = {}) {
	const buf = Buffer.isBuffer(body) ? body : Buffer.from(body);
	res.writeHead(status, { 'Content-Type': 'text/plain', 'Content-Length': buf.length, ...headers });
	res.end(buf);
}

// Raw responses: write bytes ourselves, in pieces with pauses so they
// arrive as separate TCP segments, then close the connection.
async function raw(req, pieces, { close = true, pause = 30 } = {}) {
	const sock = req.socket;
	sock.setNoDelay(true);
	for (const p of pieces) {
		if (sock.destroyed) return;
		sock.write(p);
		await sleep(pause);
	}
	if (close) sock.end();
}

function basicOk(req) {
	const h = req.headers.authorization || '';
	const m = /^Basic\s+(\S+)$/i.exec(h);
	return m && Buffer.from(m[1], 'base64').toString('utf8') === 'alice:p@ss word';
}

async function handle(req, res, scheme) {
	const url = new URL(req.url, `${scheme}://${req.headers.host || HOST}`);
	const path = url.pathname;
	const sock = req.socket;

	if (sock.hangupNext) {
		sock.destroy();
		return;
	}
	const body = await readBody(req);

	switch (path) {
	case '/text':
		return send(res, 200, 'hello, world\n', { 'X-Mock-Name': 'mock' });
	case '/conn':
		return send(res, 200, `${sock.connId}\n`);
	case '/lines': {
		res.writeHead(200, { 'Content-Type': 'text/plain' });
		// many writes of odd sizes, so chunks do not line up with anything
		for (let i = 0; i < LINES.length; i += 7777) res.write(LINES.slice(i, i + 7777));
		return res.end();
	}
	case '/lines-gzip': {
		if (!/\bgzip\b/.test(req.headers['accept-encoding'] || ''))
			return send(res, 400, 'client did not accept gzip\n');
		return send(res, 200, zlib.gzipSync(LINES), { 'Content-Encoding': 'gzip' });
	}
	case '/lines-gzip-chunked': {
		res.writeHead(200, { 'Content-Type': 'text/plain', 'Content-Encoding': 'gzip' });
		const gz = zlib.createGzip({ chunkSize: 4096 });
		gz.pipe(res);
		for (let i = 0; i < LINES.length; i += 10000) gz.write(LINES.slice(i, i + 10000));
		return gz.end();
	}
	case '/chunk-ext':
		return raw(req, [
			'HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n',
			'6;name=value\r\nhel', 'lo \r\n', '0000C ; a=1; b="q;uoted"\r\nworld, split',
			'\r\n1\r\n\n', '\r\n', '0\r\nX-Trailer: yes\r\n', '\r\n',
		]);
	case '/trickle': {
		// every byte its own write: headers, chunk size lines (with
		// extensions) and gzip data split at every offset
		const gz = zlib.gzipSync('one byte at a time\n');
		let chunked = '';
		for (let i = 0; i < gz.length; i += 7) {
			const part = gz.subarray(i, i + 7);
			chunked += `${part.length.toString(16)};n=${i}\r\n${part.toString('latin1')}\r\n`;
		}
		const text = 'HTTP/1.1 200 OK\r\nContent-Encoding: gzip\r\n' +
			'Transfer-Encoding: chunked\r\nConnection: close\r\n\r\n' + chunked + '0\r\n\r\n';
		return raw(req, [...Buffer.from(text, 'latin1')].map((b) => Buffer.from([b])), { pause: 2 });
	}
	case '/close-delimited':
		return raw(req, ['HTTP/1.1 200 OK\r\nConnection: close\r\n\r\nuntil ', 'the ', 'end\n']);
	case '/early-hints':
		return raw(req, [
			'HTTP/1.1 103 Early Hints\r\nLink: </style.css>; rel=preload\r\n\r\n',
			'HTTP/1.1 200 OK\r\nContent-Length: 12\r\nConnection: close\r\n\r\nafter hints\n',
		]);
	case '/http10':
		return raw(req, ['HTTP/1.0 200 OK\r\nContent-Length: 7\r\n\r\nold ok\n'], { close: false });
	case '/close-header':
		return send(res, 200, 'bye\n', { Connection: 'close' });
	case '/echo': {
		const enc = req.headers['content-encoding'] || 'identity';
		let out = body;
		if (enc === 'gzip') {
			try {
				out = zlib.gunzipSync(body);
			} catch (e) {
				return send(res, 400, `bad gzip body: ${e.message}\n`);
			}
		} else if (enc !== 'identity') {
			return send(res, 400, `unexpected Content-Encoding ${enc}\n`);
		}
		const framing = req.headers['transfer-encoding'] === 'chunked' ? 'chunked'
			: req.headers['content-length'] !== undefined ? 'length' : 'none';
		return send(res, 200, out, {
			'X-Method': req.method, 'X-Body-Encoding': enc,
			'X-Body-Framing': framing, 'X-Body-Bytes': String(body.length),
		});
	}
	case '/method':
		return send(res, 200, Buffer.concat([Buffer.from(`${req.method}\n`), body]));
	case '/cross':
		return send(res, 302, 'away\n', { Location: `http://localhost:${sock.localPort}/text` });
	case '/cross-port':
		return send(res, 302, 'away\n', { Location: 'http://127.0.0.1:1/text' });
	case '/cross-scheme': {
		const other = scheme === 'https' ? 'http' : 'https';
		return send(res, 302, 'away\n', { Location: `${other}://127.0.0.1:${sock.localPort}/text` });
	}
	case '/private':
		if (basicOk(req)) return send(res, 200, 'welcome alice\n');
		return send(res, 401, 'who are you?\n', { 'WWW-Authenticate': 'Basic realm="mock"' });
	case '/bearer':
		if (req.headers.authorization === 'Bearer tok-123') return send(res, 200, 'token ok\n');
		return send(res, 401, 'token please\n', { 'WWW-Authenticate': 'Bearer realm="mock"' });
	case '/sni':
		return send(res, 200, `${sock.servername || '(none)'}\n`);
	case '/arm-hangup':
		sock.hangupNext = true;
		return send(res, 200, 'armed\n');
	case '/drop-after':
		res.on('finish', () => sock.destroy());
		return send(res, 200, 'dropped\n');
	case '/hangup':
		return sock.destroy();
	case '/short':
		return raw(req, ['HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\n', '0123456789']);
	case '/stall':
		await raw(req, ['HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\n', '0123456789'], { close: false });
		return;  // the socket stays open until the client gives up
	case '/stall-head':
		return;
	case '/endless-header': {
		sock.write('HTTP/1.1 200 OK\r\n');
		const line = `X-Filler: ${'a'.repeat(1000)}\r\n`;
		const pump = () => {
			while (!sock.destroyed && sock.write(line)) { /* until the buffer is full */ }
		};
		sock.on('drain', pump);
		sock.on('close', () => sock.removeListener('drain', pump));
		return pump();
	}
	case '/bad-gzip':
		return send(res, 200, 'this is not gzip at all\n', { 'Content-Encoding': 'gzip' });
	case '/gzip-bomb':
		// 64 MiB of zeros in about 64 KiB: over the core's max_inflate_ratio
		return send(res, 200, (gzipBomb ??= zlib.gzipSync(Buffer.alloc(64 << 20), { level: 9 })),
			{ 'Content-Encoding': 'gzip' });
	case '/unknown-encoding':
		return send(res, 200, 'brotli, supposedly\n', { 'Content-Encoding': 'br' });
	case '/garbage':
		return raw(req, ['HTCPCP/1.0 418 I am a teapot\r\n\r\n']);
	default:
		break;
	}

	let m;
	if ((m = /^\/redir\/(\d+)$/.exec(path))) {
		const n = Number(m[1]);
		if (n === 0) return send(res, 200, 'arrived\n');
		const loc = n % 2 ? `${scheme}://${req.headers.host}/redir/${n - 1}` : `${n - 1}`;
		return send(res, 302, 'moved\n', { Location: loc });
	}
	if ((m = /^\/status\/(\d{3})$/.exec(path))) {
		const to = url.searchParams.get('to');
		return send(res, Number(m[1]), Number(m[1]) === 204 ? '' : 'status\n', to ? { Location: to } : {});
	}
	if ((m = /^\/bad-chunk\/(\w+)$/.exec(path))) {
		const bad = {
			zz: 'zz\r\nhello\r\n', '5x': '5x\r\nhello\r\n', neg: '-5\r\nhello\r\n',
			overflow: '1ffffffffffffffff\r\nhello\r\n', space: ' 5\r\nhello\r\n',
			empty: '\r\nhello\r\n', long: '3\r\nhello\r\n', lf: '5\nhello\r\n',
		}[m[1]];
		if (bad === undefined) return send(res, 404, 'no such kind\n');
		return raw(req, ['HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n', bad, '0\r\n\r\n']);
	}
	return send(res, 404, 'not found\n');
}

function serve(server, scheme) {
	const onConn = (sock) => {
		sock.connId = ++connections;
		sock.on('error', () => {});  // clients that hang up are expected
	};
	server.on(scheme === 'https' ? 'secureConnection' : 'connection', onConn);
	server.on('clientError', (err, sock) => sock.destroy());
	server.on('request', (req, res) => {
		handle(req, res, scheme).catch((e) => {
			console.error(`mock-http: ${req.method} ${req.url}: ${e.stack}`);
			if (!res.headersSent) send(res, 500, 'mock error\n');
		});
	});
	return new Promise((resolve) => {
		server.listen(0, HOST, () => {
			ports[scheme] = server.address().port;
			resolve();
		});
	});
}

const servers = [http.createServer()];
const started = [serve(servers[0], 'http')];
if (opt.cert && opt.key) {
	const s = https.createServer({ cert: fs.readFileSync(opt.cert), key: fs.readFileSync(opt.key) });
	servers.push(s);
	started.push(serve(s, 'https'));
}
await Promise.all(started);

const text = Object.entries(ports).map(([k, v]) => `${k} ${v}\n`).join('');
fs.writeFileSync(`${opt['port-file']}.tmp`, text);
fs.renameSync(`${opt['port-file']}.tmp`, opt['port-file']);

const quit = () => process.exit(0);
process.on('SIGTERM', quit);
process.on('SIGINT', quit);
setTimeout(quit, Number(opt.lifetime || 600) * 1000).unref();
if (opt.parent) {
	setInterval(() => {
		try {
			process.kill(Number(opt.parent), 0);
		} catch {
			quit();
		}
	}, 500).unref();
}
