// web-demo/editor/main.js — the editor page: a working tree in this tab
// (IndexedDB), edited with CodeMirror 6, with git's status, the diff of a
// file against HEAD, stage and unstage, commit, push (credentials asked
// when the server wants them), branches, fetch and a fast-forward pull,
// and history edits (reword, split) from the history panel.
// Every Git operation is a call of the webgit package, loaded as is from
// /webgit/ (the bundle leaves it out: scripts/build-pages.sh); CodeMirror
// is bundled from npm at build time.
//
// What the page shows is read back from the repository after every
// operation (refresh()), so a reload finds the same state: IndexedDB holds
// the repository, localStorage only which one was open and the author.
import * as git from '/webgit/index.js';
import { EditorView, basicSetup } from 'codemirror';
import { keymap } from '@codemirror/view';
import { Compartment, EditorState } from '@codemirror/state';
import { oneDarkTheme } from '@codemirror/theme-one-dark';
import { HighlightStyle, syntaxHighlighting } from '@codemirror/language';
import { tags as t } from '@lezer/highlight';
import { $, el, say, explain as explainError, progress } from '../page-ui.js';


// Each language is its own chunk of the bundle, loaded when a file needs it.
const LANGUAGES = [
  [/\.(m?js|cjs|jsx)$/i, async () => (await import('@codemirror/lang-javascript')).javascript({ jsx: true })],
  [/\.(ts|tsx|mts)$/i, async () => (await import('@codemirror/lang-javascript')).javascript({ typescript: true, jsx: true })],
  [/\.(md|markdown)$/i, async () => (await import('@codemirror/lang-markdown')).markdown()],
  [/\.py$/i, async () => (await import('@codemirror/lang-python')).python()],
  [/\.(css|scss)$/i, async () => (await import('@codemirror/lang-css')).css()],
  [/\.html?$/i, async () => (await import('@codemirror/lang-html')).html()],
  [/\.json$/i, async () => (await import('@codemirror/lang-json')).json()],
  [/\.(c|h|cc|cpp|hpp|cxx)$/i, async () => (await import('@codemirror/lang-cpp')).cpp()],
  [/\.rs$/i, async () => (await import('@codemirror/lang-rust')).rust()],
];
const languageFor = async (path) => (await LANGUAGES.find(([re]) => re.test(path))?.[1]()) ?? [];
// the colour scheme, followed as it changes (the system's light and dark)
const darkQuery = window.matchMedia?.('(prefers-color-scheme: dark)');
// The dark scheme: One Dark's editor colours with a highlight style of
// our own, every colour at least 4.5:1 (WCAG AA) on the editor's
// background and on the active line's (One Dark's own red, violet and
// comment grey are under it), and lighter gutter numbers for the same
// reason. Checked by tests/js/editor.test.mjs (tests/js/contrast.mjs).
const darkHighlight = HighlightStyle.define([
  { tag: t.keyword, color: '#d08ae4' },
  { tag: [t.name, t.deleted, t.character, t.propertyName, t.macroName], color: '#ec8790' },
  { tag: [t.function(t.variableName), t.labelName], color: '#61afef' },
  { tag: [t.color, t.constant(t.name), t.standard(t.name), t.atom, t.bool, t.special(t.variableName)], color: '#d19a66' },
  { tag: [t.definition(t.name), t.separator], color: '#abb2bf' },
  { tag: [t.typeName, t.className, t.number, t.changed, t.annotation, t.modifier, t.self, t.namespace], color: '#e5c07b' },
  { tag: [t.operator, t.operatorKeyword, t.url, t.escape, t.regexp, t.special(t.string)], color: '#56b6c2' },
  { tag: [t.meta, t.comment], color: '#9ba3b3' },
  { tag: t.link, color: '#9ba3b3', textDecoration: 'underline' },
  { tag: t.heading, fontWeight: 'bold', color: '#ec8790' },
  { tag: t.strong, fontWeight: 'bold' },
  { tag: t.emphasis, fontStyle: 'italic' },
  { tag: t.strikethrough, textDecoration: 'line-through' },
  { tag: [t.processingInstruction, t.string, t.inserted], color: '#98c379' },
  { tag: t.invalid, color: '#ffffff' },
]);
const readableGutters = EditorView.theme({ '.cm-gutters': { color: '#a3aab8' } }, { dark: true });
const themeFor = () => (darkQuery?.matches
  ? [readableGutters, oneDarkTheme, syntaxHighlighting(darkHighlight)] : []);

