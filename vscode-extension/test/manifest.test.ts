// package.json's contributions agree with the code and the files shipped.
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';
import { CLIENT_ONLY_KEYS } from '../src/config';

const root = path.join(__dirname, '..', '..');
const pkg = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8'));

test('language, grammar, configuration and schema files exist', () => {
  const [language] = pkg.contributes.languages;
  assert.equal(language.id, 'runway-yaml');
  // runway.usage.yaml too: the server checks it with its product (docs/format.md "Usage file").
  assert.deepEqual(language.filenames, ['runway.yaml', 'runway.yml', 'runway.usage.yaml']);
  assert.ok(existsSync(path.join(root, language.configuration)));
  for (const g of pkg.contributes.grammars) assert.ok(existsSync(path.join(root, g.path)), g.path);
  for (const v of pkg.contributes.yamlValidation) assert.ok(existsSync(path.join(root, v.url)), v.url);
  JSON.parse(readFileSync(path.join(root, 'language-configuration.json'), 'utf8'));
});

test('engines and pinned dependencies', () => {
  assert.equal(pkg.engines.vscode, '^1.91.0');
  assert.equal(pkg.devDependencies['@types/vscode'], '1.91.0');
  assert.match(pkg.dependencies['vscode-languageclient'], /^\^?11\./);
  assert.equal(pkg.main, './dist/extension.js');
});

test('commands and settings', () => {
  const commands = pkg.contributes.commands.map((c: { command: string }) => c.command);
  for (const c of ['runway.restartServer', 'runway.selectEnvironment', 'runway.showPlan']) assert.ok(commands.includes(c), c);
  const settings = Object.keys(pkg.contributes.configuration.properties);
  for (const s of ['runway.server.command', 'runway.server.pythonPath', 'runway.trace.server', 'runway.yamlLanguageId', 'runway.inlayHints.environment']) {
    assert.ok(settings.includes(s), s);
  }
  // Every client-only top-level key is a contributed setting group, and nothing else is kept from the server.
  const groups = new Set(settings.map((s) => s.split('.')[1]));
  for (const k of CLIENT_ONLY_KEYS) assert.ok(groups.has(k), k);
});

test('the language configuration indents after a key and a bare dash', () => {
  const conf = JSON.parse(readFileSync(path.join(root, 'language-configuration.json'), 'utf8'));
  const increase = new RegExp(conf.indentationRules.increaseIndentPattern);
  assert.ok(increase.test('resources:'));
  assert.ok(increase.test('  main-db:   # the database'));
  assert.ok(increase.test('    reason: |'));
  assert.ok(increase.test('  - name:'));
  assert.ok(!increase.test('  kind: postgres'));
  assert.ok(!increase.test('  image: a@sha256:00'));
  assert.ok(!increase.test('# a comment:'));
  assert.deepEqual(conf.comments, { lineComment: '#' });
});
