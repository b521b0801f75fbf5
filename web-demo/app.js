// web-demo/app.js — the webgit demo page: clone a repository into the
// browser, pick a ref, browse its tree, read files, see the history; the
// repository is still there after a reload (the webgit API keeps each
// repository directory in IndexedDB).
//
// webgit itself runs in a module Worker (worker.js), so a clone never
// blocks the page; where module workers are missing, worker.js is imported
// into the page instead. Plain ES modules, no build step: the webgit package
// is served at ./webgit/ (scripts/demo.sh mounts <build>/js there).
//
// What the page remembers (localStorage, prefix "webgit-demo:"):
//   current        the repository directory shown last
//   repos          { dir: { url, clonedAt } } for the repositories cloned here
//   view:<dir>     { ref, file, open: [directories expanded] } per repository

const $ = (id) => document.getElementById(id);
const els = {
  form: $('clone-form'), url: $('url'), samples: $('samples'), shallow: $('shallow'),
  clone: $('clone'), abort: $('abort'),
  progress: $('progress'), bar: $('progress-bar'), progressText: $('progress-text'),
  message: $('message'), messageText: $('message-text'), messageClose: $('message-close'),
  repoBar: $('repo-bar'), repoSelect: $('repo-select'), deleteRepo: $('delete-repo'),
  refSelect: $('ref-select'), refOid: $('ref-oid'), origin: $('repo-origin'),
  browser: $('browser'), tree: $('tree'),
  fileHeader: $('file-header'), fileBody: $('file-body'), fileContent: $('file-content'), fileNote: $('file-note'),
  log: $('log'), empty: $('empty'), status: $('status'),
};

const SAMPLES = ['sample-sha1-files', 'sample-sha256-reftable', 'sample-sha1-reftable', 'sample-sha256-files'];
const DEFAULT_URL = `${location.origin}/git/${SAMPLES[0]}.git`;
const REPO_ROOT = '/repos';
const TEXT_LIMIT = 2 << 20;       // show at most 2 MiB of a text file
const LOG_DEPTH = 50;

// --- small helpers -------------------------------------------------------------

function h(tag, attrs = {}, children = []) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v === undefined || v === null || v === false) continue;
    if (k === 'class') e.className = v;
    else if (k === 'dataset') Object.assign(e.dataset, v);
    else if (k === 'text') e.textContent = v;
    else if (k.startsWith('on')) e.addEventListener(k.slice(2), v);
    else e.setAttribute(k, v === true ? '' : v);
  }
  for (const c of [].concat(children)) {
    if (c !== null && c !== undefined) e.append(c);
  }
  return e;
}

const short = (oid) => (oid ? oid.slice(0, 10) : '');