const state = {
  dir: null,          // the open repository, e.g. /repos/sample-sha1-files
  branch: null,       // its current branch (null: detached)
  path: null,         // the file in the editor
  saved: '',          // its text as last read or saved
  busy: false,
  abort: null,        // the running operation's AbortController
};

// --- messages, progress, busy --------------------------------------------------

const HINTS = {
  EAUTH: 'The server refused the credentials: check the user name and password (or token).',
  ENOTFOUND: 'Not found: check the repository URL, the branch or the path.',
  AbortError: 'Stopped: nothing was changed.',
  EEXISTS: 'Local changes are in the way: commit or undo them first.',
};
const explain = (e, what) => explainError(e, what, HINTS);

// Run one operation with the page busy, progress shown and Abort offered.
async function run(what, fn) {
  if (state.busy) return undefined;
  state.busy = true;
  document.body.dataset.busy = 'true';
  const ac = new AbortController();
  state.abort = ac;
  $('message').hidden = true;
  $('progress').hidden = false;
  $('progress').dataset.state = 'running';
  $('progress-text').textContent = `${what}…`;
  $('progress-bar').removeAttribute('value');
  try {
    return await fn({ signal: ac.signal, onProgress: progress });
  } catch (e) {
    explain(e, what);
    return undefined;
  } finally {
    state.busy = false;
    state.abort = null;
    delete document.body.dataset.busy;
    $('progress').hidden = true;
    $('progress').dataset.state = 'idle';
  }
}

// --- credentials ---------------------------------------------------------------

// onAuth: ask in a dialog; null gives up (EAUTH).
function askCredentials({ url, rejected }) {
  const dialog = $('auth-dialog');
  $('auth-url').textContent = `${rejected ? 'Refused. ' : ''}${new URL(url).origin}${new URL(url).pathname}`;
  $('auth-pass').value = '';
  return new Promise((resolve) => {
    dialog.addEventListener('close', () => {
      resolve(dialog.returnValue === 'ok'
        ? { username: $('auth-user').value, password: $('auth-pass').value } : null);
    }, { once: true });
    dialog.showModal();
    $('auth-user').focus();
  });
}

// --- the editor ----------------------------------------------------------------

const language = new Compartment();
const theme = new Compartment();
const view = new EditorView({
  parent: $('editor'),
  state: EditorState.create({ doc: '', extensions: editorExtensions() }),
});

function editorExtensions() {
  return [
    basicSetup,
    language.of([]),
    theme.of(themeFor()),
    keymap.of([{ key: 'Mod-s', preventDefault: true, run: () => { save(); return true; } }]),
    EditorView.updateListener.of((u) => { if (u.docChanged) markDirty(); }),
    EditorView.contentAttributes.of({ 'aria-label': 'File contents' }),
  ];
}

darkQuery?.addEventListener('change', () => view.dispatch({ effects: theme.reconfigure(themeFor()) }));

function markDirty() {
  const dirty = state.path !== null && view.state.doc.toString() !== state.saved;
  $('save').disabled = !dirty;
  document.body.dataset.dirty = dirty ? 'true' : 'false';
}

async function setDoc(text, path) {
  view.setState(EditorState.create({ doc: text, extensions: editorExtensions() }));
  state.saved = text;
  markDirty();
  const mode = await languageFor(path);
  // still the same file when its language arrives
  if (view.state.doc.toString() === text) view.dispatch({ effects: language.reconfigure(mode) });
}

async function openFile(path) {
  if (!state.dir) return;
  if (state.path && view.state.doc.toString() !== state.saved) await save();
  const text = await git.readWorkFile({ dir: state.dir, path, encoding: 'utf8' });
  state.path = path;
  $('file-name').textContent = path;
  $('file-name').classList.remove('muted');
  await setDoc(text, path);
  localStorage.setItem(`webgit-editor:${state.dir}:file`, path);
  for (const item of document.querySelectorAll('#tree [role="treeitem"]')) {
    item.setAttribute('aria-selected', String(item.dataset.path === path));
  }
  showView($('view-diff').getAttribute('aria-selected') === 'true' ? 'diff' : 'edit');
}

