// The diagnostics reference, rendered at package time for the extension's read-only docs view
// (src/docsView.ts): docs/diagnostics.md and every docs page it links to, as HTML fragments in
// bundled/docs/ with an index (bundled/docs/index.json: each page's file, title and anchors, and
// each code's anchor in diagnostics.md).
//
// Markdown by markdown-it (CommonMark + GitHub tables; raw HTML is escaped, never passed on).
// Each heading gets GitHub's anchor as its id. Each link is resolved here, once, so that every
// link of the view works offline:
//   - `#anchor` of the same page: stays (the webview scrolls to it);
//   - another rendered page (`format.md#workloads`): a `command:runway.openDocs?["format.md","workloads"]`
//     link, which opens that page in the same view at its anchor;
//   - a docs page or file that is not rendered (`ci.md`, `../examples/broken/`): the project's
//     web address when RUNWAY_DOCS_URL (the docs folder's http(s) address, as for the server) is
//     set at package time, else plain text naming the file (never a dead link);
//   - http(s) and mailto links: kept (VS Code opens them outside).
// A relative link to a file that does not exist, or to an anchor its page lacks, fails the run.
//
// Usage: node scripts/render-docs.mjs [--docs ../docs] [--out bundled/docs]
import MarkdownIt from 'markdown-it';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const ENTRY = 'diagnostics.md';
/** The command a link to another rendered page runs (registered by src/docsView.ts). */
export const OPEN_COMMAND = 'runway.openDocs';

/** GitHub's anchor of a heading's text: lower case, every character but letters, digits, `_`,
 * `-` and spaces dropped, each space a hyphen (`RW140 — image…` -> `rw140--image…`). */
export function slug(text) {
  return text
    .toLowerCase()
    .replace(/[^\p{L}\p{M}\p{N}\p{Pc}\- ]/gu, '')
    .replace(/ /g, '-');
}

/** The `command:` URI that opens `page` (a docs-relative path) at `anchor` in the docs view. */
export function openLink(page, anchor) {
  return `command:${OPEN_COMMAND}?${encodeURIComponent(JSON.stringify(anchor ? [page, anchor] : [page]))}`;
}

