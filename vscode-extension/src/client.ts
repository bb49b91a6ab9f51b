/**
 * Starting, stopping and talking to the runway language server.
 *
 * The command comes from {@link resolveServerCommand}: `runway.server.command`, else
 * `<python> -m runway_lsp` with python from `runway.server.pythonPath`, the Python
 * extension's active interpreter, or `python3`. Before a Python start the module is checked
 * (`<python> -c "import runway_lsp"`); when it is missing the user is told the install command
 * and offered to run it in a terminal.
 */
import { execFile } from 'node:child_process';
import * as path from 'node:path';
import * as vscode from 'vscode';
import {
  LanguageClient,
  RevealOutputChannelOn,
  State,
  TransportKind,
  type DocumentSelector,
  type LanguageClientOptions,
  type ServerOptions,
} from 'vscode-languageclient/node';
import * as readline from 'node:readline';
import { filterConfigurationResult } from './config';
import { ServerLogParser } from './serverLog';
import { COSTS_CHANGED, type CostsChangedParams } from './protocol';
import { installCommand, isRunwayPyproject, pythonFromEnvironment, resolveServerCommand, type ServerCommand } from './serverCommand';

export const LANGUAGE_ID = 'runway-yaml';
export const RUNWAY_FILE_NAMES = ['runway.yaml', 'runway.yml'];
const SHOW_COST = 'runway.showCost';

/** Whether the server serves `document` (its language, or `yaml` + the file name when `runway.yamlLanguageId` is on). */
export function isRunwayDocument(document: vscode.TextDocument): boolean {
  if (document.languageId === LANGUAGE_ID) return true;
  if (document.languageId !== 'yaml') return false;
  const enabled = vscode.workspace.getConfiguration('runway').get<boolean>('yamlLanguageId', false);
  return enabled && RUNWAY_FILE_NAMES.includes(path.basename(document.uri.path));
}

export function documentSelector(): DocumentSelector {
  const selector: DocumentSelector = [{ language: LANGUAGE_ID }];
  if (vscode.workspace.getConfiguration('runway').get<boolean>('yamlLanguageId', false)) {
    selector.push({ language: 'yaml', pattern: '**/runway.{yaml,yml}' });
  }
  return selector;
}

function withTimeout<T>(promise: PromiseLike<T>, ms: number, fallback: T): Promise<T> {
  return new Promise<T>((resolve) => {
    const timer = setTimeout(() => resolve(fallback), ms);
    Promise.resolve(promise).then(
      (value) => {
        clearTimeout(timer);
        resolve(value);
      },
      () => {
        clearTimeout(timer);
        resolve(fallback);
      },
    );
  });
}

interface PythonEnvironmentsApi {
  getActiveEnvironmentPath(resource?: vscode.Uri): unknown;
  resolveEnvironment?(environment: unknown): PromiseLike<unknown>;
}

/** The Python extension's active interpreter, when the extension is installed (never required). */
export async function pythonExtensionInterpreter(output: vscode.LogOutputChannel, resource?: vscode.Uri): Promise<string | null> {
  const extension = vscode.extensions.getExtension('ms-python.python');
  if (!extension) return null;
  try {
    const api = extension.isActive ? extension.exports : await withTimeout(extension.activate(), 15000, undefined);
    const environments = (api as { environments?: PythonEnvironmentsApi } | undefined)?.environments;
    if (!environments || typeof environments.getActiveEnvironmentPath !== 'function') return null;
    const active = environments.getActiveEnvironmentPath(resource);
    const resolved = environments.resolveEnvironment ? await withTimeout(environments.resolveEnvironment(active), 15000, undefined) : undefined;
    return pythonFromEnvironment(active, resolved);
  } catch (error) {
    output.warn(`[client] the Python extension's interpreter is not available: ${String(error)}`);
    return null;
  }
}

type ModuleCheck = { ok: true } | { ok: false; reason: 'no-python' | 'no-module' | 'error'; detail: string };

