#!/usr/bin/env node
// tests/server/hostile-server.mjs — a scripted HOSTILE smart-HTTP Git server
// for tests. Node 20, no npm dependencies, 127.0.0.1 only.
//
// It answers every Git request with what the reference `git http-backend`
// answers (so the bytes start out real: protocol v2 and v0, sha1 and sha256,
// files and reftable repositories), and then corrupts that answer according
// to a SCENARIO chosen by the first part of the URL path. Clients under test
// must fail cleanly: a clear error, no crash, no hang, nothing left behind.
//
// USAGE
//   node tests/server/hostile-server.mjs --root DIR [options]
//
//   --root DIR        directory holding the repositories (GIT_PROJECT_ROOT)
//   --host 127.0.0.1  the only address accepted
//   --port N          port to listen on; 0 (the default) picks a free one
//   --pid-file FILE   write the server's PID to FILE
//   --port-file FILE  write the port to FILE once listening (atomically)
//   --git PATH        the git whose http-backend runs (default: git on PATH)
//   --log FILE        append one line per request (format below)
//
// URL LAYOUT
//   http://127.0.0.1:PORT/<scenario>[@<phase>]/<repo>.git/...      protocol v2
//   http://127.0.0.1:PORT/v0/<scenario>[@<phase>]/<repo>.git/...   protocol v0
//
// Under /v0/ the client's Git-Protocol header is not passed on, so
// upload-pack speaks v0 (a client asking for v2 falls back). <repo>.git is
// relative to --root.
//
// PHASES: which response of a clone a scenario corrupts. Every other
// response passes through untouched.
//   advert    GET info/refs?service=git-upload-pack (the advertisement: in v0
//             the refs, in v2 the capabilities)
//   ls-refs   a v2 POST git-upload-pack whose body says command=ls-refs
//   fetch     a v2 POST with command=fetch, or any v0 POST git-upload-pack
//   refs      where the refs are: ls-refs in v2, advert in v0
// Each scenario has a default phase; "<scenario>@<phase>" picks another.
//
// SCENARIOS (default phase in brackets)
//   ok                   nothing is corrupted (the control)
//   bad-pktline-length   [advert] a pkt-line length "00zz" (not hex); in the
//                        advert the third packet (v0: the first ref, after
//                        the service header and its flush; v2: a capability
//                        line), in ls-refs the first ref, in fetch a packet
//                        in the middle of the pack
//   short-length         [advert] the same packet's length is "0003"
//   overlong             [advert] the same packet's length is "fff1" (65521,
//                        over the 65520 maximum)
//   truncated-pack       [fetch] the response is cut in the middle of a
//                        pkt-line in the middle of the pack and the connection
//                        closed (the Content-Length promised the whole)
//   truncated-pack-eof   [fetch] cut at the same place, but the HTTP response
//                        ends cleanly there
//   truncated-advert     [advert] cut in the middle of that same third packet
//                        (ls-refs: of the first ref), the
//                        connection closed (chunked encoding, no last chunk)
//   truncated-advert-eof [advert] cut at the same place, the HTTP response
//                        ending cleanly
//   err-packet           [fetch] "ERR upload-pack: not our ref <id>" instead of
//                        the response (advert: after the service header, if
//                        the real response has one)
//   sideband-error       [fetch] a band-3 packet "fatal: boom" in the middle of
//                        the pack, and nothing after it
//   bad-band             [fetch] a packet on side-band 7 in the middle of the pack
//   shallow-unknown      [fetch] a depth request's shallow lines name a commit
//                        that does not exist; a request without depth gets
//                        such a shallow line added (v2: a shallow-info section)
//   bad-refname          [refs] an extra ref refs/heads/a..b
//   ctrl-refname         [refs] an extra ref refs/heads/a<U+0001>b
//   short-oid            [refs] refs/heads/main's id one hex digit short
//   other-hash-oid       [refs] refs/heads/main's id as long as the other
//                        hash's (64 hex digits in a sha1 repository, 40 in a
//                        sha256 one)
//   non-hex-oid          [refs] refs/heads/main's id with a 'g' in it
//   endless              [fetch] after the packfile section header (v0: NAK),
//                        progress packets on band 2, forever, as fast as the
//                        client reads them (until it disconnects)
//   endless-keepalive    [fetch] the same with empty band-1 keepalive packets
//   stall                [advert] a 200 with the right Content-Type, then no
//                        body and no end: the connection stays open
//   stall-mid-pack       [fetch] half the response, then nothing, never ending
//   wrong-content-type   [advert] the real body, but Content-Type text/html
//   http-500             [advert] 500 Internal Server Error
//   http-404             [advert] 404 Not Found
//   dumb-server          [advert] a 200 text/plain "hello\n"
//   dumb-body            [advert] a 200 with the smart Content-Type but the body
//                        "hello\n"
//   missing-object       [fetch] every "want" of the request is rewritten to a
//                        root commit, so the (valid) pack lacks the objects the
//                        advertised refs name
//   bad-pack-checksum    [fetch] one byte of the pack's trailing checksum flipped
//   corrupt-object       [fetch] one byte inside the first object's zlib data
//                        flipped (and the trailing checksum made right again)
//   pack-count-lie       [fetch] the pack header claims one object more than
//                        the pack has (checksum made right again)
//   pack-count-huge      [fetch] the pack header claims 4294967295 objects
//                        (checksum made right again)
//   huge-object          [fetch] the pack is replaced by one whose only entry,
//                        a commit, declares 2^40 bytes over a 5-byte zlib stream
//   huge-delta           [fetch] the pack is replaced by one holding a blob and
//                        an 8-byte OFS_DELTA on it that declares a 4 GiB result
//   inflate-bomb         [fetch] the pack is replaced by one holding a 64 MiB
//                        blob of zeros (about 64 KiB deflated, a ratio near 1000)
//   endless-refs         [refs] the real ref listing without its final flush,
//                        then ref lines (refs/heads/endless-N) forever
//   endless-shallow      [fetch] shallow lines (made-up ids) forever, for a
//                        clone with a depth: v2 in a shallow-info section, v0
//                        before the NAK
//   endless-line         [fetch] after the packfile section header (v0: NAK),
//                        band-2 progress text forever that never ends its line
//
// LOG LINES (--log), one per request, written before the response goes out:
//   METHOD PATH PHASE SCENARIO APPLIED|pass
// (APPLIED when the scenario corrupted this response.) Requests that are not
// upload-pack requests are answered 403 and logged with PHASE "-"; unknown
// scenarios are answered 404. The endless scenarios add, when the client has
// gone, a line "CLOSED PATH BYTES" with the body bytes written.
//
// On SIGTERM or SIGINT the server stops accepting, kills running CGIs, closes
// its connections (endless and stalled ones included) and exits 0.