/** RUNWAY_DOCS_URL when it is an absolute http(s) URL (without user info or a trailing `/`), else null. */
export function webBase(value) {
  const m = /^(https?:\/\/)(?:[^\s/?#]*@)?([^\s/?#@]+(?:\/[^\s?#]*)?)$/.exec((value ?? '').trim());
  return m ? (m[1] + m[2]).replace(/\/+$/, '') : null;
}

function markdown() {
  return new MarkdownIt({ html: false, linkify: false, typographer: false });
}

/** The text of a heading's inline token, as GitHub reads it for the anchor (code spans' and links' text). */
function inlineText(inline) {
  let out = '';
  for (const t of inline.children ?? []) {
    if (t.type === 'text' || t.type === 'code_inline') out += t.content;
    else if (t.type === 'softbreak' || t.type === 'hardbreak') out += ' ';
  }
  return out;
}

/** Each heading of `tokens` with its GitHub anchor (`-1`, `-2` … for a repeated one), in order. */
function headings(tokens) {
  const seen = new Map();
  const out = [];
  for (let i = 0; i < tokens.length; i++) {
    if (tokens[i].type !== 'heading_open') continue;
    const text = inlineText(tokens[i + 1]);
    const base = slug(text);
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    out.push({ token: tokens[i], level: Number(tokens[i].tag.slice(1)), text, anchor: n ? `${base}-${n}` : base });
  }
  return out;
}

/** The anchors of a Markdown page, in order. */
export function anchorsOf(source) {
  return headings(markdown().parse(source, {})).map((h) => h.anchor);
}

/** The rendered pages: the entry and every docs page (`.md` under the docs folder) it links to. */
export function pagesToRender(docsDir, entry = ENTRY) {
  const pages = [entry];
  const md = markdown();
  const walk = (tokens) => {
    for (const t of tokens) {
      if (t.children) walk(t.children);
      if (t.type !== 'link_open') continue;
      const href = t.attrGet('href') ?? '';
      if (/^[a-z][a-z0-9+.-]*:/i.test(href) || href.startsWith('#')) continue;
      const target = path.posix.normalize(path.posix.join(path.posix.dirname(entry), safeDecode(href.split('#')[0])));
      if (target.endsWith('.md') && !target.startsWith('../') && existsSync(path.join(docsDir, target)) && !pages.includes(target)) pages.push(target);
    }
  };
  walk(md.parse(readFileSync(path.join(docsDir, entry), 'utf8'), {}));
  return pages;
}

function safeDecode(s) {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}

/**
 * Where a link of `from` (a docs-relative page) goes in the view.
 * @param {string} href the link's target as written (markdown-it's normalized form is fine)
 * @param {string} from the page it is on
 * @param {{ anchors: Map<string, Set<string>>, exists: (rel: string) => boolean, web: string | null }} site
 *   the rendered pages' anchors, whether a docs-relative path exists, the docs folder's web address
 * @returns {{ kind: 'anchor', anchor: string } | { kind: 'page', page: string, anchor: string }
 *   | { kind: 'external', url: string } | { kind: 'text', target: string } | { kind: 'dead', reason: string }}
 */
export function resolveLink(href, from, site) {
  if (/^(https?|mailto):/i.test(href)) return { kind: 'external', url: href };
  if (/^[a-z][a-z0-9+.-]*:/i.test(href)) return { kind: 'text', target: href };
  const hash = href.indexOf('#');
  const file = safeDecode(hash < 0 ? href : href.slice(0, hash));
  const anchor = hash < 0 ? '' : safeDecode(href.slice(hash + 1));
  if (!file) {
    if (site.anchors.get(from)?.has(anchor)) return { kind: 'anchor', anchor };
    return { kind: 'dead', reason: `${from}: #${anchor} is no heading of the page` };
  }
  const target = path.posix.normalize(path.posix.join(path.posix.dirname(from), file));
  const rendered = site.anchors.get(target);
  if (rendered) {
    if (anchor && !rendered.has(anchor)) return { kind: 'dead', reason: `${from}: ${href} names no heading of ${target}` };
    return { kind: 'page', page: target, anchor };
  }
  if (!site.exists(target)) return { kind: 'dead', reason: `${from}: ${href} names no file (${target})` };
  if (site.web) return { kind: 'external', url: new URL(file + (anchor ? `#${anchor}` : ''), `${site.web}/${from}`).href };
  return { kind: 'text', target };
}

/** A docs-relative path as a repository path (`ci.md` -> `docs/ci.md`, `../catalog/x` -> `catalog/x`). */
function repoPath(rel) {
  return /^[a-z][a-z0-9+.-]*:/i.test(rel) ? rel : path.posix.normalize(`docs/${rel}`);
}

/** `source` (page `from`) as an HTML fragment: headings with their ids, links resolved (see resolveLink). */
export function renderPage(source, from, site) {
  const md = markdown();
  const env = {};
  const tokens = md.parse(source, env);
  const found = headings(tokens);
  for (const h of found) h.token.attrSet('id', h.anchor);
  // A column's alignment as a class: the view's CSP allows no inline style attribute.
  for (const t of tokens) {
    const align = /^text-align:(left|center|right)$/.exec(t.attrGet('style') ?? '');
    if (align) t.attrs = [...t.attrs.filter(([k]) => k !== 'style'), ['class', `align-${align[1]}`]];
  }
  const dead = [];
  const walk = (list) => {
    for (let i = 0; i < list.length; i++) {
      const t = list[i];
      if (t.children) walk(t.children);
      if (t.type !== 'link_open') continue;
      const href = t.attrGet('href') ?? '';
      const to = resolveLink(href, from, site);
      if (to.kind === 'anchor') t.attrSet('href', `#${to.anchor}`);
      else if (to.kind === 'page') {
        t.attrSet('href', openLink(to.page, to.anchor));
        t.attrSet('data-doc', to.page + (to.anchor ? `#${to.anchor}` : ''));
        t.attrSet('title', to.page + (to.anchor ? `#${to.anchor}` : ''));
      } else if (to.kind === 'external') {
        t.attrSet('href', to.url);
        t.attrSet('title', to.url);
      } else {
        if (to.kind === 'dead') dead.push(to.reason);
        // Plain text naming the file: the link's own words stay, nothing to click.
        t.tag = 'span';
        t.attrs = [['class', 'unbundled'], ['title', to.kind === 'text' ? `${repoPath(to.target)} in the repository (not shipped with the extension)` : to.reason]];
        const close = list.slice(i + 1).find((c) => c.type === 'link_close' && c.level === t.level);
        if (close) close.tag = 'span';
      }
    }
  };
  walk(tokens);
  const title = found.find((h) => h.level === 1)?.text ?? from;
  return { html: md.renderer.render(tokens, md.options, env), title, anchors: found.map((h) => h.anchor), dead };
}

/** Each code's anchor in the diagnostics page (the first heading that starts with the code). */
export function codeAnchors(source) {
  const out = {};
  for (const h of headings(markdown().parse(source, {}))) {
    const m = /^(RW\d{3})\b/.exec(h.text);
    if (m && h.level >= 2 && !(m[1] in out)) out[m[1]] = h.anchor;
  }
  return out;
}

/** Render the docs site of `docsDir`: `{ index, html: Map<page, fragment>, dead: string[] }`. */
export function renderSite(docsDir, { web = null, entry = ENTRY } = {}) {
  const pages = pagesToRender(docsDir, entry);
  const sources = new Map(pages.map((p) => [p, readFileSync(path.join(docsDir, p), 'utf8')]));
  const anchors = new Map(pages.map((p) => [p, new Set(anchorsOf(sources.get(p)))]));
  const site = { anchors, web, exists: (rel) => existsSync(path.join(docsDir, rel)) };
  const index = { entry, pages: {}, codes: codeAnchors(sources.get(entry)) };
  const html = new Map();
  const dead = [];
  for (const p of pages) {
    const out = renderPage(sources.get(p), p, site);
    const file = p.replace(/\.md$/, '.html');
    index.pages[p] = { file, title: out.title, anchors: out.anchors };
    html.set(p, out.html);
    dead.push(...out.dead);
  }
  return { index, html, dead };
}

function main(argv) {
  const here = path.dirname(fileURLToPath(import.meta.url));
  const arg = (name, fallback) => {
    const i = argv.indexOf(name);
    return i >= 0 && argv[i + 1] ? argv[i + 1] : fallback;
  };
  const docsDir = path.resolve(arg('--docs', path.join(here, '..', '..', 'docs')));
  const outDir = path.resolve(arg('--out', path.join(here, '..', 'bundled', 'docs')));
  const web = webBase(process.env.RUNWAY_DOCS_URL);
  const { index, html, dead } = renderSite(docsDir, { web });
  if (dead.length) {
    for (const d of dead) console.error(`render-docs: dead link: ${d}`);
    return 1;
  }
  rmSync(outDir, { recursive: true, force: true });
  let bytes = 0;
  for (const [page, fragment] of html) {
    const file = path.join(outDir, index.pages[page].file);
    mkdirSync(path.dirname(file), { recursive: true });
    writeFileSync(file, fragment);
    bytes += Buffer.byteLength(fragment);
  }
  writeFileSync(path.join(outDir, 'index.json'), JSON.stringify(index, null, 1) + '\n');
  console.log(`render-docs: ${html.size} pages (${Object.keys(index.codes).length} codes, ${(bytes / 1024).toFixed(0)} KiB) in ${path.relative(process.cwd(), outDir) || '.'}${web ? `; other docs link to ${web}` : '; other docs as plain text'}`);
  return 0;
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) process.exitCode = main(process.argv.slice(2));