async function save() {
  if (!state.dir || !state.path) return;
  const text = view.state.doc.toString();
  if (text === state.saved) return;
  await git.writeWorkFile({ dir: state.dir, path: state.path, data: text });
  state.saved = text;
  markDirty();
  await refreshStatus();
  if ($('view-diff').getAttribute('aria-selected') === 'true') await showDiff();
}

// --- the diff of the open file against HEAD -------------------------------------

async function showDiff() {
  const box = $('diff');
  box.replaceChildren();
  if (!state.path) return;
  const files = await git.diff({ dir: state.dir, worktree: true, from: 'HEAD', paths: [state.path] });
  if (!files.length) {
    box.append(el('p', { className: 'empty-diff', textContent: 'No changes against HEAD.' }));
    return;
  }
  const table = el('table');
  for (const f of files) {
    if (f.binary) table.append(el('tr', {}, el('td', { colSpan: 3, textContent: 'Binary file differs' })));
    for (const h of f.hunks) {
      table.append(el('tr', { className: 'hunk' }, el('td', { colSpan: 3,
        textContent: `@@ -${h.oldStart},${h.oldLines} +${h.newStart},${h.newLines} @@ ${h.header}` })));
      for (const l of h.lines) {
        const kind = l.type === '+' ? 'add' : l.type === '-' ? 'del' : 'ctx';
        table.append(el('tr', { className: kind },
          el('td', { className: 'n', textContent: l.oldLine ?? '' }),
          el('td', { className: 'n', textContent: l.newLine ?? '' }),
          el('td', { textContent: `${l.type}${l.text}` })));
      }
    }
  }
  box.append(table);
}

async function showView(which) {
  const diff = which === 'diff';
  $('view-edit').setAttribute('aria-selected', String(!diff));
  $('view-diff').setAttribute('aria-selected', String(diff));
  $('editor').hidden = diff;
  $('diff').hidden = !diff;
  if (diff) {
    await save();
    await showDiff();
  }
}

// --- the file tree (keyboard: arrows, Home/End, Enter, as WAI-ARIA's tree) -------

async function treeLevel(path) {
  const entries = await git.listWorkDir({ dir: state.dir, path });
  const ul = el('ul', { role: path ? 'group' : undefined });
  // directories first, each kind in git's (byte) order
  const sorted = [...entries].sort((a, b) => (b.type === 'dir') - (a.type === 'dir') || (a.name < b.name ? -1 : 1));
  for (const e of sorted) {
    const full = path ? `${path}/${e.name}` : e.name;
    const li = el('li', { role: 'treeitem', tabIndex: -1 });
    li.dataset.path = full;
    li.dataset.type = e.type;
    li.append(el('div', { className: 'row' }, el('span', { textContent: e.type === 'dir' ? '▸' : '·' }),
      el('span', { textContent: e.name }), el('span', { className: 'badge' })));
    if (e.type === 'dir') li.setAttribute('aria-expanded', 'false');
    li.setAttribute('aria-selected', String(full === state.path));
    ul.append(li);
  }
  return ul;
}

async function toggleDir(li, open) {
  const expanded = li.getAttribute('aria-expanded') === 'true';
  if (open === expanded) return;
  if (expanded) {
    li.querySelector(':scope > ul')?.remove();
    li.setAttribute('aria-expanded', 'false');
    li.querySelector('.row > span').textContent = '▸';
  } else {
    const ul = await treeLevel(li.dataset.path);
    ul.setAttribute('role', 'group');
    li.append(ul);
    li.setAttribute('aria-expanded', 'true');
    li.querySelector('.row > span').textContent = '▾';
    markTreeBadges();
  }
}

async function loadTree() {
  const top = await treeLevel('');
  $('tree').replaceChildren(...top.children);
  const first = $('tree').querySelector('[role="treeitem"]');
  if (first) first.tabIndex = 0;
  markTreeBadges();
}

const visibleItems = () => [...$('tree').querySelectorAll('[role="treeitem"]')]
  .filter((li) => !li.parentElement.closest('[aria-expanded="false"]'));

function focusItem(li) {
  for (const item of $('tree').querySelectorAll('[role="treeitem"]')) item.tabIndex = -1;
  li.tabIndex = 0;
  li.focus();
}

$('tree').addEventListener('click', async (ev) => {
  const li = ev.target.closest('[role="treeitem"]');
  if (!li) return;
  focusItem(li);
  if (li.dataset.type === 'dir') await toggleDir(li, li.getAttribute('aria-expanded') !== 'true');
  else await openFile(li.dataset.path);
});

