/**
 * The runway language server's custom messages (docs/protocol.md in the repository).
 * Pure types and names: no `vscode` import.
 */

/** Request `runway/costs`: every environment's total against its cap, for the group of `uri`. */
export const COSTS = 'runway/costs';
/** Request `runway/plan`: the plan JSON (`runway-deploy plan --format json`) of every environment. */
export const PLAN = 'runway/plan';
/** Notification `runway/costsChanged` (server to client) after a group's costs changed. */
export const COSTS_CHANGED = 'runway/costsChanged';
/** `initializationOptions` that opt in to `runway/costsChanged` (the server sends it to no other client). */
export const INITIALIZATION_OPTIONS = { runwayCostNotifications: true } as const;

export interface CostsParams {
  uri: string;
  environment?: string | null;
}

export type Verdict = 'ok' | 'over-cap' | 'no-cap' | string;

export interface EnvironmentCost {
  name: string;
  /** USD per month. */
  total_monthly_usd: number;
  /** USD per month; null: no cap. */
  cap_monthly_usd: number | null;
  verdict: Verdict;
  /** Whole percentage of the cap (half up); null without a cap. */
  percent: number | null;
  /** A unit price is missing for the region: the total is a lower bound. */
  missing_prices?: boolean;
}

export interface CostsResult {
  uri?: string | null;
  root_uri?: string | null;
  product?: string | null;
  environments: EnvironmentCost[];
  /** The selected environment (the request's, else the setting's, else the first). */
  environment: string | null;
  /** False when errors may drop items or a price is missing: every total is a lower bound. */
  complete?: boolean;
  /** Error diagnostics of the group that may drop items from the plan. */
  errors?: number;
  /** Items whose size is being fixed: they keep their last complete cost in the totals. */
  editing?: string[];
}

export interface CostsChangedParams {
  /** The group's root runway. */
  uri: string;
  /** Every file of the group. */
  uris?: string[];
}

export interface LineItem {
  description: string;
  quantity: number;
  unit: string;
  unit_usd: number;
  monthly_usd: number;
  source: string;
  confidence: string;
  price_key: string;
  /** Where the quantity came from: `usage file L12`, `catalogue assumption` or `runway size`. */
  quantity_source?: string;
}

export interface PlanItem {
  name: string;
  kind: string;
  size: string | null;
  implicit: boolean;
  origin: string;
  monthly_usd: number;
  line_items: LineItem[];
  consumers: string[];
  missing_prices: string[];
  notes?: string[];
}

export interface EnvironmentPlan {
  name: string;
  cap_monthly_usd: number | null;
  cap_source: string;
  total_monthly_usd: number;
  verdict: Verdict;
  /** USD per month of the total resting on each price confidence (sums to the total). */
  price_confidence?: Record<string, number>;
  missing_prices: string[];
  notes: string[];
  items: PlanItem[];
}

export interface PlanResult {
  format_version?: number;
  product: string | null;
  region: string | null;
  catalog?: string;
  environments: EnvironmentPlan[];
  environment: string | null;
  uri?: string | null;
  root_uri?: string | null;
  uris?: string[];
  diagnostics?: { error: number; warning: number; information: number; hint: number };
  /** Items whose size is being fixed: they keep their last complete cost (and size). */
  editing?: string[];
}
