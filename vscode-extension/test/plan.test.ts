import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';
import { chartSvg, colourOf, niceCeiling, PALETTE, percentScale } from '../src/chart';
import { contentSecurityPolicy, planBody, planDocument } from '../src/planHtml';
import { hasPlan, planView, staleText } from '../src/planModel';
import type { PlanResult } from '../src/protocol';

// The runway/plan answer for examples/orders (runway-deploy plan --format json, line items trimmed).
const fixture = path.join(__dirname, '..', '..', 'test', 'fixtures', 'orders-plan.json');
const orders = JSON.parse(readFileSync(fixture, 'utf8')) as PlanResult;

test('plan -> tables: one per environment, rows in plan order, totals add up', () => {
  const view = planView(orders, 'staging');
  assert.equal(view.product, 'orders');
  assert.deepEqual(
    view.environments.map((e) => [e.name, e.total, e.cap, e.percent, e.level, e.selected]),
    [
      ['dev', 126.88, 150, 85, 'near', false],
      ['staging', 258.11, 500, 52, 'ok', true],
      ['production', 828.03, 2500, 33, 'ok', false],
    ],
  );
  for (const env of view.environments) {
    const sum = env.rows.reduce((s, r) => s + r.monthly, 0);
    assert.equal(Math.round(sum * 100) / 100, env.total);
  }
  assert.equal(view.items[0], 'main-db');
  assert.ok(view.items.includes('shared-cache'));
  assert.equal(view.errors, 1);
  assert.equal(new Set(view.items).size, view.items.length);
});

test('the selected environment falls back to the answer, then the first', () => {
  assert.equal(planView(orders, 'qa').environments.find((e) => e.selected)?.name, 'dev');
  assert.equal(planView({ ...orders, environment: null }, null).environments.find((e) => e.selected)?.name, 'dev');
});

