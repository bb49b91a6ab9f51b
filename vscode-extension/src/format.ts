/** Money and text formatting shared by the status bar and the plan view. Pure. */

/** `$1,234.56` (USD, cents, thousands separators). */
export function usd(value: number): string {
  const sign = value < 0 ? '-' : '';
  const [whole, cents] = Math.abs(value).toFixed(2).split('.');
  return `${sign}$${groupThousands(whole)}.${cents}`;
}

/** `$1,235` (USD, whole dollars rounded half up, thousands separators). */
export function usdWhole(value: number): string {
  const sign = value < 0 ? '-' : '';
  const whole = Math.floor(Math.abs(value) + 0.5);
  return `${sign}$${groupThousands(String(whole))}`;
}

/** A cap as the lenses write it: `$150` for whole dollars, else to the cent (`$150.50`). */
export function capUsd(value: number): string {
  return Number.isInteger(value) ? usdWhole(value) : usd(value);
}

/** `1 error`, `2 errors`. */
export function plural(count: number, noun: string): string {
  return `${count} ${noun}${count === 1 ? '' : 's'}`;
}

function groupThousands(digits: string): string {
  return digits.replace(/\B(?=(\d{3})+(?!\d))/g, ',');
}

/** Escape text for HTML element content and double-quoted attribute values. */
export function escapeHtml(text: unknown): string {
  return String(text ?? '')
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&#39;');
}

/** Escape text for a Markdown table cell (a status bar tooltip). */
export function escapeMarkdown(text: unknown): string {
  return String(text ?? '').replace(/[\\`*_{}[\]()#+\-.!|<>]/g, (c) => `\\${c}`);
}

/** A table row of Markdown (`| a | b |`), not its delimiter row (`|---|--:|`). */
const TABLE_ROW = /^\s*\|.*\|\s*$/;
const DELIMITER_ROW = /^\s*\|[\s:|-]+\|\s*$/;

/**
 * `markdown` with every table cell padded by two non-breaking spaces each side (`&nbsp;`, an
 * entity VS Code's Markdown renderer keeps): VS Code's hover draws table cells with no padding,
 * so `$36.28$139.47` ran together (issue 26). The source pads with spaces for plain-text
 * readers (Neovim); rendered, those collapse. Cells split on unescaped `|`; fenced code is left.
 */
export function padTables(markdown: string): string {
  let fenced = false;
  return markdown
    .split('\n')
    .map((line) => {
      if (/^\s*(```|~~~)/.test(line)) fenced = !fenced;
      if (fenced || !TABLE_ROW.test(line) || DELIMITER_ROW.test(line)) return line;
      const inner = line.trim().slice(1, -1);
      const cells = inner.split(/(?<!\\)\|/).map((c) => c.trim());
      return `| ${cells.map((c) => (c ? `&nbsp;&nbsp;${c}&nbsp;&nbsp;` : c)).join(' | ')} |`;
    })
    .join('\n');
}