import http from 'node:http';
import { spawn, execFileSync } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import process from 'node:process';
import { serve, parseServerArgs, findBackend, HOST } from './lifecycle.mjs';
import zlib from 'node:zlib';


function usage(msg) {
	if (msg) process.stderr.write(`hostile-server: ${msg}\n`);
	process.stderr.write('usage: hostile-server.mjs --root DIR [--host 127.0.0.1] [--port N] ' +
		'[--pid-file FILE] [--port-file FILE] [--git PATH] [--log FILE]\n');
	process.exit(2);
}


const opt = parseServerArgs(process.argv.slice(2), usage);

const backend = findBackend(opt.git, usage);

function log(line) {
	if (opt.log) fs.appendFileSync(opt.log, line + '\n');
}

// ---- pkt-lines -------------------------------------------------------------

const FLUSH = Buffer.from('0000');
const DELIM = Buffer.from('0001');

function pkt(data) {
	const b = Buffer.isBuffer(data) ? data : Buffer.from(data, 'latin1');
	return Buffer.concat([Buffer.from((b.length + 4).toString(16).padStart(4, '0')), b]);
}

function band(n, data) {
	const b = Buffer.isBuffer(data) ? data : Buffer.from(data, 'latin1');
	return pkt(Buffer.concat([Buffer.from([n]), b]));
}

// Split a (well-formed: it comes from git) pkt-line stream into packets:
// { len, data, raw }, len 0/1/2 for flush/delim/response-end. Any bytes
// that do not form a packet end up in one last { len: -1, raw }.
function parsePkts(buf) {
	const out = [];
	let i = 0;
	while (i < buf.length) {
		const h = buf.subarray(i, i + 4).toString('latin1');
		const n = /^[0-9a-f]{4}$/.test(h) ? parseInt(h, 16) : -1;
		if (n < 0 || n === 3 || i + Math.max(n, 4) > buf.length) {
			out.push({ len: -1, raw: buf.subarray(i) });
			break;
		}
		if (n <= 2) {
			out.push({ len: n, data: Buffer.alloc(0), raw: buf.subarray(i, i + 4) });
			i += 4;
		} else {
			out.push({ len: n, data: buf.subarray(i + 4, i + n), raw: buf.subarray(i, i + n) });
			i += n;
		}
	}
	return out;
}

const joinPkts = (pkts) => Buffer.concat(pkts.map((p) => p.raw));
const mkPkt = (data) => { const raw = pkt(data); return { len: raw.length, data: raw.subarray(4), raw }; };
const text = (p) => p.data.toString('latin1');

