/**
 * The diagnostics reference shipped in the extension. A code's link in the Problems panel and
 * hovers (the server's `codeDescription.href`, its web or file address) is replaced by
 * `command:runway.openDiagnosticsDocs?["RW140"]`, which opens the reference rendered at package
 * time (bundled/docs/, scripts/render-docs.mjs) at the code's heading in the docs view
 * (src/docsView.ts), offline. A build without the rendered pages (a development build) falls
 * back to the Markdown copy (bundled/libs/docs/diagnostics.md, scripts/bundle.py) at the
 * heading's line.
 */

/** `RW140` -> the 1-based line of its `### RW140 — …` heading. */
export function codeLines(markdown: string): Map<string, number> {
  const out = new Map<string, number>();
  markdown.split(/\r?\n/).forEach((line, i) => {
    const m = /^#{2,4}\s+(RW\d{3})\b/.exec(line);
    if (m && !out.has(m[1])) out.set(m[1], i + 1);
  });
  return out;
}

/** The code of a diagnostic (`RW140`, or `{ value: 'RW140', target }`), else null. */
export function diagnosticCode(code: unknown): string | null {
  const value = code !== null && typeof code === 'object' ? (code as { value?: unknown }).value : code;
  return typeof value === 'string' && /^RW\d{3}$/.test(value) ? value : null;
}

/**
 * The rendered reference's index (bundled/docs/index.json, written by scripts/render-docs.mjs):
 * each rendered page (docs-relative path) with its HTML file, title and heading anchors, and
 * each code's anchor in the entry page (diagnostics.md).
 */
export interface DocsIndex {
  entry: string;
  pages: Record<string, { file: string; title: string; anchors: string[] }>;
  codes: Record<string, string>;
}

/** index.json's text as a {@link DocsIndex}; throws when it is not one (then the view is not offered). */
export function parseDocsIndex(text: string): DocsIndex {
  const raw = JSON.parse(text) as Partial<DocsIndex>;
  const pages = raw.pages && typeof raw.pages === 'object' ? raw.pages : {};
  if (typeof raw.entry !== 'string' || !pages[raw.entry]) throw new Error('docs index: no entry page');
  for (const [name, p] of Object.entries(pages)) {
    if (!p || typeof p.file !== 'string' || !/^[\w./-]+\.html$/.test(p.file) || p.file.split('/').includes('..') || !Array.isArray(p.anchors)) {
      throw new Error(`docs index: page ${name} is malformed`);
    }
  }
  const codes = raw.codes && typeof raw.codes === 'object' ? raw.codes : {};
  return { entry: raw.entry, pages: pages as DocsIndex['pages'], codes };
}

/**
 * Where a request to open `page` at `anchor` lands: an unknown page opens the entry, an unknown
 * anchor the page's top (never an error page).
 */
export function docsLocation(index: DocsIndex, page?: string, anchor?: string): { page: string; anchor: string } {
  const at = page && Object.prototype.hasOwnProperty.call(index.pages, page) ? page : index.entry;
  const a = anchor && index.pages[at].anchors.includes(anchor) ? anchor : '';
  return { page: at, anchor: a };
}

/** The command a code's link runs: it opens the rendered reference at the code's heading. */
export const OPEN_DIAGNOSTICS_DOCS = 'runway.openDiagnosticsDocs';

/** `command:runway.openDiagnosticsDocs?["RW140"]`: a diagnostic code's link target. */
export function codeLinkUri(code: string): string {
  return `command:${OPEN_DIAGNOSTICS_DOCS}?${encodeURIComponent(JSON.stringify([code]))}`;
}
