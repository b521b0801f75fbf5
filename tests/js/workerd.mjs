// workerd for the JS tests (edge.test.mjs, static-read.test.mjs): Cloudflare's
// runtime serving tests/js/edge/worker.mjs, which imports the built package
// (index.js, the glue webgit.mjs, and webgit.wasm as a Wasm module). workerd
// comes from tests/node_modules (`cd tests && npm ci`); the config is
// generated in the caller's directory; workerd listens on a free port of
// 127.0.0.1 and the caller stops it by its PID (lib.mjs stopPid).
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { JS_DIR, sleep } from './lib.mjs';

const WORKER = fileURLToPath(new URL('edge/worker.mjs', import.meta.url));

function workerdBinary() {
  const require = createRequire(new URL('../package.json', import.meta.url));
  let pkg;
  try {
    pkg = require.resolve('workerd/package.json');
  } catch {
    throw new Error('workerd is not installed in tests/node_modules: run `cd tests && npm ci`');
  }
  const bin = path.join(path.dirname(pkg), 'bin', 'workerd');
  fs.accessSync(bin, fs.constants.X_OK);
  return bin;
}

function freePort() {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address();
      srv.close(() => resolve(port));
    });
  });
}

// A capnp string literal holding `file` relative to the config directory
// (workerd's embed does not take absolute paths).
const embedPath = (configDir, file) => JSON.stringify(path.relative(configDir, file));

// The test worker's modules: tests/js/edge/worker.mjs first, then every JS
// module of the package (index.js and what it imports, the glue
// webgit.mjs) under its own name, so relative imports resolve as on disk.
function testWorkerModules() {
  const jsModules = fs.readdirSync(JS_DIR).filter((f) => /\.(m?js)$/.test(f)).sort();
  for (const f of ['index.js', 'webgit.mjs']) assert.ok(jsModules.includes(f), `no ${f} in ${JS_DIR}`);
  return [
    { name: 'worker.mjs', esModule: WORKER },
    ...jsModules.map((f) => ({ name: f, esModule: path.join(JS_DIR, f) })),
    { name: 'webgit.wasm', wasm: path.join(JS_DIR, 'webgit.wasm') },
  ];
}

function writeConfig(dir, port, moduleList, bindings) {
  const modules = moduleList.map((m) => (m.wasm
    ? `(name = ${JSON.stringify(m.name)}, wasm = embed ${embedPath(dir, m.wasm)})`
    : `(name = ${JSON.stringify(m.name)}, esModule = embed ${embedPath(dir, m.esModule)})`));
  const textBindings = Object.entries(bindings)
    .map(([name, value]) => `(name = ${JSON.stringify(name)}, text = ${JSON.stringify(value)})`);
  const config = `using Workerd = import "/workerd/workerd.capnp";

const config :Workerd.Config = (
  services = [
    (name = "main", worker = .worker),
    (name = "internet", network = (allow = ["public", "private", "local"])),
  ],
  sockets = [(name = "http", address = "127.0.0.1:${port}", http = (), service = "main")],
);

const worker :Workerd.Worker = (
  modules = [
    ${modules.join(',\n    ')},
  ],
  bindings = [${textBindings.join(', ')}],
  compatibilityDate = "2024-09-23",
  globalOutbound = "internet",
);
`;
  const file = path.join(dir, 'config.capnp');
  fs.writeFileSync(file, config);
  return file;
}

/**
 * Start workerd serving tests/js/edge/worker.mjs over the built package, its
 * config and output in `dir`; resolves with { url, child } once it listens.
 * Another worker: `modules`, [{ name, esModule: FILE } or { name, wasm:
 * FILE }], the main module first; `bindings`, { NAME: text }.
 */
export async function startWorkerd(dir, { modules, bindings = {} } = {}) {
  const bin = workerdBinary();
  fs.mkdirSync(dir, { recursive: true });
  const port = await freePort();
  const config = writeConfig(dir, port, modules || testWorkerModules(), bindings);
  const out = fs.openSync(path.join(dir, 'out'), 'w');
  const err = fs.openSync(path.join(dir, 'err'), 'w');
  const workerd = spawn(bin, ['serve', config], { cwd: dir, stdio: ['ignore', out, err] });
  fs.closeSync(out);
  fs.closeSync(err);
  let exited = null;
  workerd.on('exit', (code, signal) => { exited = code ?? signal; });
  const url = `http://127.0.0.1:${port}`;
  for (let t = 0; t < 20000; t += 100) {
    if (exited !== null) break;
    if (await new Promise((resolve) => {
      const s = net.connect(port, '127.0.0.1', () => { s.destroy(); resolve(true); });
      s.on('error', () => resolve(false));
    })) return { url, child: workerd };
    await sleep(100);
  }
  const log = fs.readFileSync(path.join(dir, 'err'), 'utf8');
  throw new Error(`workerd did not start (${exited !== null ? `exit ${exited}` : 'timeout'}):\n${log}`);
}
