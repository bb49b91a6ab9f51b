/**
 * The status bar item's content for the active runway: text, colour and tooltip from a
 * `runway/costs` answer. Pure: the extension maps `level` to theme colours.
 */
import type { CostsResult, EnvironmentCost, PlanResult } from './protocol';
import { capUsd, escapeMarkdown, plural, usd, usdWhole } from './format';

/** At or above this share of the cap the item turns to the warning colour. */
export const NEAR_PERCENT = 80;

export type Level = 'ok' | 'near' | 'over' | 'none';

export interface StatusView {
  text: string;
  level: Level;
  /** Markdown. */
  tooltip: string;
  environment: string | null;
  /** The accessibility label: the text's words without icons. */
  label: string;
}

/** The share of the cap as a number (the server's whole percent, else computed). */
export function percentOf(env: EnvironmentCost): number | null {
  if (typeof env.percent === 'number') return env.percent;
  if (env.cap_monthly_usd == null || env.cap_monthly_usd <= 0) return null;
  return (env.total_monthly_usd * 100) / env.cap_monthly_usd;
}

/** `over` when the plan is refused (over its cap), `near` from {@link NEAR_PERCENT}%. */
export function levelOf(env: EnvironmentCost): Level {
  if (env.verdict === 'over-cap') return 'over';
  const pct = percentOf(env);
  if (pct == null) return 'none';
  if (pct > 100 || (env.cap_monthly_usd != null && env.total_monthly_usd > env.cap_monthly_usd)) return 'over';
  if (pct >= NEAR_PERCENT) return 'near';
  return 'ok';
}

/** `$122 / $150`; cents when whole dollars would hide the difference from the cap; `≥ ` for a lower bound. */
export function amountText(env: EnvironmentCost, incomplete = false): string {
  const prefix = env.missing_prices || incomplete ? '≥ ' : '';
  const cap = env.cap_monthly_usd;
  if (cap == null) return `${prefix}${usdWhole(env.total_monthly_usd)} (no cap)`;
  let total = usdWhole(env.total_monthly_usd);
  let capText = capUsd(cap);
  if (usdWhole(env.total_monthly_usd) === usdWhole(cap) && env.total_monthly_usd !== cap) {
    total = usd(env.total_monthly_usd);
    capText = usd(cap);
  }
  return `${prefix}${total} / ${capText}`;
}

/** The environment to show: `wanted` when the runway has it, else the server's choice, else the first. */
export function selectEnvironment(costs: CostsResult, wanted: string | null | undefined): EnvironmentCost | undefined {
  const envs = costs.environments ?? [];
  return envs.find((e) => e.name === wanted) ?? envs.find((e) => e.name === costs.environment) ?? envs[0];
}

/** What the status bar, Show Plan and Select Environment say while the server is not running. */
export const NOT_RUNNING = 'the runway server is not running — see the Runway output';

/** The screen reader label of a status text: the same words without the icons. */
export function accessibilityLabel(text: string): string {
  return `Runway: ${text.replace(/\$\([a-z-]+(~spin)?\)\s*/g, '').trim()}`;
}

/** Why a total is a lower bound, as tooltip lines (none when the estimate is whole). */
export function incompleteReasons(costs: CostsResult, env: EnvironmentCost): string[] {
  const out: string[] = [];
  const errors = costs.errors ?? 0;
  if (errors > 0) out.push(`${plural(errors, 'error')}: items may be missing from the plan (see the Problems panel)`);
  else if (costs.complete === false && !costs.environments.some((e) => e.missing_prices)) out.push('the plan may be missing items (see the Problems panel)');
  if (costs.environments.some((e) => e.missing_prices)) out.push(`no unit price for some items in the region (RW161)${env.missing_prices ? '' : ' in another environment'}`);
  return out;
}

/** What every view says of items that keep their last complete cost while their size is typed. */
export function editingText(names: string[]): string {
  const list = names.join(', ');
  return `editing: ${list} ${names.length === 1 ? 'keeps its' : 'keep their'} last complete cost while the size is typed`;
}

/** What every view says over a kept plan (a YAML syntax error, or errors that leave no plan). */
export const STALE_TEXT = 'stale: the runway has no plan right now (a YAML syntax error?), so this is the last estimate. See the Problems panel.';

/**
 * The `runway/costs` shape of a `runway/plan` answer: what the status bar shows of the plan
 * view's kept plan (restored after a reload) before it has one of its own. `complete` is false
 * when the plan had errors (they may have dropped items) or a missing price.
 */