function fmtBytes(n) {
  if (n < 1024) return `${n} B`;
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(1)} KiB`;
  return `${(n / 1024 / 1024).toFixed(1)} MiB`;
}

const relative = new Intl.RelativeTimeFormat('en', { numeric: 'auto' });
function ago(seconds) {
  const d = seconds - Date.now() / 1000;
  const units = [['year', 31536000], ['month', 2592000], ['week', 604800], ['day', 86400], ['hour', 3600], ['minute', 60]];
  for (const [unit, s] of units) {
    if (Math.abs(d) >= s) return relative.format(Math.round(d / s), unit);
  }
  return 'just now';
}

const store = {
  get(key, fallback) {
    try {
      const v = localStorage.getItem(`webgit-demo:${key}`);
      return v === null ? fallback : JSON.parse(v);
    } catch {
      return fallback;
    }
  },
  set(key, value) {
    try {
      if (value === undefined) localStorage.removeItem(`webgit-demo:${key}`);
      else localStorage.setItem(`webgit-demo:${key}`, JSON.stringify(value));
    } catch {
      // storage disabled or full: the page still works, it just forgets
    }
  },
};

// --- messages ----------------------------------------------------------------------

function showError(context, err) {
  els.message.dataset.kind = 'error';
  els.messageText.replaceChildren(
    `${context}: `,
    h('span', { class: 'code', text: err?.code || err?.name || 'ERROR' }),
    err?.message || String(err));
  els.message.hidden = false;
  console.error(context, err);
}

function showNotice(text) {
  els.message.dataset.kind = 'notice';
  els.messageText.replaceChildren(text);
  els.message.hidden = false;
}

function clearMessage() {
  els.message.hidden = true;
  els.messageText.replaceChildren();
}

els.messageClose.addEventListener('click', clearMessage);

// --- the webgit client: a module Worker, else the page itself ----------------------

function toError(info) {
  const e = new Error(info.message);
  e.name = info.name;
  e.code = info.code;
  return e;
}

function workerClient(worker) {
  let seq = 0;
  const pending = new Map();
  worker.addEventListener('message', (event) => {
    const m = event.data;
    const p = pending.get(m?.id);
    if (!p) return;
    if (m.type === 'progress') {
      p.onProgress?.(m.progress);
    } else if (m.type === 'result' || m.type === 'error') {
      pending.delete(m.id);
      if (m.type === 'result') p.resolve(m.result);
      else p.reject(toError(m.error));
    }
  });
  worker.addEventListener('error', (event) => {
    // Something in the worker failed outside any call: fail them all.
    const err = toError({ name: 'Error', code: 'EWORKER', message: event.message || 'the webgit worker failed' });
    for (const p of pending.values()) p.reject(err);
    pending.clear();
  });
  return {
    mode: 'worker',
    call(method, args = {}, { onProgress, signal } = {}) {
      const id = ++seq;
      return new Promise((resolve, reject) => {
        pending.set(id, { resolve, reject, onProgress });
        worker.postMessage({ type: 'call', id, method, args });
        signal?.addEventListener('abort', () => worker.postMessage({ type: 'abort', id }), { once: true });
      });
    },
  };
}

function pageClient(mod) {
  return {
    mode: 'page',
    async call(method, args = {}, { onProgress, signal } = {}) {
      try {
        return await mod.handlers[method](args, {
          signal: signal || new AbortController().signal,
          progress: mod.throttled((p) => onProgress?.(p)),
        });
      } catch (e) {
        throw toError(mod.errorInfo(e));
      }
    },
  };
}

async function connect() {
  if (typeof Worker === 'function') {
    let worker;
    try {
      worker = new Worker(new URL('./worker.js', import.meta.url), { type: 'module', name: 'webgit' });
      await new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error('the worker did not start within 60 s')), 60000);
        worker.addEventListener('message', function ready(e) {
          if (e.data?.type !== 'ready') return;
          clearTimeout(timer);
          worker.removeEventListener('message', ready);
          resolve();
        });
        worker.addEventListener('error', (e) => {
          clearTimeout(timer);
          e.preventDefault?.();
          reject(new Error(e.message || 'the module worker failed to load'));
        }, { once: true });
      });
      return workerClient(worker);
    } catch (e) {
      worker?.terminate();
      console.warn('webgit demo: no module worker, running webgit in the page:', e.message);
    }
  }
  return pageClient(await import('./worker.js'));
}

// --- state -----------------------------------------------------------------------------

const state = {
  client: null,
  threads: 0,         // the threads webgit resolves deltas on (0: one)
  repos: [],          // repository directories, sorted
  dir: null,          // the one shown
  refs: null,         // the worker's refs() answer for dir
  ref: null,          // the ref picked (a ref name, or a commit id)
  commit: null,       // the commit it names
  file: null,         // the path open in the viewer
  open: new Set(),    // expanded directories
  gen: 0,             // bumped when repo or ref change: later answers for older ones are dropped
  persistent: false,  // repositories survive a reload (IndexedDB)
  cloning: null,      // the AbortController of a clone in flight
  trees: new Map(),   // `${commit}:${path}` -> entries
};

const call = (method, args, opts) => state.client.call(method, args, opts);

function saveView() {
  if (!state.dir) return;
  store.set(`view:${state.dir}`, { ref: state.ref, file: state.file, open: [...state.open] });
}

function metaAll() {
  const m = store.get('repos', {});
  return m && typeof m === 'object' ? m : {};
}

// --- repositories ------------------------------------------------------------------------

// The repositories are what the storage holds (listRepos()); what the page
// remembers of one that is gone (deleted in another tab, or kept in memory
// only before a reload) is forgotten.
async function refreshRepos() {
  const { dirs } = await call('repos');
  for (const d of Object.keys(metaAll())) {
    if (!dirs.includes(d)) forgetRepo(d);
  }
  const meta = metaAll();
  state.repos = [...dirs].sort();
  els.repoSelect.replaceChildren(...state.repos.map((d) => {
    const url = meta[d]?.url;
    return h('option', { value: d, text: d.replace(`${REPO_ROOT}/`, ''), title: url ? `${d} — ${url}` : d });
  }));
  if (state.dir) els.repoSelect.value = state.dir;
  els.empty.hidden = state.repos.length > 0 || !!state.cloning;
  return state.repos;
}

function nameFromUrl(url) {
  let name = '';
  try {
    name = new URL(url).pathname.split('/').filter(Boolean).pop() || '';
  } catch {
    // not a URL: clone() will say so
  }
  name = name.replace(/\.git$/, '').replace(/[^A-Za-z0-9._-]+/g, '-').replace(/^[.-]+/, '');
  return name || 'repository';
}

function uniqueDir(name) {
  const taken = new Set(state.repos);
  let dir = `${REPO_ROOT}/${name}`;
  for (let i = 2; taken.has(dir); i++) dir = `${REPO_ROOT}/${name}-${i}`;
  return dir;
}

function forgetRepo(dir) {
  const meta = metaAll();
  delete meta[dir];
  store.set('repos', meta);
  store.set(`view:${dir}`, undefined);
  if (store.get('current') === dir) store.set('current', undefined);
}

function showNoRepo() {
  state.dir = null;
  state.gen++;
  els.repoBar.hidden = state.repos.length === 0;
  els.browser.hidden = true;
  els.empty.hidden = !!state.cloning;
}

async function openRepo(dir, { restore = true } = {}) {
  const gen = ++state.gen;
  state.dir = dir;
  state.refs = null;
  state.trees.clear();
  store.set('current', dir);
  const meta = metaAll()[dir] || {};
  els.repoSelect.value = dir;
  els.origin.textContent = meta.url ? `from ${meta.url}` : '';
  els.repoBar.hidden = false;
  els.browser.hidden = false;
  els.empty.hidden = true;
  els.refSelect.replaceChildren();
  els.refOid.textContent = '';
  els.tree.replaceChildren(h('li', { class: 'loading', text: 'opening…' }));
  clearViewer();
  els.log.replaceChildren();

  let info;
  try {
    info = await call('refs', { dir });
  } catch (e) {
    if (gen !== state.gen) return;
    els.tree.replaceChildren();
    showError(`Cannot open ${dir}`, e);
    document.body.dataset.ready = 'true';
    return;
  }
  if (gen !== state.gen) return;
  state.refs = info;
  renderRefs();

  const view = restore ? store.get(`view:${dir}`, null) : null;
  let ref = info.headTarget || 'HEAD';
  if (view?.ref && (/^[0-9a-f]{40,64}$/.test(view.ref) || info.refs.some((r) => r.name === view.ref && r.commit))) {
    ref = view.ref;
  }
  state.open = new Set(Array.isArray(view?.open) ? view.open : []);
  state.file = typeof view?.file === 'string' ? view.file : null;
  await selectRef(ref);
}

// --- refs --------------------------------------------------------------------------------

function refLabel(name) {
  return name.replace(/^refs\/(heads|tags|remotes)\//, '');
}

function renderRefs() {
  const { refs, headTarget } = state.refs;
  const groups = [
    ['Branches', (n) => n.startsWith('refs/heads/')],
    ['Remote branches', (n) => n.startsWith('refs/remotes/')],
    ['Tags', (n) => n.startsWith('refs/tags/')],
    ['Other', () => true],
  ];
  const used = new Set();
  const children = [];
  if (!headTarget || !refs.some((r) => r.name === headTarget)) {
    children.push(h('option', { value: 'HEAD', text: 'HEAD' }));
  }
  for (const [label, test] of groups) {
    const opts = [];
    for (const r of refs) {
      if (used.has(r.name) || !test(r.name)) continue;
      used.add(r.name);
      const text = refLabel(r.name) + (r.name === headTarget ? ' (HEAD)' : '') +
        (r.commit ? '' : ' — not a commit');
      opts.push(h('option', { value: r.name, text, disabled: !r.commit, title: r.name }));
    }
    if (opts.length) children.push(h('optgroup', { label }, opts));
  }
  els.refSelect.replaceChildren(...children);
}

// A commit picked from the log: an extra option at the top.
function ensureCommitOption(oid) {
  let opt = els.refSelect.querySelector('option[data-commit]');
  if (!opt) {
    opt = h('option', { dataset: { commit: '1' } });
    els.refSelect.prepend(opt);
  }
  opt.value = oid;
  opt.textContent = `commit ${short(oid)}`;
}

async function selectRef(ref) {
  const gen = ++state.gen;
  const dir = state.dir;
  let commit = state.refs?.refs.find((r) => r.name === ref)?.commit || null;
  if (!commit) {
    try {
      commit = await call('resolve', { dir, ref });
    } catch (e) {
      if (gen !== state.gen) return;
      showError(`Cannot resolve ${ref}`, e);
      if (ref !== 'HEAD' && ref !== state.refs?.headTarget) {
        return selectRef(state.refs?.headTarget || 'HEAD');
      }
      return;
    }
    if (gen !== state.gen) return;
  }
  state.ref = ref;
  state.commit = commit;
  if (/^[0-9a-f]{40,64}$/.test(ref)) ensureCommitOption(ref);
  else els.refSelect.querySelector('option[data-commit]')?.remove();
  els.refSelect.value = ref;
  els.refOid.textContent = short(commit);
  els.refOid.title = `commit ${commit}`;
  // The same directories and file stay open where the new ref has them.
  saveView();
  await renderTree(gen);
  if (gen !== state.gen) return;
  if (state.file) await openFile(state.file, { gen, quiet: true });
  else clearViewer();
  if (gen !== state.gen) return;
  document.body.dataset.ready = 'true';
  await loadLog(gen);
}

els.refSelect.addEventListener('change', () => {
  clearMessage();
  selectRef(els.refSelect.value);
});

els.repoSelect.addEventListener('change', () => {
  clearMessage();
  openRepo(els.repoSelect.value, { restore: true });
});

// --- the tree ------------------------------------------------------------------------

async function listDir(path, gen) {
  const key = `${state.commit}:${path}`;
  if (state.trees.has(key)) return state.trees.get(key);
  const entries = await call('tree', { dir: state.dir, ref: state.commit, path });
  if (gen === state.gen) state.trees.set(key, entries);
  return entries;
}

function sortEntries(entries) {
  return [...entries].sort((a, b) => {
    const da = a.type === 'tree' ? 0 : 1, db = b.type === 'tree' ? 0 : 1;
    if (da !== db) return da - db;
    return a.name < b.name ? -1 : a.name > b.name ? 1 : 0;
  });
}

function icon(entry, expanded) {
  if (entry.type === 'tree') return expanded ? '▾' : '▸';
  if (entry.type === 'commit') return '◆';
  if (entry.mode === '120000') return '↪';
  if (entry.mode === '100755') return '⚙';
  return '·';
}

function entryNode(entry, parent) {
  const path = parent ? `${parent}/${entry.name}` : entry.name;
  const isDir = entry.type === 'tree';
  const li = h('li', {
    role: 'treeitem',
    dataset: { path, type: entry.type, mode: entry.mode, oid: entry.oid },
    'aria-expanded': isDir ? 'false' : null,
  });
  li.webgitEntry = entry;
  const button = h('button', {
    class: 'entry', type: 'button', title: `${entry.mode} ${entry.type} ${entry.oid}`,
    onclick: () => {
      clearMessage();
      if (isDir) toggleDir(li);
      else openFile(path, { entry });
    },
  }, [h('span', { class: 'icon', text: icon(entry, false) }), h('span', { class: 'name', text: entry.name })]);
  li.append(button);
  if (path === state.file) button.setAttribute('aria-selected', 'true');
  return li;
}

// Fill `ul` with the entries of directory `path`, then expand the
// subdirectories that were open.
async function fillDir(ul, path, gen) {
  ul.replaceChildren(h('li', { class: 'loading', text: 'loading…' }));
  let entries;
  try {
    entries = await listDir(path, gen);
  } catch (e) {
    if (gen !== state.gen) return;
    ul.replaceChildren(h('li', { class: 'failed', text: `${e.code}: ${e.message}` }));
    if (path) state.open.delete(path);
    return;
  }
  if (gen !== state.gen) return;
  const nodes = sortEntries(entries).map((e) => entryNode(e, path));
  ul.replaceChildren(...nodes);
  for (const li of nodes) {
    if (li.dataset.type === 'tree' && state.open.has(li.dataset.path)) {
      await expand(li, gen);
      if (gen !== state.gen) return;
    }
  }
}

async function renderTree(gen) {
  await fillDir(els.tree, '', gen);
  if (gen !== state.gen) return;
  // Directories that no longer exist at this ref are closed.
  const shown = new Set([...els.tree.querySelectorAll('li[aria-expanded="true"]')].map((li) => li.dataset.path));
  state.open = new Set([...state.open].filter((p) => shown.has(p)));
  saveView();
}

async function expand(li, gen = state.gen) {
  const path = li.dataset.path;
  li.setAttribute('aria-expanded', 'true');
  li.querySelector(':scope > .entry > .icon').textContent = '▾';
  state.open.add(path);
  const ul = h('ul', { role: 'group' });
  li.append(ul);
  await fillDir(ul, path, gen);
}

function collapse(li) {
  const path = li.dataset.path;
  li.setAttribute('aria-expanded', 'false');
  li.querySelector(':scope > .entry > .icon').textContent = '▸';
  li.querySelector(':scope > ul')?.remove();
  for (const p of [...state.open]) {
    if (p === path || p.startsWith(`${path}/`)) state.open.delete(p);
  }
}

async function toggleDir(li) {
  if (li.getAttribute('aria-expanded') === 'true') collapse(li);
  else await expand(li);
  saveView();
}

// --- the file viewer ----------------------------------------------------------------------

function clearViewer() {
  els.fileHeader.replaceChildren(h('span', { class: 'muted', text: 'Pick a file on the left.' }));
  els.fileContent.hidden = true;
  els.fileContent.textContent = '';
  els.fileNote.hidden = true;
  delete els.fileBody.dataset.path;
  delete els.fileBody.dataset.kind;
  els.fileBody.dataset.state = 'empty';
}

const utf8 = new TextDecoder('utf-8', { fatal: true });

// Text: valid UTF-8 without NUL bytes in its first 8000 (git's own test
// for "binary" looks for a NUL there).
function asText(bytes) {
  const head = bytes.subarray(0, 8000);
  if (head.includes(0)) return null;
  try {
    return utf8.decode(bytes.byteLength > TEXT_LIMIT ? bytes.subarray(0, TEXT_LIMIT) : bytes);
  } catch (e) {
    if (bytes.byteLength <= TEXT_LIMIT) return null;
    // cut in the middle of a character: decode leniently
    return new TextDecoder().decode(bytes.subarray(0, TEXT_LIMIT));
  }
}

// The entry of `path` at the current commit (from the listed trees).
async function entryOf(path, gen) {
  const i = path.lastIndexOf('/');
  const parent = i < 0 ? '' : path.slice(0, i);
  const name = path.slice(i + 1);
  const entries = await listDir(parent, gen);
  return entries.find((e) => e.name === name) || null;
}

async function openFile(path, { entry, gen = state.gen, quiet = false } = {}) {
  state.file = path;
  saveView();
  for (const b of els.tree.querySelectorAll('.entry[aria-selected="true"]')) b.removeAttribute('aria-selected');
  els.tree.querySelector(`li[data-path="${CSS.escape(path)}"] > .entry`)?.setAttribute('aria-selected', 'true');
  els.fileBody.dataset.state = 'loading';
  els.fileBody.dataset.path = path;
  els.fileHeader.replaceChildren(h('span', { class: 'path', text: path }), h('span', { class: 'muted', text: 'loading…' }));
  try {
    entry ||= await entryOf(path, gen);
    if (gen !== state.gen || state.file !== path) return;
    if (!entry || entry.type === 'tree') {
      if (quiet) {
        state.file = null;
        saveView();
        clearViewer();
        els.fileHeader.replaceChildren(h('span', { class: 'muted', text: `${path} is not in ${refLabel(state.ref)}.` }));
        return;
      }
      throw Object.assign(new Error(`${path} is not a file in ${refLabel(state.ref)}`), { code: 'ENOTFOUND' });
    }
    const headerBits = [h('span', { class: 'path', text: path }), h('code', { class: 'muted', text: entry.mode })];
    if (entry.type === 'commit') {
      showFile(path, 'submodule', headerBits, null, `submodule at commit ${entry.oid}`);
      return;
    }
    const { data, size } = await call('file', { dir: state.dir, ref: state.commit, path });
    if (gen !== state.gen || state.file !== path) return;
    headerBits.push(h('span', { class: 'muted', text: `${size} bytes` }), h('code', { class: 'muted', title: entry.oid, text: short(entry.oid) }));
    if (entry.mode === '120000') {
      showFile(path, 'symlink', headerBits, null, `symbolic link to ${new TextDecoder().decode(data)}`);
    } else if (size === 0) {
      showFile(path, 'text', headerBits, '', 'empty file');
    } else {
      const text = asText(data);
      if (text === null) showFile(path, 'binary', headerBits, null, `binary, ${size} bytes`);
      else showFile(path, 'text', headerBits, text, size > TEXT_LIMIT ? `showing the first ${fmtBytes(TEXT_LIMIT)} of ${fmtBytes(size)}` : null);
    }
  } catch (e) {
    if (gen !== state.gen || state.file !== path) return;
    els.fileBody.dataset.state = 'failed';
    els.fileHeader.replaceChildren(h('span', { class: 'path', text: path }));
    els.fileContent.hidden = true;
    els.fileNote.hidden = true;
    showError(`Cannot read ${path}`, e);
  }
}

function showFile(path, kind, header, text, note) {
  els.fileHeader.replaceChildren(...header);
  els.fileContent.hidden = text === null;
  els.fileContent.textContent = text ?? '';
  els.fileNote.hidden = !note;
  els.fileNote.textContent = note || '';
  els.fileBody.dataset.kind = kind;
  els.fileBody.dataset.path = path;
  els.fileBody.dataset.state = 'loaded';
}

// --- the log ------------------------------------------------------------------------------

async function loadLog(gen) {
  els.log.replaceChildren(h('li', { class: 'muted', text: 'loading…' }));
  let res;
  try {
    res = await call('log', { dir: state.dir, ref: state.commit, depth: LOG_DEPTH });
  } catch (e) {
    if (gen === state.gen) els.log.replaceChildren(h('li', { class: 'muted', text: `no history: ${e.code}: ${e.message}` }));
    return;
  }
  if (gen !== state.gen) return;
  els.log.replaceChildren(...res.commits.map((c) => {
    const subject = c.message.split('\n', 1)[0] || '(no message)';
    const who = c.author;
    const when = c.committer.timestamp;     // the date the log is ordered by
    return h('li', { dataset: { oid: c.oid }, 'aria-current': c.oid === state.commit ? 'true' : null }, [
      h('button', {
        type: 'button',
        title: `${c.oid}\n${who.name} <${who.email}>\n${new Date(when * 1000).toISOString()}\n\n${c.message}`,
        onclick: () => { clearMessage(); selectRef(c.oid); },
      }, [
        h('span', { class: 'subject' }, [subject, c.parents.length > 1 ? h('span', { class: 'merge', text: 'merge' }) : null]),
        h('span', { class: 'meta', text: `${short(c.oid).slice(0, 7)} · ${who.name} · ${ago(when)}` }),
      ]),
    ]);
  }));
  if (res.commits.length === LOG_DEPTH) {
    els.log.append(h('li', { class: 'muted', text: `the newest ${LOG_DEPTH} commits` }));
  }
}

// --- cloning --------------------------------------------------------------------------------

function setProgress(stateName, text, done, total) {
  els.progress.hidden = false;
  els.progress.dataset.state = stateName;
  if (total > 0) {
    els.bar.max = total;
    els.bar.value = Math.min(done, total);
  } else if (stateName === 'running') {
    els.bar.removeAttribute('value');       // indeterminate
  }
  els.progressText.textContent = text;
}

function onCloneProgress(p) {
  if (!state.cloning) return;
  let text = p.phase || 'working';
  if (p.total > 0) text += `: ${Math.floor((100 * p.done) / p.total)}% (${p.done}/${p.total})`;
  else if (p.done > 0) text += `: ${p.done}`;
  if (p.bytes > 0) text += `, ${fmtBytes(p.bytes)}`;
  if (p.finished) text += ', done';
  setProgress('running', text, p.done, p.total);
}

async function startClone(event) {
  event.preventDefault();
  if (state.cloning) return;
  clearMessage();
  const url = els.url.value.trim();
  const dir = uniqueDir(nameFromUrl(url));
  const ac = new AbortController();
  state.cloning = ac;
  els.clone.disabled = true;
  els.abort.hidden = false;
  els.abort.disabled = false;
  els.empty.hidden = true;
  setProgress('running', `cloning into ${dir}…`, 0, 0);
  try {
    const { ms } = await call('clone', { url, dir, depth: els.shallow.checked ? 1 : 0 },
      { onProgress: onCloneProgress, signal: ac.signal });
    state.cloning = null;
    setProgress('done', `cloned ${url} into ${dir} in ${(ms / 1000).toFixed(1)} s`, 1, 1);
    const meta = metaAll();
    meta[dir] = { url, clonedAt: Date.now() };
    store.set('repos', meta);
    await refreshRepos();
    await openRepo(dir, { restore: false });
  } catch (e) {
    state.cloning = null;
    if (e.name === 'AbortError' || e.code === 'ABORT_ERR') {
      setProgress('aborted', 'clone aborted', 0, 1);
      showNotice(`Clone aborted: nothing was kept at ${dir}.`);
    } else {
      setProgress('failed', 'clone failed', 0, 1);
      showError(`Clone of ${url} failed`, e);
    }
    els.empty.hidden = state.repos.length > 0;
  } finally {
    state.cloning = null;
    els.clone.disabled = false;
    els.abort.hidden = true;
  }
}

els.form.addEventListener('submit', startClone);
els.abort.addEventListener('click', () => {
  els.abort.disabled = true;
  state.cloning?.abort();
});

els.deleteRepo.addEventListener('click', async () => {
  const dir = state.dir;
  if (!dir || !confirm(`Delete ${dir} from this browser?`)) return;
  clearMessage();
  try {
    await call('deleteRepo', { dir });
  } catch (e) {
    showError(`Cannot delete ${dir}`, e);
    return;
  }
  forgetRepo(dir);
  await refreshRepos();
  if (state.repos.length) await openRepo(state.repos[0]);
  else showNoRepo();
});

// --- start ------------------------------------------------------------------------------------

async function main() {
  els.url.value = DEFAULT_URL;
  els.samples.replaceChildren(...SAMPLES.map((s) => h('option', { value: `${location.origin}/git/${s}.git` })));
  try {
    state.client = await connect();
    const { storage, threads } = await call('hello');
    state.persistent = storage === 'idb';
    state.threads = threads || 0;
  } catch (e) {
    els.status.textContent = 'webgit did not load';
    els.clone.disabled = true;
    showError('Cannot load webgit from ./webgit/index.js', e);
    return;
  }
  els.status.textContent = `webgit runs in ${state.client.mode === 'worker' ? 'a Web Worker' : 'the page'}` +
    (state.threads ? ` with ${state.threads} threads for clones; ` : '; ') +
    (state.persistent ? 'repositories are kept in this browser (IndexedDB).'
      : 'without IndexedDB here, repositories are kept in memory only: they are gone after a reload.');
  const last = store.get('current', null);
  try {
    await refreshRepos();
  } catch (e) {
    showError('Cannot list the stored repositories', e);
  }
  if (last && !state.repos.includes(last) && !state.persistent) {
    // A new page has a new, empty memory: what was cloned before is gone.
    showNotice(`${last} was kept in memory only (no IndexedDB here) and is gone after the reload.`);
  }
  const dir = state.repos.includes(last) ? last : state.repos[0];
  if (dir) {
    await openRepo(dir, { restore: true });
  } else {
    showNoRepo();
    document.body.dataset.ready = 'true';
  }
}

main();
