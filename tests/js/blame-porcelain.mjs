// git blame --porcelain's text as the groups blame() returns, for the
// tests that compare the two.

/** The groups of `git blame --porcelain` output `text`. */
export function parseBlamePorcelain(text) {
  const info = {};
  const out = [];
  let cur = null;
  for (const l of text.split('\n')) {
    if (l.startsWith('\t') || l === '') continue;
    const head = /^([0-9a-f]{40,64}) (\d+) (\d+)(?: (\d+))?$/.exec(l);
    if (head) {
      if (!info[head[1]]) info[head[1]] = { boundary: false };
      cur = info[head[1]];
      if (head[4]) out.push({ oid: head[1], start: +head[3], count: +head[4], origStart: +head[2] });
      continue;
    }
    const sp = l.indexOf(' ');
    const key = sp < 0 ? l : l.slice(0, sp);
    const value = sp < 0 ? '' : l.slice(sp + 1);
    if (key === 'boundary') cur.boundary = true;
    else if (key === 'previous') {
      out[out.length - 1].previous = value.slice(0, value.indexOf(' '));
      out[out.length - 1].previousPath = value.slice(value.indexOf(' ') + 1);
    } else if (key === 'filename') out[out.length - 1].origPath = value;
    else cur[key] = value;
  }
  // filename and previous are printed with a commit's first group only
  const pathOf = {};
  return out.map((g) => {
    const c = info[g.oid];
    if (g.origPath) {
      pathOf[g.oid] = { path: g.origPath, previous: g.previous ?? null, previousPath: g.previousPath ?? null };
    }
    const p = pathOf[g.oid];
    const who = (k) => ({
      name: c[k], email: c[`${k}-mail`].slice(1, -1), timestamp: +c[`${k}-time`], timezone: c[`${k}-tz`],
    });
    return {
      start: g.start, count: g.count, commit: g.oid, origPath: p.path, origStart: g.origStart,
      boundary: c.boundary, author: who('author'), committer: who('committer'), summary: c.summary,
      previous: p.previous, previousPath: p.previousPath,
    };
  });
}
