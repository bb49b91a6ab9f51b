/**
 * The status bar item's content for the active runway: text, colour and tooltip from a
 * `runway/costs` answer. Pure: the extension maps `level` to theme colours.
 */
import type { CostsResult, EnvironmentCost } from './protocol';
import { escapeMarkdown, usd, usdWhole } from './format';

/** At or above this share of the cap the item turns to the warning colour. */
export const NEAR_PERCENT = 80;

export type Level = 'ok' | 'near' | 'over' | 'none';

export interface StatusView {
  text: string;
  level: Level;
  /** Markdown. */
  tooltip: string;
  environment: string | null;
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

/** `$122 / $150`; cents when whole dollars would hide the difference from the cap. */
export function amountText(env: EnvironmentCost): string {
  const prefix = env.missing_prices ? '≥' : '';
  const cap = env.cap_monthly_usd;
  if (cap == null) return `${prefix}${usdWhole(env.total_monthly_usd)} (no cap)`;
  let total = usdWhole(env.total_monthly_usd);
  let capText = usdWhole(cap);
  if (total === capText && env.total_monthly_usd !== cap) {
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

export function statusView(costs: CostsResult | undefined, wanted?: string | null): StatusView {
  const env = costs ? selectEnvironment(costs, wanted) : undefined;
  if (!costs || !env) {
    return {
      text: '$(graph) runway: no plan',
      level: 'none',
      tooltip: 'No plan for this runway yet: see the Problems panel.',
      environment: null,
    };
  }
  return {
    text: `$(graph) ${env.name} ${amountText(env)}`,
    level: levelOf(env),
    tooltip: tooltipMarkdown(costs, env.name),
    environment: env.name,
  };
}

const VERDICT_TEXT: Record<string, string> = { ok: 'ok', 'over-cap': 'over cap: refused', 'no-cap': 'no cap' };

/** A Markdown table of every environment; the selected one in bold. */
export function tooltipMarkdown(costs: CostsResult, selected: string | null): string {
  const title = costs.product ? `**${escapeMarkdown(costs.product)}**: monthly estimate per environment` : 'Monthly estimate per environment';
  const rows = costs.environments.map((e) => {
    const name = e.name === selected ? `**${escapeMarkdown(e.name)}**` : escapeMarkdown(e.name);
    const pct = percentOf(e);
    const total = (e.missing_prices ? '≥' : '') + usd(e.total_monthly_usd);
    const cap = e.cap_monthly_usd == null ? '—' : usd(e.cap_monthly_usd);
    const share = pct == null ? '—' : `${Math.round(pct)}%`;
    const verdict = VERDICT_TEXT[e.verdict] ?? escapeMarkdown(e.verdict);
    return `| ${name} | ${escapeMarkdown(total)} | ${escapeMarkdown(cap)} | ${share} | ${verdict} |`;
  });
  return [
    title,
    '',
    '| environment | estimate | cap | share | verdict |',
    '|---|---:|---:|---:|---|',
    ...rows,
    '',
    'Click to select the environment; **Runway: Show Plan** for the details.',
  ].join('\n');
}
