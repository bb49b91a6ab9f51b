/**
 * Whether to offer to add test and fixture folders to `runway.exclude` after the first
 * workspace scan (issue 26: a repository whose tests/fixtures/ hold hundreds of deliberately
 * broken runway.yaml files opened to 1,249 problems with no hint that the setting exists).
 * Pure: the caller counts the published problems per file, this module decides which globs
 * to offer, if any. vscode glue: excludeOfferPrompt.ts.
 */
import { plural } from './format';

/** Folder names that hold tests, fixtures or examples (compared without case). */
export const TEST_FOLDER_NAMES = ['test', 'tests', 'fixtures', 'testdata', '__fixtures__', 'examples'];

/** Offer when the offered globs hold at least this many problems … */
export const MIN_PROBLEMS = 100;
/** … or more than half of all problems, and at least this many. */
export const MIN_PROBLEMS_FOR_MOST = 20;
/** A glob holding fewer problems than this is never offered (nor under 10 % of the candidates'). */
export const MIN_GLOB_PROBLEMS = 10;
/** At most this many globs in one offer (they are named in its message and its button). */
export const MAX_GLOBS = 3;

export interface FileProblems {
  /** The file's path relative to its workspace folder, `/`-separated. */
  path: string;
  problems: number;
}

export interface OfferInput {
  files: readonly FileProblems[];
  /** The globs in effect (`runway.exclude` and `files.exclude`): what they hold is never offered. */
  exclude: readonly string[];
  /** Globs offered before in this workspace (whatever the answer): never offered twice. */
  offered: readonly string[];
  /** "Don't ask again" was chosen in this workspace. */
  dismissed: boolean;
}

export interface Offer {
  /** `tests/fixtures/**`, … (most problems first). */
  globs: string[];
  /** Problems under the globs. */
  problems: number;
  /** Problems in all. */
  total: number;
}

function isTestFolder(segment: string): boolean {
  return TEST_FOLDER_NAMES.includes(segment.toLowerCase());
}

/**
 * The glob of the test folder that holds `path`: its first folder named like a test folder,
 * with the test-named folders right under it (`tests/fixtures/bad-1/runway.yaml` →
 * `tests/fixtures/**`, `services/api/test/runway.yaml` → `services/api/test/**`); null when
 * no folder of the path is one.
 */
export function testFolderGlob(path: string): string | null {
  const folders = path.split('/').filter(Boolean).slice(0, -1);
  const first = folders.findIndex(isTestFolder);
  if (first < 0) return null;
  let end = first + 1;
  while (end < folders.length && isTestFolder(folders[end])) end++;
  return `${folders.slice(0, end).join('/')}/**`;
}

/** `{a,b}` alternatives expanded (at most 64 patterns; an unclosed `{` is a literal). */
function expandBraces(glob: string, budget = { left: 64 }): string[] {
  const open = glob.indexOf('{');
  if (open < 0) return [glob];
  let depth = 0;
  const commas: number[] = [];
  let close = -1;
  for (let i = open; i < glob.length; i++) {
    if (glob[i] === '{') depth++;
    else if (glob[i] === '}' && --depth === 0) {
      close = i;
      break;
    } else if (glob[i] === ',' && depth === 1) commas.push(i);
  }
  if (close < 0) return [glob];
  const bounds = [open, ...commas, close];
  const out: string[] = [];
  for (let k = 0; k + 1 < bounds.length && budget.left > 0; k++) {
    const alternative = glob.slice(0, open) + glob.slice(bounds[k] + 1, bounds[k + 1]) + glob.slice(close + 1);
    for (const p of expandBraces(alternative, budget)) {
      if (budget.left-- <= 0) break;
      out.push(p);
    }
  }
  return out;
}

type Token = { t: 'dirs' } | { t: 'all' } | { t: 'star' } | { t: 'one' } | { t: 'class'; test: (c: string) => boolean } | { t: 'lit'; c: string };

function tokens(glob: string): Token[] {
  const out: Token[] = [];
  for (let i = 0; i < glob.length; i++) {
    if (glob.startsWith('**/', i)) {
      out.push({ t: 'dirs' });
      i += 2;
    } else if (glob.startsWith('**', i)) {
      out.push({ t: 'all' });
      while (glob[i + 1] === '*') i++;
    } else if (glob[i] === '*') out.push({ t: 'star' });
    else if (glob[i] === '?') out.push({ t: 'one' });
    else if (glob[i] === '[' && glob.indexOf(']', i + 1) > i) {
      const end = glob.indexOf(']', i + 1);
      let body = glob.slice(i + 1, end);
      const negated = body[0] === '!' || body[0] === '^';
      if (negated) body = body.slice(1);
      out.push({
        t: 'class',
        test: (c) => {
          if (c === '/') return false;
          let hit = false;
          for (let k = 0; k < body.length; k++) {
            if (k + 2 < body.length && body[k + 1] === '-') {
              hit ||= body[k] <= c && c <= body[k + 2];
              k += 2;
            } else hit ||= body[k] === c;
          }
          return hit !== negated;
        },
      });
      i = end;
    } else out.push({ t: 'lit', c: glob[i] });
  }
  return out;
}

