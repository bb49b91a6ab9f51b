/**
 * The docs view: the diagnostics reference rendered at package time (bundled/docs/, made by
 * scripts/render-docs.mjs from docs/diagnostics.md and the docs pages it links to), in one
 * read-only webview. A diagnostic's code link (`RW140` in the Problems panel and hovers) opens
 * it at the code's heading; a link to another rendered page opens that page in the same view
 * at its anchor; every link works offline (see render-docs.mjs for the ones that leave it).
 */
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { docsLocation, parseDocsIndex, type DocsIndex } from './docs';
import { docsDocument, OPEN_DOCS } from './docsHtml';

export const DOCS_VIEW_TYPE = 'runway.docs';

export class DocsView implements vscode.Disposable {
  private panel: vscode.WebviewPanel | undefined;
  private index: DocsIndex | null | undefined;
  private readonly disposables: vscode.Disposable[] = [];

  constructor(private readonly extensionPath: string) {
    this.disposables.push(
      vscode.commands.registerCommand(OPEN_DOCS, (page?: unknown, anchor?: unknown) => this.show(typeof page === 'string' ? page : undefined, typeof anchor === 'string' ? anchor : undefined)),
      vscode.window.registerWebviewPanelSerializer(DOCS_VIEW_TYPE, {
        deserializeWebviewPanel: async (panel: vscode.WebviewPanel, state: unknown) => {
          const saved = (state ?? {}) as { page?: unknown; anchor?: unknown };
          this.panel?.dispose();
          this.adopt(panel);
          if (!this.render(typeof saved.page === 'string' ? saved.page : undefined, typeof saved.anchor === 'string' ? saved.anchor : undefined)) panel.dispose();
        },
      }),
    );
  }

  private static options(): vscode.WebviewOptions & vscode.WebviewPanelOptions {
    // Scripts: only the nonce'd one of docsHtml.ts (the CSP refuses any other). Command links:
    // only the one that opens another page of the reference.
    return { enableScripts: true, enableCommandUris: [OPEN_DOCS], localResourceRoots: [], enableFindWidget: true };
  }

  /** The rendered reference's index (null when this build has none, e.g. a development build). */
  docsIndex(): DocsIndex | null {
    if (this.index === undefined) {
      try {
        this.index = parseDocsIndex(readFileSync(path.join(this.extensionPath, 'bundled', 'docs', 'index.json'), 'utf8'));
      } catch {
        this.index = null;
      }
    }
    return this.index;
  }

  /** Whether `code` has an entry in the rendered reference (then its link opens this view). */
  hasCode(code: string): boolean {
    return Boolean(this.docsIndex()?.codes[code]);
  }

  /** Open `page` (default: the diagnostics reference) at `anchor` (default: its top); false without a rendered reference. */
  show(page?: string, anchor?: string): boolean {
    if (!this.docsIndex()) return false;
    if (!this.panel) {
      this.adopt(vscode.window.createWebviewPanel(DOCS_VIEW_TYPE, 'Runway Diagnostics', { viewColumn: vscode.ViewColumn.Beside, preserveFocus: false }, DocsView.options()));
    } else {
      this.panel.reveal(undefined, false);
    }
    return this.render(page, anchor);
  }

  /** Open the diagnostics reference at `code`'s heading (its top for an unknown code). */
  showCode(code?: string | null): boolean {
    const index = this.docsIndex();
    if (!index) return false;
    return this.show(index.entry, code ? index.codes[code] : undefined);
  }

  private adopt(panel: vscode.WebviewPanel): void {
    panel.webview.options = DocsView.options();
    this.panel = panel;
    panel.onDidDispose(() => {
      if (this.panel === panel) this.panel = undefined;
    });
  }

  private render(page: string | undefined, anchor: string | undefined): boolean {
    const index = this.docsIndex();
    if (!index || !this.panel) return false;
    const at = docsLocation(index, page, anchor);
    let body: string;
    try {
      body = readFileSync(path.join(this.extensionPath, 'bundled', 'docs', index.pages[at.page].file), 'utf8');
    } catch {
      return false;
    }
    const title = index.pages[at.page].title;
    this.panel.title = at.page === index.entry ? 'Runway Diagnostics' : `Runway Docs: ${title}`;
    this.panel.webview.html = docsDocument(body, { nonce: randomBytes(16).toString('base64'), page: at.page, title, anchor: at.anchor, render: randomBytes(8).toString('hex') });
    return true;
  }

  dispose(): void {
    this.panel?.dispose();
    for (const d of this.disposables) d.dispose();
  }
}
