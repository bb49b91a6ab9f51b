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
import { statSync } from 'node:fs';
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
import { filterConfigurationResult, injectEnvironment } from './config';
import { isUsageLens, SHOW_COST, SHOW_USAGES } from './lensCommands';
import { NOT_RUNNING } from './status';
import { ServerLogParser } from './serverLog';
import { COSTS_CHANGED, INITIALIZATION_OPTIONS, type CostsChangedParams } from './protocol';
import {
  isRunwayPyproject,
  missingModuleMessage,
  pythonFromEnvironment,
  resolveOnPath,
  resolveServerCommand,
  selfAndParents,
  venvInstallCommand,
  type ServerCommand,
} from './serverCommand';

export const LANGUAGE_ID = 'runway-yaml';
export const RUNWAY_FILE_NAMES = ['runway.yaml', 'runway.yml'];

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

function isFile(p: string): boolean {
  try {
    return statSync(p).isFile();
  } catch {
    return false;
  }
}

/** The checkout of this tooling (a pyproject.toml named runway-tooling) in a workspace folder or above it, with that folder. */
async function findTooling(): Promise<{ repo: string; workspace: string } | null> {
  for (const folder of vscode.workspace.workspaceFolders ?? []) {
    if (folder.uri.scheme !== 'file') continue;
    for (const dir of selfAndParents(folder.uri.fsPath, process.platform === 'win32')) {
      try {
        const bytes = await vscode.workspace.fs.readFile(vscode.Uri.file(path.join(dir, 'pyproject.toml')));
        if (isRunwayPyproject(Buffer.from(bytes).toString('utf8'))) return { repo: dir, workspace: folder.uri.fsPath };
      } catch {
        // no pyproject.toml here
      }
    }
  }
  return null;
}

/** Set `runway.server.pythonPath` for this workspace (the server restarts on the change). */
async function setPythonPath(python: string): Promise<void> {
  const target = vscode.workspace.workspaceFolders?.length ? vscode.ConfigurationTarget.Workspace : vscode.ConfigurationTarget.Global;
  await vscode.workspace.getConfiguration('runway').update('server.pythonPath', python, target);
}

export class RunwayClient implements vscode.Disposable {
  client: LanguageClient | undefined;
  command: ServerCommand | undefined;
  private readonly costsChanged = new vscode.EventEmitter<CostsChangedParams>();
  private readonly stateChanged = new vscode.EventEmitter<boolean>();
  private readonly failureChanged = new vscode.EventEmitter<string | undefined>();
  /** Why the server is not running (it could not start); undefined once it runs. */
  failure: string | undefined;
  /** Fires when {@link failure} changes. */
  readonly onFailureChanged = this.failureChanged.event;
  /** `runway/costsChanged` from the server. */
  readonly onCostsChanged = this.costsChanged.event;
  /** Fires true when the server is running, false when it stopped. */
  readonly onRunningChanged = this.stateChanged.event;
  private starting: Promise<boolean> | undefined;

  constructor(
    private readonly output: vscode.LogOutputChannel,
    private readonly onShowCost: (args: unknown[]) => void,
    /** The selected environment (kept by the extension): answered as runway.inlayHints.environment. */
    private readonly environment: () => string | null,
  ) {}

