// scripts/render-docs.mjs (the reference rendered at package time) and the docs view's HTML
// (src/docsHtml.ts): headings with GitHub's anchors, tables, code, lists; every link resolved
// so that it works offline; the strict CSP document around a page.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';
import { pathToFileURL } from 'node:url';
import { codeLinkUri, docsLocation, parseDocsIndex } from '../src/docs';
import { docsContentSecurityPolicy, docsDocument, openDocsUri, OPEN_DOCS } from '../src/docsHtml';

type Renderer = typeof import('../scripts/render-docs.mjs', { with: { 'resolution-mode': 'import' } });
const EXT = path.join(__dirname, '..', '..');
const DOCS = path.join(EXT, '..', 'docs');
const load = (): Promise<Renderer> => import(pathToFileURL(path.join(EXT, 'scripts', 'render-docs.mjs')).href) as Promise<Renderer>;

function site(pages: Record<string, string[]>, files: string[] = [], web: string | null = null) {
  return { anchors: new Map(Object.entries(pages).map(([p, a]) => [p, new Set(a)])), exists: (rel: string) => files.includes(rel) || rel in pages, web };
}

test("a heading's anchor is GitHub's", async () => {
  const { slug } = await load();
  assert.equal(slug('RW140 — image not pinned by digest'), 'rw140--image-not-pinned-by-digest');
  assert.equal(slug('uses and injected variables'), 'uses-and-injected-variables');
  assert.equal(slug('RW005 — alias expansion over the limit ("alias bomb")'), 'rw005--alias-expansion-over-the-limit-alias-bomb');
  assert.equal(slug('env_name: 3.12 (x/y)'), 'env_name-312-xy');
});

test('headings get ids (a repeated one numbered), tables, code and lists render, raw HTML is escaped', async () => {
  const { renderPage } = await load();
  const md = '# Title\n\n## Usage\n\n| a | b |\n|---|---|\n| `x` | 2 |\n\n- one\n- two\n\n```yaml\nkey: <v>\n```\n\n## Usage\n\n<script>alert(1)</script>\n';
  const out = renderPage(md, 'p.md', site({ 'p.md': [] }));
  assert.deepEqual(out.anchors, ['title', 'usage', 'usage-1']);
  assert.equal(out.title, 'Title');
  assert.match(out.html, /<h2 id="usage">Usage<\/h2>/);
  assert.match(out.html, /<h2 id="usage-1">Usage<\/h2>/);
  assert.match(out.html, /<table>[\s\S]*<td><code>x<\/code><\/td>/);
  assert.match(out.html, /<ul>\s*<li>one<\/li>/);
  assert.match(out.html, /<pre><code class="language-yaml">key: &lt;v&gt;/);
  assert.ok(!out.html.includes('<script'), 'raw HTML is text');
  // Column alignment as a class (the CSP refuses inline styles).
  const aligned = renderPage('| a | n |\n|---|---:|\n| x | 1 |\n', 'p.md', site({ 'p.md': [] })).html;
  assert.match(aligned, /<td class="align-right">1<\/td>/);
  assert.ok(!aligned.includes('style='));
  assert.deepEqual(out.dead, []);
});

