/**
 * Starting, stopping and talking to the runway language server.
 *
 * The server ships inside the extension (bundled/, see serverCommand.ts): the first interpreter
 * that passes the isolated probe (`<python> -I bundled/tool/runway_server.py --check`, run from
 * the extension's folder, never the workspace's) runs it. A server that cannot start or exits
 * is never restarted in a loop: one notification says why, with the one action that fixes it,
 * and the server's own output (its traceback included) is in the Runway output channel.
 */
import { execFile } from 'node:child_process';
import { readFileSync, statSync } from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import {
  CloseAction,
  ErrorAction,
  LanguageClient,
  RevealOutputChannelOn,
  State,
  TransportKind,
  type DocumentSelector,
  type LanguageClientOptions,
  type ServerOptions,
} from 'vscode-languageclient/node';
import * as readline from 'node:readline';
import { enabledGlobs, filterConfigurationResult, injectEnvironment, mergedExclude, serverSection, withExclusions } from './config';
import { codeLines, codeLinkUri, diagnosticCode } from './docs';
import { isUsageLens, SHOW_COST, SHOW_USAGES } from './lensCommands';
import { NOT_RUNNING } from './status';
import { padTables } from './format';
import { ServerLogParser } from './serverLog';
import { COSTS_CHANGED, INITIALIZATION_OPTIONS, type CostsChangedParams } from './protocol';
import {
  exitReason,
  LAUNCHER,
  noPythonMessage,
  parseProbe,
  pythonCandidates,
  pythonFromEnvironment,
  pythonSetting,
  pythonWaysOut,
  resolveOnPath,
  resolveServerCommand,
  SOURCE_TEXT,
  venvPython,
  type ProbeResult,
  type PythonCandidate,
  type ServerCommand,
  type ServerSettings,
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

/**
 * Whether `document` has cost views (status bar, plan view): a runway document saved as a file.
 * `runway/costs` and `runway/plan` take only `file:` URIs (docs/protocol.md, "The `uri` of a
 * custom request"); an `untitled:` buffer gets diagnostics but no plan.
 */
export function hasCostViews(document: vscode.TextDocument): boolean {
  return document.uri.scheme === 'file' && isRunwayDocument(document);
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

/**
 * Run the launcher's `--check` with `python` (isolated, from the extension's folder: a
 * checkout opened as the workspace cannot answer for the bundle).
 */
export function probe(python: string, launcher: string): Promise<ProbeResult> {
  return new Promise((resolve) => {
    execFile(python, ['-I', launcher, '--check'], { cwd: path.dirname(launcher), timeout: 30000, windowsHide: true }, (error, stdout, stderr) => {
      const errno = (error as NodeJS.ErrnoException | null)?.code;
      const spawnError = typeof errno === 'string' ? errno : undefined;
      const exit = error ? (typeof errno === 'number' ? errno : null) : 0;
      resolve(parseProbe(python, String(stdout), String(stderr), exit, spawnError));
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

/** The `files.exclude` globs that are on, for the folder of `scopeUri`. */
function filesExcludeGlobs(scopeUri: string | undefined): string[] {
  const scope = scopeUri ? vscode.Uri.parse(scopeUri) : undefined;
  return enabledGlobs(vscode.workspace.getConfiguration('files', scope).get('exclude'));
}

/** The `runway` section as the server reads it (client keys out, files.exclude in), for initializationOptions. */
function serverSettings(resource: vscode.Uri | undefined): unknown {
  const section = serverSection(JSON.parse(JSON.stringify(vscode.workspace.getConfiguration(undefined, resource).get('runway') ?? {}))) as Record<string, unknown>;
  return { ...section, exclude: mergedExclude(section.exclude, filesExcludeGlobs(resource?.toString())) };
}

/** A client whose own error notifications stay in the output channel: RunwayClient shows one of its own. */
class QuietLanguageClient extends LanguageClient {
  override error(message: string, data?: unknown): void {
    super.error(message, data, false);
  }
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

  /** Start attempts: a probe or a notification of an older attempt is ignored. */
  private attempt = 0;

  constructor(
    /** The extension's folder (the bundled server lives in it). */
    private readonly extensionPath: string,
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
    const launcher = path.join(this.extensionPath, ...LAUNCHER);
    const attempt = ++this.attempt;
    let command = resolveServerCommand(settings, null, launcher);
    if (!command) {
      const picked = await this.pickPython(settings, launcher, folder?.uri);
      if (attempt !== this.attempt) return false;
      if ('failure' in picked) {
        this.cannotStart(picked.failure.candidate, picked.failure.probe, picked.tried);
        return false;
      }
      command = resolveServerCommand(settings, picked.candidate, launcher)!;
    }
    this.command = command;
    const cwd = folder?.uri.scheme === 'file' ? folder.uri.fsPath : undefined;
    this.output.info(`[client] server: ${[command.command, ...command.args].join(' ')} --stdio (${SOURCE_TEXT[command.source]})`);
    const stderrTail: string[] = [];

    const serverOptions: ServerOptions = {
      command: command.command,
      args: command.args,
      transport: TransportKind.stdio,
      // -I ignores PYTHON* variables: the launcher and the server flush what they write.
      options: { cwd, env: { ...process.env, PYTHONUNBUFFERED: '1' } },
    };
    let notified = false;
    const exited = (why: string) => {
      if (notified || attempt !== this.attempt) return;
      notified = true;
      // Let the last stderr lines (the traceback's reason) reach the channel first.
      setTimeout(() => this.serverExited(command!, exitReason(stderrTail) ?? why), 300);
    };
    const clientOptions: LanguageClientOptions = {
      documentSelector: documentSelector(),
      outputChannel: this.output,
      revealOutputChannelOn: RevealOutputChannelOn.Never,
      // The pull diagnostics collection is named after the server's identifier (runway).
      diagnosticCollectionName: 'runway-push',
      // Opt in to runway/costsChanged (status bar and plan view refresh); the settings the
      // first workspace scan needs (exclusions) before it can ask workspace/configuration.
      initializationOptions: { ...INITIALIZATION_OPTIONS, runway: serverSettings(folder?.uri) },
      // Never restart in a loop: one notification (serverExited), the trace in the channel.
      initializationFailedHandler: () => false,
      errorHandler: {
        error: (_error, _message, count) => ({ action: (count ?? 0) < 5 ? ErrorAction.Continue : ErrorAction.Shutdown, handled: true }),
        closed: () => {
          exited('the server exited');
          return { action: CloseAction.DoNotRestart, handled: true };
        },
      },
      stdioOptions: {
        stdout: (input, channel) => readline.createInterface({ input, crlfDelay: Infinity, terminal: false }).on('line', (text) => channel.info(text)),
        stderr: (input, channel) => {
          const parser = new ServerLogParser();
          readline.createInterface({ input, crlfDelay: Infinity, terminal: false }).on('line', (line) => {
            stderrTail.push(line);
            if (stderrTail.length > 40) stderrTail.shift();
            const { level, text } = parser.line(line);
            channel[level](text);
          });
        },
      },
      middleware: {
        // A code's link opens the reference shipped in the extension, at the code's heading.
        handleDiagnostics: (uri, diagnostics, next) => next(uri, this.linkCodes(diagnostics)),
        provideDiagnostics: async (document, previousResultId, token, next) => {
          const report = await next(document, previousResultId, token);
          if (report && report.kind === 'full') report.items = this.linkCodes(report.items);
          return report;
        },
        workspace: {
          // The server warns about keys it does not know: keep the client's own to itself. The
          // selected environment lives in the workspace memento, not settings.json: add it.
          // VS Code's files.exclude joins runway.exclude (the server's scan honours both).
          configuration: async (params, token, next) =>
            injectEnvironment(
              params.items,
              withExclusions(params.items, filterConfigurationResult(params.items, await next(params, token)), (scope) => filesExcludeGlobs(scope)),
              this.environment(),
            ) as never,
        },
        // Hover tables render with no cell padding in VS Code: pad them (format.ts padTables).
        provideHover: async (document, position, token, next) => {
          const hover = await next(document, position, token);
          if (!hover) return hover;
          const contents = hover.contents.map((c) => {
            if (!(c instanceof vscode.MarkdownString)) return c;
            const padded = new vscode.MarkdownString(padTables(c.value), c.supportThemeIcons);
            padded.isTrusted = c.isTrusted;
            padded.supportHtml = c.supportHtml;
            padded.baseUri = c.baseUri;
            return padded;
          });
          return new vscode.Hover(contents, hover.range);
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
    const client = new QuietLanguageClient('runway', 'Runway', serverOptions, clientOptions);
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
      exited(String((error as Error)?.message ?? error));
      return false;
    }
  }

  /**
   * The first interpreter that can run the bundled server (see pythonCandidates), each
   * probed in turn; every rejection is logged with its reason.
   */
  private async pickPython(
    settings: ServerSettings,
    launcher: string,
    resource: vscode.Uri | undefined,
  ): Promise<{ candidate: PythonCandidate } | { failure: { candidate: PythonCandidate; probe: Exclude<ProbeResult, { ok: true }> }; tried: number }> {
    const windows = process.platform === 'win32';
    const extensionPython = pythonSetting(settings.pythonPath) ? null : await pythonExtensionInterpreter(this.output, resource);
    const venvs = (vscode.workspace.workspaceFolders ?? [])
      .filter((f) => f.uri.scheme === 'file')
      .map((f) => venvPython(path.join(f.uri.fsPath, '.venv'), windows))
      .filter(isFile);
    const candidates = pythonCandidates(settings, extensionPython, venvs, windows);
    let first: { candidate: PythonCandidate; probe: Exclude<ProbeResult, { ok: true }> } | undefined;
    for (const candidate of candidates) {
      const result = await probe(candidate.python, launcher);
      if (result.ok) {
        this.output.info(`[client] Python ${result.version} at ${candidate.python} (${SOURCE_TEXT[candidate.source]}) runs the bundled server`);
        return { candidate };
      }
      this.output.warn(`[client] ${candidate.python} (${SOURCE_TEXT[candidate.source]}) cannot run the server: ${result.reason}`);
      first ??= { candidate, probe: result };
    }
    return { failure: first!, tried: candidates.length };
  }

  /** One notification: why no interpreter can run the server, with the action that fixes it. */
  private cannotStart(candidate: PythonCandidate, result: Exclude<ProbeResult, { ok: true }>, tried: number): void {
    this.setFailure(result.code);
    const windows = process.platform === 'win32';
    const where = resolveOnPath(candidate.python, process.env.PATH, isFile, windows) ?? `${candidate.python} (not on PATH)`;
    const SELECT = 'Select Python Interpreter…';
    if (result.code === 'no-bundle') {
      const message = `Runway: the extension's bundled server cannot start: ${result.reason}.`;
      void vscode.window.showErrorMessage(message, 'Show Output').then((c) => c && this.output.show(true));
      return;
    }
    if (candidate.source === 'setting') {
      const message = `Runway: the interpreter in "runway.server.pythonPath" cannot run the language server: ${result.reason}.`;
      void vscode.window.showErrorMessage(message, SELECT).then((choice) => {
        if (choice === SELECT) void this.selectInterpreter();
      });
      return;
    }
    // No interpreter at all: one notification with every way out (issue 26) — the picker,
    // uv when it is on PATH, the install page of this OS.
    const uv = resolveOnPath('uv', process.env.PATH, isFile, windows);
    const ways = pythonWaysOut(process.platform, uv, vscode.extensions.getExtension('ms-python.python') !== undefined);
    const UV = 'Install with uv';
    const DOWNLOAD = 'Download Python';
    const buttons = [SELECT, ...(ways.uv ? [UV] : []), DOWNLOAD];
    const message = noPythonMessage(tried === 1 ? where : `${tried} interpreters tried`, result.reason, ways);
    void vscode.window.showErrorMessage(message, ...buttons).then((choice) => {
      if (choice === SELECT) void this.selectInterpreter();
      if (choice === DOWNLOAD) void vscode.env.openExternal(vscode.Uri.parse(ways.download));
      if (choice === UV && ways.uv) void this.installWithUv(ways.uv);
    });
  }

  /** `uv python install 3.12`, then `uv python find 3.12` into `runway.server.pythonPath` (the server restarts on it). */
  private async installWithUv(uv: string): Promise<void> {
    const run = (args: string[]) =>
      new Promise<string>((resolve, reject) =>
        execFile(uv, args, { timeout: 600_000 }, (error, stdout, stderr) => {
          this.output.info(`[client] ${uv} ${args.join(' ')}: ${(stderr || stdout).trim().split('\n').slice(-3).join(' | ')}`);
          if (error) reject(new Error(stderr.trim() || error.message));
          else resolve(stdout.trim());
        }),
      );
    try {
      const python = await vscode.window.withProgress({ location: vscode.ProgressLocation.Notification, title: 'Runway: uv python install 3.12' }, async () => {
        await run(['python', 'install', '3.12']);
        return run(['python', 'find', '3.12']);
      });
      await setPythonPath(python.split('\n').pop()!.trim());
    } catch (error) {
      void vscode.window.showErrorMessage(`Runway: uv could not install Python 3.12: ${String(error instanceof Error ? error.message : error)}`, 'Show Output').then((c) => c && this.output.show(true));
    }
  }

  /** One notification after the server exited (or died while starting): the reason and the output. */
  private serverExited(command: ServerCommand, reason: string): void {
    this.output.error(`[client] the server stopped: ${reason}. It is not restarted: fix the cause, then run Runway: Restart Server.`);
    const OUTPUT = 'Show Output';
    const SETTINGS = 'Open Settings';
    const custom = command.source === 'command';
    void vscode.window
      .showErrorMessage(`Runway: the language server stopped (${reason}).${custom ? ' It runs "runway.server.command".' : ''}`, custom ? SETTINGS : OUTPUT)
      .then((choice) => {
        if (choice === OUTPUT) this.output.show(true);
        if (choice === SETTINGS) void vscode.commands.executeCommand('workbench.action.openSettings', 'runway.server.command');
      });
  }

  /** Where the shipped docs/diagnostics.md has each code's heading (empty when it is not shipped). */
  private docsLines: Map<string, number> | undefined;

  /** The shipped diagnostics reference, at `code`'s heading when it has one. */
  docsTarget(code?: string | null): vscode.Uri | null {
    const file = path.join(this.extensionPath, 'bundled', 'libs', 'docs', 'diagnostics.md');
    if (!this.docsLines) {
      try {
        this.docsLines = codeLines(readFileSync(file, 'utf8'));
      } catch {
        this.docsLines = new Map();
      }
    }
    if (!this.docsLines.size) return null;
    const line = code ? this.docsLines.get(code) : undefined;
    return vscode.Uri.file(file).with({ fragment: line ? `L${line}` : '' });
  }

  /** Whether the rendered reference (the docs view) has `code`'s entry; set by the extension. */
  renderedCode: (code: string) => boolean = () => false;

  /** Each code's link: the rendered reference at its heading, else the Markdown copy at its line. */
  private linkCodes(diagnostics: vscode.Diagnostic[]): vscode.Diagnostic[] {
    for (const d of diagnostics) {
      const code = diagnosticCode(d.code);
      if (!code) continue;
      if (this.renderedCode(code)) {
        d.code = { value: code, target: vscode.Uri.parse(codeLinkUri(code)) };
        continue;
      }
      const target = this.docsTarget(code);
      if (target && target.fragment) d.code = { value: code, target };
    }
    return diagnostics;
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
      title: 'Runway: a Python 3.11+ interpreter to run the language server (e.g. /usr/bin/python3)',
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