// Replace the 4-byte length of packet `index` with `header`, keeping its data.
function withHeader(pkts, index, header) {
	return Buffer.concat(pkts.map((p, i) => i === index ?
		Buffer.concat([Buffer.from(header, 'latin1'), p.raw.subarray(4)]) : p.raw));
}

// Byte offset of packet `index` in the serialized stream.
function offsetOf(pkts, index) {
	let off = 0;
	for (let i = 0; i < index; i++) off += pkts[i].raw.length;
	return off;
}

// ---- the fetch response's structure ---------------------------------------------

// { prefix: packets before the pack (ending with "packfile" or NAK),
//   pack: the pack bytes (band 1 joined), hashLen }
function splitFetch(body, v0) {
	const pkts = parsePkts(body);
	let start = -1;
	for (let i = 0; i < pkts.length; i++) {
		if (pkts[i].len <= 4) continue;
		const t = text(pkts[i]);
		if (v0 ? /^(NAK|ACK [0-9a-f]+)\n?$/.test(t) : t === 'packfile\n') { start = i + 1; break; }
	}
	if (start < 0) throw new Error('no pack in the fetch response');
	const parts = [];
	for (let i = start; i < pkts.length && pkts[i].len > 4; i++)
		if (pkts[i].data[0] === 1) parts.push(pkts[i].data.subarray(1));
	const pack = Buffer.concat(parts);
	return { prefix: pkts.slice(0, start), pack };
}

// The pack as band-1 packets of 4096 bytes (many packets: a "middle" exists).
function packPkts(pack) {
	const out = [];
	for (let i = 0; i < pack.length; i += 4096) out.push(mkPkt(Buffer.concat([Buffer.from([1]), pack.subarray(i, i + 4096)])));
	return out;
}

function packHashLen(pack) {
	for (const [len, algo] of [[20, 'sha1'], [32, 'sha256']]) {
		const h = crypto.createHash(algo).update(pack.subarray(0, pack.length - len)).digest();
		if (h.equals(pack.subarray(pack.length - len))) return len;
	}
	throw new Error('the pack has neither a SHA-1 nor a SHA-256 trailer');
}

function rehash(pack, len) {
	const h = crypto.createHash(len === 20 ? 'sha1' : 'sha256').update(pack.subarray(0, pack.length - len)).digest();
	h.copy(pack, pack.length - len);
}

// ---- repositories --------------------------------------------------------------

const repoInfo = new Map();
function repo(pathInfo) {
	const m = /^\/(.+?\.git)(\/|$)/.exec(pathInfo);
	if (!m) return null;
	const dir = path.join(opt.root, m[1]);
	if (!repoInfo.has(dir)) {
		try {
			const g = (...a) => execFileSync(opt.git, ['--git-dir', dir, ...a], { encoding: 'utf8' }).trim();
			const format = g('rev-parse', '--show-object-format');
			const roots = g('rev-list', '--max-parents=0', 'HEAD').split('\n');
			repoInfo.set(dir, { format, hexLen: format === 'sha256' ? 64 : 40, root: roots[roots.length - 1] });
		} catch {
			repoInfo.set(dir, null);
		}
	}
	return repoInfo.get(dir);
}

// An id no repository has: hex of the right length.
const unknownId = (hexLen) => '0123456789abcdef'.repeat(4).slice(0, hexLen).replace(/^0/, 'd');

// ---- the CGI ---------------------------------------------------------------------

const children = new Set();
const SCRUB = /^(GIT_(DIR|WORK_TREE|COMMON_DIR|INDEX_FILE|OBJECT_DIRECTORY|ALTERNATE_OBJECT_DIRECTORIES|NAMESPACE|PROTOCOL|QUARANTINE_PATH|CONFIG_PARAMETERS|CONFIG_COUNT|CONFIG_KEY_\d+|CONFIG_VALUE_\d+|PROJECT_ROOT|HTTP_EXPORT_ALL)|HTTP_.*|PATH_INFO|PATH_TRANSLATED|QUERY_STRING|REQUEST_METHOD|CONTENT_TYPE|CONTENT_LENGTH|REMOTE_USER|REMOTE_ADDR|SERVER_PROTOCOL)$/;
const baseEnv = Object.fromEntries(Object.entries(process.env).filter(([k]) => !SCRUB.test(k)));