/** Run `<python> -c "import runway_lsp"`. */
export function checkModule(python: string, cwd: string | undefined): Promise<ModuleCheck> {
  return new Promise((resolve) => {
    execFile(python, ['-c', 'import runway_lsp'], { cwd, timeout: 30000, windowsHide: true }, (error, _stdout, stderr) => {
      if (!error) return resolve({ ok: true });
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'ENOENT' || code === 'EACCES') return resolve({ ok: false, reason: 'no-python', detail: String(error.message) });
      if (/ModuleNotFoundError|No module named/.test(String(stderr))) return resolve({ ok: false, reason: 'no-module', detail: String(stderr).trim() });
      resolve({ ok: false, reason: 'error', detail: String(stderr || error.message).trim() });
    });
  });
}

/** The first workspace folder that is a checkout of this project (its pyproject names runway-tooling). */
async function repoFolder(): Promise<string | null> {
  for (const folder of vscode.workspace.workspaceFolders ?? []) {
    try {
      const bytes = await vscode.workspace.fs.readFile(vscode.Uri.joinPath(folder.uri, 'pyproject.toml'));
      if (isRunwayPyproject(Buffer.from(bytes).toString('utf8')) && folder.uri.scheme === 'file') return folder.uri.fsPath;
    } catch {
      // no pyproject.toml here
    }
  }
  return null;
}

export class RunwayClient implements vscode.Disposable {
  client: LanguageClient | undefined;
  command: ServerCommand | undefined;
  private readonly costsChanged = new vscode.EventEmitter<CostsChangedParams>();
  private readonly stateChanged = new vscode.EventEmitter<boolean>();
  /** `runway/costsChanged` from the server. */
  readonly onCostsChanged = this.costsChanged.event;
  /** Fires true when the server is running, false when it stopped. */
  readonly onRunningChanged = this.stateChanged.event;
  private starting: Promise<boolean> | undefined;

  constructor(
    private readonly output: vscode.LogOutputChannel,
    private readonly onShowCost: (args: unknown[]) => void,
  ) {}

  get running(): boolean {
    return this.client?.state === State.Running;
  }

  start(): Promise<boolean> {
    this.starting ??= this.doStart().finally(() => (this.starting = undefined));
    return this.starting;
  }

  private async doStart(): Promise<boolean> {
    const config = vscode.workspace.getConfiguration('runway');
    const folder = vscode.workspace.workspaceFolders?.[0];
    const settings = { command: config.get('server.command'), pythonPath: config.get('server.pythonPath'), logLevel: config.get('server.logLevel') };
    const usesPython = !settings.command || (Array.isArray(settings.command) && settings.command.length === 0);
    const extensionPython = usesPython && !settings.pythonPath ? await pythonExtensionInterpreter(this.output, folder?.uri) : null;
    const command = resolveServerCommand(settings, extensionPython);
    this.command = command;
    const cwd = folder?.uri.scheme === 'file' ? folder.uri.fsPath : undefined;
    this.output.info(`[client] server: ${[command.command, ...command.args].join(' ')} --stdio (${command.source})`);

    if (command.python) {
      const check = await checkModule(command.python, cwd);
      if (!check.ok) {
        this.output.warn(`[client] ${command.python} cannot run the server: ${check.detail}`);
        void this.explain(command, check);
        return false;
      }
    }

    const serverOptions: ServerOptions = {
      command: command.command,
      args: command.args,
      transport: TransportKind.stdio,
      options: { cwd, env: { ...process.env, PYTHONUNBUFFERED: '1' } },
    };
    const clientOptions: LanguageClientOptions = {
      documentSelector: documentSelector(),
      outputChannel: this.output,
      revealOutputChannelOn: RevealOutputChannelOn.Never,
      // The pull diagnostics collection is named after the server's identifier (runway).
      diagnosticCollectionName: 'runway-push',
      stdioOptions: {
        stdout: (input, channel) => readline.createInterface({ input, crlfDelay: Infinity, terminal: false }).on('line', (text) => channel.info(text)),
        stderr: (input, channel) => {
          const parser = new ServerLogParser();
          readline.createInterface({ input, crlfDelay: Infinity, terminal: false }).on('line', (line) => {
            const { level, text } = parser.line(line);
            channel[level](text);
          });
        },
      },
      middleware: {
        workspace: {
          // The server warns about keys it does not know: keep the client's own to itself.
          configuration: async (params, token, next) => filterConfigurationResult(params.items, await next(params, token)) as never,
        },
        executeCommand: async (cmd, args, next) => {
          const result = await next(cmd, args);
          if (cmd === SHOW_COST) this.onShowCost(args);
          return result;
        },
      },
    };
    const client = new LanguageClient('runway', 'Runway', serverOptions, clientOptions);
    client.onNotification(COSTS_CHANGED, (params: CostsChangedParams) => this.costsChanged.fire(params));
    client.onDidChangeState((e) => this.stateChanged.fire(e.newState === State.Running));
    this.client = client;
    try {
      await client.start();
      return true;
    } catch (error) {
      this.output.warn(`[client] the server did not start: ${String(error)}`);
      void vscode.window.showErrorMessage(`Runway: the language server did not start (${command.command}). See the Runway output.`, 'Show Output').then((choice) => {
        if (choice) this.output.show(true);
      });
      return false;
    }
  }

