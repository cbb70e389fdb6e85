// Building blocks of the REST door's response schemas (src/rest/responses/*.ts). These schemas are never parsed at
// run time: they declare what `respond` returns (its type is checked against them) and become the OpenAPI
// description's success bodies, where a schema with an `id` is one entry of components/schemas.
import { z } from 'zod';

/** Every timestamp the door sends is `Date#toISOString()`: UTC, with milliseconds. */
export const dateTime = z.string().meta({
  id: 'DateTime',
  format: 'date-time',
  pattern: '^\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}\\.\\d{3}Z$',
  description: 'ISO 8601 in UTC, with milliseconds (2026-01-31T09:00:00.000Z)',
});

/** A stored secret as it is ever shown. */
export const maskedSecret = z.string().meta({
  pattern: '^\\*{4}[\\s\\S]{0,4}$',
  description: '"****" and the last 4 characters of the secret, or "****" alone when it is shorter than 8',
});

/** A success that only says what was done, always in the same words. */
export const doneBody = (sentence: string) =>
  z.object({ detail: z.literal(sentence) }).describe(`Always "${sentence}"`);

/** A closed set of values, from a record of the values so that the compiler checks it against the domain's type. */
export function enumOf<T extends string>(values: Record<T, true>) {
  return z.enum(Object.keys(values) as [T, ...T[]]);
}

/** GraphQL's enum names are the legacy values in upper case (ACTIVE → active). */
export const lowerCase = <S extends string>(value: S): Lowercase<S> => value.toLowerCase() as Lowercase<S>;