// Run http-backend with `body` (already inflated) as the request body.
// Resolves to { status, headers, body }.
function runBackend(req, ctx, body) {
	const env = {
		...baseEnv,
		GIT_PROJECT_ROOT: opt.root,
		GIT_HTTP_EXPORT_ALL: '1',
		GATEWAY_INTERFACE: 'CGI/1.1',
		SERVER_SOFTWARE: 'webgit-hostile-server',
		SERVER_PROTOCOL: `HTTP/${req.httpVersion}`,
		SERVER_NAME: HOST,
		SERVER_PORT: String(req.socket.localPort),
		SCRIPT_NAME: ctx.scriptName,
		PATH_INFO: ctx.pathInfo,
		QUERY_STRING: ctx.query,
		REQUEST_METHOD: req.method,
		REMOTE_ADDR: req.socket.remoteAddress || '',
	};
	if (req.method === 'POST') {
		env.CONTENT_TYPE = req.headers['content-type'] || 'application/x-git-upload-pack-request';
		env.CONTENT_LENGTH = String(body.length);
	}
	const proto = req.headers['git-protocol'];
	if (proto && !ctx.v0) env.GIT_PROTOCOL = proto.replace(/[^\x20-\x7e]/g, '');
	return new Promise((resolve, reject) => {
		const child = spawn(backend, [], { env, stdio: ['pipe', 'pipe', 'pipe'] });
		children.add(child);
		const out = [];
		child.stdout.on('data', (c) => out.push(c));
		child.stderr.on('data', (c) => process.stderr.write(c));
		child.stdin.on('error', () => {});
		child.on('error', reject);
		child.on('close', (code, signal) => {
			children.delete(child);
			const all = Buffer.concat(out);
			const crlf = all.indexOf('\r\n\r\n'), lf = all.indexOf('\n\n');
			let end;
			if (crlf >= 0 && (lf < 0 || crlf < lf)) end = [crlf, crlf + 4];
			else if (lf >= 0) end = [lf, lf + 2];
			else return reject(new Error(`http-backend sent no headers (exit ${code ?? signal})`));
			let status = 200;
			const headers = {};
			for (const line of all.subarray(0, end[0]).toString('latin1').split(/\r?\n/)) {
				const i = line.indexOf(':');
				if (i <= 0) continue;
				const name = line.slice(0, i).trim(), value = line.slice(i + 1).trim();
				if (name.toLowerCase() === 'status') status = parseInt(value, 10) || 500;
				else if (!/^(content-length|transfer-encoding)$/i.test(name)) headers[name] = value;
			}
			resolve({ status, headers, body: all.subarray(end[1]) });
		});
		child.stdin.end(body);
	});
}

// ---- responses ---------------------------------------------------------------------

function send(res, status, headers, body) {
	res.writeHead(status, { ...headers, 'Content-Length': body.length });
	res.end(body);
}

// Send `part` and then close the connection (no clean end of the body).
function sendAndDrop(res, status, headers, part) {
	res.writeHead(status, headers);
	res.write(part, () => setTimeout(() => res.socket?.destroy(), 50));
}

// Headers (and `part`), then nothing, until the client or we give up.
function sendAndStall(res, status, headers, part) {
	res.writeHead(status, headers);
	res.flushHeaders();
	if (part?.length) res.write(part);
}

// Write `gen()` packets forever, as fast as the client takes them (at most
// about 25 MB/s); log how much went out once the client has gone.
function sendForever(ctx, headers, prefix, gen) {
	const { req, res } = ctx;
	res.writeHead(200, headers);
	res.write(prefix);
	let stopped = false, sent = prefix.length;
	res.on('close', () => {
		stopped = true;
		log(`CLOSED ${req.url} ${sent}`);
	});
	const tick = () => {
		if (stopped) return;
		const batch = [];
		for (let n = 0; n < 256 * 1024;) { const p = gen(); batch.push(p); n += p.length; }
		const buf = Buffer.concat(batch);
		sent += buf.length;
		if (res.write(buf)) setTimeout(tick, 10);
		else res.once('drain', () => setTimeout(tick, 10));
	};
	tick();
}

const PACK_TYPE = { advert: 'application/x-git-upload-pack-advertisement', result: 'application/x-git-upload-pack-result' };

// The packet a pkt-line corruption hits, per phase.
function targetPacket(phase, body, v0) {
	const pkts = parsePkts(body);
	// v0: the first ref, after "# service=..." and its flush; v2 (http-backend
	// sends no service header then): the second capability line
	if (phase === 'advert') return { pkts, index: 2 };
	if (phase === 'ls-refs') return { pkts, index: 0 }; // the first ref
	// fetch: rebuild with small pack packets and take one in the middle
	const { prefix, pack } = splitFetch(body, v0);
	const pp = packPkts(pack);
	const all = [...prefix, ...pp, { len: 0, data: Buffer.alloc(0), raw: FLUSH }];
	return { pkts: all, index: prefix.length + Math.floor(pp.length / 2) };
}

