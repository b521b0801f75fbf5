// A colour contrast audit of a page as it is shown (WCAG 2.x AA): every
// visible piece of text against what is behind it, in the light and the
// dark scheme. Used by the demo pages' browser tests.
import assert from 'node:assert/strict';

// Runs in the page: the text below AA (4.5:1; 3:1 for large text), as
// { text, ratio, fg, bg, where }. Backgrounds are composited from the
// root down; a translucent colour is blended over what is under it; an
// element's opacity fades its text into its background. Disabled controls
// are left out, as WCAG leaves out inactive components.
function findLowContrast() {
  const parse = (c) => {
    const m = /rgba?\(([^)]+)\)/.exec(c);
    if (!m) return null;
    const p = m[1].split(/[\s,/]+/).filter(Boolean).map(Number);
    return { r: p[0], g: p[1], b: p[2], a: p.length > 3 ? p[3] : 1 };
  };
  const over = (top, under, a = top.a) => ({
    r: top.r * a + under.r * (1 - a), g: top.g * a + under.g * (1 - a), b: top.b * a + under.b * (1 - a), a: 1,
  });
  const lum = ({ r, g, b }) => {
    const f = (v) => { const x = v / 255; return x <= 0.03928 ? x / 12.92 : ((x + 0.055) / 1.055) ** 2.4; };
    return 0.2126 * f(r) + 0.7152 * f(g) + 0.0722 * f(b);
  };
  const ratio = (x, y) => { const [a, b] = [lum(x), lum(y)].sort((p, q) => q - p); return (a + 0.05) / (b + 0.05); };
  const hex = ({ r, g, b }) => `#${[r, g, b].map((v) => Math.round(v).toString(16).padStart(2, '0')).join('')}`;
  const where = (el) => {
    const parts = [];
    for (let e = el; e && parts.length < 3; e = e.parentElement) {
      parts.unshift(e.id ? `#${e.id}` : `${e.tagName.toLowerCase()}${e.classList.length ? `.${[...e.classList].join('.')}` : ''}`);
    }
    return parts.join(' > ');
  };
  const out = [];
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  const seen = new Set();
  for (let n = walker.nextNode(); n; n = walker.nextNode()) {
    const el = n.parentElement;
    if (!el || seen.has(el) || !n.textContent.trim()) continue;
    seen.add(el);
    if (el.closest('[hidden], script, style, :disabled, [aria-disabled="true"], option')) continue;
    const cs = getComputedStyle(el);
    if (cs.visibility === 'hidden' || !el.getClientRects().length) continue;
    const rect = el.getBoundingClientRect();
    if (rect.width < 1 || rect.height < 1) continue;
    const chain = [];
    for (let e = el; e; e = e.parentElement) chain.unshift(e);
    let bg = { r: 255, g: 255, b: 255, a: 1 };
    let opacity = 1;
    for (const e of chain) {
      const s = getComputedStyle(e);
      const c = parse(s.backgroundColor);
      if (c && c.a > 0) bg = over(c, bg);
      opacity *= Number(s.opacity);
    }
    const c = parse(cs.color);
    if (!c || opacity === 0) continue;
    const fg = over(over(c, bg), bg, opacity);
    const size = parseFloat(cs.fontSize);
    const large = size >= 24 || (size >= 18.66 && Number(cs.fontWeight) >= 700);
    const r = ratio(fg, bg);
    if (r < (large ? 3 : 4.5)) {
      out.push({ text: n.textContent.trim().slice(0, 40), ratio: Math.round(r * 100) / 100, fg: hex(fg), bg: hex(bg), where: where(el) });
    }
  }
  return out;
}

/**
 * Check the page's text contrast in both colour schemes (switched with
 * emulateMedia, so the page must follow prefers-color-scheme as it
 * changes); the scheme is light again afterwards. Returns how many
 * pieces of text were checked in each, so a test can see it checked some.
 */
export async function assertReadable(page, label) {
  const counted = {};
  for (const scheme of ['light', 'dark']) {
    await page.emulateMedia({ colorScheme: scheme });
    // let the page's listeners restyle
    await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
    const low = await page.evaluate(findLowContrast);
    assert.deepEqual(low, [], `${label} (${scheme}): text below WCAG AA contrast`);
    counted[scheme] = await page.evaluate(() => {
      const w = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
      let k = 0;
      for (let n = w.nextNode(); n; n = w.nextNode()) if (n.textContent.trim() && n.parentElement?.getClientRects().length) k++;
      return k;
    });
  }
  await page.emulateMedia({ colorScheme: 'light' });
  return counted;
}
