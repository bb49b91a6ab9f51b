/**
 * How the language server is started: from the settings, the Python extension's interpreter
 * or `python3`. Pure: the extension passes the settings and the interpreter in.
 */
import * as nodePath from 'node:path';

export interface ServerSettings {
  /** `runway.server.command`: an argv array or a command line; overrides everything. */
  command?: unknown;
  /** `runway.server.pythonPath`. */
  pythonPath?: unknown;
  /** `runway.server.logLevel`. */
  logLevel?: unknown;
}

export type PythonSource = 'setting' | 'python-extension' | 'default';

export interface ServerCommand {
  command: string;
  args: string[];
  /** The interpreter when the server is run as `<python> -m runway_lsp`; null for a custom command. */
  python: string | null;
  source: PythonSource | 'command';
}

export const MODULE = 'runway_lsp';
export const DEFAULT_PYTHON = 'python3';
const LOG_LEVELS = ['DEBUG', 'INFO', 'WARNING', 'ERROR'];

/** Split a command line into words: whitespace separates, single and double quotes group, a backslash escapes. */
export function splitCommandLine(line: string): string[] {
  const words: string[] = [];
  let word = '';
  let inWord = false;
  let quote: string | null = null;
  for (let i = 0; i < line.length; i++) {
    const c = line[i];
    if (quote) {
      if (c === quote) quote = null;
      else if (c === '\\' && quote === '"' && i + 1 < line.length) word += line[++i];
      else word += c;
    } else if (c === '"' || c === "'") {
      quote = c;
      inWord = true;
    } else if (c === '\\' && i + 1 < line.length) {
      word += line[++i];
      inWord = true;
    } else if (/\s/.test(c)) {
      if (inWord) words.push(word);
      word = '';
      inWord = false;
    } else {
      word += c;
      inWord = true;
    }
  }
  if (inWord) words.push(word);
  return words;
}

/** The argv of `runway.server.command`, or null when it is unset or empty. */
export function customCommand(value: unknown): string[] | null {
  if (Array.isArray(value)) {
    const argv = value.filter((v): v is string => typeof v === 'string' && v.length > 0);
    return argv.length ? argv : null;
  }
  if (typeof value === 'string' && value.trim()) {
    const argv = splitCommandLine(value.trim());
    return argv.length ? argv : null;
  }
  return null;
}

/**
 * The server command: `runway.server.command` when set; else `<python> -m runway_lsp
 * --log-level LEVEL` with python from `runway.server.pythonPath`, else the Python extension's
 * active interpreter (`extensionPython`), else `python3`. vscode-languageclient adds `--stdio`.
 */
export function resolveServerCommand(settings: ServerSettings, extensionPython?: string | null): ServerCommand {
  const custom = customCommand(settings.command);
  if (custom) return { command: custom[0], args: custom.slice(1), python: null, source: 'command' };
  let python: string;
  let source: PythonSource;
  if (typeof settings.pythonPath === 'string' && settings.pythonPath.trim()) {
    python = settings.pythonPath.trim();
    source = 'setting';
  } else if (extensionPython) {
    python = extensionPython;
    source = 'python-extension';
  } else {
    python = DEFAULT_PYTHON;
    source = 'default';
  }
  const level = typeof settings.logLevel === 'string' && LOG_LEVELS.includes(settings.logLevel) ? settings.logLevel : 'INFO';
  return { command: python, args: ['-m', MODULE, '--log-level', level], python, source };
}

/** Where the Python extension's `environments.getActiveEnvironmentPath()` / `resolveEnvironment()` point. */
export function pythonFromEnvironment(active: unknown, resolved: unknown): string | null {
  const exe = (resolved as { executable?: { uri?: { fsPath?: unknown } } } | undefined)?.executable?.uri?.fsPath;
  if (typeof exe === 'string' && exe) return exe;
  const path = (active as { path?: unknown } | undefined)?.path;
  return typeof path === 'string' && path ? path : null;
}

