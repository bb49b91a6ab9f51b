import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import * as path from 'node:path';
import { test } from 'node:test';
import { customCommand, exitReason, noPythonMessage, parseProbe, pythonCandidates, pythonFromEnvironment, pythonWaysOut, resolveOnPath, resolveServerCommand, splitCommandLine } from '../src/serverCommand';

const LAUNCHER = '/ext/bundled/tool/runway_server.py';

test('runway.server.command overrides everything, as an array or a command line', () => {
  assert.deepEqual(resolveServerCommand({ command: ['/venv/bin/runway-lsp'], pythonPath: '/usr/bin/python3.12' }, { python: '/ext/python', source: 'setting' }, LAUNCHER), {
    command: '/venv/bin/runway-lsp',
    args: [],
    python: null,
    source: 'command',
  });
  const line = resolveServerCommand({ command: '"/opt/my venv/bin/python" -m runway_lsp' }, null, LAUNCHER)!;
  assert.equal(line.command, '/opt/my venv/bin/python');
  assert.deepEqual(line.args, ['-m', 'runway_lsp']);
  assert.equal(customCommand([]), null);
  assert.equal(customCommand('  '), null);
  assert.equal(customCommand(null), null);
  assert.equal(resolveServerCommand({ command: [] }, null, LAUNCHER), null);
});

test('the bundled server runs isolated (-I) with the picked interpreter; vscode-languageclient adds --stdio', () => {
  assert.deepEqual(resolveServerCommand({ logLevel: 'DEBUG' }, { python: '/usr/bin/python3.12', source: 'path' }, LAUNCHER), {
    command: '/usr/bin/python3.12',
    args: ['-I', LAUNCHER, '--log-level', 'DEBUG'],
    python: '/usr/bin/python3.12',
    source: 'path',
  });
  assert.deepEqual(resolveServerCommand({ logLevel: 'LOUD' }, { python: 'python3', source: 'path' }, LAUNCHER)!.args, ['-I', LAUNCHER, '--log-level', 'INFO']);
});

test('interpreters: the setting alone, else the Python extension, the workspace .venv, python3', () => {
  assert.deepEqual(pythonCandidates({ pythonPath: ' /opt/py/bin/python ' }, '/ext/python', ['/ws/.venv/bin/python']), [{ python: '/opt/py/bin/python', source: 'setting' }]);
  assert.deepEqual(pythonCandidates({ pythonPath: '' }, '/ws/.venv/bin/python', ['/ws/.venv/bin/python', '/ws2/.venv/bin/python']), [
    { python: '/ws/.venv/bin/python', source: 'python-extension' },
    { python: '/ws2/.venv/bin/python', source: 'workspace-venv' },
    { python: 'python3', source: 'path' },
  ]);
  assert.deepEqual(pythonCandidates({}, null, [], true), [{ python: 'python', source: 'path' }]);
});

test('the probe answer: the launcher JSON, a missing file, an old Python, something that is no Python', () => {
  assert.deepEqual(parseProbe('/p', '{"ok": true, "python": "3.12.1", "executable": "/p"}\n', '', 0), { ok: true, version: '3.12.1' });
  const old = parseProbe('/p', '{"ok": false, "python": "3.10.13", "code": "too-old", "reason": "Python 3.10.13 is too old: the runway server needs Python 3.11 or newer"}', '', 0);
  assert.deepEqual(old, { ok: false, code: 'too-old', reason: 'Python 3.10.13 is too old: the runway server needs Python 3.11 or newer' });
  assert.deepEqual(parseProbe('/nope/python', '', '', null, 'ENOENT'), { ok: false, code: 'no-python', reason: '/nope/python does not exist' });
  assert.equal(parseProbe('/py2', '', 'Unknown option: -I\nusage: /py2 [option] ...', 2).ok, false);
  const other = parseProbe('/bin/false', '', '', 1);
  assert.equal(other.ok, false);
  assert.match((other as { reason: string }).reason, /did not run the check \(exit 1\)/);
});

