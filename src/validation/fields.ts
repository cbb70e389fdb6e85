// Field schemas shared by every door. They coerce leniently, as the legacy service (pydantic, lax mode) did:
// numeric strings for numbers, "true"/"false" (and the other words pydantic accepts) for booleans.
// The preprocessors are exported so that the OpenAPI description can say what they let through
// (src/validation/input-json-schema.ts); they are the only place that decides it.
import { z } from 'zod';
import { INTEGER_EXPECTED } from './issues.js';

export const INTEGER_STRING = /^\s*[-+]?\d+\s*$/;
export const NUMBER_STRING = /^\s*[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?\s*$/;
/** Read case-insensitively, once trimmed. */
export const TRUE_WORDS: ReadonlySet<string> = new Set(['true', '1', 'yes', 'on', 't', 'y']);
export const FALSE_WORDS: ReadonlySet<string> = new Set(['false', '0', 'no', 'off', 'f', 'n']);

/** A string of digits (signed, surrounding whitespace allowed) → its number; anything else as it is. */
export const fromIntegerString = (value: unknown) =>
  typeof value === 'string' && INTEGER_STRING.test(value) ? Number(value) : value;

/** A decimal string (exponent allowed) → its number; anything else as it is. */
export const fromNumberString = (value: unknown) =>
  typeof value === 'string' && NUMBER_STRING.test(value) ? Number(value) : value;

/** A boolean word (TRUE_WORDS, FALSE_WORDS) or 0/1 → the boolean; anything else as it is. */
export const fromBooleanWord = (value: unknown) => {
  if (typeof value === 'string') {
    const word = value.trim().toLowerCase();
    if (TRUE_WORDS.has(word)) return true;
    if (FALSE_WORDS.has(word)) return false;
  }
  if (value === 0 || value === 1) return value === 1;
  return value;
};

export function intField(min: number, max: number) {
  return z.preprocess(
    fromIntegerString,
    z
      .int({ error: (issue) => (issue.code === 'invalid_type' ? INTEGER_EXPECTED : undefined) })
      .min(min)
      .max(max),
  );
}

/** Any finite number; used where the legacy body requires a value that we then ignore (campaign metrics). */
export const anyNumberField = z.preprocess(fromNumberString, z.number());

export const boolField = z.preprocess(fromBooleanWord, z.boolean());

export function textField(min: number, max: number) {
  return z.string().min(min).max(max);
}

export const jsonObjectField = z.record(z.string(), z.unknown());

/** A JSON object whose JSON text has at most `max` characters (a size JSON Schema cannot state: its description does). */
export const boundedJsonObjectField = (max: number) =>
  jsonObjectField.refine((value) => JSON.stringify(value).length <= max, `at most ${max} characters as JSON`);

// The refinements below cannot be written in JSON Schema: their syntax is (as `pattern`, in OpenAPI), the rest is
// said in their description. Patterns are written without flags, as JSON Schema has none.

const LANGUAGE_TAG = /^[A-Za-z]{2,3}(-[A-Za-z0-9]{1,8})*$/;

/** A BCP 47 language tag with a 2–3 letter primary language (`en`, `en-US`, `pt-BR`, `zh-Hant-TW`). */
export const languageTagField = z
  .string()
  .max(35)
  .refine((tag) => {
    if (!LANGUAGE_TAG.test(tag)) return false;
    try {
      return Intl.getCanonicalLocales(tag).length === 1;
    } catch {
      return false;
    }
  }, 'must be a valid BCP 47 language tag such as "en-US"')
  .meta({
    pattern: LANGUAGE_TAG.source,
    description: 'A BCP 47 language tag such as "en-US" (one that Intl.getCanonicalLocales accepts)',
  });

const TIME_ZONE = /^[A-Za-z][A-Za-z0-9_+-]*(\/[A-Za-z0-9_+-]+)*$/;

/** An IANA time zone name (`UTC`, `Europe/Paris`); UTC offsets are not zones. */
export const timeZoneField = z
  .string()
  .max(64)
  .refine((zone) => {
    if (!TIME_ZONE.test(zone)) return false;
    try {
      new Intl.DateTimeFormat('en-US', { timeZone: zone });
      return true;
    } catch {
      return false;
    }
  }, 'must be a valid IANA time zone such as "Europe/Paris"')
  .meta({
    pattern: TIME_ZONE.source,
    description: 'An IANA time zone such as "Europe/Paris" or "UTC", known to the server’s time-zone database',
  });

/**
 * An http(s) URL of at most 2048 characters once trimmed (zod's url check trims it and drops tabs and newlines, as
 * the URL parser does). Its OpenAPI pattern is derived from this declaration (src/validation/input-json-schema.ts).
 */
export const httpUrlField = z
  .url({ protocol: /^https?$/ })
  .max(2048)
  .meta({ description: 'An http(s) URL' });

const ISO_8601 = /^\d{4}-\d{2}-\d{2}([Tt ]\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?([Zz]|[+-]\d{2}:?\d{2})?)?$/;

/**
 * What ISO_8601 and Date.parse accept together, as one pattern (for OpenAPI): months 01–12, days 01–31 (Date.parse
 * takes day 31 of any month and rolls over), hours 00–23 or 24:00 exactly, minutes and seconds 00–59, offsets up to
 * ±23:59. V8's fallback parser also takes some bare dates of the years 0001–0012 with other month and day numbers:
 * the last alternative lets all of those through (looser, never stricter). test/rest/openapi-requests.test.ts checks
 * the pattern against the server's rule.
 */
const DOCUMENTED_DATE_TIME =
  /^(?:\d{4}-(?:0[1-9]|1[0-2])-(?:0[1-9]|[12]\d|3[01])(?:[Tt ](?:(?:[01]\d|2[0-3]):[0-5]\d(?::[0-5]\d(?:\.\d{1,9})?)?|24:00(?::00(?:\.0{1,9})?)?)(?:[Zz]|[+-](?:[01]\d|2[0-3]):?[0-5]\d)?)?|00(?:0[1-9]|1[0-2])-\d{2}-\d{2})$/;

/**
 * An ISO 8601 date or date-time; a time without offset is UTC. Normalised to `Date#toISOString()`.
 * GraphQL DateTime arguments arrive already parsed, as Dates.
 */
export const dateTimeField = z.preprocess(
  (value) => (value instanceof Date && !Number.isNaN(value.getTime()) ? value.toISOString() : value),
  z
    .string()
    .refine((value) => momentOf(value) !== null, {
      message: 'Input should be a valid datetime, as ISO 8601 (2026-01-31T09:00:00Z)',
      params: { type: 'datetime_parsing' },
    })
    .meta({
      pattern: DOCUMENTED_DATE_TIME.source,
      description:
        'An ISO 8601 date (2026-11-01: midnight UTC) or date-time (2026-11-01T09:00:00Z; UTC when it has no ' +
        'offset). Two things the pattern cannot check: the day must exist in its month (2026-02-31 is refused), ' +
        'and the moment, in UTC, must fall in the years 0000–9999; for the years 0001–0012 the pattern lets ' +
        'through every bare date, of which the server’s date parser takes only some',
    })
    .transform((value) => new Date(momentOf(value) ?? Number.NaN).toISOString()),
);

/** 0000-01-01T00:00:00Z and 10000-01-01T00:00:00Z: the moments a DateTime (four-digit years) can show. */
const FIRST_MOMENT = -62_167_219_200_000;
const END_OF_MOMENTS = 253_402_300_800_000;

/**
 * The moment (ms since the epoch) an ISO 8601 date or date-time names; null when it is not one, names a day its month
 * does not have (2026-02-31: Date.parse would roll it over to March; FastAPI's parser refuses it), or falls outside
 * the years 0000–9999 in UTC (an offset can move 0000-01-01T00:00 into the year before).
 */
function momentOf(value: string): number | null {
  if (!ISO_8601.test(value)) return null;
  const time = Date.parse(toUtc(value));
  if (Number.isNaN(time) || time < FIRST_MOMENT || time >= END_OF_MOMENTS) return null;
  const [year, month, day] = value.slice(0, 10).split('-').map(Number) as [number, number, number];
  const calendar = new Date(0);
  calendar.setUTCFullYear(year, month - 1, day);
  return calendar.getUTCMonth() === month - 1 ? time : null;
}

function toUtc(value: string): string {
  const normalized = value.replace(' ', 'T');
  return /T.*(Z|[+-]\d{2}:?\d{2})$/i.test(normalized) || !normalized.includes('T') ? normalized : `${normalized}Z`;
}
