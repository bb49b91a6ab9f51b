/**
 * The plan view's HTML: a strict Content-Security-Policy document (no remote resources;
 * styles and the one script allowed by nonce) whose body the extension replaces on every
 * `runway/costsChanged`. Pure; every text from the plan is escaped.
 */
import { chartSvg } from './chart';
import { capUsd, escapeHtml, plural, usd } from './format';
import { editingText, NOT_RUNNING } from './status';
import type { PlanView } from './planModel';
import type { LineItem } from './protocol';

export interface DocumentOptions {
  /** `webview.cspSource`. */
  cspSource: string;
  /** A fresh random nonce for this document. */
  nonce: string;
  /** The webview state (`{uri, lastGood}`): kept by VS Code for the serializer after a reload. */
  state?: unknown;
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

const VERDICT: Record<string, string> = { ok: 'ok', 'over-cap': 'over cap: refused', 'no-cap': 'no cap', unpriced: 'unpriced: refused', invalid: 'invalid: not estimated' };

/** A line item as one list entry: `db.m7g.large: 730 hours × $0.17 = $124.10`. */
function lineItem(li: LineItem): string {
  const qty = Number.isInteger(li.quantity) ? String(li.quantity) : li.quantity.toFixed(2);
  // A quantity the usage file gives names its line (docs/format.md, "Usage file").
  const origin = li.quantity_source?.startsWith('usage file') ? ` <span class="origin">(${escapeHtml(li.quantity_source)})</span>` : '';
  return `<li>${escapeHtml(li.description)}: ${escapeHtml(`${qty} ${li.unit}`)} × ${escapeHtml(usd(li.unit_usd))} = <span class="num">${escapeHtml(usd(li.monthly_usd))}</span>${origin}</li>`;
}

/**
 * Every environment side by side: one row per item (its name opens its YAML, the disclosure
 * button shows its line items), a size and a monthly cost per environment. Cells carry
 * `data-env` so the narrow layout (under 600 px) can label them.
 */
function comparisonTable(view: PlanView): string {
  const envs = view.environments;
  const head = envs
    .map(
      (e) =>
        `<th scope="col" class="env-head level-${e.level}${e.selected ? ' selected' : ''}"><button type="button" class="pick" data-env="${escapeHtml(e.name)}" aria-pressed="${e.selected}" title="Show ${escapeHtml(
          e.name,
        )} in the status bar and inlay hints">${escapeHtml(e.name)}</button></th>`,
    )
    .join('');
  const body = view.comparison
    .map((row, index) => {
      const cells = row.cells
        .map((c, i) =>
          c
            ? `<td class="cell" data-env="${escapeHtml(envs[i].name)}"><span class="size">${escapeHtml(c.size)}</span> <span class="num">${c.missing ? '≥' : ''}${escapeHtml(usd(c.monthly))}</span></td>`
            : `<td class="cell" data-env="${escapeHtml(envs[i].name)}"><span class="size">—</span></td>`,
        )
        .join('');
      const title = row.consumers.length ? ` title="${escapeHtml(`used by ${row.consumers.join(', ')}`)}"` : '';
      const id = `items-${index}`;
      const details = row.cells
        .map((c, i) => (c && c.lineItems.length ? `<div class="li-env"><h3>${escapeHtml(envs[i].name)}</h3><ul>${c.lineItems.map(lineItem).join('')}</ul></div>` : ''))
        .join('');
      const name = escapeHtml(row.name);
      return (
        `<tr class="item-row${row.implicit ? ' implicit' : ''}${view.editing.includes(row.name) ? ' editing' : ''}" data-item="${name}"><th scope="row" class="item"${title}>` +
        `<span class="name"><button type="button" class="disclose" aria-expanded="false" aria-controls="${id}" aria-label="Line items of ${name}"${details ? '' : ' disabled'}><span aria-hidden="true">▸</span></button>` +
        `<button type="button" class="open" data-item="${name}" title="Open ${name} in its runway">${name}</button>${row.implicit ? '<span class="star">*</span>' : ''}</span>` +
        ` <span class="kind">${escapeHtml(row.kind)}</span>${view.editing.includes(row.name) ? ' <span class="kind">(editing)</span>' : ''}</th>${cells}</tr>\n` +
        `<tr class="detail" id="${id}" hidden><td colspan="${envs.length + 1}">${details}</td></tr>`
      );
    })
    .join('\n');
  const total = envs.map((e) => `<td class="num level-${e.level}" data-env="${escapeHtml(e.name)}">${e.missingPrices ? '≥' : ''}${escapeHtml(usd(e.total))}</td>`).join('');
  const cap = envs
    .map((e) => `<td class="num" data-env="${escapeHtml(e.name)}" title="${escapeHtml(e.capSource)}">${e.cap == null ? 'no cap' : `${escapeHtml(capUsd(e.cap))}${e.percent != null ? ` · ${e.percent}%` : ''}`}</td>`)
    .join('');
  const verdict = envs.map((e) => `<td class="num verdict level-${e.level}" data-env="${escapeHtml(e.name)}">${escapeHtml(VERDICT[e.verdict] ?? e.verdict)}</td>`).join('');
  // How much of each total rests on each price confidence (plan JSON `price_confidence`).
  const prices = envs
    .map((e) => `<td class="num prices" data-env="${escapeHtml(e.name)}">${e.priceConfidence.map((p) => `${escapeHtml(usd(p.usd))} <span class="nw">${escapeHtml(p.confidence)}</span>`).join('<br>') || '—'}</td>`)
    .join('');
  return `<table class="plan">
<caption class="sub">Each item's size and monthly cost per environment; ▸ lists what the cost is made of.</caption>
<thead><tr><th scope="col">item</th>${head}</tr></thead>
<tbody>
${body}
</tbody>
<tfoot><tr class="sum"><th scope="row">total</th>${total}</tr><tr class="sum"><th scope="row">cap</th>${cap}</tr><tr class="sum"><th scope="row">verdict</th>${verdict}</tr><tr class="sum"><th scope="row">prices</th>${prices}</tr></tfoot>
</table>`;
}

/** The chart's narrow stand-in: one meter per environment (no inline styles under the CSP). */
function miniChart(view: PlanView): string {
  const items = view.environments
    .map((e) => {
      const pct = e.percent ?? 100;
      const label = `${e.missingPrices ? '≥ ' : ''}${usd(e.total)}${e.cap != null ? ` · ${e.percent}% of ${capUsd(e.cap)}` : ' · no cap'}`;
      return `<li class="level-${e.level}"><span class="mini-name">${escapeHtml(e.name)}</span><meter min="0" max="100" low="80" high="100" optimum="0" value="${Math.min(pct, 100)}">${escapeHtml(`${pct}%`)}</meter><span class="num">${escapeHtml(label)}</span></li>`;
    })
    .join('');
  return `<ul class="mini" aria-label="Each environment against its cap">${items}</ul>`;
}

function notes(view: PlanView): string {
  if (!view.notes.length) return '';
  const all = view.environments.length;
  const items = view.notes.map((n) => `<li>${escapeHtml(n.environments.length === all ? n.text : `${n.environments.join(', ')}: ${n.text}`)}</li>`).join('');
  return `<ul class="notes">${items}</ul>`;
}

/** The body: heading, chart, every environment side by side in one table; a stale banner over a kept plan. */
export function planBody(view: PlanView): string {
  if (!view.serverRunning) return `<p class="empty problems">${escapeHtml(`Runway: ${NOT_RUNNING}.`)}</p>`;
  if (!view.environments.length) {
    const why = view.errors ? `The runway has ${plural(view.errors, 'error')}: see the Problems panel.` : 'Open a runway.yaml to see its plan.';
    return `<p class="empty">No plan. ${escapeHtml(why)}</p>`;
  }
  const stale = view.stale ? `<p class="stale" role="status">${escapeHtml(view.stale)}</p>` : '';
  const editing = view.editing.length ? `<p class="stale editing" role="status">${escapeHtml(`${editingText(view.editing)}.`)}</p>` : '';
  // A kept plan keeps its own lower-bound warning: it was computed with these errors.
  const problems = view.errors
    ? `<p class="problems">${escapeHtml(
        view.stale
          ? `The plan shown was computed with ${plural(view.errors, 'error')}: an error that drops an item makes its totals lower bounds.`
          : `${plural(view.errors, 'error')} in the runway (see the Problems panel): an error that drops an item makes the totals lower bounds.`,
      )}</p>`
    : '';
  const catalogue = `catalogue: ${view.catalog || 'packaged default'}`;
  return `${stale}${editing}<div class="${view.stale ? 'kept' : 'live'}"><header><h1>${escapeHtml(view.product || 'runway')} <span class="sub">${escapeHtml(view.region)}</span></h1>
<p class="sub">${escapeHtml(`Monthly estimates in USD (730 hours a month); ${catalogue}; * implicit item; network is not estimated.`)}</p>${problems}</header>
<figure><figcaption class="sub">Each environment against its own cap (the dashed line is 100 %).</figcaption>${chartSvg(view)}${miniChart(view)}</figure>
<div class="table-wrap">${comparisonTable(view)}</div>
${notes(view)}</div>`;
}

const STYLE = `
body { color: var(--vscode-foreground); background: var(--vscode-editor-background); font-family: var(--vscode-font-family); font-size: var(--vscode-font-size); padding: 0 16px 16px; margin: 0; }
* { box-sizing: border-box; }
h1 { font-size: 1.4em; margin: 12px 0 4px; overflow-wrap: anywhere; } h3 { font-size: 1em; margin: 4px 0 2px; }
.sub { color: var(--vscode-descriptionForeground); font-weight: normal; font-size: 0.9em; margin: 0 0 8px; }
.problems { color: var(--vscode-errorForeground); }
.stale { margin: 10px 0 0; padding: 6px 10px; border-left: 3px solid var(--vscode-editorWarning-foreground, #cca700); background: var(--vscode-inputValidation-warningBackground, #cca70022); overflow-wrap: anywhere; }
.kept { opacity: 0.75; }
tr.editing td.cell { font-style: italic; }
figure { margin: 8px 0 16px; max-width: 100%; }
figcaption { margin: 0 0 4px; }
.chart { display: block; width: 100%; min-width: 560px; max-width: 960px; height: auto; }
.chart text { fill: var(--vscode-foreground); font-family: var(--vscode-font-family); }
.chart .tick { fill: var(--vscode-descriptionForeground); }
.chart .hundred { stroke: var(--vscode-foreground); stroke-opacity: 0.5; }
.chart .grid { stroke: var(--vscode-editorWidget-border, #8884); stroke-width: 1; }
.chart .cap { stroke: var(--vscode-foreground); stroke-width: 2; stroke-dasharray: 4 3; }
.chart .level-near .total { fill: var(--vscode-editorWarning-foreground, #cca700); }
.chart .level-over .total { fill: var(--vscode-errorForeground, #f14c4c); font-weight: bold; }
.chart .selected .label { font-weight: bold; text-decoration: underline; }
.mini { display: none; list-style: none; padding: 0; margin: 0; }
.mini li { display: grid; grid-template-columns: minmax(0, 5em) minmax(0, 1fr); gap: 2px 8px; align-items: center; margin: 0 0 6px; }
.mini .num { grid-column: 1 / -1; text-align: left; }
.mini meter { width: 100%; }
.table-wrap { overflow-x: auto; max-width: 100%; }
/* Compact by construction (issue 26: the default split of a 1,600 px window, ~750 px, cut off
   production): the table is as wide as it needs up to the view's width, then its cells wrap to
   their longest unbreakable piece (a size above its cost, a name above its kind, a cap above
   its percent); past that (many environments) it scrolls inside .table-wrap with the item
   column sticky. */
table.plan { border-collapse: collapse; width: auto; max-width: 100%; }
table.plan caption { text-align: left; }
table.plan th.item, table.plan thead th:first-child, table.plan tfoot th { position: sticky; left: 0; z-index: 1; background: var(--vscode-editor-background); }
th, td { text-align: left; padding: 3px 8px; border-bottom: 1px solid var(--vscode-editorWidget-border, #8883); white-space: nowrap; vertical-align: top; }
@media (min-width: 600px) {
  th.item { min-width: 7em; box-shadow: inset -1px 0 0 var(--vscode-editorWidget-border, #8884); }
  /* A long name wraps (at a hyphen, else anywhere) beside its ▸ and its star. */
  th.item .name { display: inline-flex; align-items: baseline; max-width: 100%; }
  th.item button.open { min-width: 0; white-space: normal; overflow-wrap: anywhere; }
  td.cell, tfoot td.num { white-space: normal; }
  td.cell .size, td.cell .num, tfoot td .nw { white-space: nowrap; }
}
@media (min-width: 600px) and (max-width: 959px) {
  body { padding: 0 10px 10px; }
  th, td { padding: 3px 5px; }
  th.item .kind { display: block; padding-left: 1.6em; }
}
th.item { font-weight: normal; }
th.env-head { text-align: right; border-left: 1px solid var(--vscode-editorWidget-border, #8884); }
td.cell, tfoot td { border-left: 1px solid var(--vscode-editorWidget-border, #8884); text-align: right; }
.size, .kind { color: var(--vscode-descriptionForeground); }
.kind { font-size: 0.9em; }
thead th { font-weight: normal; color: var(--vscode-descriptionForeground); }
th.env-head.selected { border-bottom: 2px solid var(--vscode-focusBorder); }
.level-near.num, .verdict.level-near, .mini .level-near .num { color: var(--vscode-editorWarning-foreground, #cca700); }
.level-over.num, .verdict.level-over, .mini .level-over .num { color: var(--vscode-errorForeground, #f14c4c); font-weight: bold; }
.num { font-variant-numeric: tabular-nums; white-space: nowrap; }
tfoot th, tfoot td { font-weight: bold; border-bottom: none; }
tr.implicit th, tr.implicit td { color: var(--vscode-descriptionForeground); }
.star { margin-left: 1px; }
button { font: inherit; color: inherit; background: none; border: none; padding: 0; cursor: pointer; }
button:focus-visible { outline: 1px solid var(--vscode-focusBorder); outline-offset: 1px; }
button.pick { font-weight: bold; font-size: 1.05em; color: var(--vscode-textLink-foreground); }
button.open { color: var(--vscode-textLink-foreground); text-align: left; }
button.open:hover { text-decoration: underline; }
button.disclose { width: 1.4em; color: var(--vscode-descriptionForeground); }
button.disclose[aria-expanded="true"] span { display: inline-block; transform: rotate(90deg); }
button.disclose:disabled { visibility: hidden; }
tr.detail td { white-space: normal; text-align: left; padding: 2px 8px 8px 30px; }
tr.detail ul { margin: 0; padding-left: 16px; }
tr.detail li { overflow-wrap: anywhere; }
.li-env { margin: 0 0 4px; }
[hidden] { display: none !important; }
.notes { margin: 10px 0 0; padding-left: 18px; color: var(--vscode-descriptionForeground); font-size: 0.9em; overflow-wrap: anywhere; }
/* Narrow (a half-width editor, a side panel): one block per item, each environment labelled. */
@media (max-width: 599px) {
  body { padding: 0 8px 8px; }
  .chart { display: none; }
  .mini { display: block; }
  table.plan, table.plan tbody, table.plan tfoot, table.plan caption { display: block; width: 100%; }
  table.plan thead { display: none; }
  table.plan tr { display: grid; grid-template-columns: repeat(auto-fit, minmax(84px, 1fr)); border-bottom: 1px solid var(--vscode-editorWidget-border, #8883); padding: 4px 0; }
  table.plan tr > th, table.plan tr.detail > td { grid-column: 1 / -1; position: static; border: none; white-space: normal; }
  table.plan td { border: none; text-align: left; white-space: normal; padding: 2px 8px; }
  table.plan td[data-env]::before { content: attr(data-env); display: block; font-size: 0.85em; color: var(--vscode-descriptionForeground); }
  tr.detail td { padding-left: 8px; }
}
`;

const SCRIPT = `
const vscode = acquireVsCodeApi();
const app = document.getElementById('app');
let state = Object.assign({ expanded: [] }, vscode.getState() || {}, JSON.parse(app.dataset.state || '{}'));
function save() { vscode.setState(state); }
function applyExpanded() {
  for (const button of document.querySelectorAll('button.disclose')) {
    const row = button.closest('tr');
    const open = !button.disabled && state.expanded.includes(row.dataset.item);
    button.setAttribute('aria-expanded', String(open));
    const detail = document.getElementById(button.getAttribute('aria-controls'));
    if (detail) detail.hidden = !open;
  }
}
window.addEventListener('message', (event) => {
  const msg = event.data;
  if (!msg || msg.type !== 'render' || typeof msg.html !== 'string') return;
  const focused = document.activeElement && document.activeElement.closest('button') ? [document.activeElement.className, document.activeElement.dataset.item || document.activeElement.dataset.env || document.activeElement.getAttribute('aria-controls')] : null;
  app.innerHTML = msg.html;
  if (msg.state) { state = Object.assign(state, msg.state); save(); }
  applyExpanded();
  if (focused) {
    for (const b of document.querySelectorAll('button')) {
      if (b.className === focused[0] && (b.dataset.item || b.dataset.env || b.getAttribute('aria-controls')) === focused[1]) { b.focus(); break; }
    }
  }
});
document.addEventListener('click', (event) => {
  const target = event.target instanceof Element ? event.target.closest('button') : null;
  if (!target) return;
  if (target.classList.contains('pick')) vscode.postMessage({ type: 'select', environment: target.getAttribute('data-env') });
  else if (target.classList.contains('open')) vscode.postMessage({ type: 'open', item: target.getAttribute('data-item') });
  else if (target.classList.contains('disclose')) {
    const name = target.closest('tr').dataset.item;
    state.expanded = state.expanded.includes(name) ? state.expanded.filter((n) => n !== name) : state.expanded.concat([name]);
    save();
    applyExpanded();
  }
});
save();
applyExpanded();
`;

/** The whole webview document around {@link planBody}. */
export function planDocument(view: PlanView, options: DocumentOptions): string {
  const { cspSource, nonce } = options;
  const state = escapeHtml(JSON.stringify(options.state ?? {}));
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
<main id="app" data-state="${state}">${planBody(view)}</main>
<script nonce="${escapeHtml(nonce)}">${SCRIPT}</script>
</body>
</html>`;
}