$('tree').addEventListener('keydown', async (ev) => {
  const li = ev.target.closest('[role="treeitem"]');
  if (!li) return;
  const items = visibleItems();
  const at = items.indexOf(li);
  const go = (i) => { if (items[i]) focusItem(items[i]); };
  switch (ev.key) {
  case 'ArrowDown': go(at + 1); break;
  case 'ArrowUp': go(at - 1); break;
  case 'Home': go(0); break;
  case 'End': go(items.length - 1); break;
  case 'ArrowRight':
    if (li.dataset.type === 'dir') await toggleDir(li, true);
    break;
  case 'ArrowLeft':
    if (li.getAttribute('aria-expanded') === 'true') await toggleDir(li, false);
    else if (li.parentElement.closest('[role="treeitem"]')) focusItem(li.parentElement.closest('[role="treeitem"]'));
    break;
  case 'Enter':
  case ' ':
    if (li.dataset.type === 'dir') await toggleDir(li, li.getAttribute('aria-expanded') !== 'true');
    else await openFile(li.dataset.path);
    break;
  default: return;
  }
  ev.preventDefault();
});

// --- status, stage, commit ---------------------------------------------------------

let lastStatus = [];

function markTreeBadges() {
  const changed = new Map(lastStatus.map((s) => [s.path, `${s.index}${s.worktree}`]));
  for (const li of $('tree').querySelectorAll('[role="treeitem"]')) {
    li.querySelector('.badge').textContent = changed.get(li.dataset.path)?.replaceAll('.', ' ').trim() ?? '';
  }
}

async function refreshStatus() {
  lastStatus = await git.status({ dir: state.dir });
  const list = $('status-list');
  list.replaceChildren();
  for (const s of lastStatus) {
    const staged = s.index !== '.' && s.index !== '?';
    const unstaged = s.worktree !== '.';
    const li = el('li', {}, el('span', { className: 'letters', textContent: `${s.index}${s.worktree}` }),
      el('span', { className: 'path', textContent: s.from ? `${s.from} → ${s.path}` : s.path, title: s.path }));
    li.dataset.path = s.path;
    li.dataset.index = s.index;
    li.dataset.worktree = s.worktree;
    if (unstaged) {
      li.append(el('button', { type: 'button', textContent: 'Stage', className: 'stage',
        onclick: () => act('Stage', () => git.add({ dir: state.dir, paths: [s.path] })) }));
    }
    if (staged) {
      li.append(el('button', { type: 'button', textContent: 'Unstage', className: 'unstage',
        onclick: () => act('Unstage', () => git.restore({ dir: state.dir, paths: [s.from || s.path, s.path].filter((p, i, a) => a.indexOf(p) === i), staged: true })) }));
    }
    list.append(li);
  }
  $('clean').hidden = lastStatus.length > 0;
  $('commit').disabled = !lastStatus.some((s) => s.index !== '.' && s.index !== '?');
  markTreeBadges();
}

// The history panel: the last commits, and for those no remote-tracking
// branch or tag holds yet, Reword and Split (git.reword, git.split: the
// commits after it are rewritten onto it, as Jujutsu does).
async function refreshLog() {
  const items = [];
  try {
    const hidden = [
      ...(await git.listBranches({ dir: state.dir, remote: true })).map((b) => `^${b.ref}`),
      ...(await git.listTags({ dir: state.dir })).map((t) => `^${t.ref}`),
    ];
    const local = new Set();
    for await (const c of git.log({ dir: state.dir, range: ['HEAD', ...hidden], depth: 15 })) local.add(c.oid);
    for await (const c of git.log({ dir: state.dir, depth: 15 })) items.push(logItem(c, local.has(c.oid)));
  } catch (e) {
    if (e.code !== 'ENOTFOUND') throw e;   // no commit yet
  }
  $('log').replaceChildren(...items);
}

