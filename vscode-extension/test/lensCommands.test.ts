import assert from 'node:assert/strict';
import { test } from 'node:test';
import { isUsageLens, SHOW_COST } from '../src/lensCommands';

test('"used by N" lenses are re-targeted to the references peek; cost lenses are not', () => {
  assert.ok(isUsageLens({ command: SHOW_COST, title: 'used by 4' }));
  assert.ok(!isUsageLens({ command: SHOW_COST, title: 'dev $36 · staging $139' }));
  assert.ok(!isUsageLens({ command: SHOW_COST, title: 'unused' }));
  assert.ok(!isUsageLens({ command: 'other', title: 'used by 2' }));
  assert.ok(!isUsageLens(undefined));
});