/** Whether `glob` matches all of `path` (memoised: time bounded by tokens × path², never exponential). */
function matchesWhole(glob: string, path: string): boolean {
  const toks = tokens(glob);
  const memo = new Map<number, boolean>();
  const m = (i: number, j: number): boolean => {
    const key = i * (path.length + 1) + j;
    const known = memo.get(key);
    if (known !== undefined) return known;
    let r = false;
    if (i === toks.length) r = j === path.length;
    else {
      const tok = toks[i];
      if (tok.t === 'dirs') {
        r = m(i + 1, j);
        for (let k = j; !r && k < path.length; k++) if (path[k] === '/') r = m(i + 1, k + 1);
      } else if (tok.t === 'all') {
        for (let k = j; !r && k <= path.length; k++) r = m(i + 1, k);
      } else if (tok.t === 'star') {
        for (let k = j; !r && k <= path.length; k++) {
          r = m(i + 1, k);
          if (path[k] === '/') break;
        }
      } else if (j < path.length) {
        const c = path[j];
        const ok = tok.t === 'one' ? c !== '/' : tok.t === 'class' ? tok.test(c) : tok.c === c;
        r = ok && m(i + 1, j + 1);
      }
    }
    memo.set(key, r);
    return r;
  };
  return m(0, 0);
}

/**
 * Whether an exclusion glob holds `path` (relative, `/`-separated), as the server reads
 * `runway.exclude` (runway_lsp/exclude.py): VS Code's syntax, and a glob that matches a folder
 * above the path holds it too (`tests` and `tests/**` both hold `tests/x/runway.yaml`).
 */
export function globHolds(glob: string, path: string): boolean {
  const clean = glob.replace(/^\.\//, '');
  if (!clean || clean.length > 256) return false;
  const parts = path.split('/');
  const prefixes = parts.map((_, k) => parts.slice(0, k + 1).join('/'));
  return expandBraces(clean).some((g) => prefixes.some((p) => matchesWhole(g, p)));
}

/**
 * The offer, or null: the test folders' globs that hold enough of the problems (see the
 * thresholds above), none already excluded nor offered before, none after "Don't ask again".
 */
export function excludeOffer(input: OfferInput): Offer | null {
  if (input.dismissed) return null;
  const total = input.files.reduce((n, f) => n + f.problems, 0);
  const byGlob = new Map<string, number>();
  for (const f of input.files) {
    if (f.problems <= 0) continue;
    const glob = testFolderGlob(f.path);
    if (!glob || input.offered.includes(glob)) continue;
    // Already excluded (an open file is checked anyway) or its folder is: not ours to offer.
    if (input.exclude.some((g) => globHolds(g, f.path) || globHolds(g, glob.slice(0, -3)))) continue;
    byGlob.set(glob, (byGlob.get(glob) ?? 0) + f.problems);
  }
  const candidates = [...byGlob].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]));
  const all = candidates.reduce((n, [, count]) => n + count, 0);
  const picked = candidates.filter(([, count]) => count >= MIN_GLOB_PROBLEMS && count * 10 >= all).slice(0, MAX_GLOBS);
  const problems = picked.reduce((n, [, count]) => n + count, 0);
  const enough = problems >= MIN_PROBLEMS || (problems >= MIN_PROBLEMS_FOR_MOST && problems * 2 > total);
  return enough ? { globs: picked.map(([glob]) => glob), problems, total } : null;
}

/** `runway.exclude` with `globs` added (each once, the existing ones first and unchanged). */
export function withGlobs(exclude: unknown, globs: readonly string[]): string[] {
  const own = Array.isArray(exclude) ? exclude.filter((g): g is string => typeof g === 'string') : [];
  return [...own, ...globs.filter((g) => !own.includes(g))];
}

/** The notification's text and its two buttons. */
export function offerMessage(offer: Offer): { message: string; exclude: string; never: string } {
  const count = (n: number) => n.toLocaleString('en-US');
  const where = offer.globs.join(', ');
  const share = offer.problems === offer.total ? `all ${count(offer.total)}` : `${count(offer.problems)} of ${count(offer.total)}`;
  return {
    message: `Runway: ${share} ${offer.total === 1 ? 'problem is' : 'problems are'} in test or fixture folders (${where}). Leave them out of the workspace scan with "runway.exclude"? A file you open is still checked.`,
    exclude: `Exclude ${where}`,
    never: "Don't ask again",
  };
}

/** For the log: `1,240 problems under tests/fixtures/** of 1,249`. */
export function offerSummary(offer: Offer): string {
  return `${plural(offer.problems, 'problem')} under ${offer.globs.join(', ')} of ${offer.total}`;
}
