/** The status bar item with the selected environment's cost of the active runway. */
import * as vscode from 'vscode';
import { isRunwayDocument, type RunwayClient } from './client';
import { COSTS, type CostsResult } from './protocol';
import { statusView } from './status';

export function configuredEnvironment(): string | null {
  const value = vscode.workspace.getConfiguration('runway').get<string | null>('inlayHints.environment', null);
  return typeof value === 'string' && value.trim() ? value.trim() : null;
}

export class CostStatus implements vscode.Disposable {
  private readonly item = vscode.window.createStatusBarItem('runway.cost', vscode.StatusBarAlignment.Left, 50);
  private readonly disposables: vscode.Disposable[] = [];
  private sequence = 0;
  /** The last runway document shown (the status bar keeps it while a non-editor part has focus). */
  lastDocument: vscode.TextDocument | undefined;
  last: CostsResult | undefined;

  constructor(private readonly runway: RunwayClient) {
    this.item.name = 'Runway cost';
    this.item.command = 'runway.selectEnvironment';
    this.disposables.push(
      this.item,
      vscode.window.onDidChangeActiveTextEditor(() => void this.refresh()),
      runway.onCostsChanged(() => void this.refresh()),
      runway.onRunningChanged(() => void this.refresh()),
      vscode.workspace.onDidChangeConfiguration((e) => {
        if (e.affectsConfiguration('runway.inlayHints.environment') || e.affectsConfiguration('runway.yamlLanguageId')) void this.refresh();
      }),
      vscode.workspace.onDidCloseTextDocument((doc) => {
        if (doc === this.lastDocument) this.lastDocument = undefined;
      }),
    );
  }

  /** The runway document the commands act on: the active editor's, else the last shown. */
  document(): vscode.TextDocument | undefined {
    const active = vscode.window.activeTextEditor?.document;
    if (active && isRunwayDocument(active)) return active;
    return this.lastDocument;
  }

  async refresh(): Promise<void> {
    const sequence = ++this.sequence;
    const active = vscode.window.activeTextEditor?.document;
    if (!active || !isRunwayDocument(active)) {
      this.item.hide();
      return;
    }
    this.lastDocument = active;
    if (!this.runway.running) {
      this.item.text = '$(graph) runway';
      this.item.tooltip = 'The runway language server is not running: Runway: Restart Server.';
      this.item.backgroundColor = undefined;
      this.item.show();
      return;
    }
    const wanted = configuredEnvironment();
    const costs = await this.runway.request<CostsResult>(COSTS, { uri: active.uri.toString(), environment: wanted });
    if (sequence !== this.sequence) return; // a newer refresh is under way
    this.last = costs;
    const view = statusView(costs, wanted);
    this.item.text = view.text;
    const tooltip = new vscode.MarkdownString(view.tooltip);
    tooltip.isTrusted = false;
    this.item.tooltip = tooltip;
    this.item.backgroundColor =
      view.level === 'over' ? new vscode.ThemeColor('statusBarItem.errorBackground') : view.level === 'near' ? new vscode.ThemeColor('statusBarItem.warningBackground') : undefined;
    this.item.accessibilityInformation = { label: `Runway ${view.text.replace('$(graph) ', '')}`, role: 'button' };
    this.item.show();
  }

  dispose(): void {
    for (const d of this.disposables) d.dispose();
  }
}