test('links: same page, another rendered page at its anchor, a page not shipped, the web, dead ones', async () => {
  const { resolveLink } = await load();
  const s = site({ 'diagnostics.md': ['rw140'], 'format.md': ['workloads'], 'adr/0493-x.md': ['decision'] }, ['ci.md', '../examples/broken', '../examples/broken/']);
  assert.deepEqual(resolveLink('#rw140', 'diagnostics.md', s), { kind: 'anchor', anchor: 'rw140' });
  assert.deepEqual(resolveLink('format.md#workloads', 'diagnostics.md', s), { kind: 'page', page: 'format.md', anchor: 'workloads' });
  assert.deepEqual(resolveLink('adr/0493-x.md', 'diagnostics.md', s), { kind: 'page', page: 'adr/0493-x.md', anchor: '' });
  assert.deepEqual(resolveLink('../diagnostics.md#rw140', 'adr/0493-x.md', s), { kind: 'page', page: 'diagnostics.md', anchor: 'rw140' });
  assert.deepEqual(resolveLink('ci.md#github', 'format.md', s), { kind: 'text', target: 'ci.md' });
  assert.deepEqual(resolveLink('../examples/broken/', 'diagnostics.md', s), { kind: 'text', target: '../examples/broken/' });
  assert.deepEqual(resolveLink('https://aws.amazon.com/x', 'format.md', s), { kind: 'external', url: 'https://aws.amazon.com/x' });
  assert.equal(resolveLink('javascript:alert(1)', 'format.md', s).kind, 'text');
  assert.equal(resolveLink('format.md#nope', 'diagnostics.md', s).kind, 'dead');
  assert.equal(resolveLink('#nope', 'diagnostics.md', s).kind, 'dead');
  assert.equal(resolveLink('gone.md', 'diagnostics.md', s).kind, 'dead');
  // With the docs folder's web address at package time, what is not shipped opens there.
  const web = site({ 'format.md': [] }, ['ci.md', '../catalog/README.md'], 'https://github.com/acme/runway-tooling/blob/v1/docs');
  assert.deepEqual(resolveLink('ci.md#github', 'format.md', web), { kind: 'external', url: 'https://github.com/acme/runway-tooling/blob/v1/docs/ci.md#github' });
  assert.deepEqual(resolveLink('../catalog/README.md', 'format.md', web), { kind: 'external', url: 'https://github.com/acme/runway-tooling/blob/v1/catalog/README.md' });
});

test('a link to a page not shipped is plain text naming it, never a dead link', async () => {
  const { renderPage } = await load();
  const out = renderPage('# T\n\nSee [the CI page](ci.md#x) and [format](format.md#w).\n', 'diagnostics.md', site({ 'diagnostics.md': [], 'format.md': ['w'] }, ['ci.md']));
  assert.match(out.html, /<span class="unbundled" title="docs\/ci.md in the repository \(not shipped with the extension\)">the CI page<\/span>/);
  assert.match(out.html, /<a href="command:runway\.openDocs\?%5B%22format\.md%22%2C%22w%22%5D" data-doc="format\.md#w"[^>]*>format<\/a>/);
  assert.deepEqual(out.dead, []);
});

test('the web address of RUNWAY_DOCS_URL: http(s) only, no user info', async () => {
  const { webBase } = await load();
  assert.equal(webBase('https://user:tok@github.com/a/b/blob/v1/docs/'), 'https://github.com/a/b/blob/v1/docs');
  assert.equal(webBase('file:///x'), null);
  assert.equal(webBase(undefined), null);
});

test('the link between pages is the one the docs view runs', async () => {
  const { openLink, OPEN_COMMAND } = await load();
  assert.equal(OPEN_COMMAND, OPEN_DOCS);
  assert.equal(openLink('format.md', 'workloads'), openDocsUri('format.md', 'workloads'));
  assert.equal(openLink('adr/0493-x.md'), openDocsUri('adr/0493-x.md'));
  const args = JSON.parse(decodeURIComponent(openDocsUri('format.md', 'workloads').split('?')[1]));
  assert.deepEqual(args, ['format.md', 'workloads']);
  assert.deepEqual(JSON.parse(decodeURIComponent(codeLinkUri('RW140').split('?')[1])), ['RW140']);
  assert.match(codeLinkUri('RW140'), /^command:runway\.openDiagnosticsDocs\?/);
});