export function costsOfPlan(plan: PlanResult): CostsResult {
  const errors = plan.diagnostics?.error ?? 0;
  const environments = plan.environments.map((e) => ({
    name: e.name,
    total_monthly_usd: e.total_monthly_usd,
    cap_monthly_usd: e.cap_monthly_usd,
    verdict: e.verdict,
    percent: null,
    missing_prices: (e.missing_prices ?? []).length > 0,
  }));
  return {
    uri: plan.uri,
    root_uri: plan.root_uri,
    product: plan.product,
    environments,
    environment: plan.environment,
    errors,
    complete: errors === 0 && !environments.some((e) => e.missing_prices),
    editing: plan.editing ?? [],
  };
}

/**
 * The status bar of a `runway/costs` answer. `lastGood` is the last answer with a plan for the
 * same runway: while the runway has none (a YAML syntax error) its figure stays, marked stale.
 */
export function statusView(costs: CostsResult | undefined, wanted?: string | null, lastGood?: CostsResult): StatusView {
  const env = costs ? selectEnvironment(costs, wanted) : undefined;
  if (!costs || !env) {
    const good = lastGood ? selectEnvironment(lastGood, wanted) : undefined;
    if (lastGood && good) {
      const text = `$(graph) ${good.name} ${amountText(good, lastGood.complete === false)} (stale)`;
      return {
        text,
        level: levelOf(good),
        tooltip: [
          `$(warning) **Stale**: ${escapeMarkdown(STALE_TEXT.replace(/^stale: /, ''))}`,
          '',
          ...(lastGood.complete === false ? [`$(warning) **Estimate incomplete**: ${incompleteReasons(lastGood, good).join('; ') || 'the plan may be missing items'}.`, ''] : []),
          tooltipMarkdown(lastGood, good.name),
        ].join('\n'),
        environment: good.name,
        label: accessibilityLabel(text),
      };
    }
    const text = '$(graph) runway: no plan';
    return { text, level: 'none', tooltip: 'No plan for this runway yet: see the Problems panel.', environment: null, label: accessibilityLabel(text) };
  }
  const reasons = incompleteReasons(costs, env);
  const incomplete = costs.complete === false || reasons.length > 0;
  const editing = costs.editing ?? [];
  // While a size is typed the figure stays the last complete one: marked, not changed.
  const text = `${incomplete ? '$(warning)' : editing.length ? '$(edit)' : '$(graph)'} ${env.name} ${amountText(env, incomplete)}${editing.length ? ' (editing)' : ''}`;
  const lines = reasons.length ? [`$(warning) **Estimate incomplete**: ${reasons.join('; ')}.`, ''] : [];
  if (editing.length) lines.push(`$(edit) **Editing**: ${escapeMarkdown(editingText(editing).replace(/^editing: /, ''))}.`, '');
  return {
    text,
    level: levelOf(env),
    tooltip: [...lines, tooltipMarkdown(costs, env.name)].join('\n'),
    environment: env.name,
    label: accessibilityLabel(text) + (incomplete ? ' (estimate incomplete)' : ''),
  };
}

/** The status bar while the server is not running (`failed`: it could not start). */
export function notRunningView(failed: boolean): StatusView {
  const text = failed ? '$(error) runway: server not running' : '$(loading~spin) runway: starting';
  return {
    text,
    level: failed ? 'over' : 'none',
    tooltip: failed ? `${capitalise(NOT_RUNNING)}. Click to open it.` : 'The runway language server is starting.',
    environment: null,
    label: accessibilityLabel(text),
  };
}

function capitalise(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}

const VERDICT_TEXT: Record<string, string> = { ok: 'ok', 'over-cap': 'over cap: refused', 'no-cap': 'no cap', unpriced: 'unpriced: refused', invalid: 'invalid: not estimated' };

/** A Markdown table of every environment (totals to the cent, caps as the lenses write them); the selected one in bold. */
export function tooltipMarkdown(costs: CostsResult, selected: string | null): string {
  const title = costs.product ? `**${escapeMarkdown(costs.product)}**: monthly estimate per environment` : 'Monthly estimate per environment';
  const lowerBound = costs.complete === false;
  const rows = costs.environments.map((e) => {
    const name = e.name === selected ? `**${escapeMarkdown(e.name)}**` : escapeMarkdown(e.name);
    const pct = percentOf(e);
    const total = (e.missing_prices || lowerBound ? '≥ ' : '') + usd(e.total_monthly_usd);
    const cap = e.cap_monthly_usd == null ? '—' : capUsd(e.cap_monthly_usd);
    const share = pct == null ? '—' : `${Math.round(pct)}%`;
    const verdict = VERDICT_TEXT[e.verdict] ?? escapeMarkdown(e.verdict);
    return `| ${name} | ${escapeMarkdown(total)} | ${escapeMarkdown(cap)} | ${share} | ${verdict} |`;
  });
  return [
    title,
    '',
    '| environment | monthly | cap | share | verdict |',
    '|:---|---:|---:|---:|:---|',
    ...rows,
    '',
    'Click to select the environment; **Runway: Show Plan** for the details.',
  ].join('\n');
}
