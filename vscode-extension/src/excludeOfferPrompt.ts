/**
 * After the first workspace scan: one notification offering to add the test and fixture
 * folders that hold most of the problems to `runway.exclude` (the decision: excludeOffer.ts).
 *
 * The counts come from the diagnostics VS Code already holds (`vscode.languages.getDiagnostics`,
 * the runway server's only): no server message. The scan is taken as over when the runway
 * problems have not changed for {@link QUIET_MS}; the check runs then, only in the first
 * {@link WINDOW_MS} after the server started, and stops for good once an offer was made. The
 * notification is a plain one (it never takes the editor's focus); what was offered and
 * "Don't ask again" are kept in the workspace memento.
 */
import * as path from 'node:path';
import * as vscode from 'vscode';
import { RUNWAY_FILE_NAMES, type RunwayClient } from './client';
import { enabledGlobs } from './config';
import { excludeOffer, offerMessage, offerSummary, withGlobs, type FileProblems, type Offer } from './excludeOffer';

export const OFFERED_KEY = 'runway.excludeOffer.offered';
export const DISMISSED_KEY = 'runway.excludeOffer.dismissed';
/** The runway problems unchanged this long: the scan's pushes are over. */
export const QUIET_MS = 2500;
/** Only after the first scan: this long after the server started. */
export const WINDOW_MS = 120_000;

export class ExcludeOfferPrompt implements vscode.Disposable {
  private readonly disposables: vscode.Disposable[] = [];
  private timer: ReturnType<typeof setTimeout> | undefined;
  private until = 0;
  private done = false;

  constructor(
    private readonly memento: vscode.Memento,
    private readonly output: vscode.LogOutputChannel,
    runway: RunwayClient,
  ) {
    this.disposables.push(
      runway.onRunningChanged((running) => {
        if (running && !this.done) this.until = Date.now() + WINDOW_MS;
      }),
      vscode.languages.onDidChangeDiagnostics(() => {
        if (this.done || Date.now() > this.until) return;
        // Cheap on every change (a timer reset); the counting runs once the changes rest.
        if (this.timer) clearTimeout(this.timer);
        this.timer = setTimeout(() => this.check(), QUIET_MS);
      }),
    );
  }

  /** The runway problems per runway file of `folder`. */
  private filesOf(folder: vscode.WorkspaceFolder, all: ReadonlyArray<[vscode.Uri, readonly vscode.Diagnostic[]]>): FileProblems[] {
    const out: FileProblems[] = [];
    for (const [uri, diagnostics] of all) {
      if (uri.scheme !== 'file' || !RUNWAY_FILE_NAMES.includes(path.basename(uri.fsPath))) continue;
      const relative = path.relative(folder.uri.fsPath, uri.fsPath);
      if (!relative || relative.startsWith('..') || path.isAbsolute(relative)) continue;
      // As the Problems panel counts them: hints are not listed there.
      const problems = diagnostics.filter((d) => d.source === 'runway' && d.severity !== vscode.DiagnosticSeverity.Hint).length;
      if (problems) out.push({ path: relative.split(path.sep).join('/'), problems });
    }
    return out;
  }

  private check(): void {
    this.timer = undefined;
    if (this.done) return;
    const folders = (vscode.workspace.workspaceFolders ?? []).filter((f) => f.uri.scheme === 'file');
    if (!folders.length) return;
    const all = vscode.languages.getDiagnostics();
    const offered = this.memento.get<string[]>(OFFERED_KEY, []);
    const dismissed = this.memento.get<boolean>(DISMISSED_KEY, false);
    if (dismissed) {
      this.done = true;
      return;
    }
    let best: { folder: vscode.WorkspaceFolder; offer: Offer } | undefined;
    for (const folder of folders) {
      const runway = vscode.workspace.getConfiguration('runway', folder.uri);
      const exclude = [...(runway.get<unknown[]>('exclude') ?? []).filter((g): g is string => typeof g === 'string'), ...enabledGlobs(vscode.workspace.getConfiguration('files', folder.uri).get('exclude'))];
      const offer = excludeOffer({ files: this.filesOf(folder, all), exclude, offered, dismissed });
      if (offer && (!best || offer.problems > best.offer.problems)) best = { folder, offer };
    }
    if (!best) return;
    this.done = true;
    void this.show(best.folder, best.offer, offered);
  }

  private async show(folder: vscode.WorkspaceFolder, offer: Offer, offered: string[]): Promise<void> {
    await this.memento.update(OFFERED_KEY, [...offered, ...offer.globs]);
    this.output.info(`[client] offering to exclude ${offerSummary(offer)} (runway.exclude)`);
    const text = offerMessage(offer);
    const choice = await vscode.window.showInformationMessage(text.message, text.exclude, text.never);
    if (choice === text.never) {
      await this.memento.update(DISMISSED_KEY, true);
      this.output.info('[client] the exclude offer will not be shown again in this workspace');
    } else if (choice === text.exclude) {
      const runway = vscode.workspace.getConfiguration('runway', folder.uri);
      const value = withGlobs(runway.get('exclude'), offer.globs);
      const target = (vscode.workspace.workspaceFolders?.length ?? 0) > 1 ? vscode.ConfigurationTarget.WorkspaceFolder : vscode.ConfigurationTarget.Workspace;
      try {
        await runway.update('exclude', value, target);
        this.output.info(`[client] runway.exclude is now ${JSON.stringify(value)}`);
      } catch (error) {
        void vscode.window.showErrorMessage(`Runway: could not write runway.exclude: ${String(error instanceof Error ? error.message : error)}`);
      }
    }
  }

  dispose(): void {
    if (this.timer) clearTimeout(this.timer);
    for (const d of this.disposables) d.dispose();
  }
}