test("the repository's docs render with no dead link; every link of every page resolves", async () => {
  const { renderSite } = await load();
  const { index, html, dead } = renderSite(DOCS);
  assert.deepEqual(dead, []);
  for (const p of ['diagnostics.md', 'format.md', 'catalog.md', 'adr/0493-runway-resources-and-workloads.md']) assert.ok(index.pages[p], p);
  // Every code of diagnostics.md has its heading's anchor, and it is an id of the page.
  const diag = html.get('diagnostics.md')!;
  const text = readFileSync(path.join(DOCS, 'diagnostics.md'), 'utf8');
  const headed = [...text.matchAll(/^### (RW\d{3}) — /gm)].map((m) => m[1]);
  assert.ok(headed.length > 50);
  for (const code of headed) assert.ok(diag.includes(`id="${index.codes[code]}"`), code);
  assert.equal(index.codes.RW140, 'rw140--image-not-pinned-by-digest');
  for (const [page, fragment] of html) {
    const ids = new Set([...fragment.matchAll(/ id="([^"]+)"/g)].map((m) => m[1]));
    assert.deepEqual([...ids].sort(), [...index.pages[page].anchors].sort(), page);
    for (const [, href] of fragment.matchAll(/<a href="([^"]*)"/g)) {
      if (href.startsWith('#')) assert.ok(ids.has(href.slice(1)), `${page}: ${href}`);
      else if (href.startsWith('command:')) {
        const [to, anchor] = JSON.parse(decodeURIComponent(href.slice(`command:${OPEN_DOCS}?`.length))) as [string, string?];
        assert.ok(index.pages[to], `${page}: ${href}`);
        if (anchor) assert.ok(index.pages[to].anchors.includes(anchor), `${page}: ${href}`);
      } else assert.match(href, /^(https?|mailto):/, `${page}: ${href}`);
    }
  }
  // RW143 links to format.md's "uses" heading: it opens that page at it.
  assert.match(diag, /data-doc="format\.md#uses-and-injected-variables"/);
});

test('the docs document: strict CSP (nothing loaded, scripts only by nonce), the page and anchor escaped', () => {
  const csp = docsContentSecurityPolicy('abc');
  assert.match(csp, /default-src 'none'/);
  assert.match(csp, /script-src 'nonce-abc'/);
  assert.match(csp, /style-src 'nonce-abc'/);
  assert.ok(!/https?:|\*|unsafe/.test(csp), csp);
  const doc = docsDocument('<h3 id="rw140--x">RW140 — x</h3>', { nonce: 'abc', page: 'diagnostics.md', title: 'Diagnostics', anchor: 'rw140--x"><script>' });
  assert.match(doc, /data-anchor="rw140--x&quot;&gt;&lt;script&gt;"/);
  const scripts = [...doc.matchAll(/<script([^>]*)>/g)].map((m) => m[1]);
  assert.deepEqual(scripts, [' nonce="abc"']);
  assert.ok(!/<(link|img|iframe)\b/.test(doc));
  // Each rendering has its own id: shown again (the same document), the reader's place comes back.
  assert.match(docsDocument('', { nonce: 'n', page: 'diagnostics.md', title: 'D', anchor: '', render: 'r1' }), /data-render="r1"/);
  assert.match(doc, /saved\.render === render/);
  // Another page shows where it is and the way back.
  assert.match(docsDocument('', { nonce: 'n', page: 'format.md', title: 'Format', anchor: '' }), /docs\/format\.md · <a href="command:runway\.openDocs\?%5B%22diagnostics\.md%22%5D">/);
});

test('the index: a page file outside the folder is refused; unknown pages and anchors land on the entry or the top', () => {
  const index = parseDocsIndex(JSON.stringify({ entry: 'diagnostics.md', pages: { 'diagnostics.md': { file: 'diagnostics.html', title: 'D', anchors: ['rw140'] }, 'format.md': { file: 'format.html', title: 'F', anchors: ['w'] } }, codes: { RW140: 'rw140' } }));
  assert.deepEqual(docsLocation(index, 'format.md', 'w'), { page: 'format.md', anchor: 'w' });
  assert.deepEqual(docsLocation(index, 'format.md', 'nope'), { page: 'format.md', anchor: '' });
  assert.deepEqual(docsLocation(index, 'secret.md', 'w'), { page: 'diagnostics.md', anchor: '' });
  assert.deepEqual(docsLocation(index, 'toString'), { page: 'diagnostics.md', anchor: '' });
  assert.throws(() => parseDocsIndex(JSON.stringify({ entry: 'd.md', pages: { 'd.md': { file: '../../x.html', title: '', anchors: [] } } })));
  assert.throws(() => parseDocsIndex(JSON.stringify({ entry: 'd.md', pages: {} })));
});
