import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';
import { codeLines, diagnosticCode } from '../src/docs';

test("every code of the repository's docs/diagnostics.md has a heading line the link can open", () => {
  const text = readFileSync(path.join(__dirname, '..', '..', '..', 'docs', 'diagnostics.md'), 'utf8');
  const lines = codeLines(text);
  const all = text.split('\n');
  for (const code of ['RW001', 'RW130', 'RW140', 'RW154', 'RW170']) {
    const line = lines.get(code);
    assert.ok(line, code);
    assert.match(all[line! - 1], new RegExp(`^### ${code} — `));
  }
});

test('a diagnostic code, plain or with its target', () => {
  assert.equal(diagnosticCode('RW140'), 'RW140');
  assert.equal(diagnosticCode({ value: 'RW001', target: {} }), 'RW001');
  assert.equal(diagnosticCode(42), null);
  assert.equal(diagnosticCode('E501'), null);
});
