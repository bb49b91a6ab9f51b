/**
 * The docs view's HTML (src/docsView.ts): a page of the reference rendered at package time
 * (scripts/render-docs.mjs, bundled/docs/) inside a strict Content-Security-Policy document:
 * nothing is loaded (no remote nor local resource), the style and the one script run by nonce.
 * The script only scrolls to the anchor (or, in the same document shown again, back to where the
 * reader was) and keeps the page in the webview state (for the serializer after a reload); links are the webview's own: `#anchor` scrolls, `command:`
 * (runway.openDocs only, `enableCommandUris`) opens another page, http(s) opens outside. Pure.
 */
import { escapeHtml } from './format';

export interface DocsPageOptions {
  /** A fresh random nonce for this document. */
  nonce: string;
  /** The page's docs-relative path (`diagnostics.md`). */
  page: string;
  /** Its title (the page's first heading). */
  title: string;
  /** The heading id to scroll to ('' for the top). */
  anchor: string;
  /** This rendering's id: the webview state of another one is not restored. */
  render?: string;
}

export function docsContentSecurityPolicy(nonce: string): string {
  return ["default-src 'none'", `style-src 'nonce-${nonce}'`, `script-src 'nonce-${nonce}'`, "base-uri 'none'", "form-action 'none'"].join('; ');
}

const STYLE = `
body { font-family: var(--vscode-font-family); font-size: var(--vscode-font-size, 13px); line-height: 1.55;
  color: var(--vscode-foreground); background: var(--vscode-editor-background); padding: 0 26px 40vh; max-width: 980px; }
h1, h2, h3, h4 { font-weight: 600; line-height: 1.25; margin: 1.4em 0 0.6em; scroll-margin-top: 8px; }
h1 { font-size: 2em; padding-bottom: 0.3em; border-bottom: 1px solid var(--vscode-panel-border, rgba(128,128,128,.35)); }
h2 { font-size: 1.5em; padding-bottom: 0.3em; border-bottom: 1px solid var(--vscode-panel-border, rgba(128,128,128,.35)); }
h3 { font-size: 1.25em; }
.target { outline: 1px solid var(--vscode-focusBorder); outline-offset: 4px; border-radius: 2px; }
a { color: var(--vscode-textLink-foreground); text-decoration: none; }
a:hover { text-decoration: underline; color: var(--vscode-textLink-activeForeground); }
a:focus { outline: 1px solid var(--vscode-focusBorder); }
.unbundled { border-bottom: 1px dotted var(--vscode-descriptionForeground); cursor: help; }
code { font-family: var(--vscode-editor-font-family); font-size: 0.92em; background: var(--vscode-textCodeBlock-background); padding: 0.1em 0.3em; border-radius: 3px; }
pre { background: var(--vscode-textCodeBlock-background); padding: 10px 14px; overflow-x: auto; border-radius: 3px; }
pre code { background: none; padding: 0; }
table { border-collapse: collapse; margin: 0.8em 0; display: block; overflow-x: auto; }
th, td { border: 1px solid var(--vscode-panel-border, rgba(128,128,128,.35)); padding: 4px 9px; text-align: left; vertical-align: top; }
.align-right { text-align: right; } .align-center { text-align: center; }
th { background: var(--vscode-keybindingTable-headerBackground, rgba(128,128,128,.12)); }
blockquote { margin: 0; padding: 0 1em; border-left: 4px solid var(--vscode-textBlockQuote-border); color: var(--vscode-textBlockQuote-foreground, inherit); }
nav.crumbs { font-size: 0.9em; color: var(--vscode-descriptionForeground); margin-top: 12px; }
`;

// Scroll to the anchor (the heading of a code) once the page is laid out, and mark it; keep
// {page, anchor, render, y} as the webview state. A tab hidden and shown again reloads the same
// document (same render id): back to where the reader was, not to the anchor. Nothing else:
// links are handled by the webview itself.
const SCRIPT = `
const vscode = acquireVsCodeApi();
const main = document.getElementById('doc');
const { page, anchor, render } = main.dataset;
const saved = vscode.getState();
const target = anchor ? document.getElementById(anchor) : null;
if (target) target.classList.add('target');
if (saved && saved.render === render && typeof saved.y === 'number') {
  window.scrollTo(0, saved.y);
} else if (target) {
  target.scrollIntoView({ block: 'start' });
  target.setAttribute('tabindex', '-1');
  target.focus({ preventScroll: true });
}
const keep = () => vscode.setState({ page, anchor, render, y: Math.round(window.scrollY) });
keep();
let timer;
window.addEventListener('scroll', () => {
  clearTimeout(timer);
  timer = setTimeout(keep, 150);
});
`;

/** The whole webview document of one rendered page (`body`: its HTML fragment, made at package time). */
export function docsDocument(body: string, options: DocsPageOptions): string {
  const nonce = escapeHtml(options.nonce);
  const crumbs = options.page === 'diagnostics.md' ? '' : `<nav class="crumbs">docs/${escapeHtml(options.page)} · <a href="${escapeHtml(openDocsUri('diagnostics.md'))}">Diagnostics reference</a></nav>`;
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="UTF-8">
<meta http-equiv="Content-Security-Policy" content="${escapeHtml(docsContentSecurityPolicy(options.nonce))}">
<meta name="viewport" content="width=device-width, initial-scale=1.0">
<title>${escapeHtml(options.title)}</title>
<style nonce="${nonce}">${STYLE}</style>
</head>
<body>
${crumbs}
<main id="doc" data-page="${escapeHtml(options.page)}" data-anchor="${escapeHtml(options.anchor)}" data-render="${escapeHtml(options.render ?? options.nonce)}">
${body}
</main>
<script nonce="${nonce}">${SCRIPT}</script>
</body>
</html>`;
}

/** The command that opens a rendered page at an anchor (links between pages, and the code links). */
export const OPEN_DOCS = 'runway.openDocs';

/** `command:runway.openDocs?["format.md","workloads"]`: as scripts/render-docs.mjs writes the links between pages. */
export function openDocsUri(page: string, anchor?: string): string {
  return `command:${OPEN_DOCS}?${encodeURIComponent(JSON.stringify(anchor ? [page, anchor] : [page]))}`;
}
