/**
 * How the language server is started. By default the server bundled in the extension
 * (`bundled/libs`, filled by scripts/bundle.py) runs as `<python> -I bundled/tool/runway_server.py`
 * with the first interpreter that can run it: `runway.server.pythonPath` (when set, the only
 * one tried), else the Python extension's active interpreter, a workspace folder's `.venv`,
 * `python3` on PATH. `runway.server.command` replaces all of this. Pure: the extension passes
 * the settings, the candidates and the probe results in.
 */
export interface ServerSettings {
  /** `runway.server.command`: an argv array or a command line; overrides everything. */
  command?: unknown;
  /** `runway.server.pythonPath`. */
  pythonPath?: unknown;
  /** `runway.server.logLevel`. */
  logLevel?: unknown;
}

export type PythonSource = 'setting' | 'python-extension' | 'workspace-venv' | 'path';

export interface PythonCandidate {
  python: string;
  source: PythonSource;
}

export interface ServerCommand {
  command: string;
  args: string[];
  /** The interpreter that runs the bundled launcher; null for a custom command. */
  python: string | null;
  source: PythonSource | 'command';
}

/** The launcher, relative to the extension folder. */
export const LAUNCHER = ['bundled', 'tool', 'runway_server.py'];
export const DEFAULT_PYTHON = 'python3';
const LOG_LEVELS = ['DEBUG', 'INFO', 'WARNING', 'ERROR'];

/** Where each interpreter came from, for the output channel and the notification. */
export const SOURCE_TEXT: Record<PythonSource | 'command', string> = {
  setting: 'runway.server.pythonPath',
  'python-extension': "the Python extension's interpreter",
  'workspace-venv': "the workspace's .venv",
  path: 'PATH',
  command: 'runway.server.command',
};

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

/** The setting's interpreter, trimmed; null when unset. */
export function pythonSetting(value: unknown): string | null {
  return typeof value === 'string' && value.trim() ? value.trim() : null;
}

/**
 * The interpreters to try, in order: the setting alone when it is set (an explicit choice is
 * never replaced by a guess); else the Python extension's, each workspace `.venv` python that
 * exists, and `python3` (`python` on Windows). Duplicates are dropped.
 */
export function pythonCandidates(settings: ServerSettings, extensionPython: string | null, venvPythons: string[], windows = false): PythonCandidate[] {
  const set = pythonSetting(settings.pythonPath);
  if (set) return [{ python: set, source: 'setting' }];
  const out: PythonCandidate[] = [];
  const add = (python: string | null, source: PythonSource) => {
    if (python && !out.some((c) => c.python === python)) out.push({ python, source });
  };
  add(extensionPython, 'python-extension');
  for (const v of venvPythons) add(v, 'workspace-venv');
  add(windows ? 'python' : DEFAULT_PYTHON, 'path');
  return out;
}

export function logLevel(settings: ServerSettings): string {
  return typeof settings.logLevel === 'string' && LOG_LEVELS.includes(settings.logLevel) ? settings.logLevel : 'INFO';
}

/**
 * The server command: `runway.server.command` when set (nothing added but `--stdio`, which
 * vscode-languageclient appends); else `<python> -I <launcher> --log-level LEVEL`.
 */
export function resolveServerCommand(settings: ServerSettings, candidate: PythonCandidate | null, launcher: string): ServerCommand | null {
  const custom = customCommand(settings.command);
  if (custom) return { command: custom[0], args: custom.slice(1), python: null, source: 'command' };
  if (!candidate) return null;
  return { command: candidate.python, args: ['-I', launcher, '--log-level', logLevel(settings)], python: candidate.python, source: candidate.source };
}

/** What `<python> -I runway_server.py --check` said (bundled/tool/runway_server.py). */
export type ProbeResult = { ok: true; version: string } | { ok: false; code: 'no-python' | 'too-old' | 'not-cpython' | 'no-bundle' | 'no-native' | 'not-python' | 'error'; reason: string };

/**
 * Read the launcher's `--check` answer (one JSON line on stdout), or say why there is none:
 * `spawnError` is the errno code when the interpreter could not be run at all.
 */
