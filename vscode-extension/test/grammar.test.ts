// The TextMate grammar, tokenized by the same engine VS Code uses (vscode-textmate + oniguruma).
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { before, test } from 'node:test';
import * as oniguruma from 'vscode-oniguruma';
import * as textmate from 'vscode-textmate';

const root = path.join(__dirname, '..', '..');
let grammar: textmate.IGrammar;

before(async () => {
  const wasm = readFileSync(path.join(root, 'node_modules', 'vscode-oniguruma', 'release', 'onig.wasm'));
  await oniguruma.loadWASM(wasm.buffer.slice(wasm.byteOffset, wasm.byteOffset + wasm.byteLength));
  const registry = new textmate.Registry({
    onigLib: Promise.resolve({ createOnigScanner: (s: string[]) => new oniguruma.OnigScanner(s), createOnigString: (s: string) => new oniguruma.OnigString(s) }),
    loadGrammar: async (scope) => {
      if (scope !== 'source.runway-yaml') return null;
      const file = path.join(root, 'syntaxes', 'runway-yaml.tmLanguage.json');
      return textmate.parseRawGrammar(readFileSync(file, 'utf8'), file);
    },
  });
  const loaded = await registry.loadGrammar('source.runway-yaml');
  assert.ok(loaded);
  grammar = loaded;
});

/** [text, innermost scope] for every token of `text`'s lines. */
function tokens(text: string): Array<[string, string]> {
  let state = textmate.INITIAL;
  const out: Array<[string, string]> = [];
  for (const line of text.split('\n')) {
    const r = grammar.tokenizeLine(line, state);
    for (const t of r.tokens) {
      const s = line.slice(t.startIndex, t.endIndex);
      if (s.trim()) out.push([s, t.scopes[t.scopes.length - 1]]);
    }
    state = r.ruleStack;
  }
  return out;
}

function scopeOf(text: string, needle: string): string | undefined {
  return tokens(text).find(([s]) => s === needle)?.[1];
}

test('keys, comments, plain and quoted values', () => {
  const text = 'runway: 1   # the format\nproduct: orders\nregion: "us-east-1"\nreason: \'on-prem: it\'\'s\'';
  assert.equal(scopeOf(text, 'runway'), 'entity.name.tag.yaml');
  assert.equal(scopeOf(text, ':'), 'punctuation.separator.key-value.mapping.yaml');
  assert.equal(scopeOf(text, '1'), 'constant.numeric.yaml');
  assert.equal(scopeOf(text, ' the format'), 'comment.line.number-sign.yaml');
  assert.equal(scopeOf(text, 'orders'), 'string.unquoted.plain.out.yaml');
  assert.equal(scopeOf(text, 'us-east-1'), 'string.quoted.double.yaml');
  assert.equal(scopeOf(text, "''"), 'constant.character.escape.single-quoted.yaml');
});

test('numbers, booleans and null only as whole scalars', () => {
  const text = 'a: 2500\nb: 0.25\nc: true\nd: null\ne: ~\nf: 16b\ng: truely\nh: -1e3';
  assert.equal(scopeOf(text, '2500'), 'constant.numeric.yaml');
  assert.equal(scopeOf(text, '0.25'), 'constant.numeric.yaml');
  assert.equal(scopeOf(text, 'true'), 'constant.language.yaml');
  assert.equal(scopeOf(text, 'null'), 'constant.language.yaml');
  assert.equal(scopeOf(text, '~'), 'constant.language.yaml');
  assert.equal(scopeOf(text, '16b'), 'string.unquoted.plain.out.yaml');
  assert.equal(scopeOf(text, 'truely'), 'string.unquoted.plain.out.yaml');
  assert.equal(scopeOf(text, '-1e3'), 'constant.numeric.yaml');
});

test('sequences, flow collections, nested keys', () => {
  const text = 'members:\n  - services/checkout\nuses: [main-db, order-events]\nhealth: {path: /api/health, interval_s: 15}\n  - name: x';
  assert.equal(scopeOf(text, '-'), 'punctuation.definition.block.sequence.item.yaml');
  assert.equal(scopeOf(text, 'services/checkout'), 'string.unquoted.plain.out.yaml');
  assert.equal(scopeOf(text, '['), 'punctuation.definition.sequence.begin.yaml');
  assert.equal(scopeOf(text, 'main-db'), 'string.unquoted.plain.in.yaml');
  assert.equal(scopeOf(text, ','), 'punctuation.separator.sequence.yaml');
  assert.equal(scopeOf(text, 'path'), 'entity.name.tag.yaml');
  assert.equal(scopeOf(text, '/api/health'), 'string.unquoted.plain.in.yaml');
  assert.equal(scopeOf(text, '15'), 'constant.numeric.yaml');
  assert.equal(scopeOf(text, 'name'), 'entity.name.tag.yaml');
});

test('a value with a colon and an image digest stay one plain scalar', () => {
  const text = 'image: metabase/metabase@sha256:4b7e5b\nurl: http://x:80/a';
  assert.equal(scopeOf(text, 'metabase/metabase@sha256:4b7e5b'), 'string.unquoted.plain.out.yaml');
  assert.equal(scopeOf(text, 'http://x:80/a'), 'string.unquoted.plain.out.yaml');
});

test('anchors, aliases, tags, documents', () => {
  const text = '---\nbase: &defaults {size: small}\nother: *defaults\ntagged: !custom value';
  assert.equal(scopeOf(text, '---'), 'entity.other.document.begin.yaml');
  assert.equal(scopeOf(text, '&defaults'), 'keyword.control.flow.anchor.yaml');
  assert.equal(scopeOf(text, '*defaults'), 'variable.other.alias.yaml');
  assert.equal(scopeOf(text, '!custom'), 'storage.type.tag-handle.yaml');
});

test('block scalars run while lines are indented deeper than their key', () => {
  const text = 'reason: |\n  on-prem-parity: self-hosted\n\n  # not a comment\nport: 3000';
  assert.equal(scopeOf(text, '|'), 'keyword.control.flow.block-scalar.yaml');
  assert.equal(scopeOf(text, '  on-prem-parity: self-hosted'), 'string.unquoted.block.yaml');
  assert.equal(scopeOf(text, '  # not a comment'), 'string.unquoted.block.yaml');
  assert.equal(scopeOf(text, 'port'), 'entity.name.tag.yaml');
  const folded = 'a:\n  b: >-\n    text\n  c: 1';
  assert.equal(scopeOf(folded, '    text'), 'string.unquoted.block.yaml');
  assert.equal(scopeOf(folded, 'c'), 'entity.name.tag.yaml');
});

test('the whole orders example tokenizes with every key as a key', () => {
  const text = readFileSync(path.join(root, '..', 'examples', 'orders', 'runway.yaml'), 'utf8');
  const keys = tokens(text).filter(([, s]) => s === 'entity.name.tag.yaml').map(([t]) => t);
  for (const k of ['runway', 'product', 'members', 'environments', 'limits', 'monthly', 'main-db', 'engine', 'flavor', 'workloads', 'metabase', 'health', 'reason']) {
    assert.ok(keys.includes(k), k);
  }
  assert.ok(!keys.includes('self-hosted customers run the same BI stack next to their database"'));
});
