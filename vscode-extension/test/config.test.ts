import assert from 'node:assert/strict';
import { test } from 'node:test';
import { enabledGlobs, filterConfigurationResult, injectEnvironment, mergedExclude, serverSection, withExclusions } from '../src/config';

const section = {
  server: { command: null, pythonPath: null, logLevel: 'INFO' },
  trace: { server: 'off' },
  yamlLanguageId: false,
  inlayHints: { environment: 'dev', enabled: true },
  codeLens: { enabled: true },
  costDelta: { enabled: true },
  catalogPath: null,
};

test('the client keeps its own settings out of the server section', () => {
  assert.deepEqual(serverSection(section), {
    inlayHints: { environment: 'dev', enabled: true },
    codeLens: { enabled: true },
    costDelta: { enabled: true },
    catalogPath: null,
  });
  assert.equal(serverSection(null), null);
  assert.deepEqual(serverSection([1]), [1]);
});

test('only the runway items of a workspace/configuration answer are filtered', () => {
  const result = filterConfigurationResult([{ section: 'runway' }, { section: 'editor' }, {}], [section, { tabSize: 2 }, { runway: section, files: {} }]) as unknown[];
  assert.ok(!('server' in (result[0] as object)));
  assert.deepEqual(result[1], { tabSize: 2 });
  assert.ok(!('trace' in ((result[2] as { runway: object }).runway)));
  assert.equal(filterConfigurationResult([], null), null);
});

test('the selected environment (the memento) answers runway.inlayHints.environment', () => {
  const items = [{ section: 'runway' }, { section: 'runway.inlayHints' }, { section: 'runway.inlayHints.environment' }, { section: 'editor' }];
  const result = [{ inlayHints: { enabled: true, environment: null }, codeLens: { enabled: true } }, { enabled: false }, null, { tabSize: 2 }];
  assert.deepEqual(injectEnvironment(items, result, 'production'), [
    { inlayHints: { enabled: true, environment: 'production' }, codeLens: { enabled: true } },
    { enabled: false, environment: 'production' },
    'production',
    { tabSize: 2 },
  ]);
  assert.deepEqual(injectEnvironment([{ section: 'runway' }], [null], 'dev'), [{ inlayHints: { environment: 'dev' } }]);
  assert.equal(injectEnvironment(items, result, null), result); // nothing picked: the setting stands
});

test('files.exclude joins runway.exclude in the answer and in initializationOptions, each glob once', () => {
  assert.deepEqual(enabledGlobs({ '**/.git': true, 'tests/**': true, 'off/**': false, '**/*.js': { when: '$(basename).ts' } }), ['**/.git', 'tests/**']);
  assert.deepEqual(enabledGlobs(null), []);
  assert.deepEqual(mergedExclude(['tests/**', 7, ''], ['**/.git', 'tests/**']), ['tests/**', '**/.git']);
  const items = [{ section: 'runway', scopeUri: 'file:///ws' }, { section: 'files' }];
  const seen: Array<string | undefined> = [];
  const out = withExclusions(items, [{ exclude: ['examples/broken/**'], codeLens: { enabled: true } }, { x: 1 }], (scope) => {
    seen.push(scope);
    return ['**/.git'];
  });
  assert.deepEqual(out, [{ exclude: ['examples/broken/**', '**/.git'], codeLens: { enabled: true } }, { x: 1 }]);
  assert.deepEqual(seen, ['file:///ws']);
  assert.equal(withExclusions(items, null, () => []), null);
});
