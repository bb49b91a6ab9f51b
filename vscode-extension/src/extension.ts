/**
 * The runway-yaml extension: starts the runway language server for runway.yaml files and
 * shows the cost of the selected environment (status bar) and the plan (webview).
 */
import * as vscode from 'vscode';
import { RunwayClient } from './client';
import { OPEN_DIAGNOSTICS_DOCS } from './docs';
import { DocsView } from './docsView';
import { EnvironmentStore } from './environment';
import { ExcludeOfferPrompt } from './excludeOfferPrompt';
import { SHOW_USAGES } from './lensCommands';
import { PlanPanel } from './planPanel';
import { COSTS, type CostsResult } from './protocol';
import { amountText } from './status';
import { CostStatus } from './statusBar';

let runway: RunwayClient | undefined;

export async function activate(context: vscode.ExtensionContext): Promise<void> {
  const output = vscode.window.createOutputChannel('Runway', { log: true });
  // The selected environment: in the workspace memento, never in .vscode/settings.json.
  const environments = new EnvironmentStore(context.workspaceState);
  // A code lens ("dev $126.88 / $150 · 85%") runs runway.showCost: show the plan it belongs to.
  const client = new RunwayClient(context.extensionUri.fsPath, output, (args: unknown[]) => showPlan(typeof args[0] === 'string' ? vscode.Uri.parse(args[0]) : undefined), () => environments.get());
  const docs = new DocsView(context.extensionUri.fsPath);
  client.renderedCode = (code) => docs.hasCode(code);
  context.subscriptions.push(docs);
  const status = new CostStatus(client, environments);
  runway = client;
  async function setEnvironment(name: string): Promise<void> {
    await environments.set(name);
    client.configurationChanged(); // the server re-reads runway.inlayHints.environment (inlay hints)
  }
  function showPlan(uri?: vscode.Uri): void {
    if (!client.running) {
      void client.tellNotRunning();
      return;
    }
    const target = uri ?? status.document()?.uri;
    if (!target) {
      void vscode.window.showInformationMessage('Runway: open a runway.yaml to see its plan.');
      return;
    }
    PlanPanel.show(client, target, setEnvironment, environments);
  }
  context.subscriptions.push(output, environments, client, status, PlanPanel.register(client, setEnvironment, environments));
  // After the first scan: offer to exclude test and fixture folders that hold most problems.
  context.subscriptions.push(new ExcludeOfferPrompt(context.workspaceState, output, client));

  context.subscriptions.push(
    vscode.commands.registerCommand('runway.restartServer', async () => {
      output.info('[client] restarting the server');
      await client.restart();
    }),
    vscode.commands.registerCommand('runway.showOutput', () => output.show(true)),
    vscode.commands.registerCommand(OPEN_DIAGNOSTICS_DOCS, async (code?: unknown) => {
      // The rendered reference (the docs view) at the code's heading; the Markdown copy without it.
      if (docs.showCode(typeof code === 'string' ? code : null)) return;
      const target = client.docsTarget(typeof code === 'string' ? code : null);
      if (!target) return void vscode.window.showWarningMessage('Runway: this build of the extension does not ship docs/diagnostics.md.');
      const line = Number(/^L(\d+)$/.exec(target.fragment)?.[1] ?? 1) - 1;
      await vscode.window.showTextDocument(target.with({ fragment: '' }), { selection: new vscode.Range(line, 0, line, 0), preview: true });
    }),
    vscode.commands.registerCommand('runway.selectInterpreter', () => client.selectInterpreter()),
    vscode.commands.registerCommand(SHOW_USAGES, (uri: vscode.Uri, position: vscode.Position) => client.showUsages(uri, position)),
    vscode.commands.registerCommand('runway.showPlan', (uri?: vscode.Uri) => showPlan(uri instanceof vscode.Uri ? uri : undefined)),
    vscode.commands.registerCommand('runway.selectEnvironment', async () => {
      if (!client.running) {
        void client.tellNotRunning();
        return;
      }
      const doc = status.document();
      if (!doc) {
        void vscode.window.showInformationMessage('Runway: open a runway.yaml to select one of its environments.');
        return;
      }
      const wanted = environments.get();
      const costs = await client.request<CostsResult>(COSTS, { uri: doc.uri.toString(), environment: wanted });
      if (!costs?.environments.length) {
        void vscode.window.showInformationMessage('Runway: this runway has no plan right now (see the Problems panel).');
        return;
      }
      const picks = costs.environments.map((e) => ({
        label: e.name,
        description: amountText(e, costs.complete === false) + (e.percent != null ? ` · ${e.percent}%` : ''),
        detail: e.verdict === 'over-cap' ? 'over its cap: a deploy is refused' : undefined,
        picked: e.name === costs.environment,
      }));
      const choice = await vscode.window.showQuickPick(picks, {
        title: 'Runway: Select Environment',
        placeHolder: `The environment of the status bar and inlay hints (now ${costs.environment ?? 'none'})`,
      });
      if (choice) await setEnvironment(choice.label);
    }),
    vscode.workspace.onDidChangeConfiguration((e) => {
      if (e.affectsConfiguration('runway.server') || e.affectsConfiguration('runway.yamlLanguageId')) {
        output.info('[client] server settings changed: restarting the server');
        void client.restart();
      }
    }),
  );

  void status.refresh();
  await client.start();
  void status.refresh();
}

export async function deactivate(): Promise<void> {
  await runway?.stop();
  runway = undefined;
}
