/** The status bar item with the selected environment's cost of the active runway. */
import * as vscode from 'vscode';
import { hasCostViews, type RunwayClient } from './client';
import type { EnvironmentStore } from './environment';
import { COSTS, type CostsResult } from './protocol';
import { PlanPanel } from './planPanel';
import { costsOfPlan, notRunningView, statusView, type StatusView } from './status';

export class CostStatus implements vscode.Disposable {
  private readonly item = vscode.window.createStatusBarItem('runway.cost', vscode.StatusBarAlignment.Left, 50);
  private readonly disposables: vscode.Disposable[] = [];
  private sequence = 0;
  /** The last runway document shown (the status bar keeps it while a non-editor part has focus). */
  lastDocument: vscode.TextDocument | undefined;
  last: CostsResult | undefined;
  /** The last answer with a plan, per runway root: shown as stale while the runway has none. */
  private readonly lastGood = new Map<string, CostsResult>();

  constructor(
    private readonly runway: RunwayClient,
    private readonly environments: EnvironmentStore,
  ) {
    this.item.name = 'Runway cost';
    this.item.command = 'runway.selectEnvironment';
    this.disposables.push(
      this.item,
      vscode.window.onDidChangeActiveTextEditor(() => void this.refresh()),
      runway.onCostsChanged(() => void this.refresh()),
      runway.onRunningChanged(() => void this.refresh()),
      runway.onFailureChanged(() => void this.refresh()),
      environments.onDidChange(() => void this.refresh()),
      vscode.workspace.onDidChangeConfiguration((e) => {
        if (e.affectsConfiguration('runway.yamlLanguageId')) void this.refresh();
      }),
      vscode.workspace.onDidCloseTextDocument((doc) => {
        if (doc === this.lastDocument) {
          this.lastDocument = undefined;
          void this.refresh();
        }
      }),
    );
  }

  /** The runway document the commands act on: the active editor's, else the last shown. */
  document(): vscode.TextDocument | undefined {
    const active = vscode.window.activeTextEditor?.document;
    if (active && hasCostViews(active)) return active;
    return this.lastDocument;
  }

  private show(view: StatusView, command: string): void {
    this.item.text = view.text;
    const tooltip = new vscode.MarkdownString(view.tooltip, true);
    tooltip.isTrusted = false;
    this.item.tooltip = tooltip;
    this.item.command = command;
    this.item.backgroundColor =
      view.level === 'over' ? new vscode.ThemeColor('statusBarItem.errorBackground') : view.level === 'near' ? new vscode.ThemeColor('statusBarItem.warningBackground') : undefined;
    this.item.accessibilityInformation = { label: view.label, role: 'button' };
    this.item.show();
  }

  async refresh(): Promise<void> {
    const sequence = ++this.sequence;
    const active = vscode.window.activeTextEditor?.document;
    // Another editor (not a runway) hides the item; a webview, the panel or an output channel
    // (no active text editor) keeps the last runway's.
    if (active && !hasCostViews(active)) {
      this.item.hide();
      return;
    }
    const doc = active ?? this.lastDocument;
    if (!doc || doc.isClosed) {
      this.item.hide();
      return;
    }
    this.lastDocument = doc;
    if (!this.runway.running) {
      this.show(notRunningView(this.runway.failure !== undefined), this.runway.failure !== undefined ? 'runway.showOutput' : 'runway.selectEnvironment');
      return;
    }
    const wanted = this.environments.get();
    const costs = await this.runway.request<CostsResult>(COSTS, { uri: doc.uri.toString(), environment: wanted });
    if (sequence !== this.sequence) return; // a newer refresh is under way
    this.last = costs;
    const key = costs?.root_uri ?? doc.uri.toString();
    if (costs?.environments?.length) {
      this.lastGood.set(key, costs);
      this.lastGood.set(doc.uri.toString(), costs);
    }
    // With none of its own (a reload, then a syntax error), the plan the plan view keeps: the
    // status bar never says "no plan" while the plan view shows one.
    const kept = PlanPanel.current?.keptFor(doc.uri.toString()) ?? (costs?.root_uri ? PlanPanel.current?.keptFor(costs.root_uri) : undefined);
    const good = this.lastGood.get(key) ?? this.lastGood.get(doc.uri.toString()) ?? (kept ? costsOfPlan(kept) : undefined);
    this.show(statusView(costs, wanted, costs ? good : undefined), 'runway.selectEnvironment');
  }

  dispose(): void {
    for (const d of this.disposables) d.dispose();
  }
}
