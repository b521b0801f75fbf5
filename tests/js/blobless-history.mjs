// Shared by the blob-less history tests (history-blobless.test.mjs in
// Node, browser-history.test.mjs in Chromium, edge-history.test.mjs in
// workerd): a small history made by the reference git with what blame,
// last-modified and a path-limited log must follow (a pure rename, a
// rename with an edit among other deletions, a side branch that edits the
// file under its old name and is merged back, several files), served
// bare with filters allowed; what git says about it; and the requests the
// local server logged.
import fs from 'node:fs';
import path from 'node:path';
import { serverLogDuring } from './lib.mjs';
import { parseBlamePorcelain } from './blame-porcelain.mjs';

const lines = (n, f) => Array.from({ length: n }, (_, i) => f(i)).join('');
const code = (edits = {}) => lines(40, (i) => `${edits[i] ?? `line ${i} of the code`}\n`);

/**
 * Make the history in `work` (a new repository, `format` objects) with
 * `git` (lib.mjs gitIn) and a bare copy at `bare` that serves filters.
 * Returns what the tests blame in a clone: { files: [[ref, path]...] }
 * (the served repository's name for a ref: servedRef).
 */
export function makeBloblessHistory(git, work, bare, format = 'sha1') {
  let when = 1700000000;
  const g = (args) => {
    when += 600;
    const env = {
      ...process.env, GIT_CONFIG_NOSYSTEM: '1', GIT_CONFIG_GLOBAL: '/dev/null', LC_ALL: 'C', TZ: 'UTC',
      GIT_AUTHOR_NAME: 'Ann', GIT_AUTHOR_EMAIL: 'ann@example.com', GIT_AUTHOR_DATE: `${when} +0100`,
      GIT_COMMITTER_NAME: 'Cy', GIT_COMMITTER_EMAIL: 'cy@example.com', GIT_COMMITTER_DATE: `${when} +0000`,
    };
    return git(['-C', work, ...args], { env });
  };
  const put = (name, text) => {
    fs.mkdirSync(path.dirname(path.join(work, name)), { recursive: true });
    fs.writeFileSync(path.join(work, name), text);
  };
  const commit = (msg) => { g(['add', '-A']); g(['commit', '-q', '-m', msg]); };
  git(['init', '-q', '-b', 'main', `--object-format=${format}`, work]);
  put('lib.c', code());
  put('notes.md', lines(12, (i) => `note ${i}\n`));
  put('README', 'read me\n');
  put('old/a.txt', lines(20, (i) => `a ${i}\n`));
  put('old/b.txt', lines(20, (i) => `b ${i}\n`));
  commit('root');
  put('lib.c', code({ 3: 'line three, edited', 10: 'line ten, edited' }));
  put('notes.md', lines(12, (i) => (i === 4 ? 'note four\n' : `note ${i}\n`)));
  commit('edit lib.c and notes');
  g(['mv', 'lib.c', 'core.c']);
  put('x.txt', 'x\n');
  commit('rename lib.c to core.c');
  g(['checkout', '-q', '-b', 'side']);
  put('core.c', code({ 3: 'line three, edited', 10: 'line ten, edited', 20: 'line twenty on side' }));
  put('notes.md', `${fs.readFileSync(path.join(work, 'notes.md'), 'utf8')}side note\n`);
  commit('side: edit core.c and notes');
  g(['checkout', '-q', 'main']);
  // a rename with an edit, among other deletions (the candidates)
  fs.mkdirSync(path.join(work, 'src'));
  g(['mv', 'core.c', 'src/core.c']);
  put('src/core.c', code({ 0: 'line zero, moved', 3: 'line three, edited', 10: 'line ten, edited' }));
  fs.unlinkSync(path.join(work, 'old/a.txt'));
  put('README', 'read me\nagain\n');
  commit('move core.c to src/ with an edit; drop old/a.txt');
  g(['checkout', '-q', 'side']);
  put('core.c', code({ 3: 'line three, edited', 10: 'line ten, edited', 20: 'line twenty on side',
    30: 'line thirty on side' }));
  commit('side: edit core.c again');
  g(['checkout', '-q', 'main']);
  g(['merge', '-q', '--no-ff', '-m', 'merge side', 'side']);
  put('src/core.c', fs.readFileSync(path.join(work, 'src/core.c'), 'utf8').replace('line 35 of the code', 'line 35, after the merge'));
  put('notes.md', `top note\n${fs.readFileSync(path.join(work, 'notes.md'), 'utf8')}`);
  put('docs/guide.md', 'guide\n');
  commit('after the merge');
  git(['clone', '-q', '--bare', work, bare]);
  git(['-C', bare, 'config', 'uploadpack.allowFilter', 'true']);
  git(['-C', bare, 'config', 'uploadpack.allowAnySHA1InWant', 'true']);
  return {
    files: [['HEAD', 'src/core.c'], ['HEAD', 'notes.md'], ['HEAD~1', 'src/core.c'], ['origin/side', 'core.c']],
  };
}

/** A clone's name of a ref as the served repository has it. */
export const servedRef = (ref) => ref.replace(/^origin\//, '');

/** git blame --porcelain as the groups blame() returns. */
export function porcelain(git, dir, ref, file) {
  return parseBlamePorcelain(git(['-C', dir, 'blame', '--porcelain', servedRef(ref), '--', file]));
}

/** git last-modified ARGS as lastModified() returns it. */
export function lastModifiedOf(git, dir, args) {
  return git(['-C', dir, 'last-modified', ...args]).split('\n').filter(Boolean)
    .map((l) => { const [commit, p] = l.split('\t'); return { path: p, commit }; });
}

/** git log --format=%H ARGS. */
export function logOf(git, dir, args) {
  return git(['-C', dir, 'log', '--format=%H', ...args]).split('\n').filter(Boolean);
}

/** What the tests ask of each API in a clone, with git's arguments for
 * the same in the served repository. */
export const LAST_MODIFIED_CASES = [
  [{}, []], [{ recursive: true }, ['-r']], [{ recursive: true, showTrees: true }, ['-r', '-t']],
  [{ ref: 'origin/side', recursive: true }, ['-r', 'side']], [{ recursive: true, paths: 'src' }, ['-r', '--', 'src']],
];
export const LOG_CASES = [
  [{ paths: 'src/core.c' }, ['--', 'src/core.c']],
  [{ paths: 'core.c', ref: 'origin/side' }, ['side', '--', 'core.c']],
  [{ paths: ['notes.md', 'docs'] }, ['--', 'notes.md', 'docs']],
  [{ paths: 'notes.md', fullHistory: true }, ['--full-history', '--', 'notes.md']],
  [{ paths: 'old', firstParent: true }, ['--first-parent', '--', 'old']],
];

/**
 * The lines the server (--log FILE) wrote while fn() ran, as
 * { method, path, status }: every request to a repository (under /git/),
 * whoever made it (the test site's own files are left out).
 */
export async function serverRequests(logFile, fn) {
  const { result, lines } = await serverLogDuring(logFile, fn);
  const requests = lines.filter((r) => r.path.startsWith('/git/'))
    .map(({ method, path: p, status }) => ({ method, path: p, status }));
  return { result, requests };
}

/** "3 requests (GET info/refs, POST git-upload-pack, ...)" */
export function describeRequests(requests) {
  const short = (r) => `${r.method} ${r.path.split('?')[0].split('/').slice(-2).join('/')}`;
  return `${requests.length} requests${requests.length ? ` (${requests.map(short).join(', ')})` : ''}`;
}
