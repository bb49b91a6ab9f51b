// Types of scripts/render-docs.mjs (for the unit tests).
export const ENTRY: string;
export const OPEN_COMMAND: string;
export type Resolved =
  | { kind: 'anchor'; anchor: string }
  | { kind: 'page'; page: string; anchor: string }
  | { kind: 'external'; url: string }
  | { kind: 'text'; target: string }
  | { kind: 'dead'; reason: string };
export interface Site {
  anchors: Map<string, Set<string>>;
  exists: (rel: string) => boolean;
  web: string | null;
}
export interface DocsIndex {
  entry: string;
  pages: Record<string, { file: string; title: string; anchors: string[] }>;
  codes: Record<string, string>;
}
export function slug(text: string): string;
export function openLink(page: string, anchor?: string): string;
export function webBase(value: string | undefined | null): string | null;
export function anchorsOf(source: string): string[];
export function pagesToRender(docsDir: string, entry?: string): string[];
export function resolveLink(href: string, from: string, site: Site): Resolved;
export function renderPage(source: string, from: string, site: Site): { html: string; title: string; anchors: string[]; dead: string[] };
export function codeAnchors(source: string): Record<string, string>;
export function renderSite(docsDir: string, options?: { web?: string | null; entry?: string }): { index: DocsIndex; html: Map<string, string>; dead: string[] };
