// web-demo/forge/main.js — the forge preview: what a forge shows of a
// repository (the tree with each entry's last commit, the README, the
// commit list, a commit with its diff in unified or split view, a file's
// blame, a comparison of two refs), all from a blob-less, depth-limited
// clone made in this tab. Blobs are fetched only when a page shows them
// (the API fetches what a read lacks, one request per batch); every
// request to the Git server is counted and listed, as a forge engineer
// would want to see them. The webgit package is loaded as is from
// /webgit/; marked renders the README and DOMPurify sanitises it (bundled
// from npm by scripts/build-pages.sh).
//
// Routes (location.hash): #/tree/<path>, #/blob/<path>, #/blame/<path>,
// #/commits, #/commit/<id>, #/compare/<base>...<head>. The page's query
// (?url=...&ref=...&depth=...) opens a repository at once.
import * as git from '/webgit/index.js';
import { marked } from 'marked';
import DOMPurify from 'dompurify';
import { $, el, explain as explainError, progress } from '../page-ui.js';

const link = (href, text, props = {}) => el('a', { href, textContent: text, ...props });
const short = (oid) => oid.slice(0, 8);
const when = (ident) => new Date(ident.timestamp * 1000).toISOString().slice(0, 10);
const utf8 = new TextDecoder('utf-8', { fatal: false });
const isBinary = (bytes) => bytes.subarray(0, 8000).includes(0);
const enc = (p) => p.split('/').map(encodeURIComponent).join('/');

const state = { url: null, ref: 'main', depth: 200, dir: null, busy: false, abort: null };
const net = { requests: 0, received: 0, sent: 0 };

// --- requests, progress, messages ------------------------------------------------

