// Hostile values for the fuzz tests (fast-check): wrong types, nulls, huge and deeply nested values, odd unicode,
// numbers out of range, bad headers. Shared by the REST and GraphQL fuzzers; the property is always the same —
// no 5xx and no internals in any body (see `checkReply`).
import fc from 'fast-check';
import { expect } from 'vitest';
import type { Reply } from '../helpers/app.js';

/** Cases per operation: `FUZZ_RUNS` spread over every operation (npm test: a bounded run; npm run fuzz: longer). */
export function runsPerOperation(operations: number, defaultTotal = 300): number {
  const total = Number(process.env.FUZZ_RUNS ?? defaultTotal);
  return Math.max(3, Math.ceil(total / operations));
}

export const fuzzParameters = (numRuns: number): fc.Parameters<unknown> => ({
  numRuns,
  ...(process.env.FUZZ_SEED ? { seed: Number(process.env.FUZZ_SEED) } : {}),
  endOnFailure: true,
});

/** `arbitrary`'s value in one case of `oneIn`, null in the others (fc.option's `freq` is the other way round). */
export const sometimes = <T>(arbitrary: fc.Arbitrary<T>, oneIn: number): fc.Arbitrary<T | null> =>
  fc.oneof({ weight: oneIn - 1, arbitrary: fc.constant(null) }, { weight: 1, arbitrary });

const oddStrings = fc.constantFrom(
  '',
  ' ',
  '\u0000',
  'a\u0000b',
  '\ud800', // a lone surrogate
  'x\udfffy',
  '\u202e\u202dRTL',
  '👩‍👩‍👧‍👦🏳️‍🌈',
  'e\u0301\u0301\u0301',
  '%00%zz%',
  '../../etc/passwd',
  "'; drop table accounts; --",
  '<script>alert(1)</script>',
  '{"$ne": null}',
  'NaN',
  'Infinity',
  '-0',
  '1e309',
  '9007199254740993',
  'true',
  'null',
  '2026-13-45T99:99:99Z',
  'http://[::1]/',
  'ck_',
  'Bearer x',
);

/** A string, sometimes odd, sometimes huge (up to 200 KB). */
export const hostileString: fc.Arbitrary<string> = fc.oneof(
  { weight: 4, arbitrary: fc.string({ unit: 'binary', maxLength: 40 }) },
  { weight: 4, arbitrary: oddStrings },
  { weight: 1, arbitrary: fc.integer({ min: 1000, max: 200_000 }).map((n) => 'x'.repeat(n)) },
  { weight: 1, arbitrary: fc.integer({ min: 1, max: 20_000 }).map((n) => '\u{1F600}'.repeat(n)) },
);

export const hostileNumber: fc.Arbitrary<number> = fc.oneof(
  fc.constantFrom(0, -0, 1e308, -1e308, Number.MAX_SAFE_INTEGER + 2, -(2 ** 53), 2 ** 31, -(2 ** 31) - 1, 0.1, 1e-320),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  fc.integer(),
);

/** A value nested `depth` levels deep (arrays or objects). */
export const nested = (depth: number, object: boolean): unknown => {
  let value: unknown = 1;
  for (let level = 0; level < depth; level++) value = object ? { a: value } : [value];
  return value;
};

const deepValue = fc
  .tuple(fc.constantFrom(10, 63, 64, 65, 100, 1000), fc.boolean())
  .map(([depth, object]) => nested(depth, object));

/** Text nested deeper than JSON.stringify could write (for raw bodies). */
export const deepText = fc
  .tuple(fc.constantFrom(5000, 100_000), fc.boolean(), fc.boolean())
  .map(
    ([depth, object, closed]) =>
      (object ? '{"a":'.repeat(depth) : '['.repeat(depth)) + (closed ? `1${(object ? '}' : ']').repeat(depth)}` : ''),
  );

const bigArray = fc.integer({ min: 1000, max: 40_000 }).map((n) => Array.from({ length: n }, (_, i) => i));

/** Any JSON value a hostile client might send where something else was expected. */
export const hostileValue: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 5, arbitrary: hostileString },
  { weight: 3, arbitrary: hostileNumber },
  {
    weight: 2,
    arbitrary: fc.constantFrom(
      null,
      true,
      false,
      {},
      [],
      [null],
      { '': '' },
      JSON.parse('{"__proto__": {"polluted": 1}}'),
    ),
  },
  { weight: 2, arbitrary: fc.jsonValue({ maxDepth: 4 }) },
  { weight: 1, arbitrary: deepValue },
  { weight: 1, arbitrary: bigArray },
  { weight: 1, arbitrary: fc.array(hostileString, { maxLength: 5 }) },
);

/** The placeholder `authorization` puts where the caller's current token goes (it may change during a run). */
export const TOKEN = '$TOKEN';

/** Authorization headers: the caller's real token (`TOKEN`), none, or garbage. */
export const authorization: fc.Arbitrary<string | undefined> = fc.oneof(
  { weight: 6, arbitrary: fc.constant(`Bearer ${TOKEN}`) },
  { weight: 2, arbitrary: fc.constant(undefined) },
  {
    weight: 2,
    arbitrary: fc.constantFrom(
      'Bearer',
      'Bearer ',
      'Bearer not.a.jwt',
      'Basic dXNlcjpwYXNz',
      'bearer eyJhbGciOiJub25lIn0.eyJzdWIiOiJhIn0.',
      `Bearer ${TOKEN}x`,
      `Bearer ${'a'.repeat(8000)}`,
    ),
  },
);

export const contentType: fc.Arbitrary<string | undefined> = fc.oneof(
  { weight: 6, arbitrary: fc.constant('application/json') },
  {
    weight: 2,
    arbitrary: fc.constantFrom(
      undefined,
      'text/plain',
      'application/x-www-form-urlencoded',
      'multipart/form-data; boundary=x',
      'application/json; charset=latin1',
      'application/graphql-response+json',
      'application/json\u0001',
    ),
  },
);

const STACK = /\bat [\w.<>]+ \(|node:internal|\.ts:\d+|\.js:\d+:\d+/;

/** The property of every fuzz case: no 5xx, no stack traces or masked unexpected errors in the body. */
export function checkReply(what: string, reply: Reply<unknown>): void {
  const shown = `${what} → ${reply.status} ${reply.text.slice(0, 500)}`;
  expect(reply.status, shown).toBeLessThan(500);
  expect(STACK.test(reply.text), shown).toBe(false);
  expect(reply.text.includes('Unexpected error'), shown).toBe(false);
}

/** A request trimmed for a failure message. */
export const describeRequest = (method: string, path: string, headers: Record<string, string>, body?: string) =>
  `${method} ${path.slice(0, 300)} ${JSON.stringify(headers).slice(0, 300)} ${body?.slice(0, 500) ?? ''}`;

/** Percent-encodes a path segment; a lone surrogate (which encodeURIComponent refuses) goes as invalid UTF-8 bytes. */
export function encodeSegment(value: string): string {
  return Array.from(value, (char) => {
    try {
      return encodeURIComponent(char);
    } catch {
      return '%ED%BF%BF';
    }
  }).join('');
}
