/**
 * The plan view's model: the `runway/plan` answer (the plan JSON of every environment) as
 * tables side by side and the series of the cost chart. Pure.
 */
import type { EnvironmentPlan, LineItem, PlanResult } from './protocol';
import { levelOf, type Level } from './status';

export interface Row {
  name: string;
  kind: string;
  size: string;
  /** USD per month. */
  monthly: number;
  implicit: boolean;
  /** Price keys missing for the region (the amount is a lower bound). */
  missing: boolean;
  consumers: string[];
  /** What the monthly figure is made of (the plan's line items). */
  lineItems: LineItem[];
}

export interface EnvironmentTable {
  name: string;
  rows: Row[];
  /** USD per month. */
  total: number;
  cap: number | null;
  capSource: string;
  percent: number | null;
  verdict: string;
  level: Level;
  selected: boolean;
  missingPrices: boolean;
  notes: string[];
  /** The total's share per price confidence (levels with a share, strongest first), USD per month. */
  priceConfidence: Array<{ confidence: string; usd: number }>;
}

/** One item across every environment (a cell is undefined where the item does not exist). */
export interface ComparisonRow {
  name: string;
  kind: string;
  implicit: boolean;
  consumers: string[];
  cells: Array<Row | undefined>;
}

export interface PlanView {
  product: string;
  region: string;
  catalog: string;
  environments: EnvironmentTable[];
  /** Every item name in first-seen order: the chart's series and colours. */
  items: string[];
  /** The side-by-side table: one row per item, one cell per environment. */
  comparison: ComparisonRow[];
  /** Notes of the environments, each once, with the environments that have it. */
  notes: Array<{ text: string; environments: string[] }>;
  errors: number;
  warnings: number;
  /** False when the server is not running (the view says so instead of "no plan"). */
  serverRunning: boolean;
  /** Set when this is the last good plan, kept while the runway cannot be planned: why. */
  stale: string | null;
  /** Items whose size is being fixed: their last complete cost is shown (the server's `editing`). */
  editing: string[];
}

function capPercent(total: number, cap: number | null): number | null {
  if (cap == null || cap <= 0) return null;
  return Math.floor((total * 100) / cap + 0.5);
}

export function environmentTable(env: EnvironmentPlan, selected: string | null): EnvironmentTable {
  const rows: Row[] = (env.items ?? []).map((i) => ({
    name: i.name,
    kind: i.kind,
    size: i.size ?? '-',
    monthly: i.monthly_usd,
    implicit: !!i.implicit,
    missing: (i.missing_prices ?? []).length > 0,
    consumers: i.consumers ?? [],
    lineItems: i.line_items ?? [],
  }));
  const percent = capPercent(env.total_monthly_usd, env.cap_monthly_usd);
  return {
    name: env.name,
    rows,
    total: env.total_monthly_usd,
    cap: env.cap_monthly_usd,
    capSource: env.cap_source ?? '',
    percent,
    verdict: env.verdict,
    level: levelOf({ name: env.name, total_monthly_usd: env.total_monthly_usd, cap_monthly_usd: env.cap_monthly_usd, verdict: env.verdict, percent }),
    selected: env.name === selected,
    missingPrices: (env.missing_prices ?? []).length > 0,
    notes: env.notes ?? [],
    priceConfidence: Object.entries(env.price_confidence ?? {})
      .filter(([, usd]) => usd > 0)
      .map(([confidence, usd]) => ({ confidence, usd })),
  };
}

export function planView(plan: PlanResult, selected?: string | null, serverRunning = true, stale: string | null = null): PlanView {
  const chosen = selected && plan.environments.some((e) => e.name === selected) ? selected : plan.environment ?? plan.environments[0]?.name ?? null;
  const environments = plan.environments.map((e) => environmentTable(e, chosen));
  const items: string[] = [];
  for (const env of environments) {
    for (const row of env.rows) if (!items.includes(row.name)) items.push(row.name);
  }
  const comparison: ComparisonRow[] = items.map((name) => {
    const cells = environments.map((e) => e.rows.find((r) => r.name === name));
    const first = cells.find((c) => c !== undefined) as Row;
    const consumers = [...new Set(cells.flatMap((c) => c?.consumers ?? []))];
    return { name, kind: first.kind, implicit: first.implicit, consumers, cells };
  });
  const notes: Array<{ text: string; environments: string[] }> = [];
  for (const env of environments) {
    for (const text of env.notes) {
      const known = notes.find((n) => n.text === text);
      if (known) known.environments.push(env.name);
      else notes.push({ text, environments: [env.name] });
    }
  }
  return {
    product: plan.product ?? '',
    region: plan.region ?? '',
    catalog: plan.catalog ?? '',
    environments,
    items,
    comparison,
    notes,
    errors: plan.diagnostics?.error ?? 0,
    warnings: plan.diagnostics?.warning ?? 0,
    serverRunning,
    stale,
    editing: plan.editing ?? [],
  };
}

/** Diagnostic codes of a runway that cannot be read at all (docs/diagnostics.md "Loader codes"). */
export const LOADER_CODES = new Set(['RW001', 'RW003', 'RW004', 'RW005', 'RW006', 'RW009', 'RW010', 'RW011']);

export interface ProblemAt {
  code: string;
  /** The file, as the banner names it (relative to the root's folder). */
  file: string;
  /** 1-based, as the editor's status bar shows it. */
  line: number;
  column: number;
}

/**
 * The banner over a kept plan: `stale: the runway has a syntax error at 12:5` (a member's
 * file named), or, without a loader error, the count of errors that leave no plan.
 */
export function staleText(problem: ProblemAt | null, errors: number, rootFile: string): string {
  if (problem) {
    const where = problem.file && problem.file !== rootFile ? `${problem.file} ${problem.line}:${problem.column}` : `${problem.line}:${problem.column}`;
    const what = problem.code === 'RW001' || problem.code === 'RW006' ? 'a syntax error' : `an error (${problem.code})`;
    return `stale: the runway has ${what} at ${where}. Showing the last good plan.`;
  }
  return `stale: the runway has ${errors === 1 ? '1 error' : `${errors} errors`} and no plan now. Showing the last good plan.`;
}

/** Whether an answer is a plan to show (and to keep as the last good one). */
export function hasPlan(plan: PlanResult | undefined): plan is PlanResult {
  return !!plan && plan.environments.length > 0;
}
