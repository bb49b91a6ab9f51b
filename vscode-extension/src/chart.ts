/**
 * The plan view's bar chart as inline SVG (no library): one horizontal bar per environment,
 * stacked by resource, against a marker at the environment's cap. Pure; every text escaped.
 */
import { escapeHtml, usd, usdWhole } from './format';
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

/**
 * The SVG of `view`: `width` user units wide. Segments carry a `<title>` (name and monthly
 * cost), bars an `aria-label`; the cap marker is dashed; the legend names every item.
 */
export function chartSvg(view: PlanView, options: ChartOptions = {}): string {
  const width = options.width ?? 760;
  const rowHeight = options.rowHeight ?? 36;
  const labelWidth = options.labelWidth ?? 110;
  const rightPad = 150;
  const top = 24;
  const plotWidth = Math.max(100, width - labelWidth - rightPad);
  const envs = view.environments;
  const maxValue = Math.max(0, ...envs.map((e) => e.total), ...envs.map((e) => e.cap ?? 0));
  const scaleMax = niceCeiling(maxValue * 1.02);
  const x = (usdValue: number) => labelWidth + (usdValue / scaleMax) * plotWidth;
  const legendRows = Math.ceil(view.items.length / 4);
  const height = top + envs.length * rowHeight + 28 + legendRows * 18 + 8;
  const parts: string[] = [];
  parts.push(
    `<svg xmlns="http://www.w3.org/2000/svg" class="chart" viewBox="0 0 ${width} ${height}" width="${width}" height="${height}" role="img" aria-label="${escapeHtml(
      `Monthly estimate of each environment against its cap${view.product ? ` (${view.product})` : ''}`,
    )}">`,
  );
  // Axis: 0, half and full scale.
  for (const tick of [0, scaleMax / 2, scaleMax]) {
    const tx = num(x(tick));
    parts.push(`<line class="grid" x1="${tx}" y1="${top - 6}" x2="${tx}" y2="${top + envs.length * rowHeight}" />`);
    parts.push(`<text class="tick" x="${tx}" y="${top - 10}" text-anchor="middle">${escapeHtml(usdWhole(tick))}</text>`);
  }
  envs.forEach((env, row) => {
    const y = top + row * rowHeight + 6;
    const barHeight = rowHeight - 14;
    const cls = `env level-${env.level}${env.selected ? ' selected' : ''}`;
    parts.push(`<g class="${cls}" data-env="${escapeHtml(env.name)}" aria-label="${escapeHtml(`${env.name}: ${usd(env.total)}${env.cap != null ? ` of ${usd(env.cap)}` : ''}`)}">`);
    parts.push(`<text class="label" x="${labelWidth - 8}" y="${num(y + barHeight / 2 + 4)}" text-anchor="end">${escapeHtml(env.name)}</text>`);
    let offset = 0;
    for (const item of view.items) {
      const r = env.rows.find((rr) => rr.name === item);
      if (!r || !(r.monthly > 0)) continue;
      const x0 = x(offset);
      const x1 = x(offset + r.monthly);
      offset += r.monthly;
      parts.push(
        `<rect class="segment" x="${num(x0)}" y="${y}" width="${num(Math.max(0.5, x1 - x0))}" height="${barHeight}" fill="${colourOf(view.items.indexOf(item))}"><title>${escapeHtml(
          `${env.name} · ${r.name}: ${usd(r.monthly)}/mo`,
        )}</title></rect>`,
      );
    }
    if (env.cap != null) {
      const cx = num(x(env.cap));
      parts.push(`<line class="cap" x1="${cx}" y1="${y - 4}" x2="${cx}" y2="${y + barHeight + 4}"><title>${escapeHtml(`${env.name} cap: ${usd(env.cap)}/mo`)}</title></line>`);
    }
    const share = env.percent != null ? ` · ${env.percent}%` : env.cap == null ? ' · no cap' : '';
    const end = Math.max(x(env.total), env.cap != null ? x(env.cap) : 0);
    parts.push(`<text class="total" x="${num(end + 6)}" y="${num(y + barHeight / 2 + 4)}">${escapeHtml(`${env.missingPrices ? '≥' : ''}${usd(env.total)}${share}`)}</text>`);
    parts.push('</g>');
  });
  // Legend.
  const legendTop = top + envs.length * rowHeight + 22;
  const column = (width - 20) / 4;
  view.items.forEach((item, i) => {
    const lx = 10 + (i % 4) * column;
    const ly = legendTop + Math.floor(i / 4) * 18;
    parts.push(`<rect class="swatch" x="${num(lx)}" y="${ly - 9}" width="10" height="10" fill="${colourOf(i)}" />`);
    parts.push(`<text class="legend" x="${num(lx + 14)}" y="${ly}">${escapeHtml(item)}</text>`);
  });
  parts.push('</svg>');
  return parts.join('');
}
