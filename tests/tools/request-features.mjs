#!/usr/bin/env node
// tests/tools/request-features.mjs — what a Git client asked for, feature by
// feature, from the requests tests/server/front-proxy.mjs --record wrote
// (NNNN.req: "METHOD PATH", headers, an empty line, the body).
//
//   node request-features.mjs DIR
//
// prints one line per feature, sorted and without repeats:
//   "<request>\t<feature>"
// where <request> names the request by what it is, not by its position:
//   "GET info/refs?service=git-upload-pack", "POST ls-refs" and "POST fetch"
//   (protocol v2 commands), "POST upload-pack v0", "POST receive-pack"
// and <feature> is a header ("header git-protocol: version=2"), a v2
// capability line ("capability object-format=sha1", "capability agent"),
// a v2 argument ("arg thin-pack", "arg deepen 1", "arg ref-prefix HEAD"),
// a v0/v1 capability of the first want or command line ("cap ofs-delta"),
// or a v0/v1 line's keyword ("line want", "line deepen 1", "line done").
// Values that differ between any two runs or clients are dropped: object
// ids (want, have, shallow, commands), the agent string, counts.
import fs from 'node:fs';
import path from 'node:path';
import process from 'node:process';

const dir = process.argv[2];
if (!dir) {
	process.stderr.write('usage: request-features.mjs DIR\n');
	process.exit(2);
}

// pkt-lines of a body: strings, with 'FLUSH' (0000), 'DELIM' (0001),
// 'END' (0002); stops at the end or at a pack ("PACK" after a flush).
function pktLines(buf) {
	const out = [];
	let i = 0;
	while (i + 4 <= buf.length) {
		if (buf.toString('latin1', i, i + 4) === 'PACK') break;
		const len = parseInt(buf.toString('latin1', i, i + 4), 16);
		if (Number.isNaN(len)) throw new Error(`${dir}: not a pkt-line at byte ${i}`);
		if (len < 4) {
			out.push(['FLUSH', 'DELIM', 'END', 'BAD'][len]);
			i += 4;
			continue;
		}
		out.push(buf.toString('latin1', i + 4, i + len).replace(/\n$/, ''));
		i += len;
	}
	return out;
}

const HEX = /^[0-9a-f]{40}([0-9a-f]{24})?$/;

// "want <oid>" -> "want"; "deepen 1" stays; "ref-prefix X" stays.
function keyword(line) {
	const [word, ...rest] = line.split(' ');
	const value = rest.join(' ');
	if (!value || HEX.test(value) || ['want', 'have', 'shallow', 'want-ref'].includes(word)) return word;
	return `${word} ${value}`;
}

function capWord(cap) {
	return cap.startsWith('agent=') ? 'agent' : cap;
}

const features = new Set();
for (const name of fs.readdirSync(dir).filter((n) => n.endsWith('.req')).sort()) {
	const raw = fs.readFileSync(path.join(dir, name));
	const split = raw.indexOf('\n\n');
	const head = raw.toString('latin1', 0, split).split('\n');
	const body = raw.subarray(split + 2);
	const [method, url] = head[0].split(' ');
	const suffix = url.replace(/^.*\/(info\/refs|git-upload-pack|git-receive-pack)/, '$1');
	let label = `${method} ${suffix}`;
	const lines = body.length ? pktLines(body) : [];
	const add = (f) => features.add(`${label}\t${f}`);
	if (suffix === 'git-upload-pack' && lines[0]?.startsWith('command=')) {
		label = `POST ${lines[0].slice(8)}`;
		let args = false;
		for (const l of lines.slice(1)) {
			if (l === 'DELIM') { args = true; continue; }
			if (l === 'FLUSH') break;
			add(args ? `arg ${keyword(l)}` : `capability ${capWord(l)}`);
		}
	} else if (suffix === 'git-upload-pack') {
		label = 'POST upload-pack v0';
		let first = true;
		for (const l of lines) {
			if (l === 'FLUSH' || l === 'DELIM' || l === 'END') continue;
			const nul = l.indexOf('\0');
			const sp = l.split(' ');
			if (first && sp[0] === 'want') {
				// "want <oid> cap cap ..."
				for (const c of sp.slice(2)) add(`cap ${capWord(c)}`);
				first = false;
			}
			add(`line ${keyword(nul >= 0 ? l.slice(0, nul) : (sp[0] === 'want' ? `want ${sp[1]}` : l))}`);
		}
	} else if (suffix === 'git-receive-pack') {
		label = 'POST receive-pack';
		let first = true;
		for (const l of lines) {
			if (l === 'FLUSH') break;
			const nul = l.indexOf('\0');
			if (first && nul >= 0) {
				for (const c of l.slice(nul + 1).split(' ').filter(Boolean)) add(`cap ${capWord(c)}`);
			}
			first = false;
			add('line <old> <new> <ref>');
		}
		if (body.includes(Buffer.from('PACK'))) add('pack');
	}
	for (const h of head.slice(1)) {
		if (/^(content-length|authorization):/i.test(h)) continue;
		features.add(`${label}\theader ${h}`);
	}
}
process.stdout.write([...features].sort().map((f) => `${f}\n`).join(''));
