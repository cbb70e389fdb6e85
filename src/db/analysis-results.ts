// The results of a post-call analysis a list can filter on (docs/dashboards.md "Filters"): its top-level fields that
// hold a short string, a number or a boolean, kept beside the analysis in a small text column as the entries
// `\x1e<field>\x1f<value as JSON>\x1e`. A filter looks for one entry in that text (no JSON is parsed by the database:
// an analysis of a megabyte costs its few results, and a string the database's JSON would refuse, such as a lone
// surrogate, is only text).

/** Fields a list can filter on (and that an entry's separators cannot be part of). */
export const RESULT_FIELD = /^[A-Za-z_][A-Za-z0-9_]{0,63}$/;
/** The longest string value kept as a result (JSON characters), and the most text the results of one call take. */
export const MAX_RESULT_VALUE = 200;
export const MAX_RESULTS_TEXT = 4096;

const START = '\x1e';
const BETWEEN = '\x1f';

const entry = (field: string, json: string) => `${START}${field}${BETWEEN}${json}${START}`;

/**
 * The results of an analysis (null when it has none): its fields named as RESULT_FIELD says, holding a string of at
 * most MAX_RESULT_VALUE characters as JSON, a finite number or a boolean, in the analysis's order, up to
 * MAX_RESULTS_TEXT characters. JSON.stringify escapes every control character, so no value holds a separator.
 */
export function analysisResultsOf(analysis: unknown): string | null {
  if (analysis === null || typeof analysis !== 'object' || Array.isArray(analysis)) return null;
  let text = '';
  for (const [field, value] of Object.entries(analysis as Record<string, unknown>)) {
    if (!RESULT_FIELD.test(field)) continue;
    const kept =
      typeof value === 'boolean' || (typeof value === 'number' && Number.isFinite(value))
        ? JSON.stringify(value)
        : typeof value === 'string' && JSON.stringify(value).length <= MAX_RESULT_VALUE
          ? JSON.stringify(value)
          : null;
    if (kept === null) continue;
    const next = entry(field, kept);
    if (text.length + next.length - (text ? 1 : 0) > MAX_RESULTS_TEXT) break;
    // Entries share their separators: `\x1ea\x1f1\x1eb\x1f2\x1e`.
    text = text ? text + next.slice(1) : next;
  }
  return text || null;
}

/** The JSON of the number or boolean a string spells ("3.50" → "3.5", "true"), or null when it spells none. */
export function spelledScalar(text: string): string | null {
  if (!/^(true|false|-?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?)$/.test(text)) return null;
  const value = JSON.parse(text) as number | boolean;
  return typeof value === 'number' && !Number.isFinite(value) ? null : JSON.stringify(value);
}

/** The entries a call's results hold when `field` equals `equals`: the string, or the number or boolean it spells. */
export function resultEntries(field: string, equals: string): string[] {
  const spelled = spelledScalar(equals);
  return [entry(field, JSON.stringify(equals)), ...(spelled === null ? [] : [entry(field, spelled)])];
}
