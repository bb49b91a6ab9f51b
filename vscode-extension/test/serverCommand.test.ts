import assert from 'node:assert/strict';
import { test } from 'node:test';
import { customCommand, isRunwayPyproject, missingModuleMessage, resolveOnPath, selfAndParents, venvInstallCommand, pythonFromEnvironment, resolveServerCommand, shellQuote, splitCommandLine } from '../src/serverCommand';

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

test('shell quoting of paths', () => {
  assert.equal(shellQuote(`it's`), `'it'\\''s'`);
});

test('the project pyproject is recognised by its name', () => {
  assert.ok(isRunwayPyproject('[project]\nname = "runway-tooling"\nversion = "0.1.0"\n'));
  assert.ok(!isRunwayPyproject('[project]\nname = "other"\n'));
});

test('create a venv in the workspace and install the checkout into it (PEP 668 pythons refuse pip)', () => {
  const { command, venvPython } = venvInstallCommand('/usr/bin/python3', '/home/me/app', '/home/me/runway tooling');
  assert.equal(command, `/usr/bin/python3 -m venv /home/me/app/.venv && /home/me/app/.venv/bin/python -m pip install -e '/home/me/runway tooling'`);
  assert.equal(venvPython, '/home/me/app/.venv/bin/python');
  const win = venvInstallCommand('C:\\Program Files\\Python\\python.exe', 'C:\\ws', 'C:\\ws', true);
  assert.equal(win.venvPython, 'C:\\ws\\.venv\\Scripts\\python.exe');
  assert.match(win.command, /^& "C:\\Program Files\\Python\\python.exe" -m venv C:\\ws\\.venv && /);
});

test('the tooling checkout is looked for in the workspace folder and above it', () => {
  assert.deepEqual(selfAndParents('/home/me/runway/examples/orders'), ['/home/me/runway/examples/orders', '/home/me/runway/examples', '/home/me/runway', '/home/me', '/home', '/']);
  assert.deepEqual(selfAndParents('/'), ['/']);
  assert.deepEqual(selfAndParents('C:\\a\\b', true), ['C:\\a\\b', 'C:\\a', 'C:\\']);
});

test('the interpreter is named by its absolute path', () => {
  const files = new Set(['/usr/local/bin/python3', '/usr/bin/python3']);
  assert.equal(resolveOnPath('python3', '/opt/x:/usr/local/bin:/usr/bin', (p) => files.has(p)), '/usr/local/bin/python3');
  assert.equal(resolveOnPath('/venv/bin/python', '', () => false), '/venv/bin/python');
  assert.equal(resolveOnPath('python9', '/usr/bin', (p) => files.has(p)), null);
});

test('the missing-module message: a venv when the workspace holds the tooling, else how to get it (not on PyPI)', () => {
  assert.match(missingModuleMessage('/usr/bin/python3', '/home/me/runway'), /not installed for \/usr\/bin\/python3.*\/home\/me\/runway.*virtual environment/);
  const other = missingModuleMessage('/usr/bin/python3', null);
  assert.match(other, /not on PyPI/);
  assert.match(other, /checkout of the runway tooling repository/);
  assert.doesNotMatch(other, /pip install runway-tooling/);
});
