// The web demo's editor page (web-demo/editor/, CodeMirror 6 bundled by
// scripts/build-pages.sh) in Debian's Chromium, driven by playwright-core,
// against the local Git server with Basic auth on pushes, as scripts/demo.sh
// serves it. The flow an editor's user follows, each step checked with git
// and saved as a screenshot (build/screenshots/editor-NN-step.png):
//
//   clone -> open a file -> edit in CodeMirror and save -> status -> the diff
//   against HEAD -> stage -> commit -> push (credentials asked in a dialog;
//   the server's branch checked with git) -> reload (all still there) ->
//   create and switch branches -> a commit made on the server by git is
//   fetched and pulled (fast-forward) -> keyboard-only tree navigation ->
//   two commits, the first reworded and split by files from the history
//   panel (the later one rewritten onto it), the second split by hunks,
//   pushed and checked with git;
//   and the error states: a missing repository, refused credentials.
//
//   WEBGIT_JS_DIR=build/wasm/js node --test tests/js/editor.test.mjs
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { JS_DIR, ROOT, gitIn, launchChromium, makeTmp, startServerAt, writeFileIn } from './lib.mjs';
import { assertReadable } from './contrast.mjs';

const SHOTS = path.join(ROOT, 'build/screenshots');
const STEP_MS = 60000;
const USER = 'editor';
const PASSWORD = 'tab-secret';
const MESSAGE = 'Edit the README in a browser tab';

let tmp;
let git;
let server;
let served;
let context;
let page;
let shot = 0;
const pageErrors = [];

const serverGit = (args, opts) => git(['--git-dir', served, ...args], opts);

before(() => {
  tmp = makeTmp('editor');
  git = gitIn(tmp);
  const work = path.join(tmp, 'work');
  git(['init', '-q', '-b', 'main', work]);
  const write = (f, data) => writeFileIn(work, f, data);
  write('README.md', '# Project\n\nA small project.\n');
  write('docs/guide.md', '# Guide\n\nStep one.\n');
  write('src/app.js', 'export function main() {\n  return 42;\n}\n');
  write('src/util.js', 'export const twice = (x) => 2 * x;\n');
  git(['-C', work, 'add', '.']);
  git(['-C', work, 'commit', '-qm', 'Start the project']);
  const repos = path.join(tmp, 'repos');
  served = path.join(repos, 'proj.git');
  git(['clone', '-q', '--bare', work, served]);
  serverGit(['config', 'http.receivepack', 'true']);
  const bundle = path.join(tmp, 'editor-bundle');
  execFileSync(path.join(ROOT, 'scripts/build-pages.sh'), [bundle], { stdio: ['ignore', 'ignore', 'pipe'] });
  server = startServerAt(path.join(tmp, 'server'), repos, ['--static', path.join(ROOT, 'web-demo'),
    '--mount', `/webgit/=${JS_DIR}`, '--mount', `/editor/=${path.join(bundle, 'editor')}`, '--auth', `${USER}:${PASSWORD}`]);
});

after(async () => {
  if (context) await context.close().catch(() => {});
  if (server) await server.stop();
  if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
});

async function screenshot(name) {
  fs.mkdirSync(SHOTS, { recursive: true });
  shot++;
  await page.screenshot({ path: path.join(SHOTS, `editor-${String(shot).padStart(2, '0')}-${name}.png`) });
}

// One step: a failure says which, with what the page showed and a screenshot.
async function step(name, fn) {
  try {
    await fn();
    await screenshot(name);
  } catch (e) {
    let extra = '';
    try {
      extra = `\nmessage: ${await page.textContent('#message-text')}\nstatus: ${await page.textContent('#status')}`;
      await page.screenshot({ path: path.join(SHOTS, 'editor-failure.png'), fullPage: true });
    } catch {
      // nothing more to say
    }
    e.message = `${name}: ${e.message}${extra}${pageErrors.length ? `\npage errors:\n  ${pageErrors.join('\n  ')}` : ''}`;
    throw e;
  }
}

const editorText = () => page.evaluate(() => [...document.querySelectorAll('.cm-content .cm-line')]
  .map((l) => l.textContent).join('\n'));
