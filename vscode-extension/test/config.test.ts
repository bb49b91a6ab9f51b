import assert from 'node:assert/strict';
import { test } from 'node:test';
import { filterConfigurationResult, serverSection, injectEnvironment } from '../src/config';

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