// Ref lines: rewrite the refs/heads/main line, or add one.
function refsEdit(phase, body, edit) {
	const pkts = parsePkts(body);
	const first = phase === 'advert' ? 2 : 0;
	const i = pkts.findIndex((p, k) => k >= first && p.len > 4 && / refs\/heads\/main(\0|\n| |$)/.test(text(p)));
	if (i < 0) throw new Error('no refs/heads/main in the ref listing');
	return joinPkts(edit(pkts, i));
}

function addRef(name) {
	return (pkts, i) => {
		const id = text(pkts[i]).split(' ')[0];
		return [...pkts.slice(0, i + 1), mkPkt(`${id} ${name}\n`), ...pkts.slice(i + 1)];
	};
}

function editMainId(f) {
	return (pkts, i) => {
		const t = text(pkts[i]);
		const sp = t.indexOf(' ');
		const copy = pkts.slice();
		copy[i] = mkPkt(f(t.slice(0, sp)) + t.slice(sp));
		return copy;
	};
}

// A fetch response with its pack changed by f(pack, hashLen).
function packEdit(body, v0, f) {
	const { prefix, pack } = splitFetch(body, v0);
	const p = Buffer.from(pack);
	f(p, packHashLen(p));
	return Buffer.concat([...prefix.map((x) => x.raw), ...packPkts(p).map((x) => x.raw), FLUSH]);
}

// Offset of the first object's zlib data in a pack.
function firstZlib(pack, hashLen) {
	let i = 12, c = pack[i++];
	const type = (c >> 4) & 7;
	while (c & 0x80) c = pack[i++];
	if (type === 6) { do c = pack[i++]; while (c & 0x80); }
	if (type === 7) i += hashLen;
	return i;
}

// A pack made of `entries` ({ type, size, data, ofs? }: data is deflated;
// ofs, for an OFS_DELTA, the distance back to its base entry), with a
// trailer of hashLen bytes. size is what the entry header declares.
function craftPack(hashLen, entries) {
	const parts = [Buffer.from('PACK'), Buffer.alloc(8)];
	parts[1].writeUInt32BE(2, 0);
	parts[1].writeUInt32BE(entries.length, 4);
	for (const e of entries) {
		const h = [];
		let size = BigInt(e.size);
		let c = (e.type << 4) | Number(size & 15n);
		size >>= 4n;
		while (size > 0n) { h.push(c | 0x80); c = Number(size & 0x7fn); size >>= 7n; }
		h.push(c);
		if (e.ofs !== undefined) {
			// git's offset encoding: base-128, most significant first, +1 per continuation
			let v = e.ofs;
			const o = [v & 0x7f];
			while ((v >>= 7)) o.unshift(0x80 | (--v & 0x7f));
			h.push(...o);
		}
		parts.push(Buffer.from(h), zlib.deflateSync(e.data));
	}
	const body = Buffer.concat(parts);
	const sum = crypto.createHash(hashLen === 20 ? 'sha1' : 'sha256').update(body).digest();
	return Buffer.concat([body, sum]);
}

// A fetch response whose pack is replaced by craft(hashLen).
function packReplace(body, v0, craft) {
	const { prefix, pack } = splitFetch(body, v0);
	const p = craft(packHashLen(pack));
	return Buffer.concat([...prefix.map((x) => x.raw), ...packPkts(p).map((x) => x.raw), FLUSH]);
}

let bombData = null;
const bomb = () => (bombData ??= Buffer.alloc(64 << 20));

