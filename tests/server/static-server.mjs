#!/usr/bin/env node
// tests/server/static-server.mjs — a static file server, as S3, R2 or any
// web host serves a bare repository published with `git update-server-info`
// (no Git server behind it), for the Range reads of
// core/remote/static_read.c (tests/interop/t39-static-read.sh,
// tests/js/static-read.test.mjs). Node 20, no npm dependencies, 127.0.0.1
// only.
//
// USAGE
//   node tests/server/static-server.mjs --root DIR [--port N] [--port-file F]
//        [--pid-file F] [--log F] [--parent PID] [--ignore-range]
//
//   --root DIR        the files served: GET /a/b is DIR/a/b (the query is
//                     ignored, as static hosts ignore git's
//                     "?service=git-upload-pack"); nothing outside DIR
//   --log FILE        one line per response: "METHOD PATH STATUS BYTES",
//                     BYTES the body bytes written (a test sums them)
//   --ignore-range    answer every request with the whole file (200), as a
//                     host without byte-range support does
//   --parent PID      exit when process PID is gone
//
// RANGES: one "bytes=a-b", "bytes=a-" or "bytes=-n" range gets 206 with
// Content-Range (b clamped to the last byte), one that starts past the end
// 416 with "Content-Range: bytes */size"; several ranges, or a malformed
// header, get the whole file (200), as RFC 9110 allows.
//
// Stop it with SIGTERM (or SIGINT).
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import process from 'node:process';
import { parseServerArgs, serve } from './lifecycle.mjs';

function usage(msg) {
	if (msg) process.stderr.write(`static-server: ${msg}\n`);
	process.stderr.write('usage: static-server.mjs --root DIR [--port N] [--port-file F] ' +
		'[--pid-file F] [--log F] [--parent PID] [--ignore-range]\n');
	process.exit(2);
}

const opt = parseServerArgs(process.argv.slice(2), usage, {
	values: [['--parent', 'parent']],
	flags: [['--ignore-range', 'ignoreRange']],
});

function log(line) {
	if (opt.log) fs.appendFileSync(opt.log, `${line}\n`);
}

function parseRange(header, size) {
	const m = /^bytes=(\d*)-(\d*)$/.exec(header.trim());
	if (!m || (m[1] === '' && m[2] === '')) return null;
	if (m[1] === '') {
		const n = Math.min(Number(m[2]), size);
		return { start: size - n, end: size - 1 };
	}
	const start = Number(m[1]);
	const end = m[2] === '' ? size - 1 : Math.min(Number(m[2]), size - 1);
	if (m[2] !== '' && Number(m[2]) < start) return null;
	return { start, end };
}

const server = http.createServer((req, res) => {
	const url = new URL(req.url, 'http://127.0.0.1');
	let written = 0;
	let status = 0;
	res.on('close', () => log(`${req.method} ${url.pathname} ${status} ${written}`));
	const send = (code, headers, body) => {
		status = code;
		res.writeHead(code, headers);
		if (body && req.method !== 'HEAD') {
			written += Buffer.byteLength(body);
			res.end(body);
		} else res.end();
	};
	if (req.method !== 'GET' && req.method !== 'HEAD') {
		return send(405, { 'Content-Type': 'text/plain', Allow: 'GET, HEAD' }, 'method not allowed\n');
	}
	let rel;
	try {
		rel = decodeURIComponent(url.pathname);
	} catch {
		return send(400, { 'Content-Type': 'text/plain' }, 'bad path\n');
	}
	const file = path.resolve(opt.root, `.${rel}`);
	if (file !== opt.root && !file.startsWith(opt.root + path.sep)) {
		return send(403, { 'Content-Type': 'text/plain' }, 'forbidden\n');
	}
	let st;
	try {
		st = fs.statSync(file);
	} catch {
		st = null;
	}
	if (!st || !st.isFile()) return send(404, { 'Content-Type': 'text/html' }, '<h1>404 Not Found</h1>\n');
	const size = st.size;
	let start = 0;
	let end = size - 1;
	const headers = { 'Content-Type': 'application/octet-stream', 'Accept-Ranges': 'bytes' };
	const range = !opt.ignoreRange && req.headers.range ? parseRange(req.headers.range, size) : null;
	if (opt.ignoreRange) delete headers['Accept-Ranges'];
	if (range) {
		if (range.start >= size) {
			return send(416, { 'Content-Type': 'text/plain', 'Content-Range': `bytes */${size}` },
				'range not satisfiable\n');
		}
		({ start, end } = range);
		status = 206;
		headers['Content-Range'] = `bytes ${start}-${end}/${size}`;
	} else status = 200;
	headers['Content-Length'] = String(Math.max(0, end - start + 1));
	res.writeHead(status, headers);
	if (req.method === 'HEAD' || end < start) return res.end();
	const stream = fs.createReadStream(file, { start, end });
	stream.on('data', (chunk) => {
		written += chunk.length;
		if (!res.write(chunk)) {
			stream.pause();
			res.once('drain', () => stream.resume());
		}
	});
	stream.on('end', () => res.end());
	stream.on('error', () => res.destroy());
	res.on('close', () => stream.destroy());
});

serve(server, { name: 'static-server', port: opt.port, pidFile: opt.pidFile, portFile: opt.portFile, children: new Set() });

if (opt.parent) {
	const parent = Number(opt.parent);
	setInterval(() => {
		try { process.kill(parent, 0); } catch { process.exit(0); }
	}, 1000).unref();
}
