#!/usr/bin/env node
// tests/server/proxy.mjs — a small HTTP proxy for the native client's proxy
// test (tests/interop/t19-http-proxy.sh). Node 20, no npm dependencies. It
// listens on 127.0.0.1 only and forwards only to 127.0.0.1 and localhost, so
// a test can never make it reach further.
//
// USAGE
//   node tests/server/proxy.mjs --port-file FILE [--pid-file FILE] [--log FILE]
//        [--auth USER:PASS] [--deny-connect] [--parent PID] [--port N]
//
//   --port-file FILE  written atomically once listening: the port
//   --pid-file FILE   the proxy's PID
//   --log FILE        one line per proxied request or tunnel (below)
//   --auth USER:PASS  require "Proxy-Authorization: Basic" with these, else
//                     407 with Proxy-Authenticate: Basic realm="test-proxy"
//   --deny-connect    answer every CONNECT with 403 (a proxy whose policy
//                     refuses tunnels)
//   --parent PID      exit when process PID is gone (a test that dies never
//                     leaves the proxy behind)
//
// WHAT IT DOES
//   GET/POST/... with an absolute-form target (http://host:port/path): the
//     request goes on to host:port (hop-by-hop headers and
//     Proxy-Authorization removed), the response comes back streamed.
//   CONNECT host:port: 200, then bytes both ways until either side closes.
//   Anything else (an origin-form target "/path", another host): 400/403.
//
// LOG LINES: "<METHOD> <target> <status>" when a response head went back
// (for CONNECT, 200 once the tunnel is up), "CLOSED CONNECT <target> <up>
// <down>" with the bytes each way when a tunnel ends. Proxy-Authorization
// values are never logged.
//
// Stop it with SIGTERM (or SIGINT): it closes every connection and tunnel
// and exits 0.
import fs from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import process from 'node:process';
import { serve } from './lifecycle.mjs';

const opt = { port: 0 };
const argv = process.argv.slice(2);
for (let i = 0; i < argv.length; i++) {
	const a = argv[i];
	const take = () => {
		if (i + 1 >= argv.length) usage(`${a} needs a value`);
		return argv[++i];
	};
	switch (a) {
	case '--port': opt.port = Number(take()); break;
	case '--port-file': opt.portFile = take(); break;
	case '--pid-file': opt.pidFile = take(); break;
	case '--log': opt.log = take(); break;
	case '--auth': opt.auth = take(); break;
	case '--parent': opt.parent = Number(take()); break;
	case '--deny-connect': opt.denyConnect = true; break;
	default: usage(`unknown argument ${a}`);
	}
}
function usage(msg) {
	process.stderr.write(`proxy: ${msg}\n`);
	process.exit(2);
}
if (!Number.isInteger(opt.port) || opt.port < 0 || opt.port > 65535) usage('bad --port');

const LOCAL = new Set(['127.0.0.1', 'localhost', '[::1]', '::1']);
const HOP = new Set(['connection', 'proxy-connection', 'keep-alive', 'proxy-authorization',
	'proxy-authenticate', 'te', 'trailer', 'transfer-encoding', 'upgrade']);
const expected = opt.auth ? `Basic ${Buffer.from(opt.auth).toString('base64')}` : null;

function log(line) {
	if (opt.log) fs.appendFileSync(opt.log, `${line}\n`);
}

function authorized(req) {
	return !expected || req.headers['proxy-authorization'] === expected;
}

const sockets = new Set();
const server = http.createServer();
server.on('connection', (s) => { sockets.add(s); s.on('close', () => sockets.delete(s)); });

server.on('request', (req, res) => {
	const refuse = (status, text, headers = {}) => {
		log(`${req.method} ${req.url} ${status}`);
		res.writeHead(status, { 'Content-Type': 'text/plain', ...headers });
		res.end(text);
	};
	let target;
	try {
		target = new URL(req.url);
	} catch {
		return refuse(400, 'a proxy needs an absolute URL\n');
	}
	if (target.protocol !== 'http:') return refuse(400, 'only http:// targets\n');
	if (!LOCAL.has(target.hostname)) return refuse(403, 'only local targets\n');
	if (!authorized(req)) {
		return refuse(407, 'proxy credentials needed\n',
			{ 'Proxy-Authenticate': 'Basic realm="test-proxy"' });
	}
	const headers = {};
	for (const [k, v] of Object.entries(req.headers)) if (!HOP.has(k)) headers[k] = v;
	const up = http.request({
		host: target.hostname, port: target.port || 80, method: req.method,
		path: `${target.pathname}${target.search}`, headers,
	}, (ur) => {
		const back = {};
		for (const [k, v] of Object.entries(ur.headers)) if (!HOP.has(k)) back[k] = v;
		log(`${req.method} ${req.url} ${ur.statusCode}`);
		res.writeHead(ur.statusCode, back);
		ur.pipe(res);
	});
	up.on('error', (err) => {
		if (!res.headersSent) refuse(502, `bad gateway: ${err.message}\n`);
		else res.destroy();
	});
	req.pipe(up);
});

server.on('connect', (req, client, head) => {
	sockets.add(client);
	client.on('close', () => sockets.delete(client));
	client.on('error', () => {});
	const answer = (status, reason, extra = '') => {
		log(`CONNECT ${req.url} ${status}`);
		client.end(`HTTP/1.1 ${status} ${reason}\r\n${extra}Content-Length: 0\r\n\r\n`);
	};
	const m = /^(\[[^\]]+\]|[^:]+):(\d+)$/.exec(req.url);
	if (!m) return answer(400, 'Bad Request');
	if (opt.denyConnect) return answer(403, 'Forbidden');
	if (!LOCAL.has(m[1])) return answer(403, 'Forbidden');
	if (!authorized(req)) {
		return answer(407, 'Proxy Authentication Required',
			'Proxy-Authenticate: Basic realm="test-proxy"\r\n');
	}
	const host = m[1].replace(/^\[|\]$/g, '');
	const up = net.connect(Number(m[2]), host, () => {
		log(`CONNECT ${req.url} 200`);
		client.write('HTTP/1.1 200 Connection established\r\n\r\n');
		if (head.length) up.write(head);
		up.pipe(client);
		client.pipe(up);
	});
	sockets.add(up);
	let upBytes = 0, downBytes = 0;
	client.on('data', (d) => { upBytes += d.length; });
	up.on('data', (d) => { downBytes += d.length; });
	up.on('close', () => {
		sockets.delete(up);
		log(`CLOSED CONNECT ${req.url} ${upBytes} ${downBytes}`);
		client.destroy();
	});
	up.on('error', () => {
		if (!client.writableEnded && upBytes === 0 && downBytes === 0) answer(502, 'Bad Gateway');
		client.destroy();
	});
	client.on('close', () => up.destroy());
});

serve(server, {
	name: 'proxy', port: opt.port, pidFile: opt.pidFile, portFile: opt.portFile,
	children: new Set(),
	finish: (done) => {
		for (const s of sockets) s.destroy();
		done();
	},
});

if (opt.parent) {
	setInterval(() => {
		try { process.kill(opt.parent, 0); } catch { process.exit(0); }
	}, 500).unref();
}