  private async explain(command: ServerCommand, check: Exclude<ModuleCheck, { ok: true }>): Promise<void> {
    const python = command.python ?? command.command;
    if (check.reason === 'no-python') {
      const choice = await vscode.window.showErrorMessage(
        `Runway: cannot run ${python}. Set "runway.server.pythonPath" to a Python 3.11+ interpreter (or "runway.server.command").`,
        'Open Settings',
      );
      if (choice) await vscode.commands.executeCommand('workbench.action.openSettings', 'runway.server');
      return;
    }
    if (check.reason === 'error') {
      const choice = await vscode.window.showErrorMessage(`Runway: ${python} could not import runway_lsp. See the Runway output.`, 'Show Output', 'Open Settings');
      if (choice === 'Show Output') this.output.show(true);
      if (choice === 'Open Settings') await vscode.commands.executeCommand('workbench.action.openSettings', 'runway.server');
      return;
    }
    const install = installCommand(python, await repoFolder(), process.platform === 'win32');
    const choice = await vscode.window.showErrorMessage(
      `Runway: the language server (runway_lsp) is not installed for ${python}. Install it with: ${install}`,
      'Install in terminal',
      'Open Settings',
    );
    if (choice === 'Install in terminal') {
      const terminal = vscode.window.createTerminal({ name: 'Runway: install the server' });
      terminal.show();
      terminal.sendText(install, true);
      const next = await vscode.window.showInformationMessage('Runway: when the install has finished, restart the server.', 'Restart Server');
      if (next) await vscode.commands.executeCommand('runway.restartServer');
    } else if (choice === 'Open Settings') {
      await vscode.commands.executeCommand('workbench.action.openSettings', 'runway.server');
    }
  }

  async stop(): Promise<void> {
    await this.starting?.catch(() => undefined);
    const client = this.client;
    this.client = undefined;
    if (client) {
      try {
        await client.stop(5000);
      } catch (error) {
        this.output.warn(`[client] stopping the server: ${String(error)}`);
      }
      try {
        await client.dispose();
      } catch {
        // already disposed
      }
    }
    this.stateChanged.fire(false);
  }

  async restart(): Promise<boolean> {
    await this.stop();
    return this.start();
  }

  /** A custom request; undefined when the server is not running or the request failed. */
  async request<T>(method: string, params: unknown): Promise<T | undefined> {
    const client = this.client;
    if (!client || client.state !== State.Running) return undefined;
    try {
      return (await client.sendRequest(method, params)) as T;
    } catch (error) {
      this.output.warn(`[client] ${method} failed: ${String(error)}`);
      return undefined;
    }
  }

  dispose(): void {
    void this.stop();
    this.costsChanged.dispose();
    this.stateChanged.dispose();
  }
}