// scenario name -> { phase: default phase, apply(ctx) }. apply either sends a
// response itself (returns true) or returns the corrupted { status, headers,
// body } from the real one (ctx.real()).
const SCENARIOS = {
	ok: { phase: 'none' },

	'bad-pktline-length': { phase: 'advert', body: (ctx, b) => { const t = targetPacket(ctx.phase, b, ctx.v0); return withHeader(t.pkts, t.index, '00zz'); } },
	'short-length': { phase: 'advert', body: (ctx, b) => { const t = targetPacket(ctx.phase, b, ctx.v0); return withHeader(t.pkts, t.index, '0003'); } },
	'overlong': { phase: 'advert', body: (ctx, b) => { const t = targetPacket(ctx.phase, b, ctx.v0); return withHeader(t.pkts, t.index, 'fff1'); } },

	'truncated-pack': {
		phase: 'fetch', send: async (ctx) => {
			const r = await ctx.real();
			const t = targetPacket(ctx.phase, r.body, ctx.v0);
			const whole = joinPkts(t.pkts);
			const cut = offsetOf(t.pkts, t.index) + 100;
			sendAndDrop(ctx.res, r.status, { ...r.headers, 'Content-Length': whole.length }, whole.subarray(0, cut));
		},
	},
	'truncated-pack-eof': {
		phase: 'fetch', body: (ctx, b) => {
			const t = targetPacket(ctx.phase, b, ctx.v0);
			return joinPkts(t.pkts).subarray(0, offsetOf(t.pkts, t.index) + 100);
		},
	},
	'truncated-advert': {
		phase: 'advert', send: async (ctx) => {
			const r = await ctx.real();
			const t = targetPacket(ctx.phase, r.body, ctx.v0);
			sendAndDrop(ctx.res, r.status, r.headers, r.body.subarray(0, offsetOf(t.pkts, t.index) + 10));
		},
	},
	'truncated-advert-eof': {
		phase: 'advert', body: (ctx, b) => {
			const t = targetPacket(ctx.phase, b, ctx.v0);
			return b.subarray(0, offsetOf(t.pkts, t.index) + 10);
		},
	},

	'err-packet': {
		phase: 'fetch', body: (ctx, b) => {
			const err = pkt(`ERR upload-pack: not our ref ${unknownId(ctx.repo.hexLen)}\n`);
			if (ctx.phase !== 'advert') return err;
			// after the "# service=..." header if there is one (v0)
			const first = parsePkts(b)[0];
			return text(first).startsWith('# service=') ? Buffer.concat([first.raw, FLUSH, err]) : err;
		},
	},
	'sideband-error': {
		phase: 'fetch', body: (ctx, b) => {
			const t = targetPacket('fetch', b, ctx.v0);
			return Buffer.concat([...t.pkts.slice(0, t.index).map((p) => p.raw), band(3, 'fatal: boom\n')]);
		},
	},
	'bad-band': {
		phase: 'fetch', body: (ctx, b) => {
			const t = targetPacket('fetch', b, ctx.v0);
			const pkts = t.pkts.slice();
			pkts.splice(t.index, 0, mkPkt(Buffer.from('\x07what is this\n', 'latin1')));
			return joinPkts(pkts);
		},
	},
	'shallow-unknown': {
		phase: 'fetch', body: (ctx, b) => {
			const bogus = unknownId(ctx.repo.hexLen);
			const pkts = parsePkts(b);
			const has = pkts.some((p) => p.len > 4 && text(p).startsWith('shallow '));
			if (has) {
				return joinPkts(pkts.map((p) => p.len > 4 && text(p).startsWith('shallow ') ?
					mkPkt(`shallow ${bogus}\n`) : p));
			}
			// no depth asked: add a shallow list anyway
			const i = pkts.findIndex((p) => p.len > 4 && (ctx.v0 ? /^(NAK|ACK )/.test(text(p)) : text(p) === 'packfile\n'));
			const extra = ctx.v0 ? [mkPkt(`shallow ${bogus}\n`), { raw: FLUSH }] :
				[mkPkt('shallow-info\n'), mkPkt(`shallow ${bogus}\n`), { raw: DELIM }];
			return joinPkts([...pkts.slice(0, i), ...extra, ...pkts.slice(i)]);
		},
	},

	'bad-refname': { phase: 'refs', body: (ctx, b) => refsEdit(ctx.phase, b, addRef('refs/heads/a..b')) },
	'ctrl-refname': { phase: 'refs', body: (ctx, b) => refsEdit(ctx.phase, b, addRef('refs/heads/a\x01b')) },
	'short-oid': { phase: 'refs', body: (ctx, b) => refsEdit(ctx.phase, b, editMainId((id) => id.slice(0, -1))) },
	'other-hash-oid': {
		phase: 'refs', body: (ctx, b) => refsEdit(ctx.phase, b, editMainId((id) =>
			id.length === 40 ? id + id.slice(0, 24) : id.slice(0, 40))),
	},
	'non-hex-oid': { phase: 'refs', body: (ctx, b) => refsEdit(ctx.phase, b, editMainId((id) => id.slice(0, 7) + 'g' + id.slice(8))) },

	'endless': {
		phase: 'fetch', send: (ctx) => {
			let n = 0;
			sendForever(ctx, { 'Content-Type': PACK_TYPE.result }, pkt(ctx.v0 ? 'NAK\n' : 'packfile\n'),
				() => band(2, `Counting objects: ${++n}\r`));
		},
	},
	'endless-keepalive': {
		phase: 'fetch', send: (ctx) => {
			const ka = band(1, '');
			sendForever(ctx, { 'Content-Type': PACK_TYPE.result }, pkt(ctx.v0 ? 'NAK\n' : 'packfile\n'), () => ka);
		},
	},
	'stall': {
		phase: 'advert', send: (ctx) => {
			sendAndStall(ctx.res, 200, { 'Content-Type': ctx.phase === 'advert' ? PACK_TYPE.advert : PACK_TYPE.result });
		},
	},
	'stall-mid-pack': {
		phase: 'fetch', send: async (ctx) => {
			const r = await ctx.real();
			const t = targetPacket('fetch', r.body, ctx.v0);
			sendAndStall(ctx.res, r.status, r.headers, joinPkts(t.pkts.slice(0, t.index)));
		},
	},

	'wrong-content-type': { phase: 'advert', full: (ctx, r) => ({ ...r, headers: { ...r.headers, 'Content-Type': 'text/html; charset=utf-8' } }) },
	'http-500': { phase: 'advert', full: () => ({ status: 500, headers: { 'Content-Type': 'text/plain' }, body: Buffer.from('Internal Server Error\n') }) },
	'http-404': { phase: 'advert', full: () => ({ status: 404, headers: { 'Content-Type': 'text/plain' }, body: Buffer.from('Not Found\n') }) },
	'dumb-server': { phase: 'advert', full: () => ({ status: 200, headers: { 'Content-Type': 'text/plain' }, body: Buffer.from('hello\n') }) },
	'dumb-body': {
		phase: 'advert', full: (ctx) => ({
			status: 200, headers: { 'Content-Type': ctx.phase === 'advert' ? PACK_TYPE.advert : PACK_TYPE.result },
			body: Buffer.from('hello\n'),
		}),
	},

	'missing-object': {
		phase: 'fetch',
		request: (ctx, body) => {
			const pkts = parsePkts(body);
			return joinPkts(pkts.map((p) => {
				const m = p.len > 4 && /^want ([0-9a-f]+)(.*)$/s.exec(text(p));
				return m ? mkPkt(`want ${ctx.repo.root}${m[2]}`) : p;
			}));
		},
		body: (ctx, b) => b,
	},
	'bad-pack-checksum': { phase: 'fetch', body: (ctx, b) => packEdit(b, ctx.v0, (p) => { p[p.length - 1] ^= 0xff; }) },
	'corrupt-object': {
		phase: 'fetch', body: (ctx, b) => packEdit(b, ctx.v0, (p, h) => {
			p[firstZlib(p, h) + 6] ^= 0x55;
			rehash(p, h);
		}),
	},
	'pack-count-lie': {
		phase: 'fetch', body: (ctx, b) => packEdit(b, ctx.v0, (p, h) => {
			p.writeUInt32BE(p.readUInt32BE(8) + 1, 8);
			rehash(p, h);
		}),
	},
	'huge-object': {
		phase: 'fetch', body: (ctx, b) => packReplace(b, ctx.v0, (h) => craftPack(h, [
			{ type: 1, size: 2n ** 40n, data: Buffer.from('hello') },
		])),
	},
	'huge-delta': {
		phase: 'fetch', body: (ctx, b) => packReplace(b, ctx.v0, (h) => {
			const base = { type: 3, size: 5, data: Buffer.from('hello') };
			const first = craftPack(h, [base]).length - h - 12;
			return craftPack(h, [base, {
				type: 6, size: 8, ofs: first,
				data: Buffer.from([0x05, 0x80, 0x80, 0x80, 0x80, 0x10, 0x01, 0x78]),
			}]);
		}),
	},
	'inflate-bomb': {
		phase: 'fetch', body: (ctx, b) => packReplace(b, ctx.v0, (h) => craftPack(h, [
			{ type: 3, size: bomb().length, data: bomb() },
		])),
	},
	'endless-refs': {
		phase: 'refs', send: async (ctx) => {
			const r = await ctx.real();
			const pkts = parsePkts(r.body);
			// drop the final flush (and a v2 response-end after it)
			let end = pkts.length;
			while (end > 0 && (pkts[end - 1].len === 0 || pkts[end - 1].len === 2)) end--;
			const id = text(pkts.find((p, k) => k >= (ctx.phase === 'advert' ? 2 : 0) && p.len > 4)).slice(0, ctx.repo.hexLen);
			let n = 0;
			sendForever(ctx, { 'Content-Type': ctx.phase === 'advert' ? PACK_TYPE.advert : PACK_TYPE.result },
				joinPkts(pkts.slice(0, end)), () => pkt(`${id} refs/heads/endless-${++n}\n`));
		},
	},
	'endless-shallow': {
		phase: 'fetch', send: (ctx) => {
			let n = 0;
			sendForever(ctx, { 'Content-Type': PACK_TYPE.result }, ctx.v0 ? Buffer.alloc(0) : pkt('shallow-info\n'),
				() => pkt(`shallow ${(++n).toString(16).padStart(ctx.repo.hexLen, 'a')}\n`));
		},
	},
	'endless-line': {
		phase: 'fetch', send: (ctx) => {
			const line = band(2, 'x'.repeat(1000));
			sendForever(ctx, { 'Content-Type': PACK_TYPE.result }, pkt(ctx.v0 ? 'NAK\n' : 'packfile\n'), () => line);
		},
	},
	'pack-count-huge': {
		phase: 'fetch', body: (ctx, b) => packEdit(b, ctx.v0, (p, h) => {
			p.writeUInt32BE(0xffffffff, 8);
			rehash(p, h);
		}),
	},
};

