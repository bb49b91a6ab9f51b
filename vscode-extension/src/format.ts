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
