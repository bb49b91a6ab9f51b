/**
 * How the language server is started: from the settings, the Python extension's interpreter
 * or `python3`. Pure: the extension passes the settings and the interpreter in.
 */

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

/**
 * The command that installs the server for `python`: an editable install of the checkout
 * when the workspace holds the project's pyproject (`repoFolder`), else the published package.
 * (On Windows PowerShell needs `&` before a quoted program.)
 */
export function installCommand(python: string, repoFolder: string | null, windows = false): string {
  const q = (w: string) => shellQuote(w, windows);
  const exe = windows && q(python).startsWith('"') ? `& ${q(python)}` : q(python);
  return repoFolder ? `${exe} -m pip install -e ${q(repoFolder)}` : `${exe} -m pip install runway-tooling`;
}

/** Whether a pyproject.toml's text is this project's (`name = "runway-tooling"`). */
export function isRunwayPyproject(text: string): boolean {
  return /^\s*name\s*=\s*["']runway-tooling["']\s*$/m.test(text);
}
