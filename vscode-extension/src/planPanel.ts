/**
 * "Runway: Show Plan": a webview with every environment side by side and the cost chart.
 *
 * It keeps the last good plan: while the runway cannot be planned (a syntax error, or errors
 * that leave no environment) the kept plan stays, under a "stale: …" banner naming where the
 * problem is. The webview state (`{uri, lastGood, expanded}`) survives a window reload: VS Code
 * hands it back to the serializer ({@link PlanPanel.register}, activation `onWebviewPanel:runway.plan`),
 * so the panel comes back in its editor group instead of leaving the group empty.
 */
import { randomBytes } from 'node:crypto';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { hasCostViews, type RunwayClient } from './client';
import { planBody, planDocument } from './planHtml';
import { hasPlan, LOADER_CODES, planView, staleText, type ProblemAt } from './planModel';
import { PLAN, type PlanResult } from './protocol';
import type { EnvironmentStore } from './environment';

export const VIEW_TYPE = 'runway.plan';

interface PanelState {
  uri?: string;
  lastGood?: PlanResult;
}

function codeOf(d: vscode.Diagnostic): string {
  const code = typeof d.code === 'object' && d.code !== null ? d.code.value : d.code;
  return String(code ?? '');
}

export class PlanPanel implements vscode.Disposable {
  static current: PlanPanel | undefined;
  private readonly disposables: vscode.Disposable[] = [];
  private rendered = false;
  private sequence = 0;
  /** The last answer, and the last one with a plan (shown, stale, while there is none). */
  private last: PlanResult | undefined;

  /** The serializer that brings the panel back after a reload (call once, at activation). */
  static register(runway: RunwayClient, select: (environment: string) => Thenable<void>, environments: EnvironmentStore): vscode.Disposable {
    return vscode.window.registerWebviewPanelSerializer(VIEW_TYPE, {
      async deserializeWebviewPanel(panel: vscode.WebviewPanel, state: unknown) {
        const saved = (state ?? {}) as PanelState;
        const uri = typeof saved.uri === 'string' ? vscode.Uri.parse(saved.uri) : vscode.window.activeTextEditor?.document.uri;
        if (!uri) {
          panel.dispose();
          return;
        }
        panel.webview.options = PlanPanel.webviewOptions();
        PlanPanel.current?.dispose();
        PlanPanel.current = new PlanPanel(panel, runway, uri, select, environments, hasPlan(saved.lastGood) ? saved.lastGood : undefined);
        await PlanPanel.current.refresh();
      },
    });
  }

  private static webviewOptions(): vscode.WebviewOptions {
    return { enableScripts: true, enableCommandUris: false, localResourceRoots: [] };
  }

  static show(runway: RunwayClient, uri: vscode.Uri, select: (environment: string) => Thenable<void>, environments: EnvironmentStore): PlanPanel {
    if (PlanPanel.current) {
      PlanPanel.current.uri = uri;
      PlanPanel.current.panel.reveal(undefined, true);
      void PlanPanel.current.refresh();
      return PlanPanel.current;
    }
    const panel = vscode.window.createWebviewPanel(VIEW_TYPE, 'Runway Plan', { viewColumn: vscode.ViewColumn.Beside, preserveFocus: true }, PlanPanel.webviewOptions());
    PlanPanel.current = new PlanPanel(panel, runway, uri, select, environments, undefined);
    void PlanPanel.current.refresh();
    return PlanPanel.current;
  }

  private constructor(
    readonly panel: vscode.WebviewPanel,
    private readonly runway: RunwayClient,
    public uri: vscode.Uri,
    private readonly select: (environment: string) => Thenable<void>,
    private readonly environments: EnvironmentStore,
    private lastGood: PlanResult | undefined,
  ) {
    this.disposables.push(
      panel.onDidDispose(() => this.dispose()),
      panel.onDidChangeViewState(() => {
        if (panel.visible && !this.rendered) this.render();
      }),
      panel.webview.onDidReceiveMessage((msg: { type?: string; environment?: unknown; item?: unknown }) => {
        if (msg?.type === 'select' && typeof msg.environment === 'string') void this.select(msg.environment);
        if (msg?.type === 'open' && typeof msg.item === 'string') void this.openItem(msg.item);
      }),
      runway.onCostsChanged(() => void this.refresh()),
      runway.onRunningChanged(() => void this.refresh()),
      vscode.window.onDidChangeActiveTextEditor((editor) => {
        if (editor && hasCostViews(editor.document) && editor.document.uri.toString() !== this.uri.toString()) {
          this.uri = editor.document.uri;
          void this.refresh();
        }
      }),
      // The banner follows the Problems panel (pull diagnostics may land after the plan).
      vscode.languages.onDidChangeDiagnostics((e) => {
        const ours = new Set(this.groupUris());
        if (e.uris.some((u) => ours.has(u.toString()))) this.render();
      }),
      environments.onDidChange(() => void this.refresh()),
    );
  }

