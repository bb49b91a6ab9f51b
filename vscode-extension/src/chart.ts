/**
 * The plan view's bar chart as inline SVG (no library): one horizontal bar per environment,
 * stacked by resource, each against its own cap (a percent scale). Pure; every text escaped.
 */
import { capUsd, escapeHtml, usd } from './format';
import type { PlanView } from './planModel';

/** Categorical colours (one per item, the same in every environment). */
export const PALETTE = ['#4e79a7', '#f28e2b', '#59a14f', '#e15759', '#76b7b2', '#edc948', '#b07aa1', '#ff9da7', '#9c755f', '#bab0ac', '#86bcb6', '#d37295'];

export function colourOf(index: number): string {
  return PALETTE[index % PALETTE.length];
}

export interface ChartOptions {
  width?: number;
  rowHeight?: number;
  labelWidth?: number;
}

/** A round number at or above `value` (1, 1.2, 1.5, 2, 2.5, 3, 4, 5, 6 or 8 times a power of ten) for the axis. */
export function niceCeiling(value: number): number {
  if (!(value > 0)) return 1;
  const power = Math.pow(10, Math.floor(Math.log10(value)));
  for (const step of [1, 1.2, 1.5, 2, 2.5, 3, 4, 5, 6, 8, 10]) {
    if (step * power >= value) return Math.round(step * power * 1e6) / 1e6;
  }
  return 10 * power;
}

function num(x: number): string {
  return String(Math.round(x * 10) / 10);
}

/** Text size in user units: at the default width (680) and the CSS min-width (600 px) at least 12.3 px on screen. */
export const FONT_UNITS = 14;

/**
 * The share scale of the chart in percent of each environment's own cap: 0 to the larger of
 * 100 % and the fullest environment (rounded up to a multiple of 10 %). An environment
 * without a cap is drawn against its own total (a full bar, no cap line).
 */
export function percentScale(view: PlanView): number {
  const shares = view.environments.filter((e) => e.cap != null && e.cap > 0).map((e) => (e.total * 100) / (e.cap as number));
  const top = Math.max(100, ...shares);
  return top <= 100 ? 100 : Math.ceil(top / 10) * 10;
}

/**
 * The SVG of `view`, responsive (viewBox, `width="100%"`): one bar per environment, stacked
 * by item, each drawn against its own cap (percent of the cap, the dashed cap line at 100 %),
 * labelled with the total in dollars and the share. Segments carry a `<title>` (name and
 * monthly cost), bars an `aria-label`; the legend names every item.
 */
export function chartSvg(view: PlanView, options: ChartOptions = {}): string {
  const width = options.width ?? 680;
  const rowHeight = options.rowHeight ?? 44;
  const labelWidth = options.labelWidth ?? 100;
  const rightPad = 220;
  const top = 30;
  const plotWidth = Math.max(100, width - labelWidth - rightPad);
  const envs = view.environments;
  const scaleMax = percentScale(view);
  const x = (pct: number) => labelWidth + (Math.min(pct, scaleMax) / scaleMax) * plotWidth;
  const columns = 3;
  const legendRows = Math.ceil(view.items.length / columns);
  const height = top + envs.length * rowHeight + 30 + legendRows * 22 + 6;
  const parts: string[] = [];
  parts.push(
    `<svg xmlns="http://www.w3.org/2000/svg" class="chart" viewBox="0 0 ${width} ${height}" width="100%" preserveAspectRatio="xMinYMin meet" role="img" aria-label="${escapeHtml(
      `Monthly estimate of each environment as a share of its own cap${view.product ? ` (${view.product})` : ''}`,
    )}">`,
  );
  // Axis: percent of each environment's cap.
  const ticks = [0, 50, 100, ...(scaleMax > 100 ? [scaleMax] : [])];
  for (const tick of ticks) {
    const tx = num(x(tick));
    parts.push(`<line class="grid${tick === 100 ? ' hundred' : ''}" x1="${tx}" y1="${top - 6}" x2="${tx}" y2="${top + envs.length * rowHeight}" />`);
    parts.push(`<text class="tick" x="${tx}" y="${top - 12}" text-anchor="middle" font-size="${FONT_UNITS}">${tick === 100 ? 'cap 100%' : `${tick}%`}</text>`);
  }
  envs.forEach((env, row) => {
    const y = top + row * rowHeight + 8;
    const barHeight = rowHeight - 18;
    const cls = `env level-${env.level}${env.selected ? ' selected' : ''}`;
    const capped = env.cap != null && env.cap > 0;
    // Percent of this environment's cap (no cap: of its own total, a full bar).
    const base = capped ? (env.cap as number) : env.total > 0 ? env.total : 1;
    const pctOf = (usdValue: number) => (usdValue * 100) / base;
    parts.push(`<g class="${cls}" data-env="${escapeHtml(env.name)}" aria-label="${escapeHtml(`${env.name}: ${usd(env.total)}${capped ? ` of ${usd(env.cap as number)}, ${env.percent}%` : ', no cap'}`)}">`);
    parts.push(`<text class="label" x="${labelWidth - 8}" y="${num(y + barHeight / 2 + 5)}" text-anchor="end" font-size="${FONT_UNITS}">${escapeHtml(env.name)}</text>`);
    let offset = 0;
    for (const item of view.items) {
      const r = env.rows.find((rr) => rr.name === item);
      if (!r || !(r.monthly > 0)) continue;
      const x0 = x(pctOf(offset));
      const x1 = x(pctOf(offset + r.monthly));
      offset += r.monthly;
      if (x1 - x0 <= 0 && x0 >= labelWidth + plotWidth) continue; // past the scale
      parts.push(
        `<rect class="segment" x="${num(x0)}" y="${y}" width="${num(Math.max(0.5, x1 - x0))}" height="${barHeight}" fill="${colourOf(view.items.indexOf(item))}"><title>${escapeHtml(
          `${env.name} · ${r.name}: ${usd(r.monthly)}/mo`,
        )}</title></rect>`,
      );
    }
    if (capped) {
      const cx = num(x(100));
      parts.push(`<line class="cap" x1="${cx}" y1="${y - 4}" x2="${cx}" y2="${y + barHeight + 4}"><title>${escapeHtml(`${env.name} cap: ${usd(env.cap as number)}/mo`)}</title></line>`);
    }
    const label = `${env.missingPrices ? '≥ ' : ''}${usd(env.total)}${capped ? ` · ${env.percent}% of ${capUsd(env.cap as number)}` : ' · no cap'}`;
    parts.push(`<text class="total" x="${num(labelWidth + plotWidth + 8)}" y="${num(y + barHeight / 2 + 5)}" font-size="${FONT_UNITS}">${escapeHtml(label)}</text>`);
    parts.push('</g>');
  });
  // Legend.
  const legendTop = top + envs.length * rowHeight + 26;
  const column = (width - 20) / columns;
  view.items.forEach((item, i) => {
    const lx = 10 + (i % columns) * column;
    const ly = legendTop + Math.floor(i / columns) * 22;
    parts.push(`<rect class="swatch" x="${num(lx)}" y="${ly - 11}" width="12" height="12" fill="${colourOf(i)}" />`);
    parts.push(`<text class="legend" x="${num(lx + 17)}" y="${ly}" font-size="${FONT_UNITS}">${escapeHtml(item)}</text>`);
  });
  parts.push('</svg>');
  return parts.join('');
}