function logItem(c, editable) {
  const li = el('li', {}, el('code', { textContent: c.oid.slice(0, 8) }),
    el('span', { className: 'subject', textContent: ` ${c.message.split('\n')[0]}` }));
  li.dataset.oid = c.oid;
  if (!editable) {
    li.append(el('span', { className: 'muted pushed', textContent: ' pushed', title: 'On a remote-tracking branch or a tag: not rewritten here' }));
    return li;
  }
  li.append(el('span', { className: 'edits' },
    el('button', { type: 'button', className: 'reword', textContent: 'Reword',
      ariaLabel: `Reword ${c.oid.slice(0, 8)}`, onclick: () => rewordForm(li, c) }),
    c.parents.length <= 1 ? el('button', { type: 'button', className: 'split', textContent: 'Split',
      ariaLabel: `Split ${c.oid.slice(0, 8)}`, onclick: () => splitForm(li, c) }) : ''));
  return li;
}

const editor = () => ({ name: $('author-name').value.trim(), email: $('author-email').value.trim() });

// A form under a history entry; Cancel or Escape closes it and gives the
// focus back to the button that opened it.
function editForm(li, { label, body, submit, onsubmit }) {
  li.querySelector('form.history-edit')?.remove();
  const opener = document.activeElement;
  const close = () => {
    form.remove();
    if (opener?.isConnected) opener.focus();
  };
  const form = el('form', { className: 'history-edit' }, ...body,
    el('div', { className: 'buttons' },
      el('button', { type: 'submit', className: 'primary', textContent: submit }),
      el('button', { type: 'button', textContent: 'Cancel', onclick: close })));
  form.setAttribute('aria-label', label);
  form.addEventListener('submit', (ev) => { ev.preventDefault(); onsubmit(form); });
  form.addEventListener('keydown', (ev) => { if (ev.key === 'Escape') close(); });
  li.append(form);
  form.querySelector('textarea, input')?.focus();
}

function rewordForm(li, c) {
  const text = el('textarea', { className: 'reword-message', rows: 3, required: true, value: c.message.replace(/\n+$/, '') });
  editForm(li, {
    label: `New message for ${c.oid.slice(0, 8)}`,
    body: [el('label', { textContent: 'New message' }, text)],
    submit: 'Save message',
    onsubmit: () => act('Reword', async () => {
      const out = await git.reword({ dir: state.dir, commit: c.oid, message: text.value, committer: editor() });
      say(`Reworded ${c.oid.slice(0, 8)} → ${out.oid.slice(0, 8)}; ${out.rewritten.length - 1} later commit(s) rewritten onto it.`);
    }),
  });
}

// A split: files ticked whole, or (a file of several hunks) some of its
// hunks, as git diff -U0 numbers them, go into the first commit.
async function splitForm(li, c) {
  const files = await git.diff({ dir: state.dir, to: c.oid, contextLines: 0 });
  const rows = files.map((f) => {
    const paths = [f.oldPath, f.newPath].filter((p, i, a) => p && a.indexOf(p) === i);
    const box = el('input', { type: 'checkbox', className: 'split-path' });
    box.dataset.paths = JSON.stringify(paths);
    const row = el('div', { className: 'split-file' },
      el('label', { className: 'mono' }, box, ` ${f.status} ${paths.join(' → ')}`));
    if (!f.binary && f.hunks.length > 1 && 'MAD'.includes(f.status)) {
      const hunks = f.hunks.map((h, i) => {
        const hb = el('input', { type: 'checkbox', className: 'split-hunk' });
        hb.dataset.path = f.newPath ?? f.oldPath;
        hb.dataset.hunk = String(i);
        const first = h.lines.find((l) => l.type !== ' ');
        return el('label', { className: 'mono hunk' }, hb,
          ` @@ -${h.oldStart},${h.oldLines} +${h.newStart},${h.newLines} @@ ${first ? `${first.type}${first.text}` : ''}`);
      });
      // the whole file, or some of its hunks
      box.addEventListener('change', () => { for (const h of hunks) h.querySelector('input').disabled = box.checked; });
      row.append(el('div', { className: 'split-hunks' }, ...hunks));
    }
    return row;
  });
  const first = el('input', { className: 'split-message', required: true, value: `${c.message.split('\n')[0]} (part 1)` });
  editForm(li, {
    label: `Split ${c.oid.slice(0, 8)}`,
    body: [el('p', { className: 'muted', textContent: 'What is ticked goes into a first commit; the rest stays in this one.' }),
      el('fieldset', {}, el('legend', { textContent: 'Files and hunks of the first commit' }), ...rows),
      el('label', { textContent: 'First commit\'s message' }, first)],
    submit: 'Split',
    onsubmit: (form) => act('Split', async () => {
      const paths = [...form.querySelectorAll('.split-path:checked')].flatMap((b) => JSON.parse(b.dataset.paths));
      const hunks = {};
      for (const b of form.querySelectorAll('.split-hunk:checked:not(:disabled)')) {
        (hunks[b.dataset.path] ??= []).push(Number(b.dataset.hunk));
      }
      const out = await git.split({ dir: state.dir, commit: c.oid, paths, hunks, message: first.value, committer: editor() });
      say(`Split ${c.oid.slice(0, 8)} into ${out.first.slice(0, 8)} and ${out.second.slice(0, 8)}; ${out.rewritten.length - 1} later commit(s) rewritten.`);
    }),
  });
}

