import assert from 'node:assert/strict';
import { test } from 'node:test';
import { customCommand, installCommand, isRunwayPyproject, pythonFromEnvironment, resolveServerCommand, shellQuote, splitCommandLine } from '../src/serverCommand';

test('runway.server.command overrides everything, as an array or a command line', () => {
  assert.deepEqual(resolveServerCommand({ command: ['/venv/bin/runway-lsp'], pythonPath: '/usr/bin/python3.12' }, '/ext/python'), {
    command: '/venv/bin/runway-lsp',
    args: [],
    python: null,
    source: 'command',
  });
  const line = resolveServerCommand({ command: '"/opt/my venv/bin/python" -m runway_lsp' });
  assert.equal(line.command, '/opt/my venv/bin/python');
  assert.deepEqual(line.args, ['-m', 'runway_lsp']);
  assert.equal(customCommand([]), null);
  assert.equal(customCommand('  '), null);
  assert.equal(customCommand(null), null);
});

test('python: the setting, else the Python extension, else python3', () => {
  assert.deepEqual(resolveServerCommand({ pythonPath: ' /usr/bin/python3.12 ' }, '/ext/python'), {
    command: '/usr/bin/python3.12',
    args: ['-m', 'runway_lsp', '--log-level', 'INFO'],
    python: '/usr/bin/python3.12',
    source: 'setting',
  });
  const ext = resolveServerCommand({ pythonPath: '' }, '/ws/.venv/bin/python');
  assert.equal(ext.command, '/ws/.venv/bin/python');
  assert.equal(ext.source, 'python-extension');
  const fallback = resolveServerCommand({}, null);
  assert.equal(fallback.command, 'python3');
  assert.equal(fallback.source, 'default');
  assert.deepEqual(resolveServerCommand({ logLevel: 'DEBUG' }).args, ['-m', 'runway_lsp', '--log-level', 'DEBUG']);
  assert.deepEqual(resolveServerCommand({ logLevel: 'LOUD' }).args, ['-m', 'runway_lsp', '--log-level', 'INFO']);
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

test('the install command: editable from the checkout, else the published package', () => {
  assert.equal(installCommand('/usr/bin/python3', null), '/usr/bin/python3 -m pip install runway-tooling');
  assert.equal(installCommand('/usr/bin/python3', '/home/me/runway tooling'), `/usr/bin/python3 -m pip install -e '/home/me/runway tooling'`);
  assert.equal(installCommand('C:\\Program Files\\Python\\python.exe', null, true), '& "C:\\Program Files\\Python\\python.exe" -m pip install runway-tooling');
  assert.equal(shellQuote(`it's`), `'it'\\''s'`);
});

test('the project pyproject is recognised by its name', () => {
  assert.ok(isRunwayPyproject('[project]\nname = "runway-tooling"\nversion = "0.1.0"\n'));
  assert.ok(!isRunwayPyproject('[project]\nname = "other"\n'));
});
