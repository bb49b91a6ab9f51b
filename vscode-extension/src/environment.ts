/**
 * The selected environment (status bar, plan view, inlay hints). Kept in the workspace's
 * memento, never in `.vscode/settings.json`: the server reads it as
 * `runway.inlayHints.environment` through `workspace/configuration`, answered by the client's
 * middleware ({@link injectEnvironment} in config.ts). A `runway.inlayHints.environment`
 * setting the user wrote still counts until an environment is picked.
 */
import * as vscode from 'vscode';

const KEY = 'runway.selectedEnvironment';

export class EnvironmentStore implements vscode.Disposable {
  private readonly changed = new vscode.EventEmitter<string | null>();
  /** Fires after the selection changed (also when the setting changed). */
  readonly onDidChange = this.changed.event;
  private readonly listener: vscode.Disposable;

  constructor(private readonly memento: vscode.Memento) {
    this.listener = vscode.workspace.onDidChangeConfiguration((e) => {
      if (e.affectsConfiguration('runway.inlayHints.environment')) this.changed.fire(this.get());
    });
  }

  /** The picked environment, else the setting's, else null (the server picks the first). */
  get(): string | null {
    const picked = this.memento.get<string | null>(KEY, null);
    if (typeof picked === 'string' && picked.trim()) return picked.trim();
    const value = vscode.workspace.getConfiguration('runway').get<string | null>('inlayHints.environment', null);
    return typeof value === 'string' && value.trim() ? value.trim() : null;
  }

  async set(name: string): Promise<void> {
    await this.memento.update(KEY, name);
    this.changed.fire(name);
  }

  dispose(): void {
    this.listener.dispose();
    this.changed.dispose();
  }
}
