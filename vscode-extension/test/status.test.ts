import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { CostsResult, EnvironmentCost, PlanResult } from '../src/protocol';
import { accessibilityLabel, amountText, costsOfPlan, levelOf, NEAR_PERCENT, notRunningView, selectEnvironment, statusView, tooltipMarkdown } from '../src/status';

const env = (name: string, total: number, cap: number | null, verdict = 'ok', percent: number | null = cap ? Math.round((total * 100) / cap) : null): EnvironmentCost => ({
  name,
  total_monthly_usd: total,
  cap_monthly_usd: cap,
  verdict,
  percent,
});

const orders: CostsResult = {
  product: 'orders',
  environment: 'dev',
  environments: [env('dev', 126.88, 150, 'ok', 85), env('staging', 258.11, 500, 'ok', 52), env('production', 828.03, 2500, 'ok', 33)],
};

test('the status text of the selected environment, whole dollars', () => {
  const view = statusView(orders, null);
  assert.equal(view.text, '$(graph) dev $127 / $150');
  assert.equal(view.environment, 'dev');
  assert.equal(view.level, 'near'); // 85% of the cap
  assert.equal(statusView(orders, 'production').text, '$(graph) production $828 / $2,500');
  assert.equal(statusView(orders, 'production').level, 'ok');
});

test('an unknown wanted environment falls back to the server choice, then the first', () => {
  assert.equal(selectEnvironment(orders, 'qa')?.name, 'dev');
  assert.equal(selectEnvironment({ ...orders, environment: 'staging' }, 'qa')?.name, 'staging');
  assert.equal(selectEnvironment({ ...orders, environment: null }, undefined)?.name, 'dev');
});

test('colour thresholds: near from 80%, over above the cap or when refused', () => {
  assert.equal(NEAR_PERCENT, 80);
  assert.equal(levelOf(env('dev', 119.99, 150, 'ok', 80)), 'near');
  assert.equal(levelOf(env('dev', 118.49, 150, 'ok', 79)), 'ok');
  assert.equal(levelOf(env('dev', 150, 150, 'ok', 100)), 'near'); // at the cap is allowed
  assert.equal(levelOf(env('dev', 150.01, 150, 'ok', 100)), 'over'); // the percent rounds, the amounts do not
  assert.equal(levelOf(env('dev', 180, 150, 'over-cap', 120)), 'over');
  assert.equal(levelOf(env('production', 900, null, 'no-cap', null)), 'none');
  assert.equal(levelOf(env('dev', 120, 150, 'ok', null)), 'near'); // computed when the server sends none
});

test('amounts: cents when whole dollars would hide an excess, no cap, lower bounds', () => {
  assert.equal(amountText(env('dev', 150.4, 150)), '$150.40 / $150.00');
  assert.equal(amountText(env('prod', 1234.5, null, 'no-cap')), '$1,235 (no cap)');
  assert.equal(amountText({ ...env('dev', 12, 150), missing_prices: true }), '≥ $12 / $150');
  assert.equal(amountText(env('dev', 86, 150), true), '≥ $86 / $150');
  assert.equal(amountText(env('dev', 100, 150.5)), '$100 / $150.50');
});

test('no plan: a neutral item', () => {
  const view = statusView({ environments: [], environment: null }, 'dev');
  assert.equal(view.level, 'none');
  assert.match(view.text, /no plan/);
  assert.equal(statusView(undefined).environment, null);
});

test('the tooltip lists every environment, the selected one in bold, text escaped', () => {
  const md = tooltipMarkdown(orders, 'staging');
  assert.match(md, /\| dev \| \$126\\\.88 \| \$150 \| 85% \| ok \|/); // cents like the lens; the cap as the lens writes it
  assert.match(md, /\|:---\|---:\|---:\|---:\|:---\|/);
  assert.match(md, /\| \*\*staging\*\* \|/);
  assert.match(md, /production/);
  assert.match(tooltipMarkdown({ ...orders, product: 'a|b' }, null), /a\\\|b/);
});

