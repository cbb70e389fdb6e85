// The patterns of the lenient fields (src/validation/fields.ts), as JSON Schema may write them: each matches exactly
// the strings the field's parser takes (numeric strings in a range, boolean words, trimmed lengths, zod's http(s) URL
// check). src/validation/input-json-schema.ts puts them in the request schemas; test/rest/openapi-requests.test.ts
// holds each to the very function the server runs, value by value. ECMA-262 without lookarounds (JSON Schema's
// recommended subset; fast-check's stringMatching can generate from them). Ajv compiles them with the u flag, so
// `[\s\S]` is one character (code point), as zod counts.
import { FALSE_WORDS, TRUE_WORDS } from './fields.js';

/** Same-length decimal strings lo ≤ hi → a regex source matching exactly the numbers between them, that length. */
function digitsBetween(lo: string, hi: string): string {
  if (lo === hi) return lo;
  const n = lo.length - 1;
  const any = n === 0 ? '' : n === 1 ? '\\d' : `\\d{${n}}`;
  if (/^0*$/.test(lo) && /^9*$/.test(hi)) return n === 0 ? '\\d' : `\\d{${n + 1}}`;
  const [a, b] = [Number(lo[0]), Number(hi[0])];
  const [restLo, restHi] = [lo.slice(1), hi.slice(1)];
  if (a === b) return `${a}${digitsBetween(restLo, restHi)}`;
  const parts: string[] = [];
  let [from, to] = [a, b];
  if (!/^0*$/.test(restLo)) {
    parts.push(`${a}${digitsBetween(restLo, '9'.repeat(n))}`);
    from = a + 1;
  }
  const last = /^9*$/.test(restHi) ? undefined : `${b}${digitsBetween('0'.repeat(n), restHi)}`;
  if (last) to = b - 1;
  if (from <= to) parts.push(`${from === to ? from : `[${from}-${to}]`}${any}`);
  if (last) parts.push(last);
  return parts.length === 1 ? (parts[0] ?? '') : `(?:${parts.join('|')})`;
}

/**
 * The strings `fromIntegerString` turns into an integer between min and max (0 ≤ min): digits with an optional sign,
 * leading zeros and surrounding whitespace ("-0" is 0).
 */
export function integerStringPattern(min: number, max: number): string {
  if (!(Number.isSafeInteger(min) && Number.isSafeInteger(max) && min >= 0 && min <= max))
    throw new Error(`integerStringPattern: unsupported range ${min}..${max}`);
  const ranges: string[] = [];
  for (let length = String(min).length; length <= String(max).length; length++) {
    const lo = Math.max(min, length === 1 ? 0 : 10 ** (length - 1));
    const hi = Math.min(max, 10 ** length - 1);
    if (lo <= hi) ranges.push(digitsBetween(String(lo), String(hi)));
  }
  const unsigned = ranges.length === 1 ? ranges[0] : `(?:${ranges.join('|')})`;
  return `^\\s*(?:\\+?0*${unsigned}${min === 0 ? '|-0+' : ''})\\s*$`;
}

/** A word of `words`, any case: [Tt][Rr][Uu][Ee]. */
const anyCase = (word: string) =>
  [...word].map((c) => (/[a-z]/.test(c) ? `[${c.toUpperCase()}${c}]` : c.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')));

/** The strings `fromBooleanWord` reads as a boolean: a word of TRUE_WORDS or FALSE_WORDS, any case, padded. */
const BOOLEAN_WORDS = [...TRUE_WORDS, ...FALSE_WORDS].map((word) => anyCase(word).join(''));
export const BOOLEAN_WORD_PATTERN = `^\\s*(?:${BOOLEAN_WORDS.join('|')})\\s*$`;

/**
 * The strings whose trimmed value (String#trim removes exactly what `\s` matches) has min–max characters: it starts
 * and ends with a non-space, surrounded by any whitespace.
 */
export function trimmedLengthPattern(min: number, max: number | undefined): string {
  const between = (least: number) => `[\\s\\S]{${least},${max === undefined ? '' : max - 2}}`;
  const filled = max === 1 ? '\\S' : min <= 1 ? `\\S(?:${between(0)}\\S)?` : `\\S${between(min - 2)}\\S`;
  return `^\\s*${min === 0 ? `(?:${filled})?` : filled}\\s*$`;
}

/**
 * zod's http(s) url check: the trimmed value must start with http:// or https:// (any case) and, once its tabs and
 * newlines are dropped, have at most `max` characters; what else the URL parser refuses is the shape's to say
 * (HTTP_URL_SHAPE_PATTERN, beside it in an `allOf`).
 */
export function httpUrlPattern(max: number | undefined): string {
  const rest = (scheme: number) =>
    max === undefined ? '[\\s\\S]*' : `(?:[\\t\\n\\r]*[^\\t\\n\\r]){0,${max - scheme}}`;
  return `^\\s*(?:[Hh][Tt][Tt][Pp]://${rest(7)}|[Hh][Tt][Tt][Pp][Ss]://${rest(8)})\\s*$`;
}

/** A port the URL parser takes: 0–65535, leading zeros allowed, or none after the colon. */
const PORT = '(?::0*(?:\\d{1,4}|[1-5]\\d{4}|6[0-4]\\d{3}|65[0-4]\\d{2}|655[0-2]\\d|6553[0-5])?)?';

/**
 * The shape of an http(s) URL the URL parser takes, as far as a pattern can say it (its length is httpUrlPattern's
 * to say): optional user info, a host — an IPv6 literal, or characters that are no space or delimiter (the tabs and
 * newlines the parser drops may come between them) — a port in range, then the rest. Refuses `http://`,
 * `https://exa mple.com/` and `https://example.com:99999/`, which the length pattern lets through. Never stricter
 * than the server but in one odd case: a tab or newline among a port's digits.
 */
export const HTTP_URL_SHAPE_PATTERN =
  '^\\s*[Hh][Tt][Tt][Pp][Ss]?://(?:[^/?#\\\\@]*@)?(?:\\[[^\\]]*\\]|(?:[\\t\\n\\r]*[^\\s/?#\\\\@:\\[\\]])+)' +
  `${PORT}(?:[/?#\\\\][\\s\\S]*)?\\s*$`;

/** A regex source, anchored ^…$ and without flags, whose matches can hold no whitespace: its body, in a group. */
export function spacelessBody(regex: RegExp): string {
  const { source, flags } = regex;
  // Conservative: no class or escape that could match whitespace, no wildcard dot, no negated class.
  const mayMatchSpace = /\\[sSWDPp]|(?<!\\)\.|\[\^| /.test(source);
  if (flags !== '' || !source.startsWith('^') || !source.endsWith('$') || mayMatchSpace)
    throw new Error(`input-json-schema: cannot describe /${source}/${flags} after a trim`);
  return `(?:${source.slice(1, -1)})`;
}
