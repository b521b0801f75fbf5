// web-demo/page-ui.js — what the editor and forge pages share: element
// helpers, the message line (#message, #message-text) and the progress
// bar (#progress, #progress-bar, #progress-text) of their index.html.

export const $ = (id) => document.getElementById(id);

export function el(tag, props = {}, ...children) {
  const e = Object.assign(document.createElement(tag), props);
  for (const c of children) if (c !== null && c !== undefined) e.append(c);
  return e;
}

export function say(text, kind = 'notice') {
  $('message-text').textContent = text;
  $('message').dataset.kind = kind;
  $('message').hidden = false;
}

/** An error as a message that says what to do: `hints` by error code
 * (the page's words), a network failure's own otherwise. */
export function explain(e, what, hints = {}) {
  const code = e?.code || e?.name;
  const hint = hints[code] || (/fetch|network/i.test(String(e?.message))
    ? 'The network request failed: is the server reachable (and does it allow this origin)?' : '');
  say(`${what} failed${code ? ` (${code})` : ''}: ${e?.message || e}${hint ? `\n${hint}` : ''}`, 'error');
}

/** An operation's progress event on the bar. */
export function progress(p) {
  const box = $('progress');
  box.hidden = false;
  box.dataset.state = p.finished ? 'done' : 'running';
  const bar = $('progress-bar');
  if (p.total) {
    bar.max = p.total;
    bar.value = p.done;
  } else {
    bar.removeAttribute('value');
  }
  const pct = p.total ? ` ${Math.floor((100 * p.done) / p.total)}% (${p.done}/${p.total})` : '';
  $('progress-text').textContent = `${p.phase}${pct}${p.bytes ? `, ${(p.bytes / 1024).toFixed(1)} KiB` : ''}`;
}