test('an incomplete estimate: a lower bound, a warning marker and why', () => {
  const view = statusView({ ...orders, complete: false, errors: 1 }, 'dev');
  assert.equal(view.text, '$(warning) dev ≥ $127 / $150');
  assert.match(view.tooltip, /Estimate incomplete\*\*: 1 error: items may be missing/);
  assert.match(view.tooltip, /\| \*\*dev\*\* \| ≥ \$126\\\.88 \|/);
  assert.equal(view.label, 'Runway: dev ≥ $127 / $150 (estimate incomplete)');
  assert.match(statusView({ ...orders, complete: false, errors: 2 }, 'dev').tooltip, /2 errors/);
  const missing = statusView({ ...orders, complete: false, errors: 0, environments: [{ ...orders.environments[0], missing_prices: true }] }, 'dev');
  assert.match(missing.tooltip, /no unit price/);
  assert.equal(statusView({ ...orders, complete: true, errors: 0 }, 'dev').text, '$(graph) dev $127 / $150');
});

test('a YAML syntax error keeps the last good figure, marked stale', () => {
  const broken: CostsResult = { environments: [], environment: null, complete: false, errors: 1 };
  const view = statusView(broken, 'dev', orders);
  assert.equal(view.text, '$(graph) dev $127 / $150 (stale)');
  assert.equal(view.level, 'near');
  assert.match(view.tooltip, /Stale/);
  assert.equal(view.label, 'Runway: dev $127 / $150 (stale)');
  assert.match(statusView(broken, 'dev').text, /no plan/); // nothing good yet
});

test('server not running: says so and where to look; the label follows the text', () => {
  const view = notRunningView(true);
  assert.equal(view.text, '$(error) runway: server not running');
  assert.match(view.tooltip, /The runway server is not running — see the Runway output/);
  assert.equal(view.label, 'Runway: runway: server not running');
  assert.equal(accessibilityLabel('$(loading~spin) runway: starting'), 'Runway: runway: starting');
});

test('a size being fixed: the last complete figure stays, marked editing, not a lower bound', () => {
  // The server's answer while `size: smal` is typed (docs/protocol.md `editing`).
  const editing: CostsResult = { ...orders, complete: true, errors: 0, editing: ['pdf-renderer'] };
  const view = statusView(editing, 'dev');
  assert.equal(view.text, '$(edit) dev $127 / $150 (editing)');
  assert.equal(view.label, 'Runway: dev $127 / $150 (editing)');
  assert.match(view.tooltip, /\*\*Editing\*\*: pdf\\-renderer keeps its last complete cost while the size is typed/);
  assert.doesNotMatch(view.tooltip, /incomplete/);
  // The figure is the one before and after the keystrokes: only the marker comes and goes.
  const figure = (t: string) => t.match(/\$[\d,.]+/)?.[0];
  assert.equal(figure(view.text), figure(statusView(orders, 'dev').text));
});

test('a kept plan restored after a reload: stale, with its lower-bound warning, never "no plan"', () => {
  // The plan view's kept plan had lost the database: an error (RW130) that dropped an item.
  const kept: PlanResult = {
    product: 'orders',
    region: 'eu-west-1',
    environment: 'dev',
    uri: 'file:///w/runway.yaml',
    root_uri: 'file:///w/runway.yaml',
    environments: [{ name: 'dev', cap_monthly_usd: 150, cap_source: 'declared', total_monthly_usd: 98.71, verdict: 'ok', missing_prices: [], notes: [], items: [] }],
    diagnostics: { error: 1, warning: 0, information: 0, hint: 0 },
  };
  const broken: CostsResult = { environments: [], environment: null, complete: false, errors: 1 };
  const view = statusView(broken, 'dev', costsOfPlan(kept));
  assert.equal(view.text, '$(graph) dev ≥ $99 / $150 (stale)');
  assert.match(view.tooltip, /\*\*Stale\*\*/);
  assert.match(view.tooltip, /\*\*Estimate incomplete\*\*: 1 error: items may be missing from the plan/);
  assert.doesNotMatch(view.text, /no plan/);
});