// ---- routing --------------------------------------------------------------------

function readBody(req) {
	return new Promise((resolve, reject) => {
		const parts = [];
		req.on('data', (c) => parts.push(c));
		req.on('end', () => resolve(Buffer.concat(parts)));
		req.on('error', reject);
	});
}

async function handle(req, res) {
	const q = req.url.indexOf('?');
	const urlPath = q < 0 ? req.url : req.url.slice(0, q);
	const query = q < 0 ? '' : req.url.slice(q + 1);
	const m = /^\/(v0\/)?([a-z0-9-]+)(?:@([a-z-]+))?(\/.*)$/.exec(urlPath);
	let pathInfo = null;
	try { pathInfo = m && decodeURIComponent(m[4]); } catch { /* bad escape */ }
	const scenario = m && SCENARIOS[m[2]];
	if (!scenario || pathInfo === null || pathInfo.includes('\0') || pathInfo.split('/').includes('..')) {
		req.resume();
		log(`${req.method} ${req.url} - - 404`);
		return send(res, 404, { 'Content-Type': 'text/plain' }, Buffer.from(`no such scenario or bad path: ${urlPath}\n`));
	}
	const v0 = !!m[1];
	let phase = null;
	if (req.method === 'GET' && pathInfo.endsWith('/info/refs') &&
		new URLSearchParams(query).get('service') === 'git-upload-pack') phase = 'advert';
	let body = Buffer.alloc(0);
	if (req.method === 'POST' && pathInfo.endsWith('/git-upload-pack')) {
		body = await readBody(req);
		if (/gzip/i.test(req.headers['content-encoding'] || '')) body = zlib.gunzipSync(body);
		if (v0) phase = 'fetch';
		else if (body.includes('command=ls-refs')) phase = 'ls-refs';
		else if (body.includes('command=fetch')) phase = 'fetch';
	}
	if (!phase) {
		req.resume();
		log(`${req.method} ${req.url} - ${m[2]} 403`);
		return send(res, 403, { 'Content-Type': 'text/plain' }, Buffer.from('only upload-pack is served here\n'));
	}
	let want = m[3] || scenario.phase;
	if (want === 'refs') want = v0 ? 'advert' : 'ls-refs';
	const name = m[2] + (m[3] ? `@${m[3]}` : '');
	const applies = want === phase;
	const info = repo(pathInfo);
	const ctx = {
		req, res, v0, phase, repo: info, pathInfo, query,
		scriptName: `${v0 ? '/v0' : ''}/${m[2]}${m[3] ? `@${m[3]}` : ''}`,
	};
	ctx.real = (b = body) => runBackend(req, ctx, b);
	log(`${req.method} ${req.url} ${phase} ${name} ${applies ? 'APPLIED' : 'pass'}`);

	if (!applies || (!info && (scenario.body || scenario.request))) {
		const r = await ctx.real();
		return send(res, r.status, r.headers, r.body);
	}
	if (scenario.send) return scenario.send(ctx);
	const r = await ctx.real(scenario.request ? scenario.request(ctx, body) : body);
	if (scenario.full) {
		const f = scenario.full(ctx, r);
		return send(res, f.status, f.headers, f.body);
	}
	if (r.status !== 200) return send(res, r.status, r.headers, r.body);
	return send(res, r.status, r.headers, scenario.body(ctx, r.body));
}

// ---- lifecycle -----------------------------------------------------------------

const server = http.createServer((req, res) => {
	handle(req, res).catch((err) => {
		process.stderr.write(`hostile-server: ${req.method} ${req.url}: ${err.stack || err}\n`);
		log(`${req.method} ${req.url} - - ERROR ${String(err.message).replace(/\s+/g, ' ')}`);
		if (!res.headersSent) send(res, 502, { 'Content-Type': 'text/plain' }, Buffer.from(`hostile-server: ${err.message}\n`));
		else res.destroy();
	});
});
server.requestTimeout = 0;
server.headersTimeout = 60000;
server.keepAliveTimeout = 5000;

serve(server, {
	name: 'hostile-server', port: opt.port, pidFile: opt.pidFile, portFile: opt.portFile, children,
});