const statusRows = () => page.evaluate(() => [...document.querySelectorAll('#status-list li')]
  .map((li) => `${li.dataset.index}${li.dataset.worktree} ${li.dataset.path}`));
const waitIdle = () => page.waitForSelector('body:not([data-busy])');
// Push, giving the right credentials when the dialog asks for them.
async function pushWithCredentials() {
    await page.click('#push');
    await page.waitForSelector('#auth-dialog[open]');
    await page.fill('#auth-user', USER);
    await page.fill('#auth-pass', PASSWORD);
    await page.click('#auth-ok');
    await page.waitForFunction(() => /Pushed main/.test(document.getElementById('message-text').textContent));
}

test('editor: clone, edit, diff, stage, commit, push, reload, branches, pull, keyboard, reword, split', { timeout: 10 * 60000 }, async () => {
  context = await launchChromium(path.join(tmp, 'user-data'), { viewport: { width: 1400, height: 860 } });
  page = context.pages()[0] || await context.newPage();
  page.setDefaultTimeout(STEP_MS);
  page.on('pageerror', (e) => pageErrors.push(`pageerror: ${e.message}`));
  // the browser logs the 404 and 401 responses the steps cause on purpose
  page.on('console', (m) => {
    if (m.type() === 'error' && !/^Failed to load resource/.test(m.text())) pageErrors.push(`console: ${m.text()}`);
  });
  const url = `${server.base}/git/proj.git`;

  await step('empty', async () => {
    await page.goto(`${server.base}/editor/`);
    await page.waitForSelector('body[data-started="true"]');
    assert.ok(await page.isVisible('#empty'), 'no repository yet');
    assert.match(await page.textContent('#status'), /IndexedDB/);
  });

  await step('missing-repository', async () => {
    await page.fill('#url', `${server.base}/git/nothing-here.git`);
    await page.click('#clone');
    await page.waitForSelector('#message[data-kind="error"]:not([hidden])');
    const text = await page.textContent('#message-text');
    assert.match(text, /Clone failed/);
    assert.match(text, /check the repository URL/);
  });

  await step('clone', async () => {
    await page.fill('#url', url);
    await page.click('#clone');
    await page.waitForSelector('#tree [data-path="README.md"]');
    await waitIdle();
    assert.deepEqual(await page.$$eval('#tree > [role="treeitem"]', (l) => l.map((e) => e.dataset.path)),
      ['docs', 'src', 'README.md'], 'directories first, then files');
    assert.ok(await page.isVisible('#clean'));
    assert.match(await page.textContent('#log'), /Start the project/);
  });

  await step('open', async () => {
    await page.click('#tree [data-path="README.md"]');
    await page.waitForFunction(() => document.getElementById('file-name').textContent === 'README.md');
    // a final newline is CodeMirror's last, empty line
    assert.equal(await editorText(), serverGit(['show', 'main:README.md']));
    assert.equal(await page.isDisabled('#save'), true, 'nothing to save yet');
  });

  await step('edit-and-save', async () => {
    await page.click('.cm-content');
    await page.keyboard.press('Control+End');
    await page.keyboard.type('Added in the tab.');
    await page.keyboard.press('Enter');
    assert.equal(await page.isDisabled('#save'), false, 'unsaved');
    await page.keyboard.press('Control+s');
    await page.waitForFunction(() => [...document.querySelectorAll('#status-list li')]
      .some((li) => li.dataset.path === 'README.md'));
    assert.deepEqual(await statusRows(), ['.M README.md']);
    assert.equal(await page.isDisabled('#save'), true, 'saved');
  });

  await step('diff', async () => {
    await page.click('#view-diff');
    await page.waitForSelector('#diff tr.add');
    const added = await page.$$eval('#diff tr.add td:last-child', (l) => l.map((e) => e.textContent));
    assert.deepEqual(added, ['+Added in the tab.']);
    assert.match(await page.textContent('#diff tr.hunk'), /^@@ -1,3 \+1,4 @@/);
  });

  await step('contrast-diff', async () => {
    const n = await assertReadable(page, 'the diff view');
    assert.ok(n.light > 20 && n.dark > 20, `text checked: ${JSON.stringify(n)}`);
  });

  await step('stage', async () => {
    await page.click('#view-edit');
    await page.click('#status-list li[data-path="README.md"] button.stage');
    await page.waitForFunction(() => document.querySelector('#status-list li[data-path="README.md"]')?.dataset.index === 'M');
    await waitIdle();
    assert.deepEqual(await statusRows(), ['M. README.md']);
  });

  await step('commit', async () => {
    await page.fill('#commit-message', MESSAGE);
    await page.click('#commit');
    await page.waitForSelector('#clean:not([hidden])');
    await waitIdle();
    assert.match(await page.textContent('#log li:first-child'), new RegExp(MESSAGE));
  });

  await step('push-credentials', async () => {
    await page.click('#push');
    await page.waitForSelector('#auth-dialog[open]');
    await page.fill('#auth-user', USER);
    await page.fill('#auth-pass', 'wrong');
    await page.click('#auth-ok');
    // refused: asked again, then given up
    await page.waitForSelector('#auth-dialog[open]');
    assert.match(await page.textContent('#auth-url'), /^Refused/);
    await page.click('#auth-dialog button[value="cancel"]');
    await page.waitForSelector('#message[data-kind="error"]:not([hidden])');
    assert.match(await page.textContent('#message-text'), /EAUTH/);
    assert.notEqual(serverGit(['log', '-1', '--format=%s', 'main']).trim(), MESSAGE, 'nothing pushed');
  });

  await step('contrast-editor-and-error', async () => {
    // the file in the editor (syntax colours), the status and log panes
    // and an error message
    await page.click('#view-edit');
    await assertReadable(page, 'the editor with an error shown');
  });

  await step('push', async () => {
    await pushWithCredentials();
    assert.equal(serverGit(['log', '-1', '--format=%s', 'main']).trim(), MESSAGE);
    assert.equal(serverGit(['show', 'main:README.md']), '# Project\n\nA small project.\nAdded in the tab.\n');
    assert.equal(serverGit(['log', '-1', '--format=%an <%ae>', 'main']).trim(), 'Web Editor <editor@example.com>');
    serverGit(['fsck', '--strict', '--no-progress']);
  });

  await step('reload', async () => {
    await page.reload();
    await page.waitForSelector('body[data-ready="true"]');
    await page.waitForFunction(() => document.getElementById('file-name').textContent === 'README.md');
    assert.match(await editorText(), /Added in the tab\./);
    assert.ok(await page.isVisible('#clean'), 'still clean');
    assert.match(await page.textContent('#log li:first-child'), new RegExp(MESSAGE));
  });

  await step('branch', async () => {
    await page.fill('#branch-name', 'feature/tab');
    await page.click('#branch-form button');
    await page.waitForFunction(() => document.getElementById('branch-select').value === 'feature/tab');
    await waitIdle();
    await page.selectOption('#branch-select', 'main');
    await page.waitForFunction(() => /Switched to main/.test(document.getElementById('message-text').textContent));
    await waitIdle();
    assert.equal(await page.inputValue('#branch-select'), 'main');
  });

  await step('pull', async () => {
    // a commit made on the server by git
    const other = path.join(tmp, 'other');
    git(['clone', '-q', served, other]);
    fs.writeFileSync(path.join(other, 'docs/guide.md'), '# Guide\n\nStep one.\nStep two, from elsewhere.\n');
    git(['-C', other, 'commit', '-qam', 'Guide: step two']);
    git(['-C', other, 'push', '-q', 'origin', 'main']);
    await page.click('#pull');
    await page.waitForFunction(() => /Fast-forwarded main/.test(document.getElementById('message-text').textContent));
    await waitIdle();
    assert.match(await page.textContent('#log li:first-child'), /Guide: step two/);
    await page.click('#tree [data-path="docs"]');
    await page.click('#tree [data-path="docs/guide.md"]');
    await page.waitForFunction(() => document.getElementById('file-name').textContent === 'docs/guide.md');
    assert.match(await editorText(), /Step two, from elsewhere\./);
    assert.ok(await page.isVisible('#clean'));
  });

  await step('keyboard', async () => {
    await page.focus('#tree [role="treeitem"][tabindex="0"]');
    await page.keyboard.press('Home');
    assert.equal(await page.evaluate(() => document.activeElement.dataset.path), 'docs');
    await page.keyboard.press('ArrowLeft');   // docs is open: close it
    await page.keyboard.press('ArrowDown');
    assert.equal(await page.evaluate(() => document.activeElement.dataset.path), 'src');
    await page.keyboard.press('ArrowRight');
    await page.waitForSelector('#tree [data-path="src/app.js"]');
    await page.keyboard.press('ArrowDown');
    assert.equal(await page.evaluate(() => document.activeElement.dataset.path), 'src/app.js');
    await page.keyboard.press('Enter');
    await page.waitForFunction(() => document.getElementById('file-name').textContent === 'src/app.js');
    assert.equal(await editorText(), serverGit(['show', 'main:src/app.js']));
    assert.ok(await page.$('.cm-content .tok-keyword, .cm-content span[class*="ͼ"]'), 'highlighted as JavaScript');
  });

  // Two local commits, then history edits from the history panel: the
  // first is reworded and split, the later one rewritten onto it each
  // time; pushed, the server's history is checked with git.
  const edit = async (file, line, { top = false } = {}) => {
    // every refresh draws the tree anew, its folders closed
    if (file.includes('/')) {
      const dir = file.slice(0, file.lastIndexOf('/'));
      if (await page.getAttribute(`#tree [data-path="${dir}"]`, 'aria-expanded') !== 'true') {
        await page.click(`#tree [data-path="${dir}"] > .row`);
      }
    }
    await page.click(`#tree [data-path="${file}"]`);
    await page.waitForFunction((f) => document.getElementById('file-name').textContent === f, file);
    await page.click('.cm-content');
    if (top) {
      await page.keyboard.press('Control+Home');
      await page.keyboard.type(line);
      await page.keyboard.press('Enter');
    } else {
      await page.keyboard.press('Control+End');
      await page.keyboard.type(line);
      await page.keyboard.press('Enter');
    }
    await page.keyboard.press('Control+s');
    await page.waitForFunction((f) => [...document.querySelectorAll('#status-list li')]
      .some((li) => li.dataset.path === f && li.dataset.worktree === 'M'), file);
    await page.click(`#status-list li[data-path="${file}"] button.stage`);
    await page.waitForFunction((f) => document.querySelector(`#status-list li[data-path="${f}"]`)?.dataset.index === 'M', file);
    await waitIdle();
  };
  const commitAll = async (message) => {
    await page.fill('#commit-message', message);
    await page.click('#commit');
    await page.waitForSelector('#clean:not([hidden])');
    await waitIdle();
  };
  const subjects = () => page.$$eval('#log li .subject', (l) => l.map((e) => e.textContent.trim()));

  await step('history-commits', async () => {
    await edit('src/app.js', '// app, from the tab');
    await edit('src/util.js', '// util, from the tab');
    await commitAll('Two changes');
    await edit('README.md', 'Later.');
    await edit('README.md', 'Top line.', { top: true });
    await commitAll('Later');
    assert.deepEqual((await subjects()).slice(0, 3), ['Later', 'Two changes', 'Guide: step two']);
    // the pushed commits cannot be edited here
    assert.equal(await page.$$eval('#log li', (l) => l.map((li) => !!li.querySelector('.reword'))).then((v) => v.join()),
      'true,true,false,false,false');
  });

  await step('history-reword', async () => {
    // by keyboard: the form opens on its message, Escape closes it and
    // gives the focus back
    await page.focus('#log li:nth-child(2) button.reword');
    await page.keyboard.press('Enter');
    await page.waitForFunction(() => document.activeElement?.classList.contains('reword-message'));
    await page.keyboard.press('Escape');
    assert.equal(await page.$('#log li:nth-child(2) form.history-edit'), null);
    assert.equal(await page.evaluate(() => document.activeElement.className), 'reword');
    await page.click('#log li:nth-child(2) button.reword');
    await page.waitForSelector('#log li:nth-child(2) form.history-edit');
    assert.equal(await page.inputValue('#log li:nth-child(2) .reword-message'), 'Two changes');
    await page.fill('#log li:nth-child(2) .reword-message', 'Two changes, reworded');
    await page.click('#log li:nth-child(2) form.history-edit button[type="submit"]');
    await page.waitForFunction(() => /^Reworded .*1 later commit/.test(document.getElementById('message-text').textContent));
    await waitIdle();
    assert.deepEqual((await subjects()).slice(0, 3), ['Later', 'Two changes, reworded', 'Guide: step two']);
    assert.ok(await page.isVisible('#clean'), 'the working tree is untouched');
  });

  await step('history-split', async () => {
    await page.click('#log li:nth-child(2) button.split');
    await page.waitForSelector('#log li:nth-child(2) .split-path');
    const files = await page.$$eval('#log li:nth-child(2) fieldset label', (l) => l.map((e) => e.textContent.trim()));
    assert.deepEqual(files, ['M src/app.js', 'M src/util.js']);
    await page.check('#log li:nth-child(2) fieldset .split-file:nth-of-type(2) .split-path');
    await page.fill('#log li:nth-child(2) .split-message', 'Util first');
    await screenshot('history-split-form');
    await page.click('#log li:nth-child(2) form.history-edit button[type="submit"]');
    await page.waitForFunction(() => /^Split .* into /.test(document.getElementById('message-text').textContent));
    await waitIdle();
    assert.deepEqual((await subjects()).slice(0, 4), ['Later', 'Two changes, reworded', 'Util first', 'Guide: step two']);
    assert.ok(await page.isVisible('#clean'));
  });

  await step('history-split-hunks', async () => {
    // the README's two hunks in "Later": the top one goes first
    await page.click('#log li:nth-child(1) button.split');
    await page.waitForSelector('#log li:nth-child(1) .split-hunk');
    const hunks = await page.$$eval('#log li:nth-child(1) .split-hunk', (l) => l.map((e) => e.parentElement.textContent.trim()));
    assert.deepEqual(hunks, ['@@ -0,0 +1,1 @@ +Top line.', '@@ -4,0 +6,1 @@ +Later.']);
    await page.check('#log li:nth-child(1) .split-hunk >> nth=0');
    await page.fill('#log li:nth-child(1) .split-message', 'Later: the top');
    await screenshot('history-split-hunks-form');
    await page.click('#log li:nth-child(1) form.history-edit button[type="submit"]');
    await page.waitForFunction(() => /^Split .* into .*; 0 later commit/.test(document.getElementById('message-text').textContent));
    await waitIdle();
    assert.deepEqual((await subjects()).slice(0, 5),
      ['Later', 'Later: the top', 'Two changes, reworded', 'Util first', 'Guide: step two']);
    assert.ok(await page.isVisible('#clean'));
  });

  await step('history-push', async () => {
    await pushWithCredentials();
    assert.equal(serverGit(['log', '-5', '--format=%s', 'main']),
      'Later\nLater: the top\nTwo changes, reworded\nUtil first\nGuide: step two\n');
    assert.equal(serverGit(['diff-tree', '--no-commit-id', '--name-only', '-r', 'main~3']), 'src/util.js\n');
    assert.equal(serverGit(['diff-tree', '--no-commit-id', '--name-only', '-r', 'main~2']), 'src/app.js\n');
    assert.equal(serverGit(['show', 'main~1:README.md']), 'Top line.\n# Project\n\nA small project.\nAdded in the tab.\n');
    assert.equal(serverGit(['show', 'main:README.md']), 'Top line.\n# Project\n\nA small project.\nAdded in the tab.\nLater.\n');
    assert.equal(serverGit(['log', '-1', '--format=%cn <%ce>', 'main']).trim(), 'Web Editor <editor@example.com>');
    serverGit(['fsck', '--strict', '--no-progress']);
    // pushed now: no more edits offered
    assert.equal(await page.$$('#log li button.reword').then((b) => b.length), 0);
  });
  assert.deepEqual(pageErrors, []);
});