/** Quote one word for a POSIX shell or PowerShell/cmd terminal (only when needed). */
export function shellQuote(word: string, windows = false): string {
  if (/^[A-Za-z0-9_@%+=:,./\\-]+$/.test(word)) return word;
  if (windows) return `"${word.replace(/"/g, '""')}"`;
  return `'${word.replace(/'/g, `'\\''`)}'`;
}

/** The python of a virtual environment folder. */
export function venvPython(venv: string, windows = false): string {
  return windows ? `${venv}\\Scripts\\python.exe` : `${venv}/bin/python`;
}

/**
 * The terminal command that creates `<workspace>/.venv` with `python` (absolute) and installs
 * the tooling checkout `repo` into it, editable: `<python> -m venv <ws>/.venv && <ws>/.venv/bin/python
 * -m pip install -e <repo>`. A venv, because Debian's and Ubuntu's python refuse pip (PEP 668).
 */
export function venvInstallCommand(python: string, workspace: string, repo: string, windows = false): { command: string; venvPython: string } {
  const q = (w: string) => shellQuote(w, windows);
  const run = (exe: string) => (windows && q(exe).startsWith('"') ? `& ${q(exe)}` : q(exe));
  const venv = windows ? `${workspace}\\.venv` : `${workspace}/.venv`;
  const vpy = venvPython(venv, windows);
  return { command: `${run(python)} -m venv ${q(venv)} && ${run(vpy)} -m pip install -e ${q(repo)}`, venvPython: vpy };
}

/** `dir` and every folder above it, nearest first. */
export function selfAndParents(dir: string, windows = false): string[] {
  const p = windows ? nodePath.win32 : nodePath.posix;
  const out: string[] = [];
  let current = p.normalize(dir);
  if (current.length > 1 && /[\\/]$/.test(current) && !/^[A-Za-z]:\\$/.test(current)) current = current.slice(0, -1);
  for (let i = 0; i < 128; i++) {
    out.push(current);
    const parent = p.dirname(current);
    if (parent === current) break;
    current = parent;
  }
  return out;
}

/** Whether `command` names a file by path (absolute or relative) rather than a name looked up on PATH. */
export function hasPathSeparator(command: string): boolean {
  return /[\\/]/.test(command);
}

/**
 * The absolute path of `command` (`python3`): itself when it has a path, else the first
 * PATH entry where `isFile` finds it; null when nowhere (the message then says so).
 */
export function resolveOnPath(command: string, pathValue: string | undefined, isFile: (p: string) => boolean, windows = false): string | null {
  if (hasPathSeparator(command)) return command;
  const sep = windows ? ';' : ':';
  const exts = windows ? ['.exe', ''] : [''];
  for (const dir of (pathValue ?? '').split(sep)) {
    if (!dir) continue;
    for (const ext of exts) {
      const candidate = `${dir.replace(/[\\/]+$/, '')}${windows ? '\\' : '/'}${command}${ext}`;
      if (isFile(candidate)) return candidate;
    }
  }
  return null;
}

/** The notification when `python` (absolute) cannot import runway_lsp. */
export function missingModuleMessage(python: string, repo: string | null): string {
  if (repo) {
    return `Runway: the language server (runway_lsp) is not installed for ${python}. This workspace holds the tooling (${repo}): create a virtual environment in the workspace and install it there?`;
  }
  return (
    `Runway: the language server (runway_lsp) is not installed for ${python}. It is not on PyPI: install it from a checkout of the runway tooling repository ` +
    '(python3 -m venv .venv && .venv/bin/python -m pip install -e <checkout>), then select that interpreter.'
  );
}

/** Whether a pyproject.toml's text is this project's (`name = "runway-tooling"`). */
export function isRunwayPyproject(text: string): boolean {
  return /^\s*name\s*=\s*["']runway-tooling["']\s*$/m.test(text);
}