test('the reason of a server that exited: the traceback last line, a log message', () => {
  assert.equal(
    exitReason(['Traceback (most recent call last):', '  File "x.py", line 1, in <module>', "ModuleNotFoundError: No module named 'lsprotocol'", '']),
    "ModuleNotFoundError: No module named 'lsprotocol'",
  );
  assert.equal(exitReason(['2026-12-01 09:30:11,445 ERROR runway_lsp: cannot load the catalogue']), 'cannot load the catalogue');
  assert.equal(exitReason([]), null);
});

test('the launcher itself: --check with this machine python3 (from another folder, isolated)', (t) => {
  const launcher = path.join(__dirname, '..', '..', 'bundled', 'tool', 'runway_server.py');
  let out: string;
  try {
    out = execFileSync('python3', ['-I', launcher, '--check'], { cwd: '/', encoding: 'utf8' });
  } catch {
    t.skip('no python3 on PATH');
    return;
  }
  const answer = parseProbe('python3', out, '', 0);
  // ok when bundled/libs is built for this python (npm run bundle), else a reason saying what is missing.
  if (!answer.ok) assert.match(answer.reason, /too old|bundled server|bundle/);
});

test('the Python extension environment: the resolved executable, else the active path', () => {
  assert.equal(pythonFromEnvironment({ path: '/ws/.venv' }, { executable: { uri: { fsPath: '/ws/.venv/bin/python' } } }), '/ws/.venv/bin/python');
  assert.equal(pythonFromEnvironment({ path: '/usr/bin/python3' }, undefined), '/usr/bin/python3');
  assert.equal(pythonFromEnvironment(undefined, undefined), null);
  assert.equal(pythonFromEnvironment({ path: 42 }, { executable: {} }), null);
});

test('command lines split like a shell', () => {
  assert.deepEqual(splitCommandLine(`a 'b c' "d \\" e" f\\ g`), ['a', 'b c', 'd " e', 'f g']);
  assert.deepEqual(splitCommandLine('  '), []);
  assert.deepEqual(splitCommandLine(`x ''`), ['x', '']);
});

test('the interpreter is named by its absolute path', () => {
  const files = new Set(['/usr/local/bin/python3', '/usr/bin/python3']);
  assert.equal(resolveOnPath('python3', '/opt/x:/usr/local/bin:/usr/bin', (p) => files.has(p)), '/usr/local/bin/python3');
  assert.equal(resolveOnPath('/venv/bin/python', '', () => false), '/venv/bin/python');
  assert.equal(resolveOnPath('python9', '/usr/bin', (p) => files.has(p)), null);
});

test('no Python 3.11+: the ways out name uv only when it is on PATH, and the install page of the OS', () => {
  const mac = pythonWaysOut('darwin', null, false);
  assert.deepEqual(mac, { uv: null, picker: 'file', download: 'https://www.python.org/downloads/macos/' });
  assert.equal(
    noPythonMessage('python3', 'Python 3.9.6 is too old: the runway server needs Python 3.11 or newer', mac),
    'Runway: no Python 3.11+ found to run the language server (python3): Python 3.9.6 is too old: the runway server needs Python 3.11 or newer. Pick an interpreter, or install Python 3.12 from python.org.',
  );
  const withUv = pythonWaysOut('linux', '/home/me/.local/bin/uv', true);
  assert.equal(withUv.picker, 'python-extension');
  assert.match(withUv.download, /^https:\/\/docs\.python\.org\/3\/using\/unix\.html/);
  assert.match(noPythonMessage('3 interpreters tried', 'x', withUv), /Pick one with the Python extension, install one with `uv python install 3\.12`, or install Python 3\.12 from python\.org\.$/);
  assert.equal(pythonWaysOut('win32', null, false).download, 'https://www.python.org/downloads/windows/');
  assert.equal(pythonWaysOut('freebsd', null, false).download, 'https://www.python.org/downloads/');
});