function onRequest(r) {
  net.requests++;
  net.received += r.received;
  net.sent += r.sent;
  const path = new URL(r.url).pathname.replace(/^.*?\/git\//, '');
  $('request-log').append(el('li', { textContent: `${r.method} ${path} ${r.status} · ${r.sent} B sent, ${r.received} B received` }));
  showNet();
}

function showNet() {
  const kb = (n) => (n / 1024).toFixed(1);
  $('net').textContent = `${net.requests} requests · ${kb(net.received)} KiB received · ${kb(net.sent)} KiB sent`;
  $('net').dataset.requests = String(net.requests);
  $('requests').hidden = net.requests === 0;
}

// Options every repository call takes: lazy fetches report their requests.
const opts = (more = {}) => ({ dir: state.dir, onRequest, ...more });

const HINTS = {
  ENOTFOUND: 'Not found: check the URL, the ref or the path.',
  EAUTH: 'The server wants credentials: this preview reads public repositories only.',
  AbortError: 'Stopped.',
};
const explain = (e, what) => explainError(e, what, HINTS);

async function busy(what, fn) {
  state.busy = true;
  document.body.dataset.busy = 'true';
  const ac = new AbortController();
  state.abort = ac;
  $('progress').hidden = false;
  $('progress-text').textContent = `${what}…`;
  try {
    return await fn(ac.signal);
  } finally {
    state.busy = false;
    state.abort = null;
    delete document.body.dataset.busy;
    $('progress').hidden = true;
  }
}

// --- commits, by id (the core parses them: log of one commit) ----------------------

const commits = new Map();
async function commitInfo(oid) {
  if (!commits.has(oid)) {
    for await (const c of git.log(opts({ ref: oid, depth: 1 }))) commits.set(oid, c);
  }
  return commits.get(oid);
}

// --- views ---------------------------------------------------------------------------

function crumbs(path, leaf) {
  const nav = el('nav', { className: 'crumbs', ariaLabel: 'Path' }, link('#/tree/', state.ref));
  const parts = path ? path.split('/') : [];
  parts.forEach((part, i) => {
    nav.append(' / ');
    const sub = parts.slice(0, i + 1).join('/');
    nav.append(i === parts.length - 1 && leaf ? el('span', { textContent: part }) : link(`#/tree/${enc(sub)}`, part));
  });
  return nav;
}

// The entries of a directory with the commit that last changed each
// (git last-modified), then its README rendered.
async function viewTree(path) {
  const entries = await git.readTree(opts({ ref: state.ref, path }));
  const last = path
    ? (await git.lastModified(opts({ ref: state.ref, paths: [`${path}/`], recursive: true, showTrees: true })))
      .filter((e) => e.path.slice(0, e.path.lastIndexOf('/')) === path)
    : await git.lastModified(opts({ ref: state.ref }));
  const byName = new Map(last.map((e) => [e.path.slice(e.path.lastIndexOf('/') + 1), e.commit]));
  const table = el('table', { className: 'entries' });
  const sorted = [...entries].sort((a, b) => (b.type === 'tree') - (a.type === 'tree'));
  for (const e of sorted) {
    const full = path ? `${path}/${e.name}` : e.name;
    const oid = byName.get(e.name);
    const c = oid ? await commitInfo(oid) : null;
    const row = el('tr', {},
      el('td', { className: 'name' }, link(e.type === 'tree' ? `#/tree/${enc(full)}` : `#/blob/${enc(full)}`,
        e.type === 'tree' ? `${e.name}/` : e.name)),
      el('td', { className: 'msg' }, c ? link(`#/commit/${oid}`, c.message.split('\n')[0]) : ''),
      el('td', { className: 'when' }, c ? when(c.committer) : ''));
    row.dataset.path = full;
    row.dataset.commit = oid ?? '';
    table.append(row);
  }
  const out = [crumbs(path, false), el('div', { className: 'box' }, table)];
  const readme = entries.find((e) => e.type === 'blob' && /^readme(\.(md|markdown|txt))?$/i.test(e.name));
  if (readme) {
    const bytes = await git.readFile(opts({ ref: state.ref, path: path ? `${path}/${readme.name}` : readme.name }));
    const text = utf8.decode(bytes);
    const body = el('article', { className: 'readme' });
    if (/\.(md|markdown)$/i.test(readme.name)) {
      // the repository's Markdown is untrusted: sanitised before it is shown
      body.innerHTML = DOMPurify.sanitize(marked.parse(text, { async: false }));
      // links to the repository's own files open them here
      for (const a of body.querySelectorAll('a[href]')) {
        const target = repoPath(a.getAttribute('href'), path);
        if (target === null) continue;
        // "docs/" names a directory; "docs" may too (its page says so)
        a.setAttribute('href', target.endsWith('/') || target === '' ? `#/tree/${enc(target.replace(/\/$/, ''))}` : `#/blob/${enc(target)}`);
      }
      // and its own images show from their blobs (fetched now, as the
      // page shows them); one that is not there keeps its alt text
      await Promise.all([...body.querySelectorAll('img[src]')].map(async (img) => {
        const target = repoPath(img.getAttribute('src'), path);
        if (target === null) return;
        // the page's server has none of these
        img.removeAttribute('src');
        img.removeAttribute('srcset');
        if (!imageType(target)) return;
        try {
          img.src = await imageUrl(target);
          img.dataset.path = target;
        } catch (e) {
          if (e.code !== 'ENOTFOUND') throw e;
        }
      }));
    } else {
      body.append(el('pre', { textContent: text }));
    }
    out.push(el('section', { className: 'box', ariaLabel: readme.name }, el('h2', { className: 'readme', textContent: readme.name }), body));
  }
  return out;
}

// Images of the repository: shown from their blobs through object URLs,
// released when the next view replaces this one.
const IMAGE_TYPES = {
  png: 'image/png', jpg: 'image/jpeg', jpeg: 'image/jpeg', gif: 'image/gif', webp: 'image/webp',
  avif: 'image/avif', bmp: 'image/bmp', ico: 'image/x-icon', svg: 'image/svg+xml',
};
const imageType = (p) => IMAGE_TYPES[p.slice(p.lastIndexOf('.') + 1).toLowerCase()];
let objectUrls = [];
async function imageUrl(path) {
  const bytes = await git.readFile(opts({ ref: state.ref, path }));
  const u = URL.createObjectURL(new Blob([bytes], { type: imageType(path) }));
  objectUrls.push(u);
  return u;
}

// A link or image of a README names a file of the repository when it is
// relative: the path it names, from the README's directory ("../" stops at
// the top, as on a forge). Null when it is absolute, a fragment, names
// another host ("\\host/x" is "//host/x" to a URL parser) or is not
// valid percent-encoding.
function repoPath(href, dir) {
  if (/^([a-z][a-z0-9+.-]*:|#|\/\/)/i.test(href)) return null;
  const url = new URL(href, `https://repo/${dir ? `${dir}/` : ''}`);
  if (url.host !== 'repo') return null;
  try {
    return decodeURIComponent(url.pathname.slice(1));
  } catch {
    return null;
  }
}

async function fileLines(path) {
  const bytes = await git.readFile(opts({ ref: state.ref, path }));
  if (isBinary(bytes)) return null;
  const lines = utf8.decode(bytes).split('\n');
  if (lines[lines.length - 1] === '') lines.pop();
  return lines;
}

async function viewBlob(path) {
  // a link to a directory written without its slash: show the directory
  // (its parent's listing says which it is, with no blob fetched)
  const slash = path.lastIndexOf('/');
  const parent = await git.readTree(opts({ ref: state.ref, path: slash < 0 ? '' : path.slice(0, slash) }));
  if (parent.find((e) => e.name === path.slice(slash + 1))?.type === 'tree') {
    history.replaceState(null, '', `#/tree/${enc(path)}`);
    return viewTree(path);
  }
  if (imageType(path)) {
    return [crumbs(path, true),
      el('div', { className: 'toolbar' }, link(`#/commits?path=${enc(path)}`, 'History')),
      el('div', { className: 'box image' }, el('img', { src: await imageUrl(path), alt: path }))];
  }
  const lines = await fileLines(path);
  const table = el('table', { className: 'code' });
  if (lines) {
    lines.forEach((l, i) => table.append(el('tr', {}, el('td', { className: 'n', textContent: i + 1 }), el('td', { textContent: l }))));
  }
  return [crumbs(path, true),
    el('div', { className: 'toolbar' }, link(`#/blame/${enc(path)}`, 'Blame'), link(`#/commits?path=${enc(path)}`, 'History')),
    el('div', { className: 'box' }, lines ? table : el('p', { className: 'readme', textContent: 'Binary file.' }))];
}

// Each line with the commit it came from (git blame), grouped.
async function viewBlame(path) {
  const [lines, groups] = [await fileLines(path), await git.blame(opts({ ref: state.ref, path }))];
  const table = el('table', { className: 'blame' });
  for (const g of groups) {
    for (let k = 0; k < g.count; k++) {
      const n = g.start + k;
      const row = el('tr', { className: k === 0 ? 'first' : '' },
        el('td', { className: 'who' }, k === 0
          ? link(`#/commit/${g.commit}`, `${short(g.commit)}${g.boundary ? '^' : ''} ${g.summary}`) : ''),
        el('td', { className: 'n', textContent: n }),
        el('td', { textContent: lines?.[n - 1] ?? '' }));
      row.dataset.line = String(n);
      row.dataset.commit = g.commit;
      table.append(row);
    }
  }
  return [crumbs(path, true), el('h2', { textContent: `Blame of ${path}` }), el('div', { className: 'box' }, table)];
}

async function viewCommits(query) {
  const path = query.get('path');
  const table = el('table', { className: 'commits' });
  for await (const c of git.log(opts({ ref: state.ref, depth: 50, paths: path ? [path] : undefined }))) {
    const row = el('tr', {},
      el('td', {}, link(`#/commit/${c.oid}`, c.message.split('\n')[0])),
      el('td', { className: 'mono', textContent: c.author.name }),
      el('td', { className: 'when' }, link(`#/commit/${c.oid}`, short(c.oid), { className: 'mono' }), ` ${when(c.committer)}`));
    row.dataset.commit = c.oid;
    table.append(row);
  }
  return [el('h2', { textContent: path ? `History of ${path}` : `Commits on ${state.ref}` }), el('div', { className: 'box' }, table)];
}

// --- diffs: unified and split ---------------------------------------------------------

function unifiedRows(f, table) {
  for (const h of f.hunks) {
    table.append(el('tr', { className: 'hunk' }, el('td', { className: 'n' }), el('td', { className: 'n' }),
      el('td', { textContent: `@@ -${h.oldStart},${h.oldLines} +${h.newStart},${h.newLines} @@ ${h.header}` })));
    for (const l of h.lines) {
      table.append(el('tr', { className: l.type === '+' ? 'add' : l.type === '-' ? 'del' : '' },
        el('td', { className: 'n', textContent: l.oldLine ?? '' }), el('td', { className: 'n', textContent: l.newLine ?? '' }),
        el('td', { textContent: `${l.type}${l.text}` })));
    }
  }
}

// Side by side: deletions on the left paired with the additions that
// follow them, context on both sides.
function splitRows(f, table) {
  for (const h of f.hunks) {
    table.append(el('tr', { className: 'hunk' }, el('td', { className: 'n' }),
      el('td', { colSpan: 3, textContent: `@@ -${h.oldStart},${h.oldLines} +${h.newStart},${h.newLines} @@ ${h.header}` })));
    const lines = h.lines;
    for (let i = 0; i < lines.length;) {
      if (lines[i].type === ' ') {
        const l = lines[i++];
        table.append(el('tr', {}, el('td', { className: 'n', textContent: l.oldLine }), el('td', { textContent: l.text }),
          el('td', { className: 'n', textContent: l.newLine }), el('td', { textContent: l.text })));
        continue;
      }
      const del = [];
      const add = [];
      while (i < lines.length && lines[i].type === '-') del.push(lines[i++]);
      while (i < lines.length && lines[i].type === '+') add.push(lines[i++]);
      for (let k = 0; k < Math.max(del.length, add.length); k++) {
        const d = del[k];
        const a = add[k];
        table.append(el('tr', {},
          el('td', { className: 'n', textContent: d?.oldLine ?? '' }), el('td', { className: d ? 'del' : '', textContent: d?.text ?? '' }),
          el('td', { className: 'n', textContent: a?.newLine ?? '' }), el('td', { className: a ? 'add' : '', textContent: a?.text ?? '' })));
      }
    }
  }
}

function renderDiff(files, split) {
  return files.map((f) => {
    const name = f.status === 'R' || f.status === 'C' ? `${f.oldPath} → ${f.newPath}` : f.newPath ?? f.oldPath;
    const table = el('table', { className: 'diff-table' });
    if (split) {
      table.append(el('colgroup', {}, el('col', { style: 'width:3.5rem' }), el('col'), el('col', { style: 'width:3.5rem' }), el('col')));
      splitRows(f, table);
    } else {
      table.append(el('colgroup', {}, el('col', { style: 'width:3.5rem' }), el('col', { style: 'width:3.5rem' }), el('col')));
      unifiedRows(f, table);
    }
    const box = el('section', { className: 'box diff-file' },
      el('header', {}, el('span', { textContent: f.status }), el('span', { className: 'file', textContent: name }),
        el('span', { className: 'counts' }, f.binary ? 'binary'
          : el('span', {}, el('span', { className: 'add-count', textContent: `+${f.additions}` }), ' ',
            el('span', { className: 'del-count', textContent: `−${f.deletions}` })))),
      f.binary ? el('p', { className: 'readme', textContent: 'Binary file.' }) : table);
    box.dataset.path = f.newPath ?? f.oldPath;
    box.dataset.additions = String(f.additions ?? '');
    box.dataset.deletions = String(f.deletions ?? '');
    return box;
  });
}

function viewToggle(route, split) {
  return el('div', { className: 'toolbar', role: 'group', ariaLabel: 'Diff view' },
    link(`#${route}`, 'Unified', { ariaCurrent: split ? null : 'true', id: 'view-unified' }),
    link(`#${route}?view=split`, 'Split', { ariaCurrent: split ? 'true' : null, id: 'view-split' }));
}

async function viewCommit(oid, query, route) {
  const c = await commitInfo(oid);
  const split = query.get('view') === 'split';
  const files = await git.diff(opts({ to: oid }));
  const [subject, ...body] = c.message.split('\n');
  return [el('h2', { textContent: subject }),
    el('p', { className: 'mono muted', textContent: `${c.oid} · ${c.author.name} <${c.author.email}> · ${when(c.author)}` +
      (c.parents.length ? ` · parent ${c.parents.map(short).join(', ')}` : '') }),
    body.join('\n').trim() ? el('pre', { className: 'box readme', textContent: body.join('\n').trim() }) : null,
    viewToggle(route, split), ...renderDiff(files, split)];
}

// base...head as forges compare: the commits head has that base lacks,
// and the diff from their merge base.
async function viewCompare(spec, query, route) {
  // a bare clone: the server's branches are refs/heads/
  const branches = (await git.listRefs(opts({ prefix: 'refs/heads/' })))
    .map((r) => r.name.slice('refs/heads/'.length));
  const [base = state.ref, head = branches.find((b) => b !== state.ref) ?? state.ref] = spec ? spec.split('...') : [];
  const form = el('form', { className: 'toolbar', id: 'compare-form' },
    el('label', {}, 'base ', el('input', { id: 'compare-base', value: base, size: 14 })),
    el('label', {}, 'compare ', el('input', { id: 'compare-head', value: head, size: 14 })),
    el('button', { type: 'submit', textContent: 'Compare' }));
  form.addEventListener('submit', (ev) => {
    ev.preventDefault();
    location.hash = `#/compare/${$('compare-base').value}...${$('compare-head').value}`;
  });
  const out = [form];
  if (!spec) return out;
  const split = query.get('view') === 'split';
  const { ahead, behind } = await git.aheadBehind(opts({ ref: head, base }));
  const mb = await git.mergeBase(opts({ commits: [base, head] }));
  const table = el('table', { className: 'commits' });
  for await (const c of git.log(opts({ range: `${base}..${head}` }))) {
    const row = el('tr', {}, el('td', {}, link(`#/commit/${c.oid}`, c.message.split('\n')[0])),
      el('td', { className: 'when mono', textContent: short(c.oid) }));
    row.dataset.commit = c.oid;
    table.append(row);
  }
  const summary = el('p', { id: 'compare-summary', textContent: `${head} is ${ahead} commit${ahead === 1 ? '' : 's'} ahead of and ${behind} behind ${base}` });
  summary.dataset.ahead = String(ahead);
  summary.dataset.behind = String(behind);
  out.push(summary, el('div', { className: 'box' }, table));
  if (mb) out.push(viewToggle(route, split), ...renderDiff(await git.diff(opts({ from: mb, to: head })), split));
  return out;
}

// --- routing ---------------------------------------------------------------------------

async function route() {
  if (!state.dir) return;
  const [path, qs = ''] = location.hash.replace(/^#/, '').split('?');
  const query = new URLSearchParams(qs);
  const [, kind = 'tree', ...rest] = (path || '/tree/').split('/');
  const arg = decodeURIComponent(rest.join('/'));
  for (const t of ['tree', 'commits', 'compare']) {
    const here = kind === t || (t === 'tree' && ['blob', 'blame'].includes(kind));
    if (here) $(`tab-${t}`).setAttribute('aria-current', 'page');
    else $(`tab-${t}`).removeAttribute('aria-current');
  }
  const view = $('view');
  view.dataset.route = kind;
  delete view.dataset.ready;
  // the images of the view shown until now, released once it is replaced
  const previousUrls = objectUrls;
  objectUrls = [];
  try {
    const nodes = await busy('Reading', () => ({
      tree: () => viewTree(arg.replace(/\/$/, '')),
      blob: () => viewBlob(arg),
      blame: () => viewBlame(arg),
      commits: () => viewCommits(query),
      commit: () => viewCommit(arg, query, path),
      compare: () => viewCompare(arg, query, path),
    }[kind] ?? (() => viewTree('')))());
    view.replaceChildren(...nodes.filter(Boolean));
    view.dataset.ready = 'true';
  } catch (e) {
    view.replaceChildren(el('p', { className: 'empty', textContent: 'This page could not be shown.' }));
    explain(e, 'Reading');
  }
  for (const u of previousUrls) URL.revokeObjectURL(u);
}

window.addEventListener('hashchange', route);

// --- opening a repository -----------------------------------------------------------------

async function openRepo(url, ref, depth) {
  const name = new URL(url).pathname.split('/').filter(Boolean).pop()?.replace(/\.git$/, '') || 'repo';
  const dir = `/forge/${name}`;
  $('message').hidden = true;
  const done = await busy('Clone', async (signal) => {
    // a fresh preview: what was cloned before for another URL or depth goes
    if ((await git.listRepos()).includes(dir)) await git.deleteRepo({ dir });
    await git.clone({ url, dir, bare: true, filter: 'blob:none', depth, singleBranch: false,
      onRequest, onProgress: progress, signal });
    return true;
  }).catch((e) => { explain(e, 'Clone'); return false; });
  if (!done) return;
  Object.assign(state, { url, ref, depth, dir });
  commits.clear();
  $('tabs').hidden = false;
  $('view').hidden = false;
  $('empty').hidden = true;
  document.body.dataset.opened = 'true';
  await route();
}

$('open-form').addEventListener('submit', async (ev) => {
  ev.preventDefault();
  const url = $('url').value.trim();
  const ref = $('ref').value.trim() || 'main';
  const depth = Number($('depth').value) || 200;
  history.replaceState(null, '', `?${new URLSearchParams({ url, ref, depth })}${location.hash}`);
  await openRepo(url, ref, depth);
});
$('abort').addEventListener('click', () => state.abort?.abort());
$('message-close').addEventListener('click', () => { $('message').hidden = true; });

async function start() {
  const q = new URLSearchParams(location.search);
  $('url').value = q.get('url') ?? `${location.origin}/git/sample-sha1-files.git`;
  $('ref').value = q.get('ref') ?? 'main';
  $('depth').value = q.get('depth') ?? '200';
  await git.init();
  $('status').textContent = 'webgit ready — the preview is a blob-less clone in this tab';
  document.body.dataset.started = 'true';
  if (q.get('url')) await openRepo($('url').value, $('ref').value, Number($('depth').value));
  else $('empty').hidden = false;
}

start().catch((e) => explain(e, 'Loading'));
