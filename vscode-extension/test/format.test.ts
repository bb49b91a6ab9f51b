import assert from 'node:assert/strict';
import { test } from 'node:test';
import { escapeHtml, escapeMarkdown, usd, usdWhole } from '../src/format';

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
