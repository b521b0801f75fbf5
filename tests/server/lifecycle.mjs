// tests/server/lifecycle.mjs — the command line, start and stop of the
// test servers (git-http-server.mjs, hostile-server.mjs), shared so that
// both take the same options and are started and stopped by PID the same
// way.
//
// serve(server, options) listens on 127.0.0.1 only, writes --pid-file and
// --port-file (the port file written then renamed, so a reader never sees a
// half-written port), prints "listening on http://127.0.0.1:PORT", and on
// SIGTERM or SIGINT stops accepting, kills the running CGI children
// (SIGTERM, then SIGKILL after 2 s), closes every connection (stalled and
// endless ones too) and exits 0 once `finish(done)` has called done.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import process from 'node:process';

export const HOST = '127.0.0.1';

export function serve(server, { name, port, pidFile, portFile, children, finish = (done) => done() }) {
	server.on('error', (err) => {
		process.stderr.write(`${name}: ${err.message}\n`);
		process.exit(1);
	});

	server.listen(port, HOST, () => {
		const bound = server.address().port;
		if (pidFile) fs.writeFileSync(pidFile, `${process.pid}\n`);
		if (portFile) {
			fs.writeFileSync(`${portFile}.tmp`, `${bound}\n`);
			fs.renameSync(`${portFile}.tmp`, portFile);
		}
		process.stdout.write(`listening on http://${HOST}:${bound}\n`);
	});

	let stopping = false;
	function shutdown(signal) {
		if (stopping) return;
		stopping = true;
		process.stderr.write(`${name}: ${signal}, stopping\n`);
		server.close();
		for (const child of children) child.kill('SIGTERM');
		server.closeAllConnections();
		const exit = () => finish(() => process.exit(0));
		if (children.size === 0) return exit();
		// Give the backends a moment to go, then make sure they did.
		const deadline = setTimeout(() => {
			for (const child of children) child.kill('SIGKILL');
			exit();
		}, 2000);
		const poll = setInterval(() => {
			if (children.size === 0) { clearTimeout(deadline); clearInterval(poll); exit(); }
		}, 20);
	}
	process.on('SIGTERM', () => shutdown('SIGTERM'));
	process.on('SIGINT', () => shutdown('SIGINT'));
}

/**
 * The command line both servers share: --root DIR (required, a directory),
 * --host (127.0.0.1 only), --port N, --pid-file, --port-file, --git, --log;
 * "--opt=value" or "--opt value". `extra` adds a server's own options:
 * values [['--auth', 'auth']], flags [['--v0', 'v0']] (true when given),
 * repeated [['--mount', 'mounts']] (an array of the values, in order).
 * Anything else calls usage(message), which must not return.
 */
export function parseServerArgs(argv, usage, extra = {}) {
	const opt = { host: HOST, port: 0, git: 'git' };
	const values = new Map([
		['--root', 'root'], ['--host', 'host'], ['--port', 'port'],
		['--pid-file', 'pidFile'], ['--port-file', 'portFile'], ['--git', 'git'],
		['--log', 'log'], ...(extra.values || []),
	]);
	const flags = new Map(extra.flags || []);
	const repeated = new Map(extra.repeated || []);
	for (const [, key] of flags) opt[key] = false;
	for (const [, key] of repeated) opt[key] = [];
	for (let i = 0; i < argv.length; i++) {
		let a = argv[i], v;
		const eq = a.indexOf('=');
		if (a.startsWith('--') && eq > 0) { v = a.slice(eq + 1); a = a.slice(0, eq); }
		if (a === '-h' || a === '--help') usage();
		else if (flags.has(a)) opt[flags.get(a)] = true;
		else if (values.has(a) || repeated.has(a)) {
			if (v === undefined) {
				if (i + 1 >= argv.length) usage(`${a} needs a value`);
				v = argv[++i];
			}
			if (repeated.has(a)) opt[repeated.get(a)].push(v);
			else opt[values.get(a)] = v;
		} else usage(`unknown argument ${a}`);
	}
	if (!opt.root) usage('--root is required');
	if (opt.host !== HOST) usage(`refusing to listen on ${opt.host}: only ${HOST} is allowed`);
	if (!/^\d+$/.test(String(opt.port)) || Number(opt.port) > 65535) usage(`bad port ${opt.port}`);
	opt.port = Number(opt.port);
	opt.root = path.resolve(opt.root);
	if (!fs.statSync(opt.root, { throwIfNoEntry: false })?.isDirectory()) usage(`--root ${opt.root} is not a directory`);
	return opt;
}

/** git-http-backend in the exec path of `git`, run directly: `git
 * http-backend` would put one more process (and one more exec) in front of
 * every request. Calls usage(message) when there is none. */
export function findBackend(git, usage) {
	try {
		const execPath = execFileSync(git, ['--exec-path'], { encoding: 'utf8' }).trim();
		const backend = path.join(execPath, 'git-http-backend');
		fs.accessSync(backend, fs.constants.X_OK);
		return backend;
	} catch (err) {
		return usage(`no git-http-backend for --git ${git}: ${err.message}`);
	}
}
