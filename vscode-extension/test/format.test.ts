import assert from 'node:assert/strict';
import { test } from 'node:test';
import { escapeHtml, escapeMarkdown, padTables, usd, usdWhole } from '../src/format';

test('usd: cents and thousands', () => {
  assert.equal(usd(0), '$0.00');
  assert.equal(usd(122.1), '$122.10');
  assert.equal(usd(1234567.891), '$1,234,567.89');
  assert.equal(usd(-5), '-$5.00');
});

test('usdWhole: half up', () => {
  assert.equal(usdWhole(122.1), '$122');
  assert.equal(usdWhole(802.5), '$803');
  assert.equal(usdWhole(2500), '$2,500');
});

test('escapeHtml escapes markup and both quotes', () => {
  assert.equal(escapeHtml(`<img src=x onerror="a('b')">&`), '&lt;img src=x onerror=&quot;a(&#39;b&#39;)&quot;&gt;&amp;');
  assert.equal(escapeHtml(null), '');
  assert.equal(escapeHtml(12), '12');
});

test('escapeMarkdown escapes table and emphasis characters', () => {
  assert.equal(escapeMarkdown('a|b*c_'), 'a\\|b\\*c\\_');
});

test('hover tables: every cell padded with non-breaking spaces, delimiter rows and code left alone', () => {
  const md = ['### main-db', '', '|         |    dev | staging |', '|---------|-------:|--------:|', '| monthly | $36.28 | $139.47 |', '', '```', '| a | b |', '```', '| x \\| y | z |'].join('\n');
  assert.equal(
    padTables(md),
    [
      '### main-db',
      '',
      '|  | &nbsp;&nbsp;dev&nbsp;&nbsp; | &nbsp;&nbsp;staging&nbsp;&nbsp; |',
      '|---------|-------:|--------:|',
      '| &nbsp;&nbsp;monthly&nbsp;&nbsp; | &nbsp;&nbsp;$36.28&nbsp;&nbsp; | &nbsp;&nbsp;$139.47&nbsp;&nbsp; |',
      '',
      '```',
      '| a | b |',
      '```',
      '| &nbsp;&nbsp;x \\| y&nbsp;&nbsp; | &nbsp;&nbsp;z&nbsp;&nbsp; |',
    ].join('\n'),
  );
});