export function parseProbe(python: string, stdout: string, stderr: string, exitCode: number | null, spawnError?: string): ProbeResult {
  if (spawnError === 'ENOENT') return { ok: false, code: 'no-python', reason: `${python} does not exist` };
  if (spawnError === 'EACCES') return { ok: false, code: 'no-python', reason: `${python} is not executable` };
  if (spawnError) return { ok: false, code: 'no-python', reason: `${python} could not be run (${spawnError})` };
  const line = stdout.trim().split(/\r?\n/).pop() ?? '';
  try {
    const answer = JSON.parse(line) as { ok?: unknown; python?: unknown; code?: unknown; reason?: unknown };
    if (answer.ok === true) return { ok: true, version: String(answer.python ?? '?') };
    if (typeof answer.reason === 'string') {
      const code = ['too-old', 'not-cpython', 'no-bundle', 'no-native'].includes(String(answer.code)) ? (answer.code as 'too-old') : 'error';
      return { ok: false, code, reason: answer.reason };
    }
  } catch {
    // not the launcher's JSON: below
  }
  const said = (stderr.trim().split(/\r?\n/).filter(Boolean).pop() ?? '').slice(0, 300);
  if (/Unknown option: -I|SyntaxError|usage: .*python/i.test(stderr)) return { ok: false, code: 'too-old', reason: `${python} is not Python 3.11 or newer${said ? ` (${said})` : ''}` };
  return { ok: false, code: 'not-python', reason: `${python} did not run the check (exit ${exitCode ?? 'signal'})${said ? `: ${said}` : ''}` };
}

/** The last meaningful stderr line of a server that exited (the reason in its traceback). */
export function exitReason(stderrLines: readonly string[]): string | null {
  for (let i = stderrLines.length - 1; i >= 0; i--) {
    const line = stderrLines[i].trim();
    if (!line || /^\^+$/.test(line) || /^File "/.test(line) || /^Traceback/.test(line)) continue;
    // A log line: keep the message after "LEVEL name:".
    const m = /^\d{4}-\d\d-\d\d [\d:,]+ [A-Z]+ [\w.]+: (.*)$/.exec(line);
    return (m ? m[1] : line).slice(0, 300);
  }
  return null;
}

/** Where the Python extension's `environments.getActiveEnvironmentPath()` / `resolveEnvironment()` point. */
export function pythonFromEnvironment(active: unknown, resolved: unknown): string | null {
  const exe = (resolved as { executable?: { uri?: { fsPath?: unknown } } } | undefined)?.executable?.uri?.fsPath;
  if (typeof exe === 'string' && exe) return exe;
  const path = (active as { path?: unknown } | undefined)?.path;
  return typeof path === 'string' && path ? path : null;
}

/** The python of a virtual environment folder. */
export function venvPython(venv: string, windows = false): string {
  return windows ? `${venv}\\Scripts\\python.exe` : `${venv}/bin/python`;
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


/** The python.org download page of each OS (macOS ships 3.9 at most: its installer is the way). */
export const PYTHON_DOWNLOADS: Record<string, string> = {
  darwin: 'https://www.python.org/downloads/macos/',
  win32: 'https://www.python.org/downloads/windows/',
  linux: 'https://docs.python.org/3/using/unix.html#getting-and-installing-the-latest-version-of-python',
};

/** The ways out offered when no Python 3.11+ can run the server, in the order of the buttons. */
export interface PythonWaysOut {
  /** Install CPython 3.12 with uv (`uv python install 3.12`), then use `uv python find 3.12`: when uv is on PATH. */
  uv: string | null;
  /** The Python extension's interpreter picker when it is installed, else a file picker. */
  picker: 'python-extension' | 'file';
  /** The install page for this OS. */
  download: string;
}

/** {@link PythonWaysOut} for `platform` (Node's `process.platform`), uv's path (or null) and whether the Python extension is installed. */
export function pythonWaysOut(platform: string, uv: string | null, pythonExtension: boolean): PythonWaysOut {
  return { uv, picker: pythonExtension ? 'python-extension' : 'file', download: PYTHON_DOWNLOADS[platform] ?? 'https://www.python.org/downloads/' };
}

/** The notification text when no interpreter was found (`where`: what was tried) and the ways out. */
export function noPythonMessage(where: string, reason: string, ways: PythonWaysOut): string {
  const outs = [
    ways.picker === 'python-extension' ? 'pick one with the Python extension' : 'pick an interpreter',
    ...(ways.uv ? ['install one with `uv python install 3.12`'] : []),
    'or install Python 3.12 from python.org',
  ];
  return `Runway: no Python 3.11+ found to run the language server (${where}): ${reason}. ${capitalise(outs.join(', '))}.`;
}

function capitalise(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}
