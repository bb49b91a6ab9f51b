/**
 * The plan view's HTML: a strict Content-Security-Policy document (no remote resources;
 * styles and the one script allowed by nonce) whose body the extension replaces on every
 * `runway/costsChanged`. Pure; every text from the plan is escaped.
 */
import { chartSvg } from './chart';
import { capUsd, escapeHtml, plural, usd } from './format';
import { NOT_RUNNING } from './status';
import type { PlanView } from './planModel';

export interface DocumentOptions {
  /** `webview.cspSource`. */
  cspSource: string;
  /** A fresh random nonce for this document. */
  nonce: string;
}

export function contentSecurityPolicy(cspSource: string, nonce: string): string {
  return [
    "default-src 'none'",
    `img-src ${cspSource} data:`,
    `style-src ${cspSource} 'nonce-${nonce}'`,
    `script-src 'nonce-${nonce}'`,
    "base-uri 'none'",
    "form-action 'none'",
  ].join('; ');
}

const VERDICT: Record<string, string> = { ok: 'ok', 'over-cap': 'over cap: refused', 'no-cap': 'no cap' };

/** Every environment side by side: an item per row, a size and a monthly cost per environment. */
function comparisonTable(view: PlanView): string {
  const envs = view.environments;
  const head1 = envs
    .map(
      (e) =>
        `<th colspan="2" class="env-head level-${e.level}${e.selected ? ' selected' : ''}"><button type="button" class="pick" data-env="${escapeHtml(e.name)}" title="Show ${escapeHtml(
          e.name,
        )} in the status bar and inlay hints">${escapeHtml(e.name)}</button></th>`,
    )
    .join('');
  const head2 = envs.map(() => '<th class="size">size</th><th class="num">monthly</th>').join('');
  const body = view.comparison
    .map((row) => {
      const cells = row.cells
        .map((c) => (c ? `<td class="size">${escapeHtml(c.size)}</td><td class="num">${c.missing ? '≥' : ''}${escapeHtml(usd(c.monthly))}</td>` : '<td class="size">—</td><td class="num">—</td>'))
        .join('');
      const title = row.consumers.length ? ` title="${escapeHtml(`used by ${row.consumers.join(', ')}`)}"` : '';
      return `<tr${row.implicit ? ' class="implicit"' : ''}><td class="item"${title}>${escapeHtml(row.name)}${row.implicit ? '<span class="star">*</span>' : ''}</td><td>${escapeHtml(row.kind)}</td>${cells}</tr>`;
    })
    .join('\n');
  const total = envs.map((e) => `<th colspan="2" class="num level-${e.level}">${e.missingPrices ? '≥' : ''}${escapeHtml(usd(e.total))}</th>`).join('');
  const cap = envs
    .map((e) => `<td colspan="2" class="num" title="${escapeHtml(e.capSource)}">${e.cap == null ? 'no cap' : `${escapeHtml(capUsd(e.cap))}${e.percent != null ? ` · ${e.percent}%` : ''}`}</td>`)
    .join('');
  const verdict = envs.map((e) => `<td colspan="2" class="num verdict level-${e.level}">${escapeHtml(VERDICT[e.verdict] ?? e.verdict)}</td>`).join('');
  return `<table class="plan">
<thead><tr><th rowspan="2">item</th><th rowspan="2">kind</th>${head1}</tr><tr>${head2}</tr></thead>
<tbody>
${body}
</tbody>
<tfoot><tr><th colspan="2">total</th>${total}</tr><tr><td colspan="2">cap</td>${cap}</tr><tr><td colspan="2">verdict</td>${verdict}</tr></tfoot>
</table>`;
}

function notes(view: PlanView): string {
  if (!view.notes.length) return '';
  const all = view.environments.length;
  const items = view.notes.map((n) => `<li>${escapeHtml(n.environments.length === all ? n.text : `${n.environments.join(', ')}: ${n.text}`)}</li>`).join('');
  return `<ul class="notes">${items}</ul>`;
}

/** The body: heading, chart, every environment side by side in one table. */
export function planBody(view: PlanView): string {
  if (!view.serverRunning) return `<p class="empty problems">${escapeHtml(`Runway: ${NOT_RUNNING}.`)}</p>`;
  if (!view.environments.length) {
    const why = view.errors ? `The runway has ${plural(view.errors, 'error')}: see the Problems panel.` : 'Open a runway.yaml to see its plan.';
    return `<p class="empty">No plan. ${escapeHtml(why)}</p>`;
  }
  const problems = view.errors ? `<p class="problems">${escapeHtml(`${plural(view.errors, 'error')} in the runway (see the Problems panel): an error that drops an item makes the totals lower bounds.`)}</p>` : '';
  const catalogue = `catalogue: ${view.catalog || 'packaged default'}`;
  return `<header><h1>${escapeHtml(view.product || 'runway')} <span class="sub">${escapeHtml(view.region)}</span></h1>
<p class="sub">${escapeHtml(`Monthly estimates in USD (730 hours a month); ${catalogue}; * implicit item; network is not estimated.`)}</p>${problems}</header>
<figure><figcaption class="sub">Each environment against its own cap (the dashed line is 100 %).</figcaption>${chartSvg(view)}</figure>
<div class="table-wrap">${comparisonTable(view)}</div>
${notes(view)}`;
}