  /**
   * The plan this view keeps for `uri` (its last good one, maybe restored after a reload), if
   * `uri` is of its group: the status bar shows it, stale, rather than "no plan" (issue 26).
   */
  keptFor(uri: string): PlanResult | undefined {
    return this.lastGood && this.groupUris().includes(uri) ? this.lastGood : undefined;
  }

  private groupUris(): string[] {
    return [...new Set([this.uri.toString(), ...(this.last?.uris ?? []), ...(this.lastGood?.uris ?? [])])];
  }

  /** The first loader error (a runway that cannot be read) in the group, root first. */
  private loaderProblem(): ProblemAt | null {
    const root = this.last?.root_uri ?? this.lastGood?.root_uri ?? this.uri.toString();
    const rootDir = path.dirname(vscode.Uri.parse(root).fsPath);
    const uris = this.groupUris().sort((a, b) => (a === root ? -1 : b === root ? 1 : a.localeCompare(b)));
    for (const uri of uris) {
      const parsed = vscode.Uri.parse(uri);
      const found = vscode.languages
        .getDiagnostics(parsed)
        .filter((d) => d.severity === vscode.DiagnosticSeverity.Error && LOADER_CODES.has(codeOf(d)))
        .sort((a, b) => a.range.start.compareTo(b.range.start))[0];
      if (found) {
        return { code: codeOf(found), file: path.relative(rootDir, parsed.fsPath), line: found.range.start.line + 1, column: found.range.start.character + 1 };
      }
    }
    return null;
  }

  async refresh(): Promise<void> {
    const sequence = ++this.sequence;
    const plan = await this.runway.request<PlanResult>(PLAN, { uri: this.uri.toString(), environment: this.environments.get() });
    if (sequence !== this.sequence || PlanPanel.current !== this) return;
    this.last = plan;
    this.render();
  }

  private render(): void {
    if (PlanPanel.current !== this) return;
    const selected = this.environments.get();
    const plan = this.last;
    const problem = plan || this.lastGood ? this.loaderProblem() : null;
    const sameGroup = !!this.lastGood && (!plan?.root_uri || plan.root_uri === this.lastGood.root_uri);
    let view;
    if (!this.runway.running && this.lastGood && this.runway.failure === undefined) {
      // Starting (a window reload): the plan from before, until the server answers.
      view = planView(this.lastGood, selected, true, 'stale: the runway server is starting; this is the last plan it computed.');
    } else if (hasPlan(plan) && !problem) {
      this.lastGood = plan;
      view = planView(plan, selected, this.runway.running);
    } else if (this.lastGood && sameGroup && this.runway.running && (problem || (plan?.diagnostics?.error ?? 0) > 0)) {
      view = planView(this.lastGood, selected, true, staleText(problem, plan?.diagnostics?.error ?? 0, path.basename(this.uri.fsPath)));
    } else {
      view = planView(plan ?? { product: null, region: null, environments: [], environment: null }, selected, this.runway.running);
    }
    this.panel.title = view.product ? `Runway Plan: ${view.product}` : 'Runway Plan';
    if (!this.panel.visible) {
      this.rendered = false; // a hidden webview is rebuilt from its html when shown again
      return;
    }
    const state: PanelState = { uri: this.uri.toString(), lastGood: this.lastGood };
    if (this.rendered) {
      void this.panel.webview.postMessage({ type: 'render', html: planBody(view), state });
    } else {
      const nonce = randomBytes(16).toString('base64');
      this.panel.webview.html = planDocument(view, { cspSource: this.panel.webview.cspSource, nonce, state });
      this.rendered = true;
    }
  }

  /** Open the runway file that declares `item` at its name (workspace symbols of the server). */
  private async openItem(item: string): Promise<void> {
    const group = new Set(this.groupUris());
    const symbols = ((await vscode.commands.executeCommand<vscode.SymbolInformation[]>('vscode.executeWorkspaceSymbolProvider', item)) ?? []).filter(
      (s) => s.name === item && s.kind !== vscode.SymbolKind.Module,
    );
    const symbol = symbols.find((s) => group.has(s.location.uri.toString())) ?? symbols[0];
    if (!symbol) {
      void vscode.window.showInformationMessage(`Runway: ${item} is not declared in a runway file (an implicit item of the platform).`);
      return;
    }
    const column = this.panel.viewColumn === vscode.ViewColumn.One ? vscode.ViewColumn.Beside : vscode.ViewColumn.One;
    await vscode.window.showTextDocument(symbol.location.uri, { selection: symbol.location.range, viewColumn: column, preserveFocus: false });
  }

  dispose(): void {
    if (PlanPanel.current === this) PlanPanel.current = undefined;
    for (const d of this.disposables) d.dispose();
    this.panel.dispose();
  }
}
