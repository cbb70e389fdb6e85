// Tool arguments generated from a tool's own input schema (docs/mcp.md, "Tools are named operations"): valid ones, and
// for each constraint of the schema one argument set that breaks that constraint alone, with the path of the argument
// it breaks. The schema keywords the tools use are covered (type, enum, properties, required, additionalProperties,
// anyOf, items, minItems/maxItems, minLength/maxLength, minimum/maximum, pattern, format date-time); a keyword or a
// pattern the generator does not know fails the test that meets it, so a new constraint gets a generator.
import type { JsonSchema } from '../../src/validation/input-json-schema.js';

/** A seeded random source (mulberry32): the same seed, the same arguments. */
export function randomSource(seed: number) {
  let state = seed >>> 0;
  const next = () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const int = (min: number, max: number) => min + Math.floor(next() * (max - min + 1));
  const pick = <T>(items: readonly T[]): T => items[int(0, items.length - 1)] as T;
  return { next, int, pick };
}
export type Random = ReturnType<typeof randomSource>;

/**
 * `minimal`: required properties only, smallest sizes; `maximal`: every property, largest sizes; `random`: between,
 * and a value the schema lets be null is null one time in four; `nulls`: every property, and every value the schema
 * lets be null is null (a schema saying null is allowed where the server refuses it fails there).
 */
export type Shape = 'minimal' | 'maximal' | 'random' | 'nulls';

const ALPHANUMERIC = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
const chars = (random: Random, length: number, alphabet = ALPHANUMERIC) =>
  Array.from({ length }, () => random.pick([...alphabet])).join('');
const lengthFor = (shape: Shape, random: Random, min: number, max: number) =>
  // `nulls` sizes as `random` does.
  shape === 'minimal' ? min : shape === 'maximal' ? max : random.int(min, Math.min(max, min + 40));

const pad2 = (value: number) => String(value).padStart(2, '0');

/**
 * The patterns the tools' schemas use, each with a generator of matching values and a value that does not match
 * (`bad`). Values the pattern lets through but the server's own check refuses (a tag Intl does not know, a zone
 * the time-zone database lacks) are avoided by picking from known-good ones.
 */
