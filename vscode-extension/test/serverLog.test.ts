import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ServerLogParser } from '../src/serverLog';

test('python log records keep their level, without the timestamp', () => {
  const p = new ServerLogParser();
  assert.deepEqual(p.line('2026-11-29 22:10:44,172 INFO runway_lsp: runway-lsp 0.1.0 starting on stdio'), { level: 'info', text: 'runway_lsp: runway-lsp 0.1.0 starting on stdio' });
  assert.deepEqual(p.line('2026-11-29 22:10:44,172 WARNING runway_lsp.settings: x'), { level: 'warn', text: 'runway_lsp.settings: x' });
  assert.deepEqual(p.line('2026-11-29 22:10:44,172 ERROR runway_lsp: hover failed'), { level: 'error', text: 'runway_lsp: hover failed' });
  assert.equal(p.line('  File "x.py", line 3, in f').level, 'error'); // a traceback continues the record
  assert.equal(p.line('Traceback (most recent call last):').level, 'error');
  assert.equal(p.line('2026-11-29 22:10:44,172 DEBUG pygls: y').level, 'debug');
  assert.equal(p.line('runway-lsp: cannot load the catalogue: nope').level, 'debug'); // continues the last record
  assert.equal(new ServerLogParser().line('plain text').level, 'info');
});
