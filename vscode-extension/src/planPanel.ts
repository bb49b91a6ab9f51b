/** "Runway: Show Plan": a webview with every environment side by side and the cost chart. */
import { randomBytes } from 'node:crypto';
import * as vscode from 'vscode';
import { isRunwayDocument, type RunwayClient } from './client';
import { planBody, planDocument } from './planHtml';
import { planView } from './planModel';
import { PLAN, type PlanResult } from './protocol';
import type { EnvironmentStore } from './environment';

export class PlanPanel implements vscode.Disposable {
  static current: PlanPanel | undefined;
  private readonly disposables: vscode.Disposable[] = [];
  private rendered = false;
  private sequence = 0;

  static show(runway: RunwayClient, uri: vscode.Uri, select: (environment: string) => Thenable<void>, environments: EnvironmentStore): PlanPanel {
    if (PlanPanel.current) {
      PlanPanel.current.uri = uri;
      PlanPanel.current.panel.reveal(undefined, true);
      void PlanPanel.current.refresh();
      return PlanPanel.current;
    }
    const panel = vscode.window.createWebviewPanel('runway.plan', 'Runway Plan', { viewColumn: vscode.ViewColumn.Beside, preserveFocus: true }, {
      enableScripts: true,
      enableCommandUris: false,
      localResourceRoots: [],
    });
    PlanPanel.current = new PlanPanel(panel, runway, uri, select, environments);
    void PlanPanel.current.refresh();
    return PlanPanel.current;
  }

  private constructor(
    readonly panel: vscode.WebviewPanel,
    private readonly runway: RunwayClient,
    public uri: vscode.Uri,
    private readonly select: (environment: string) => Thenable<void>,
    private readonly environments: EnvironmentStore,
  ) {
    this.disposables.push(
      panel.onDidDispose(() => this.dispose()),
      panel.onDidChangeViewState(() => {
        if (panel.visible && !this.rendered) void this.refresh();
      }),
      panel.webview.onDidReceiveMessage((msg: { type?: string; environment?: unknown }) => {
        if (msg?.type === 'select' && typeof msg.environment === 'string') void this.select(msg.environment);
      }),
      runway.onCostsChanged(() => void this.refresh()),
      runway.onRunningChanged(() => void this.refresh()),
      vscode.window.onDidChangeActiveTextEditor((editor) => {
        if (editor && isRunwayDocument(editor.document) && editor.document.uri.toString() !== this.uri.toString()) {
          this.uri = editor.document.uri;
          void this.refresh();
        }
      }),
      environments.onDidChange(() => void this.refresh()),
    );
  }

  async refresh(): Promise<void> {
    const sequence = ++this.sequence;
    const selected = this.environments.get();
    const plan = await this.runway.request<PlanResult>(PLAN, { uri: this.uri.toString(), environment: selected });
    if (sequence !== this.sequence || PlanPanel.current !== this) return;
    const view = planView(plan ?? { product: null, region: null, environments: [], environment: null }, selected, this.runway.running);
    this.panel.title = view.product ? `Runway Plan: ${view.product}` : 'Runway Plan';
    if (!this.panel.visible) {
      this.rendered = false; // a hidden webview is rebuilt from its html when shown again
      return;
    }
    if (this.rendered) {
      void this.panel.webview.postMessage({ type: 'render', html: planBody(view) });
    } else {
      const nonce = randomBytes(16).toString('base64');
      this.panel.webview.html = planDocument(view, { cspSource: this.panel.webview.cspSource, nonce });
      this.rendered = true;
    }
  }

  dispose(): void {
    if (PlanPanel.current === this) PlanPanel.current = undefined;
    for (const d of this.disposables) d.dispose();
    this.panel.dispose();
  }
}
