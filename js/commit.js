// Commit objects as JavaScript sees them: parsing the raw bytes the core
// returns (for log), and formatting new ones (for commit), in Git's exact
// format. Validation of what we write is the core's: writeObject runs
// git's fsck (strict) before storing anything.

import { makeError } from './runtime.js';

const utf8 = new TextDecoder();

/** "Name <email> 1700000000 +0100" -> { name, email, timestamp, timezone }. */
export function parseIdent(text) {
  const m = /^(.*?) ?<([^>]*)> (-?\d+) ([+-]\d{4})$/.exec(text);
  if (!m) return { name: text, email: '', timestamp: 0, timezone: '+0000' };
  return { name: m[1], email: m[2], timestamp: Number(m[3]), timezone: m[4] };
}

/** The fields of a commit's raw bytes. */
export function parseCommit(oid, data) {
  const text = utf8.decode(data);
  const end = text.indexOf('\n\n');
  const header = end < 0 ? text : text.slice(0, end);
  const commit = { oid, tree: null, parents: [], author: null, committer: null, message: end < 0 ? '' : text.slice(end + 2) };
  for (const line of header.split('\n')) {
    if (line.startsWith(' ')) continue;   // continuation of a multi-line header (gpgsig, mergetag)
    const sp = line.indexOf(' ');
    const key = line.slice(0, sp);
    const value = line.slice(sp + 1);
    if (key === 'tree') commit.tree = value;
    else if (key === 'parent') commit.parents.push(value);
    else if (key === 'author') commit.author = parseIdent(value);
    else if (key === 'committer') commit.committer = parseIdent(value);
  }
  return commit;
}

// "+0100" for the host's current offset (Date's is minutes west of UTC).
function localTimezone(date) {
  const east = -date.getTimezoneOffset();
  const abs = Math.abs(east);
  return `${east < 0 ? '-' : '+'}${String(Math.floor(abs / 60)).padStart(2, '0')}${String(abs % 60).padStart(2, '0')}`;
}

/** { name, email, timestamp?, timezone? } -> "Name <email> 1700000000 +0100";
 * timestamp defaults to now, timezone to the host's. */
export function formatIdent(ident, what) {
  if (!ident || typeof ident.name !== 'string' || typeof ident.email !== 'string') {
    throw makeError('EINVALID', `${what} needs { name, email }`);
  }
  if (/[<>\n]/.test(ident.name) || /[<>\n]/.test(ident.email)) {
    throw makeError('EINVALID', `${what}: name and email may not contain '<', '>' or a newline`);
  }
  const now = new Date();
  const timestamp = ident.timestamp ?? Math.floor(now.getTime() / 1000);
  const timezone = ident.timezone ?? localTimezone(now);
  if (!Number.isInteger(timestamp) || timestamp < 0) throw makeError('EINVALID', `${what}: bad timestamp`);
  if (!/^[+-]\d{4}$/.test(timezone)) throw makeError('EINVALID', `${what}: timezone must look like "+0100"`);
  return `${ident.name.trim()} <${ident.email.trim()}> ${timestamp} ${timezone}`;
}

/** A commit's raw text. The message gets a final newline, as git's does. */
export function formatCommit({ tree, parents = [], author, committer, message }) {
  if (typeof message !== 'string') throw makeError('EINVALID', 'message is required');
  const a = formatIdent(author, 'author');
  const c = committer ? formatIdent(committer, 'committer') : a;
  let text = `tree ${tree}\n`;
  for (const p of parents) text += `parent ${p}\n`;
  text += `author ${a}\ncommitter ${c}\n\n${message.endsWith('\n') ? message : `${message}\n`}`;
  return { text, committer: c };
}

/** The first line of a message (a reflog's "commit: <subject>"). */
export function subject(message) {
  return message.split('\n').find((l) => l.trim()) || '';
}