const PATTERNS: Array<{
  test: RegExp;
  good: (source: string, shape: Shape, random: Random) => string;
  /** Values the pattern refuses (and so must the server): the shortest and oddest a careless pattern would admit. */
  bad: string | string[];
  /**
   * Values the pattern admits that the server refuses, because JSON Schema cannot say why (a zone the time-zone
   * database lacks): the field's description must say so (`described`), and the server refuse them.
   */
  serverOnly?: { values: string[]; described: RegExp };
}> = [
  {
    test: /^\^\[A-Za-z0-9_-\]\{1,64\}\$$/,
    good: (_s, shape, r) => chars(r, lengthFor(shape, r, 1, 64)),
    bad: ['a b', '', 'a'.repeat(65)],
  },
  {
    test: /^\^\[A-Za-z\]\{2,3\}\(-/,
    good: (_s, _shape, r) => r.pick(['en', 'en-US', 'fr-FR', 'pt-BR', 'zh-Hant-TW']),
    bad: ['not a tag', 'e', 'en_US', 'en-'],
    serverOnly: { values: ['en-US-u', 'de-1996-1996'], described: /Intl\.getCanonicalLocales/ },
  },
  {
    test: /^\^\[A-Za-z\]\[A-Za-z0-9_\+-\]\*/,
    good: (_s, _shape, r) => r.pick(['UTC', 'Europe/Paris', 'America/New_York', 'Asia/Tokyo']),
    bad: ['+01:00', 'Europe/', '/UTC'],
    serverOnly: { values: ['Mars/Olympus', 'A'], described: /time-zone database/ },
  },
  {
    // DateTime: RFC 3339 with seconds and an offset.
    test: /^\^\\d\{4\}-\(\?:0\[1-9\]/,
    good: (_s, _shape, r) =>
      `${r.int(2000, 2090)}-${pad2(r.int(1, 12))}-${pad2(r.int(1, 28))}T${pad2(r.int(0, 23))}:${pad2(r.int(0, 59))}:` +
      `${pad2(r.int(0, 59))}${r.pick(['Z', '.5Z', '+02:00', '-05:30', 'z'])}`,
    bad: '2026-12-20',
  },
  {
    // A trimmed string of a bounded length: `^\s*\S(?:[\s\S]{0,N}\S)?\s*$`.
    test: /^\^\\s\*\\S\(\?:\[\\s\\S\]\{0,(\d+)\}\\S\)\?\\s\*\$$/,
    good: (source, shape, r) => {
      const max = Number(/\{0,(\d+)\}/.exec(source)?.[1]) + 2;
      return chars(r, lengthFor(shape, r, 1, max));
    },
    bad: '   ',
  },
  {
    test: /^\^\\s\*\(\?:\[Hh\]\[Tt\]\[Tt\]\[Pp\]:/,
    good: (_s, shape, r) => `https://hooks.example.com/${chars(r, lengthFor(shape, r, 1, 1900))}`,
    bad: ['ftp://example.com/', `https://example.com/${'p'.repeat(2030)}`],
    serverOnly: { values: ['https://exa%20mple.com/'], described: /URL parser/ },
  },
  {
    // The shape of an http(s) URL (beside the length pattern, in an allOf).
    test: /^\^\\s\*\[Hh\]\[Tt\]\[Tt\]\[Pp\]\[Ss\]\?:/,
    good: (_s, shape, r) => `https://hooks.example.com/${chars(r, lengthFor(shape, r, 1, 1900))}`,
    bad: ['http://', 'https://exa mple.com/', 'https://example.com:99999/', 'https://:80/', 'https:// x/'],
  },
  {
    // An idempotency key: 1–255 printable ASCII characters.
    test: /^\^\[\\x21-\\x7e\]\{1,255\}\$$/,
    good: (_s, shape, r) => chars(r, lengthFor(shape, r, 1, 255)),
    bad: ['', 'has space', 'k'.repeat(256), 'é'],
  },
  {
    // A JSON field name (a post-call analysis filter): a letter or '_', then letters, digits or '_'.
    test: /^\^\[A-Za-z_\]\[A-Za-z0-9_\]\{0,63\}\$$/,
    good: (_s, shape, r) => `f${chars(r, lengthFor(shape, r, 0, 63), 'abcXYZ019_')}`,
    bad: ['', '1st', 'has space', 'a.b', `a${'b'.repeat(64)}`, "a'"],
  },
  { test: /^\^\\\+\[1-9\]\\d\{1,14\}\$$/, good: (_s, _shape, r) => `+1${chars(r, 10, '0123456789')}`, bad: '12345' },
  { test: /@\(\?:\[A-Za-z0-9\]/, good: (_s, _shape, r) => `${chars(r, 8)}@example.com`, bad: 'not-an-email' },
];

function patternOf(source: string) {
  const known = PATTERNS.find((entry) => entry.test.test(source));
  if (!known) throw new Error(`schema-arguments: no generator for the pattern ${source}`);
  return known;
}

const typesOf = (schema: JsonSchema): string[] => (schema.type === undefined ? [] : ([schema.type].flat() as string[]));

/**
 * A nullable schema as the door spells it, `anyOf: [X, {type: "null"}]` (portable to single-type dialects), read as X
 * with null among its types and enum values; any other schema as it is.
 */
function plain(schema: JsonSchema): JsonSchema {
  const branches = schema.anyOf as JsonSchema[] | undefined;
  if (!branches || schema.type !== undefined) return schema;
  const others = branches.filter((branch) => branch.type !== 'null');
  const [branch] = others;
  if (!branch || others.length !== 1 || branches.length !== 2) return schema;
  const { anyOf: _anyOf, ...outer } = schema;
  const typed = branch.type === undefined ? branch : { ...branch, type: [branch.type, 'null'].flat() };
  const listed = Array.isArray(typed.enum) ? { ...typed, enum: [...(typed.enum as unknown[]), null] } : typed;
  return { ...listed, ...outer };
}

const KNOWN_KEYWORDS = new Set([
  'type',
  'description',
  'default',
  'enum',
  'properties',
  'required',
  'additionalProperties',
  'items',
  'minItems',
  'maxItems',
  'minLength',
  'maxLength',
  'minimum',
  'maximum',
  'pattern',
  'format',
  'anyOf',
  'allOf',
]);

function checkKeywords(schema: JsonSchema) {
  for (const key of Object.keys(schema)) {
    if (!KNOWN_KEYWORDS.has(key)) throw new Error(`schema-arguments: no generator for the keyword ${key}`);
  }
}

/** Whether `schema` lets the value be null (a `null` type, enum value or anyOf branch; no type at all: anything). */
export function allowsNull(schema: JsonSchema): boolean {
  if (typesOf(schema).includes('null')) return true;
  if (Array.isArray(schema.enum)) return (schema.enum as unknown[]).includes(null);
  if (schema.anyOf && !schema.type) return (schema.anyOf as JsonSchema[]).some(allowsNull);
  return schema.type === undefined && schema.const === undefined;
}

/** Whether a value of `schema` is null this time: always in `nulls`, one time in four in `random`. */
const nullNow = (schema: JsonSchema, shape: Shape, random: Random) =>
  (shape === 'nulls' || (shape === 'random' && random.next() < 0.25)) && allowsNull(schema);

/** Values another tool answers, by property name (a voiceId is one voice_list lists). */
export type References = Record<string, readonly unknown[]>;

/** A value valid for `schema`; `notNull`: one that is not null (a property an anyOf branch requires as a string). */
export function validValue(
  schema: JsonSchema,
  shape: Shape,
  random: Random,
  references: References = {},
  name = '',
  notNull = false,
): unknown {
  schema = plain(schema);
  checkKeywords(schema);
  if (!notNull && nullNow(schema, shape, random)) return null;
  if (name in references) return random.pick(references[name] ?? []);
  if (Array.isArray(schema.enum)) {
    const values = (schema.enum as unknown[]).filter((value) => value !== null);
    return shape === 'maximal' ? values.at(-1) : random.pick(values);
  }
  if (schema.anyOf && !schema.type) {
    const branches = (schema.anyOf as JsonSchema[]).filter((branch) => branch.type !== 'null');
    return validValue(random.pick(branches), shape, random, references, name);
  }
  const type = typesOf(schema).find((candidate) => candidate !== 'null');
  switch (type) {
    case 'string': {
      if (typeof schema.pattern === 'string') return patternOf(schema.pattern).good(schema.pattern, shape, random);
      const min = Number(schema.minLength ?? 0);
      const max = Number(schema.maxLength ?? 40);
      return chars(random, lengthFor(shape, random, min, max));
    }
    case 'integer': {
      const min = Number(schema.minimum ?? -1000);
      const max = Number(schema.maximum ?? 1000);
      return shape === 'minimal' ? min : shape === 'maximal' ? max : random.int(min, max);
    }
    case 'number':
      return random.int(0, 1000) / 10;
    case 'boolean':
      return random.next() < 0.5;
    case 'array': {
      const min = Number(schema.minItems ?? 0);
      const max = Number(schema.maxItems ?? 3);
      const length = lengthFor(shape, random, min, max);
      return Array.from({ length }, () => validValue(schema.items as JsonSchema, shape, random, references, name));
    }
    case 'object':
      return validObject(schema, shape, random, references);
    case undefined:
      return shape === 'minimal' && !notNull ? null : { note: 'any JSON' };
    default:
      throw new Error(`schema-arguments: no generator for the type ${type}`);
  }
}

function validObject(schema: JsonSchema, shape: Shape, random: Random, references: References) {
  const properties = (schema.properties ?? {}) as Record<string, JsonSchema>;
  const required = new Set((schema.required ?? []) as string[]);
  // anyOf over required properties (a participant's email or phone): one branch's properties are required too, and
  // not null (the branch says what they are: a string).
  const branchRequired = new Set<string>();
  if (schema.anyOf) {
    const branch = random.pick(schema.anyOf as JsonSchema[]);
    for (const name of (branch.required ?? []) as string[]) branchRequired.add(name);
  }
  const value: Record<string, unknown> = {};
  for (const [name, property] of Object.entries(properties)) {
    const include =
      required.has(name) ||
      branchRequired.has(name) ||
      shape === 'maximal' ||
      shape === 'nulls' ||
      (shape === 'random' && random.next() < 0.5);
    if (include) value[name] = validValue(property, shape, random, references, name, branchRequired.has(name));
  }
  return value;
}

export interface Violation {
  /** What is broken, for the test's messages. */
  what: string;
  /** The arguments, valid but for the one broken constraint. */
  args: Record<string, unknown>;
  /** The path of the argument that breaks it. */
  path: Array<string | number>;
  /**
   * A value the schema admits and the server refuses (a rule JSON Schema cannot write): the field's description must
   * say the rule (`described` matches `description`).
   */
  serverOnly?: { described: RegExp; description: string };
}

const clone = <T>(value: T): T => JSON.parse(JSON.stringify(value)) as T;

function setAt(root: Record<string, unknown>, path: ReadonlyArray<string | number>, value: unknown, remove = false) {
  let parent: any = root;
  for (const segment of path.slice(0, -1)) parent = parent[segment];
  const last = path.at(-1) as string | number;
  if (remove) delete parent[last];
  else parent[last] = value;
}

/** A value of another JSON type than `schema` allows (one GraphQL does not coerce into it). */
function wrongType(schema: JsonSchema): unknown {
  const types = typesOf(schema);
  if (types.includes('string')) return 12345;
  if (types.includes('integer')) return 1.5;
  if (types.includes('number') || types.includes('boolean')) return 'x';
  if (types.includes('object')) return 'x';
  return undefined;
}

/**
 * Every single violation of the constraints `schema` puts on `value` (a valid value at `path` inside `args`), and
 * below it.
 */
export function violations(
  schema: JsonSchema,
  args: Record<string, unknown>,
  path: Array<string | number> = [],
  value: unknown = args,
): Violation[] {
  schema = plain(schema);
  const found: Violation[] = [];
  const broken = (what: string, replacement: unknown, at = path, remove = false) => {
    const copy = clone(args);
    if (at.length === 0) return;
    setAt(copy, at, replacement, remove);
    found.push({ what: `${at.join('.')}: ${what}`, args: copy, path: at });
  };
  const types = typesOf(schema);
  if (path.length > 0) {
    const wrong = wrongType(schema);
    if (wrong !== undefined) broken('wrong type', wrong);
    // A single valid item where the list is expected: GraphQL would make it a list of one, the schema says list.
    if (types.includes('array') && Array.isArray(value) && value.length > 0) broken('a single item', value[0]);
    if (types.length > 0 && !types.includes('null') && !(schema.enum as unknown[] | undefined)?.includes(null))
      broken('null', null);
  }
  if (Array.isArray(schema.enum)) broken('not one of the enum', 'NOT_A_VALUE');
  if (typeof value === 'string') {
    if (typeof schema.minLength === 'number' && schema.minLength > 0)
      broken('too short', value.slice(0, schema.minLength - 1));
    if (typeof schema.maxLength === 'number') broken('too long', 'x'.repeat(schema.maxLength + 1));
    if (typeof schema.pattern === 'string') {
      const { bad, serverOnly } = patternOf(schema.pattern);
      for (const value of [bad].flat()) broken(`does not match the pattern (${JSON.stringify(value)})`, value);
      for (const part of (schema.allOf ?? []) as JsonSchema[]) {
        if (typeof part.pattern !== 'string') continue;
        for (const bad of [patternOf(part.pattern).bad].flat()) {
          broken(`does not match the pattern of its shape (${JSON.stringify(bad)})`, bad);
        }
      }
      for (const value of serverOnly?.values ?? []) {
        const copy = clone(args);
        setAt(copy, path, value, false);
        found.push({
          what: `${path.join('.')}: admitted by the pattern, refused by the server (${JSON.stringify(value)})`,
          args: copy,
          path,
          serverOnly: { described: serverOnly!.described, description: String(schema.description ?? '') },
        });
      }
    }
    if (schema.format === 'date-time') broken('a day the month lacks', '2026-02-30T10:00:00Z');
  }
  if (typeof value === 'number') {
    if (typeof schema.minimum === 'number') broken('below the minimum', schema.minimum - 1);
    if (typeof schema.maximum === 'number') broken('above the maximum', schema.maximum + 1);
  }
  if (Array.isArray(value)) {
    const items = schema.items as JsonSchema;
    if (typeof schema.minItems === 'number' && schema.minItems > 0) broken('too few items', []);
    if (typeof schema.maxItems === 'number' && value.length > 0)
      broken(
        'too many items',
        Array.from({ length: schema.maxItems + 1 }, () => value[0]),
      );
    if (value.length > 0) found.push(...violations(items, args, [...path, 0], value[0]));
  }
  if (value && typeof value === 'object' && !Array.isArray(value)) {
    const record = value as Record<string, unknown>;
    const properties = (schema.properties ?? {}) as Record<string, JsonSchema>;
    for (const name of (schema.required ?? []) as string[]) broken('missing', undefined, [...path, name], true);
    if (schema.additionalProperties === false) {
      const extra = [...path, 'unexpectedArgument'];
      if (path.length === 0) {
        found.push({ what: 'an unknown argument', args: { ...clone(args), unexpectedArgument: 1 }, path: extra });
      } else broken('an unknown property', 1, extra);
    }
    // anyOf of required properties: none of them given.
    if (schema.anyOf) {
      const alternatives = (schema.anyOf as JsonSchema[]).flatMap((branch) => (branch.required ?? []) as string[]);
      const copy = clone(record);
      for (const name of alternatives) delete copy[name];
      broken(`none of ${alternatives.join(', ')}`, copy);
    }
    for (const [name, property] of Object.entries(properties)) {
      if (name in record) found.push(...violations(property, args, [...path, name], record[name]));
    }
  }
  return found;
}