test('the chart: one bar per environment, stacked by item, a cap marker each, a legend', () => {
  const view = planView(orders, 'dev');
  const svg = chartSvg(view, { width: 760 });
  assert.match(svg, /^<svg xmlns="http:\/\/www.w3.org\/2000\/svg"/);
  assert.equal((svg.match(/<g class="env /g) ?? []).length, 3);
  assert.equal((svg.match(/class="cap"/g) ?? []).length, 3);
  const segments = view.environments.reduce((n, e) => n + e.rows.filter((r) => r.monthly > 0).length, 0);
  assert.equal((svg.match(/class="segment"/g) ?? []).length, segments);
  assert.equal((svg.match(/class="swatch"/g) ?? []).length, view.items.length);
  assert.match(svg, /<title>dev · main-db: \$36\.28\/mo<\/title>/);
  assert.match(svg, /\$126\.88 · 85%/);
  assert.match(svg, /class="env level-near selected"/);
  // The same item has the same colour in every bar.
  const colours = [...svg.matchAll(/fill="(#[0-9a-f]{6})"><title>\w+ · main-db:/g)].map((m) => m[1]);
  assert.equal(colours.length, 3);
  assert.equal(new Set(colours).size, 1);
  // Scale: the largest of totals and caps (2,500) fits.
  const xs = [...svg.matchAll(/<line class="cap" x1="([\d.]+)"/g)].map((m) => Number(m[1]));
  assert.ok(xs.every((x) => x <= 760));
});

test('the chart escapes names and handles no cap and an over-cap bar', () => {
  const plan: PlanResult = {
    product: '<x>',
    region: 'us-east-1',
    environment: 'dev',
    environments: [
      { name: 'dev', cap_monthly_usd: 100, cap_source: 'default', total_monthly_usd: 150, verdict: 'over-cap', missing_prices: [], notes: [], items: [{ name: '<img onerror=1>', kind: 'bucket', size: 'small', implicit: false, origin: 'root', monthly_usd: 150, line_items: [], consumers: [], missing_prices: [] }] },
      { name: 'prod', cap_monthly_usd: null, cap_source: 'none', total_monthly_usd: 0, verdict: 'no-cap', missing_prices: ['x'], notes: [], items: [] },
    ],
  };
  const svg = chartSvg(planView(plan));
  assert.ok(!svg.includes('<img'));
  assert.match(svg, /&lt;img onerror=1&gt;/);
  assert.match(svg, /class="env level-over selected"/);
  assert.match(svg, /≥ \$0\.00 · no cap/);
  assert.equal((svg.match(/class="cap"/g) ?? []).length, 1);
});

test('nice axis ceilings', () => {
  assert.equal(niceCeiling(2550), 3000);
  assert.equal(niceCeiling(2450), 2500);
  assert.equal(niceCeiling(153), 200);
  assert.equal(niceCeiling(121), 150);
  assert.equal(niceCeiling(0.7), 0.8);
  assert.equal(niceCeiling(0), 1);
  assert.equal(colourOf(PALETTE.length), PALETTE[0]);
});

test('the document: strict CSP with a nonce, no remote resources, the body inside', () => {
  const html = planDocument(planView(orders, 'dev'), { cspSource: 'https://webview.test', nonce: 'abc123' });
  const csp = contentSecurityPolicy('https://webview.test', 'abc123');
  assert.match(csp, /^default-src 'none'; /);
  assert.match(csp, /style-src https:\/\/webview\.test 'nonce-abc123'/);
  assert.match(csp, /script-src 'nonce-abc123'/);
  assert.ok(!/unsafe-inline|unsafe-eval/.test(csp));
  assert.ok(html.includes(`content="default-src &#39;none&#39;;`));
  assert.match(html, /<style nonce="abc123">/);
  assert.match(html, /<script nonce="abc123">/);
  assert.equal((html.match(/<script/g) ?? []).length, 1);
  assert.ok(!/\sstyle="/.test(html)); // inline style attributes would be blocked by the CSP
  assert.ok(!/(src|href)="https?:/.test(html));
  assert.ok(!/\son[a-z]+="/.test(html)); // no inline event handlers
  assert.equal((html.match(/<table class="plan">/g) ?? []).length, 1);
  assert.equal((html.match(/<th scope="col" class="env-head/g) ?? []).length, 3);
  // The webview state for the serializer, escaped into an attribute (no inline script data).
  const withState = planDocument(planView(orders, 'dev'), { cspSource: 'x', nonce: 'n', state: { uri: 'file:///w/runway.yaml' } });
  assert.match(withState, /<main id="app" data-state="\{&quot;uri&quot;:&quot;file:\/\/\/w\/runway\.yaml&quot;\}">/);
});

test('every environment side by side: one row per item, a size and a cost per environment', () => {
  const view = planView(orders, 'dev');
  assert.equal(view.comparison.length, view.items.length);
  const mainDb = view.comparison.find((r) => r.name === 'main-db');
  assert.deepEqual(
    mainDb?.cells.map((c) => [c?.size, c?.monthly]),
    [
      ['small', 36.28],
      ['medium', 139.47],
      ['large', 325.81],
    ],
  );
  assert.ok(mainDb?.consumers.includes('checkout'));
  const body = planBody(view);
  assert.match(
    body,
    /<tr class="item-row" data-item="main-db"><th scope="row" class="item" title="used by [^"]*"><span class="name"><button type="button" class="disclose" aria-expanded="false" aria-controls="items-\d+" aria-label="Line items of main-db"><span aria-hidden="true">▸<\/span><\/button><button type="button" class="open" data-item="main-db" title="Open main-db in its runway">main-db<\/button><\/span> <span class="kind">postgres<\/span><\/th><td class="cell" data-env="dev"><span class="size">small<\/span> <span class="num">\$36\.28<\/span><\/td>/,
  );
  // Its line items, hidden until the row is expanded: what the figure is made of, per environment.
  const detail = /<tr class="detail" id="items-\d+" hidden><td colspan="4">(.*?)<\/td><\/tr>/.exec(body.slice(body.indexOf('data-item="main-db"')))?.[1] ?? '';
  assert.match(detail, /<h3>dev<\/h3><ul><li>[^<]+: [\d.]+ [^<]+ × \$[\d.,]+ = <span class="num">\$[\d.,]+<\/span><\/li>/);
  assert.equal((detail.match(/<h3>/g) ?? []).length, 3);
  assert.match(body, /class="num level-near" data-env="dev">\$126\.88</);
  assert.match(body, /\$2,500 · 33%/); // the cap as the lenses write it
  assert.match(body, /catalogue: packaged default/);
  assert.match(body, /1 error in the runway/);
  // Notes shared by every environment are listed once, without environment names.
  const notes = /<ul class="notes">(.*?)<\/ul>/.exec(body)?.[1].match(/<li>/g) ?? [];
  assert.equal(notes.length, view.notes.length);
  assert.ok(view.notes.every((n) => n.environments.length >= 1));
});

test('the body without a plan explains why', () => {
  assert.match(planBody(planView({ product: null, region: null, environments: [], environment: null, diagnostics: { error: 2, warning: 0, information: 0, hint: 0 } })), /has 2 errors:/);
  assert.match(planBody(planView({ product: null, region: null, environments: [], environment: null })), /No plan/);
  const down = planBody(planView({ product: null, region: null, environments: [], environment: null }, null, false));
  assert.match(down, /the runway server is not running — see the Runway output/);
  assert.doesNotMatch(down, /No plan|No runway/);
});

test('the chart: each environment against its own cap, percent scale, responsive, readable', () => {
  const view = planView(orders, 'dev');
  assert.equal(percentScale(view), 100); // every environment is under its cap
  const svg = chartSvg(view);
  assert.match(svg, /viewBox="0 0 680 \d+" width="100%"/);
  assert.doesNotMatch(svg.slice(0, svg.indexOf('>')), / height=/); // the height follows the width
  // One cap line per environment, all at 100 %: the same x.
  const caps = [...svg.matchAll(/<line class="cap" x1="([\d.]+)"/g)].map((m) => m[1]);
  assert.equal(new Set(caps).size, 1);
  assert.match(svg, /\$258\.11 · 52% of \$500/);
  // Fonts: 14 units in a 680-unit viewBox at the CSS min-width (600 px) is over 12 px.
  const sizes = [...svg.matchAll(/font-size="(\d+)"/g)].map((m) => Number(m[1]));
  assert.ok(sizes.length > 0 && sizes.every((n) => (n * 600) / 680 >= 12));
  // Over the cap: the scale grows to the fullest environment.
  const over = planView({ ...orders, environments: orders.environments.map((e, i) => (i === 0 ? { ...e, total_monthly_usd: 180 } : e)) }, 'dev');
  assert.equal(percentScale(over), 120);
  assert.match(chartSvg(over), />120%</);
});

test('the last good plan under a stale banner: where the syntax error is, the figures kept', () => {
  assert.equal(
    staleText({ code: 'RW001', file: 'runway.yaml', line: 12, column: 5 }, 1, 'runway.yaml'),
    'stale: the runway has a syntax error at 12:5. Showing the last good plan.',
  );
  assert.equal(
    staleText({ code: 'RW001', file: 'services/api/runway.yaml', line: 3, column: 1 }, 1, 'runway.yaml'),
    'stale: the runway has a syntax error at services/api/runway.yaml 3:1. Showing the last good plan.',
  );
  assert.match(staleText(null, 2, 'runway.yaml'), /2 errors and no plan now/);
  const body = planBody(planView(orders, 'dev', true, 'stale: the runway has a syntax error at 12:5. Showing the last good plan.'));
  assert.match(body, /^<p class="stale" role="status">stale: the runway has a syntax error at 12:5\./);
  assert.match(body, /<div class="kept">/);
  assert.match(body, /\$36\.28/);
  assert.doesNotMatch(body, /in the runway \(see the Problems panel\)/); // the banner says it once
  assert.ok(hasPlan(orders));
  assert.ok(!hasPlan({ product: null, region: null, environments: [], environment: null }));
  assert.ok(!hasPlan(undefined));
});

test('narrow widths: a meter per environment instead of the chart, every cell labelled with its environment', () => {
  const html = planDocument(planView(orders, 'dev'), { cspSource: 'x', nonce: 'n' });
  assert.match(html, /@media \(max-width: 599px\)/);
  assert.match(html, /td\[data-env\]::before \{ content: attr\(data-env\)/);
  assert.equal((html.match(/<meter /g) ?? []).length, 3);
  assert.match(html, /<meter min="0" max="100" low="80" high="100" optimum="0" value="85">85%<\/meter><span class="num">\$126\.88 · 85% of \$150<\/span>/);
  // Keyboard: every control is a button (focusable, Enter/Space), environment buttons say which is pressed.
  assert.match(html, /<button type="button" class="pick" data-env="dev" aria-pressed="true"/);
  assert.match(html, /button:focus-visible/);
});

test('a size being fixed: the banner and the row say editing; the cost shown is the last complete one', () => {
  const editing: PlanResult = { ...orders, editing: [orders.environments[0].items[0].name] };
  const view = planView(editing, 'dev');
  assert.deepEqual(view.editing, [orders.environments[0].items[0].name]);
  const body = planBody(view);
  assert.match(body, new RegExp(`^<p class="stale editing" role="status">editing: ${orders.environments[0].items[0].name} keeps its last complete cost while the size is typed\\.</p>`));
  assert.match(body, /<tr class="item-row editing"/);
  assert.doesNotMatch(planBody(planView(orders, 'dev')), /editing/);
});

test('a kept plan computed with errors keeps its lower-bound warning under the stale banner', () => {
  const lost: PlanResult = { ...orders, diagnostics: { error: 1, warning: 0, information: 0, hint: 0 } };
  const body = planBody(planView(lost, 'dev', true, 'stale: the runway has a syntax error at 12:5. Showing the last good plan.'));
  assert.match(body, /^<p class="stale" role="status">stale:/);
  assert.match(body, /The plan shown was computed with 1 error: an error that drops an item makes its totals lower bounds\./);
});

test('each total says what it rests on: price confidence per environment, usage lines named', () => {
  const env = orders.environments[0];
  const withShares: PlanResult = {
    ...orders,
    environments: [{
      ...env,
      price_confidence: { 'price-list': 100.5, 'aws-static': 0, secondary: 20, derived: 6.38, unverified: 0 },
      items: env.items.map((i, n) => (n === 0 ? { ...i, line_items: [{ description: 'SQS Standard requests, 400 M', quantity: 400, unit: '1M requests', unit_usd: 0.4, monthly_usd: 160, source: 's', confidence: 'secondary', price_key: 'sqs:standard', quantity_source: 'usage file L6' }] } : i)),
    }],
  };
  const view = planView(withShares, 'dev');
  assert.deepEqual(view.environments[0].priceConfidence, [
    { confidence: 'price-list', usd: 100.5 }, { confidence: 'secondary', usd: 20 }, { confidence: 'derived', usd: 6.38 },
  ]);
  const html = planBody(view);
  assert.match(html, /<th scope="row">prices<\/th><td class="num prices" data-env="dev">\$100\.50 <span class="nw">price-list<\/span><br>\$20\.00 <span class="nw">secondary<\/span><br>\$6\.38 <span class="nw">derived<\/span><\/td>/);
  assert.match(html, /<span class="origin">\(usage file L6\)<\/span>/);
});

/** The rules of the document's stylesheet inside `@media (<query>)`, or outside every @media block. */
function cssBlock(css: string, query: string | null): string {
  if (query === null) return css.replace(/@media[^{]*\{(?:[^{}]*\{[^{}]*\})*[^{}]*\}/g, '');
  const start = css.indexOf(`@media (${query}) {`);
  assert.ok(start >= 0, `no @media (${query})`);
  let depth = 0;
  for (let i = css.indexOf('{', start); i < css.length; i++) {
    if (css[i] === '{') depth++;
    if (css[i] === '}' && --depth === 0) return css.slice(start, i + 1);
  }
  throw new Error('unbalanced css');
}

test('the table fits the default split (~750 px) and any width from 600 px: cells wrap to their pieces, the item column sticks', () => {
  // Issue 26: in the default split of a 1,600 px window the production column was cut off
  // (the table was max-content wide, every cell nowrap). The widths these rules give were
  // measured in Chromium (3 environments: 500 px wide from 600 to 959 px; 5 fit from 600 px;
  // 8 scroll under 750 px) and the E2E checks each column's right edge at ~750 px.
  const html = planDocument(planView(orders, 'dev'), { cspSource: 'x', nonce: 'n' });
  const css = /<style nonce="n">([\s\S]*?)<\/style>/.exec(html)?.[1] ?? '';
  const base = cssBlock(css, null);
  // As wide as it needs up to the view, never forced to its max-content width.
  assert.match(base, /table\.plan \{ border-collapse: collapse; width: auto; max-width: 100%; \}/);
  assert.doesNotMatch(css, /width: max-content/);
  // Many environments: the wrapper scrolls, the item column (head, rows, footer) stays put.
  assert.match(base, /\.table-wrap \{ overflow-x: auto;/);
  assert.match(base, /table\.plan th\.item, table\.plan thead th:first-child, table\.plan tfoot th \{ position: sticky; left: 0;[^}]*background: var\(--vscode-editor-background\)/);
  // The table layout (600 px and up): a cell breaks between its size and its cost, a footer
  // cell between its words (a cap and its percent); a size, a figure, a price confidence never.
  const table = cssBlock(css, 'min-width: 600px');
  assert.match(table, /td\.cell, tfoot td\.num \{ white-space: normal; \}/);
  assert.match(table, /td\.cell \.size, td\.cell \.num, tfoot td \.nw \{ white-space: nowrap; \}/);
  // An item's name wraps beside its ▸ and star (one flex line), never under the ▸.
  assert.match(table, /th\.item \.name \{ display: inline-flex;/);
  assert.match(table, /th\.item button\.open \{ min-width: 0; white-space: normal; overflow-wrap: anywhere; \}/);
  // 600 to 959 px (a split editor): smaller padding, the kind under the name.
  const compact = cssBlock(css, 'min-width: 600px) and (max-width: 959px');
  assert.match(compact, /th, td \{ padding: 3px 5px; \}/);
  assert.match(compact, /th\.item \.kind \{ display: block;/);
  // The 320 px layout is unchanged: one block per item, each cell labelled.
  assert.match(cssBlock(css, 'max-width: 599px'), /table\.plan thead \{ display: none; \}/);
  // The markup those rules need: the name group, each size and cost in its own span, the
  // confidences unbreakable, every environment's cells labelled.
  const body = planBody(planView(orders, 'dev'));
  assert.equal((body.match(/<span class="name"><button type="button" class="disclose"/g) ?? []).length, orders.environments[0].items.length);
  assert.match(body, /<td class="cell" data-env="production"><span class="size">large<\/span> <span class="num">\$325\.81<\/span><\/td>/);
  assert.match(body, /<span class="name">[^]*?<button type="button" class="open" data-item="alb"[^>]*>alb<\/button><span class="star">\*<\/span><\/span>/);
});
