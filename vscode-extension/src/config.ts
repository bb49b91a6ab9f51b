/**
 * Settings the client keeps to itself: the server reads section `runway` through
 * `workspace/configuration` and warns about every key it does not know, so the client's own
 * keys (how to start the server, tracing, the yaml language id) are left out of the answer.
 */

export const CLIENT_ONLY_KEYS = ['server', 'trace', 'yamlLanguageId'];

/** The `runway` section without the client's keys (other values unchanged). */
export function serverSection(section: unknown): unknown {
  if (section == null || typeof section !== 'object' || Array.isArray(section)) return section;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(section as Record<string, unknown>)) {
    if (!CLIENT_ONLY_KEYS.includes(key)) out[key] = value;
  }
  return out;
}

/** Apply {@link serverSection} to a `workspace/configuration` answer for `items`. */
export function filterConfigurationResult(items: ReadonlyArray<{ section?: string }>, result: unknown): unknown {
  if (!Array.isArray(result)) return result;
  return result.map((value, i) => {
    const section = items[i]?.section;
    if (section === 'runway') return serverSection(value);
    if (section === undefined || section === '') {
      // The whole configuration: filter its runway part.
      if (value && typeof value === 'object' && 'runway' in (value as object)) {
        return { ...(value as object), runway: serverSection((value as Record<string, unknown>).runway) };
      }
    }
    return value;
  });
}

/**
 * Put the selected environment (kept by the extension, not in settings.json) into a
 * `workspace/configuration` answer as `runway.inlayHints.environment`. `null` leaves the
 * answer as it is (the setting, or the server's default: the first environment).
 */
export function injectEnvironment(items: ReadonlyArray<{ section?: string }>, result: unknown, environment: string | null): unknown {
  if (!environment || !Array.isArray(result)) return result;
  const intoRunway = (section: unknown): unknown => {
    const base = section && typeof section === 'object' && !Array.isArray(section) ? (section as Record<string, unknown>) : {};
    const hints = base.inlayHints && typeof base.inlayHints === 'object' && !Array.isArray(base.inlayHints) ? (base.inlayHints as Record<string, unknown>) : {};
    return { ...base, inlayHints: { ...hints, environment } };
  };
  return result.map((value, i) => {
    const section = items[i]?.section;
    if (section === 'runway') return intoRunway(value);
    if (section === 'runway.inlayHints') return (intoRunway({ inlayHints: value }) as { inlayHints: unknown }).inlayHints;
    if (section === 'runway.inlayHints.environment') return environment;
    if ((section === undefined || section === '') && value && typeof value === 'object') {
      return { ...(value as object), runway: intoRunway((value as Record<string, unknown>).runway) };
    }
    return value;
  });
}

/** The globs of a `files.exclude` value that are on (`true`; `when` conditions are for the Explorer only). */
export function enabledGlobs(value: unknown): string[] {
  if (!value || typeof value !== 'object' || Array.isArray(value)) return [];
  return Object.entries(value as Record<string, unknown>)
    .filter(([glob, on]) => on === true && glob.trim())
    .map(([glob]) => glob);
}

/** `runway.exclude` (a list of globs, other entries dropped) followed by `extra`, each once. */
export function mergedExclude(exclude: unknown, extra: readonly string[]): string[] {
  const own = Array.isArray(exclude) ? exclude.filter((g): g is string => typeof g === 'string' && g.trim().length > 0) : [];
  return [...new Set([...own, ...extra])];
}

/**
 * Put VS Code's `files.exclude` (from `filesExclude(scopeUri)`) into `runway.exclude` of a
 * `workspace/configuration` answer: the server knows one list of globs, and other editors
 * set it alone.
 */
export function withExclusions(items: ReadonlyArray<{ section?: string; scopeUri?: string }>, result: unknown, filesExclude: (scopeUri: string | undefined) => string[]): unknown {
  if (!Array.isArray(result)) return result;
  const merge = (section: unknown, scopeUri: string | undefined): unknown => {
    if (section == null || typeof section !== 'object' || Array.isArray(section)) return section;
    const base = section as Record<string, unknown>;
    return { ...base, exclude: mergedExclude(base.exclude, filesExclude(scopeUri)) };
  };
  return result.map((value, i) => {
    const { section, scopeUri } = items[i] ?? {};
    if (section === 'runway') return merge(value, scopeUri);
    if ((section === undefined || section === '') && value && typeof value === 'object' && 'runway' in (value as object)) {
      return { ...(value as object), runway: merge((value as Record<string, unknown>).runway, scopeUri) };
    }
    return value;
  });
}