const STYLE = `
body { color: var(--vscode-foreground); background: var(--vscode-editor-background); font-family: var(--vscode-font-family); font-size: var(--vscode-font-size); padding: 0 16px 16px; }
h1 { font-size: 1.4em; margin: 12px 0 4px; } h2 { font-size: 1.1em; margin: 0 0 6px; }
.sub { color: var(--vscode-descriptionForeground); font-weight: normal; font-size: 0.9em; margin: 0 0 8px; }
.problems { color: var(--vscode-errorForeground); }
figure { margin: 8px 0 16px; overflow-x: auto; max-width: 100%; }
figcaption { margin: 0 0 4px; }
.chart { display: block; width: 100%; min-width: 600px; max-width: 960px; height: auto; }
.chart text { fill: var(--vscode-foreground); font-family: var(--vscode-font-family); }
.chart .tick { fill: var(--vscode-descriptionForeground); }
.chart .hundred { stroke: var(--vscode-foreground); stroke-opacity: 0.5; }
.chart .grid { stroke: var(--vscode-editorWidget-border, #8884); stroke-width: 1; }
.chart .cap { stroke: var(--vscode-foreground); stroke-width: 2; stroke-dasharray: 4 3; }
.chart .level-near .total { fill: var(--vscode-editorWarning-foreground, #cca700); }
.chart .level-over .total { fill: var(--vscode-errorForeground, #f14c4c); font-weight: bold; }
.chart .selected .label { font-weight: bold; text-decoration: underline; }
.table-wrap { overflow-x: auto; max-width: 100%; }
table.plan { border-collapse: collapse; width: max-content; }
table.plan td.item, table.plan thead tr:first-child th:first-child { position: sticky; left: 0; background: var(--vscode-editor-background); }
th, td { text-align: left; padding: 3px 8px; border-bottom: 1px solid var(--vscode-editorWidget-border, #8883); white-space: nowrap; }
th.env-head { text-align: center; border-left: 1px solid var(--vscode-editorWidget-border, #8884); }
td.size { border-left: 1px solid var(--vscode-editorWidget-border, #8884); color: var(--vscode-descriptionForeground); }
th.size { border-left: 1px solid var(--vscode-editorWidget-border, #8884); }
thead th { font-weight: normal; color: var(--vscode-descriptionForeground); }
th.env-head.selected { border-bottom: 2px solid var(--vscode-focusBorder); }
.level-near.num, .verdict.level-near { color: var(--vscode-editorWarning-foreground, #cca700); }
.level-over.num, .verdict.level-over { color: var(--vscode-errorForeground, #f14c4c); font-weight: bold; }
.num { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
tfoot th, tfoot td { font-weight: bold; border-bottom: none; }
tr.implicit td { color: var(--vscode-descriptionForeground); }
.star { margin-left: 1px; }
button.pick { font: inherit; font-weight: bold; font-size: 1.05em; color: var(--vscode-textLink-foreground); background: none; border: none; padding: 0; cursor: pointer; }
.notes { margin: 10px 0 0; padding-left: 18px; color: var(--vscode-descriptionForeground); font-size: 0.9em; }
`;

const SCRIPT = `
const vscode = acquireVsCodeApi();
window.addEventListener('message', (event) => {
  const msg = event.data;
  if (msg && msg.type === 'render' && typeof msg.html === 'string') document.getElementById('app').innerHTML = msg.html;
});
document.addEventListener('click', (event) => {
  const target = event.target instanceof Element ? event.target.closest('button.pick') : null;
  if (target) vscode.postMessage({ type: 'select', environment: target.getAttribute('data-env') });
});
`;

/** The whole webview document around {@link planBody}. */
export function planDocument(view: PlanView, options: DocumentOptions): string {
  const { cspSource, nonce } = options;
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="UTF-8">
<meta http-equiv="Content-Security-Policy" content="${escapeHtml(contentSecurityPolicy(cspSource, nonce))}">
<meta name="viewport" content="width=device-width, initial-scale=1.0">
<title>${escapeHtml(`Runway plan${view.product ? `: ${view.product}` : ''}`)}</title>
<style nonce="${escapeHtml(nonce)}">${STYLE}</style>
</head>
<body>
<main id="app">${planBody(view)}</main>
<script nonce="${escapeHtml(nonce)}">${SCRIPT}</script>
</body>
</html>`;
}