async function refreshBranches() {
  state.branch = await git.currentBranch({ dir: state.dir });
  const select = $('branch-select');
  select.replaceChildren();
  for (const b of await git.listBranches({ dir: state.dir })) {
    select.append(el('option', { value: b.name, textContent: b.upstream ? `${b.name} (${b.upstream})` : b.name, selected: b.head }));
  }
  if (state.branch === null) select.prepend(el('option', { value: '', textContent: '(detached HEAD)', selected: true }));
}

async function refresh() {
  await refreshBranches();
  await loadTree();
  await refreshStatus();
  await refreshLog();
  if (state.path) {
    try {
      const text = await git.readWorkFile({ dir: state.dir, path: state.path, encoding: 'utf8' });
      if (text !== view.state.doc.toString()) await setDoc(text, state.path);
      else state.saved = text;
    } catch {
      state.path = null;
      $('file-name').textContent = 'Pick a file on the left.';
      await setDoc('', '');
    }
  }
  if ($('view-diff').getAttribute('aria-selected') === 'true') await showDiff();
  document.body.dataset.ready = 'true';
}

// An operation: the open file saved first, the page refreshed after.
async function act(what, fn) {
  await run(what, async (ctx) => {
    try {
      await save();
      await fn(ctx);
    } finally {
      if (state.dir) await refresh();
    }
  });
}

$('commit-form').addEventListener('submit', async (ev) => {
  ev.preventDefault();
  const author = { name: $('author-name').value.trim(), email: $('author-email').value.trim() };
  localStorage.setItem('webgit-editor:author', JSON.stringify(author));
  await act('Commit', async () => {
    const oid = await git.commit({ dir: state.dir, message: $('commit-message').value, author });
    $('commit-message').value = '';
    say(`Committed ${oid.slice(0, 8)} on ${state.branch ?? 'a detached HEAD'}.`);
  });
});

// --- remote operations ---------------------------------------------------------------

$('push').addEventListener('click', () => act('Push', async ({ signal, onProgress }) => {
  if (!state.branch) throw Object.assign(new Error('HEAD is detached: create a branch to push'), { code: 'EINVALID' });
  const result = await git.push({ dir: state.dir, refspecs: [state.branch], onAuth: askCredentials, signal, onProgress });
  const refused = result.refs.filter((r) => r.status !== 'ok');
  if (refused.length) {
    throw Object.assign(new Error(refused.map((r) => `${r.dst}: ${r.reason || r.status}`).join('; ')),
      { code: 'EREJECTED' });
  }
  say(`Pushed ${state.branch} to origin.`);
}));

$('fetch').addEventListener('click', () => act('Fetch', async ({ signal, onProgress }) => {
  const { updates } = await git.fetch({ dir: state.dir, onAuth: askCredentials, signal, onProgress });
  say(updates.length ? `Fetched: ${updates.map((u) => u.remoteRef || u.localRef).join(', ')}` : 'Fetched: already up to date.');
}));

