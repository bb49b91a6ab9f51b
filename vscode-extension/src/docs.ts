/**
 * The diagnostics reference shipped in the extension (bundled/libs/docs/diagnostics.md, a copy of
 * the repository's docs/diagnostics.md made by scripts/bundle.py): a code's link in the
 * Problems panel and hovers opens the copy at the code's own heading, offline. The server's
 * `codeDescription.href` (its web address) is replaced by the copy when the copy has the code.
 */

/** `RW140` -> the 1-based line of its `### RW140 — …` heading. */
export function codeLines(markdown: string): Map<string, number> {
  const out = new Map<string, number>();
  markdown.split(/\r?\n/).forEach((line, i) => {
    const m = /^#{2,4}\s+(RW\d{3})\b/.exec(line);
    if (m && !out.has(m[1])) out.set(m[1], i + 1);
  });
  return out;
}

/** The code of a diagnostic (`RW140`, or `{ value: 'RW140', target }`), else null. */
export function diagnosticCode(code: unknown): string | null {
  const value = code !== null && typeof code === 'object' ? (code as { value?: unknown }).value : code;
  return typeof value === 'string' && /^RW\d{3}$/.test(value) ? value : null;
}