  private setFailure(why: string | undefined): void {
    if (why === this.failure) return;
    this.failure = why;
    this.failureChanged.fire(why);
  }

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
        this.setFailure(check.reason);
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
      // Opt in to runway/costsChanged (status bar and plan view refresh).
      initializationOptions: INITIALIZATION_OPTIONS,
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
          // The server warns about keys it does not know: keep the client's own to itself. The
          // selected environment lives in the workspace memento, not settings.json: add it.
          configuration: async (params, token, next) =>
            injectEnvironment(params.items, filterConfigurationResult(params.items, await next(params, token)), this.environment()) as never,
        },
        // "used by N" opens the references peek (see lensCommands.ts).
        provideCodeLenses: async (document, token, next) => {
          const lenses = await next(document, token);
          for (const lens of lenses ?? []) {
            if (isUsageLens(lens.command)) {
              lens.command = { title: lens.command!.title, tooltip: lens.command!.tooltip, command: SHOW_USAGES, arguments: [document.uri, lens.range.start] };
            }
          }
          return lenses;
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
    client.onDidChangeState((e) => {
      // A stop we did not ask for (stop() forgets the client first): the server exited.
      if (e.newState === State.Stopped && this.client === client) this.setFailure('stopped');
      if (e.newState === State.Running) this.setFailure(undefined);
      this.stateChanged.fire(e.newState === State.Running);
    });
    this.client = client;
    try {
      await client.start();
      this.setFailure(undefined);
      return true;
    } catch (error) {
      this.output.warn(`[client] the server did not start: ${String(error)}`);
      this.setFailure('start');
      void vscode.window.showErrorMessage(`Runway: the language server did not start (${command.command}). See the Runway output.`, 'Show Output').then((choice) => {
        if (choice) this.output.show(true);
      });
      return false;
    }
  }

  /**
   * Tell the user why the server cannot start, naming the interpreter by its absolute path.
   * (VS Code cannot close a notification from code: once the server runs the status bar
   * item clears; a notification already shown stays until dismissed.)
   */
  private async explain(command: ServerCommand, check: Exclude<ModuleCheck, { ok: true }>): Promise<void> {
    const windows = process.platform === 'win32';
    const given = command.python ?? command.command;
    const python = resolveOnPath(given, process.env.PATH, isFile, windows);
    const SELECT = 'Select Python interpreter…';
    const SETTINGS = 'Open Settings';
    const OUTPUT = 'Show Output';
    if (check.reason === 'no-python' || !python) {
      const where = python ? python : `${given} (not found on PATH)`;
      const choice = await vscode.window.showErrorMessage(
        `Runway: cannot run ${where}. Select a Python 3.11+ interpreter that has the runway tooling, or set "runway.server.pythonPath" / "runway.server.command".`,
        SELECT,
        SETTINGS,
      );
      await this.followUp(choice, { SELECT, SETTINGS, OUTPUT });
      return;
    }
    if (check.reason === 'error') {
      const choice = await vscode.window.showErrorMessage(`Runway: ${python} could not import runway_lsp. See the Runway output.`, OUTPUT, SELECT, SETTINGS);
      await this.followUp(choice, { SELECT, SETTINGS, OUTPUT });
      return;
    }
    const tooling = await findTooling();
    const CREATE = 'Create venv and install';
    const choice = tooling
      ? await vscode.window.showErrorMessage(missingModuleMessage(python, tooling.repo), CREATE, SELECT, SETTINGS)
      : await vscode.window.showErrorMessage(missingModuleMessage(python, null), SELECT, SETTINGS);
    if (choice === CREATE && tooling) {
      const { command: install, venvPython } = venvInstallCommand(python, tooling.workspace, tooling.repo, windows);
      const terminal = vscode.window.createTerminal({ name: 'Runway: install the server', cwd: tooling.workspace });
      terminal.show();
      terminal.sendText(install, true);
      this.output.info(`[client] installing in a terminal: ${install}`);
      void vscode.window.showInformationMessage(`Runway: installing into ${venvPython}; the server starts when the install has finished.`);
      // Set the interpreter once it can import the server (the setting change restarts it).
      const deadline = Date.now() + 15 * 60_000;
      while (Date.now() < deadline) {
        await new Promise((r) => setTimeout(r, 2000));
        if (this.running) return;
        if (isFile(venvPython) && (await checkModule(venvPython, tooling.workspace)).ok) {
          await setPythonPath(venvPython);
          return;
        }
      }
      return;
    }
    await this.followUp(choice, { SELECT, SETTINGS, OUTPUT });
  }

  private async followUp(choice: string | undefined, labels: { SELECT: string; SETTINGS: string; OUTPUT: string }): Promise<void> {
    if (choice === labels.OUTPUT) this.output.show(true);
    else if (choice === labels.SETTINGS) await vscode.commands.executeCommand('workbench.action.openSettings', 'runway.server');
    else if (choice === labels.SELECT) await this.selectInterpreter();
  }

  /** The Python extension's interpreter picker when it is installed, else a file picker for `runway.server.pythonPath`. */
  async selectInterpreter(): Promise<void> {
    if (vscode.extensions.getExtension('ms-python.python')) {
      await vscode.commands.executeCommand('python.setInterpreter');
      const config = vscode.workspace.getConfiguration('runway');
      if (!config.get<string>('server.pythonPath')) await this.restart();
      return;
    }
    const picked = await vscode.window.showOpenDialog({
      title: 'Runway: the Python interpreter that has the runway tooling (e.g. <checkout>/.venv/bin/python)',
      canSelectFiles: true,
      canSelectFolders: false,
      canSelectMany: false,
      defaultUri: vscode.workspace.workspaceFolders?.[0]?.uri,
      openLabel: 'Use this interpreter',
    });
    if (picked?.[0]) await setPythonPath(picked[0].fsPath);
  }

  /** Tell the user the server is not running, with a button to the output (status bar click, Show Plan …). */
  async tellNotRunning(): Promise<void> {
    const choice = await vscode.window.showWarningMessage(`Runway: ${NOT_RUNNING}.`, 'Show Output', 'Restart Server');
    if (choice === 'Show Output') this.output.show(true);
    if (choice === 'Restart Server') await vscode.commands.executeCommand('runway.restartServer');
  }

  /** "used by N": the references of the item at `position` in VS Code's peek. */
  async showUsages(uri: vscode.Uri, position: vscode.Position): Promise<void> {
    const client = this.client;
    if (!client || !this.running) return void this.tellNotRunning();
    const result = await client.sendRequest('textDocument/references', {
      textDocument: { uri: client.code2ProtocolConverter.asUri(uri) },
      position: client.code2ProtocolConverter.asPosition(position),
      context: { includeDeclaration: false },
    });
    const locations = (await client.protocol2CodeConverter.asReferences(result as never)) ?? [];
    await vscode.commands.executeCommand('editor.action.showReferences', uri, position, locations);
  }

  /** Make the server read its settings again (after the selected environment changed). */
  configurationChanged(): void {
    if (this.client && this.running) void this.client.sendNotification('workspace/didChangeConfiguration', { settings: null });
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
    this.failureChanged.dispose();
  }
}