// Pull as a fast-forward only: merge is not there yet.
$('pull').addEventListener('click', () => act('Pull', async ({ signal, onProgress }) => {
  if (!state.branch) throw Object.assign(new Error('HEAD is detached'), { code: 'EINVALID' });
  await git.fetch({ dir: state.dir, onAuth: askCredentials, signal, onProgress });
  const branch = (await git.listBranches({ dir: state.dir })).find((b) => b.head);
  if (!branch?.upstream) throw Object.assign(new Error(`${state.branch} has no upstream`), { code: 'EINVALID' });
  const head = await git.resolveRef({ dir: state.dir, ref: 'HEAD' });
  const upstream = await git.resolveRef({ dir: state.dir, ref: branch.upstream });
  if (head === upstream) {
    say('Already up to date.');
    return;
  }
  if (!(await git.isAncestor({ dir: state.dir, ancestor: head, commit: upstream }))) {
    throw Object.assign(new Error(`${state.branch} and ${branch.upstream} have diverged: merging is not available yet`),
      { code: 'EINVALID' });
  }
  if ((await git.status({ dir: state.dir, untracked: 'no' })).length) {
    throw Object.assign(new Error('local changes would be overwritten'), { code: 'EEXISTS' });
  }
  await git.reset({ dir: state.dir, ref: upstream, mode: 'hard' });
  say(`Fast-forwarded ${state.branch} to ${upstream.slice(0, 8)}.`);
}));

$('branch-form').addEventListener('submit', async (ev) => {
  ev.preventDefault();
  const name = $('branch-name').value.trim();
  if (!name) return;
  await act('Create branch', async () => {
    await git.switchBranch({ dir: state.dir, branch: name, create: true });
    $('branch-name').value = '';
    say(`Switched to a new branch ${name}.`);
  });
});

$('branch-select').addEventListener('change', async () => {
  const name = $('branch-select').value;
  if (!name || name === state.branch) return;
  await act('Switch branch', async () => {
    await git.switchBranch({ dir: state.dir, branch: name });
    say(`Switched to ${name}.`);
  });
});

// --- repositories ----------------------------------------------------------------------

async function openRepo(dir) {
  state.dir = dir;
  state.path = null;
  localStorage.setItem('webgit-editor:repo', dir);
  $('repo-line').hidden = false;
  $('workspace').hidden = false;
  $('empty').hidden = true;
  await refresh();
  const last = localStorage.getItem(`webgit-editor:${dir}:file`);
  if (last) await openFile(last).catch(() => {});
}

async function listRepos(select) {
  const dirs = (await git.listRepos()).sort();
  $('repo-select').replaceChildren(...dirs.map((d) => el('option', { value: d, textContent: d, selected: d === select })));
  return dirs;
}

$('repo-select').addEventListener('change', () => openRepo($('repo-select').value));

$('clone-form').addEventListener('submit', async (ev) => {
  ev.preventDefault();
  const url = $('url').value.trim();
  const name = new URL(url).pathname.split('/').filter(Boolean).pop()?.replace(/\.git$/, '') || 'repo';
  const dir = `/repos/${name}`;
  if ((await git.listRepos()).includes(dir)) {
    await listRepos(dir);
    await openRepo(dir);
    say(`${dir} is already here: opened it.`);
    return;
  }
  const done = await run('Clone', async ({ signal, onProgress }) => {
    await git.clone({ url, dir, signal, onProgress, onAuth: askCredentials });
    return true;
  });
  if (!done) return;
  await listRepos(dir);
  await openRepo(dir);
  say(`Cloned ${url} into ${dir}.`);
});

$('abort').addEventListener('click', () => state.abort?.abort());
$('message-close').addEventListener('click', () => { $('message').hidden = true; });
$('save').addEventListener('click', () => save());
$('view-edit').addEventListener('click', () => showView('edit'));
$('view-diff').addEventListener('click', () => showView('diff'));
window.addEventListener('beforeunload', (ev) => {
  if (state.path && view.state.doc.toString() !== state.saved) ev.preventDefault();
});

async function start() {
  $('url').value = `${location.origin}/git/sample-sha1-files.git`;
  const author = JSON.parse(localStorage.getItem('webgit-editor:author') || 'null');
  $('author-name').value = author?.name ?? 'Web Editor';
  $('author-email').value = author?.email ?? 'editor@example.com';
  try {
    await git.init();
  } catch (e) {
    $('status').textContent = `webgit did not load: ${e.message}`;
    return;
  }
  $('status').textContent = `webgit ready — repositories are kept in ${git.storage() === 'idb' ? 'IndexedDB' : git.storage()}`;
  const want = localStorage.getItem('webgit-editor:repo');
  const dirs = await listRepos(want);
  if (want && dirs.includes(want)) await openRepo(want);
  else if (dirs.length) await openRepo(dirs[0]);
  else $('empty').hidden = false;
  document.body.dataset.started = 'true';
}

start().catch((e) => explain(e, 'Loading'));
