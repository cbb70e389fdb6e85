// What a client may send, as JSON Schema exactly as strict as the server: the request schemas of the OpenAPI
// description (docs/rest-compatibility.md, "The OpenAPI description") and the input schemas of the MCP tools
// (docs/mcp.md).
// zod's JSON Schema of a request (io: 'input') describes what its checks see, which is not always what a client may
// send: the lenient preprocessors of src/validation/fields.ts take numeric strings and boolean words, `.trim()` runs
// before the length checks, zod's url check trims too (and drops tabs and newlines), and neither its url nor its
// email check is JSON Schema's `uri` / `email` format. `inputOverride` rewrites those nodes while zod builds the
// schema, from the zod declarations themselves; `documentInput` lets a route say what a preprocessor of its own
// accepts (an alias of a field). test/rest/openapi-requests.test.ts holds the result to the server's answers.
// Lengths need no rewriting: zod counts a string's characters as JSON Schema does, in code points (an emoji is one).
import type { z } from 'zod';
import { fromBooleanWord, fromIntegerString, fromNumberString, NUMBER_STRING } from './fields.js';
import {
  BOOLEAN_WORD_PATTERN,
  HTTP_URL_SHAPE_PATTERN,
  httpUrlPattern,
  integerStringPattern,
  spacelessBody,
  trimmedLengthPattern,
} from './input-patterns.js';
/** A JSON Schema (2020-12) object, as zod's toJSONSchema and OpenAPI 3.1 write it. */
export type JsonSchema = Record<string, unknown>;

/** The parts of zod's internals read here (zod 4: `schema._zod.def`, checks as `_zod.def.check`). */
interface ZodNode {
  _zod: { def: ZodDef; traits: Set<string> };
}
interface ZodDef {
  type: string;
  checks?: ZodNode[];
  check?: string;
  format?: string;
  pattern?: RegExp;
  protocol?: RegExp;
  minimum?: number;
  maximum?: number;
  length?: number;
  tx?: (value: string) => unknown;
  transform?: unknown;
  in?: ZodNode;
  out?: ZodNode;
  defaultValue?: unknown;
}

const documented = new WeakMap<object, (schema: JsonSchema) => void>();

/**
 * Says in the OpenAPI description what `schema` accepts beyond what zod can show (the alias a preprocessor reads):
 * `rewrite` edits the request schema zod generates for it. Returns `schema`, which is not changed.
 */
export function documentInput<T extends z.ZodType>(schema: T, rewrite: (json: JsonSchema) => void): T {
  documented.set(schema, rewrite);
  return schema;
}

/** Adds a sentence to a schema's description, once. */
export function note(json: JsonSchema, sentence: string): void {
  const description = typeof json.description === 'string' ? json.description : '';
  if (description.includes(sentence)) return;
  json.description = description ? `${description.replace(/\.?$/, '.')} ${sentence}` : sentence;
}

// ---------------------------------------------------------------------------------------------------------------
// The rewrites.

const LENIENT = new Map<unknown, (json: JsonSchema) => JsonSchema>([
  [
    fromIntegerString,
    ({ type: _type, minimum, maximum, ...rest }) => {
      if (typeof minimum !== 'number' || typeof maximum !== 'number')
        throw new Error('input-json-schema: an intField without bounds');
      return {
        ...rest,
        anyOf: [
          { type: 'integer', minimum, maximum },
          { type: 'string', pattern: integerStringPattern(minimum, maximum) },
        ],
      };
    },
  ],
  [
    fromNumberString,
    ({ type: _type, ...rest }) => {
      note(rest, 'A numeric string must also be a finite number (the pattern lets "1e999" through).');
      return { ...rest, anyOf: [{ type: 'number' }, { type: 'string', pattern: NUMBER_STRING.source }] };
    },
  ],
  [
    fromBooleanWord,
    ({ type: _type, ...rest }) => ({
      ...rest,
      anyOf: [{ type: 'boolean' }, { enum: [0, 1] }, { type: 'string', pattern: BOOLEAN_WORD_PATTERN }],
    }),
  ],
]);

const checksOf = (node: ZodNode) => node._zod.def.checks ?? [];

/** Whether a check is String#trim (zod's `.trim()` is an overwrite; other overwrites change case or more). */
function isTrim(check: ZodNode): boolean {
  const { check: kind, tx } = check._zod.def;
  if (kind !== 'overwrite' || typeof tx !== 'function') return false;
  return tx(' \u00a0\ufeffA b\n\u2028') === 'A b' && tx('Ab') === 'Ab';
}

/** The length bounds a trimmed string's checks put on its trimmed value, or null when it is not trimmed first. */
function trimmedBounds(node: ZodNode): { min: number; max: number | undefined } | null {
  const checks = checksOf(node);
  const trim = checks.findIndex(isTrim);
  if (trim < 0) return null;
  if (trim > 0) throw new Error('input-json-schema: a check before .trim() cannot be described');
  let [min, max] = [0, undefined as number | undefined];
  for (const check of checks.slice(1)) {
    const def = check._zod.def;
    if (def.check === 'min_length') min = Math.max(min, def.minimum ?? 0);
    else if (def.check === 'max_length') max = Math.min(max ?? Infinity, def.maximum ?? Infinity);
    else if (def.check === 'length_equals') [min, max] = [def.length ?? 0, def.length];
    else throw new Error(`input-json-schema: cannot describe a ${def.check} check after .trim()`);
  }
  return { min, max };
}

const isString = (node: ZodNode | undefined): node is ZodNode => node?._zod.def.type === 'string';

function rewriteString(node: ZodNode, json: JsonSchema): void {
  const def = node._zod.def;
  if (node._zod.traits.has('$ZodURL')) {
    if (def.protocol?.source !== '^https?$') throw new Error('input-json-schema: only http(s) URLs are described');
    json.pattern = httpUrlPattern(typeof json.maxLength === 'number' ? json.maxLength : undefined);
    // Its length and its shape: one pattern without lookarounds cannot say both.
    json.allOf = [{ pattern: HTTP_URL_SHAPE_PATTERN }];
    delete json.maxLength;
    delete json.minLength;
    note(json, 'Surrounding whitespace is trimmed; it must parse as a URL (WHATWG URL Standard).');
    return;
  }
  const bounds = trimmedBounds(node);
  if (bounds) {
    // A pattern a declaration gave for the trimmed value ('\S': not only whitespace) is implied by min ≥ 1.
    if (json.pattern !== undefined && !(json.pattern === '\\S' && bounds.min >= 1))
      throw new Error(`input-json-schema: cannot describe the pattern ${String(json.pattern)} after .trim()`);
    json.pattern = trimmedLengthPattern(bounds.min, bounds.max);
    delete json.minLength;
    delete json.maxLength;
    const range = bounds.max === undefined ? `at least ${bounds.min}` : `${bounds.min}–${bounds.max}`;
    if (!/trimmed/.test(String(json.description ?? '')))
      note(json, `Surrounding whitespace is trimmed; ${range} characters must remain.`);
  }
}

/**
 * `.trim()…pipe(z.email())`: the trimmed value has the trimmed string's length and matches the email pattern (which
 * matches no whitespace, so surrounding whitespace and it are one pattern). Two patterns, in allOf: one pattern would
 * need a lookahead, which JSON Schema's recommended regular expressions leave out.
 */
function rewriteTrimmedPipe(def: ZodDef, json: JsonSchema): void {
  const bounds = isString(def.in) ? trimmedBounds(def.in) : null;
  const out = def.out;
  if (!bounds || !isString(out) || !out._zod.def.pattern) return;
  delete json.pattern;
  json.allOf = [
    { pattern: trimmedLengthPattern(bounds.min, bounds.max) },
    { pattern: `^\\s*${spacelessBody(out._zod.def.pattern)}\\s*$` },
  ];
}

/**
 * zod's toJSONSchema `override` for request schemas: called for every node once zod has built it (children first),
 * it edits the node's JSON Schema in place.
 */
export function inputOverride({ zodSchema, jsonSchema }: { zodSchema: unknown; jsonSchema: unknown }): void {
  const node = zodSchema as ZodNode;
  const json = jsonSchema as JsonSchema;
  const def = node._zod.def;
  if (def.type === 'string') rewriteString(node, json);
  if (def.type === 'pipe') {
    const lenient = def.in?._zod.def.type === 'transform' ? LENIENT.get(def.in._zod.def.transform) : undefined;
    if (lenient) {
      const rewritten = lenient({ ...json });
      for (const key of Object.keys(json)) delete json[key];
      Object.assign(json, rewritten);
    } else {
      rewriteTrimmedPipe(def, json);
    }
  }
  // A default the server applies is shown, though zod leaves it out of a request schema that transforms.
  if (def.type === 'default' && def.defaultValue !== undefined)
    json.default = JSON.parse(JSON.stringify(def.defaultValue)) as unknown;
  // zod's email and url checks are not JSON Schema's formats: the pattern (or the description) says what they are.
  if (typeof json.format === 'string') {
    if (json.pattern === undefined && json.allOf === undefined)
      throw new Error(`input-json-schema: format ${json.format} without a pattern`);
    delete json.format;
  }
  documented.get(node)?.(json);
}

/**
 * A preprocessor that reads parameter `name` from the first of `name`, ...`aliases` present. A rule per parameter
 * cannot say that one of several is required (OpenAPI has no parameter groups), and a description where none is
 * required is one a generated client compiles a call from that the server refuses. So `name` is described as
 * required, and the aliases as deprecated optional parameters that older clients may send in its place: the one
 * exception to "looser than the server, never stricter" (docs/rest-compatibility.md, "The OpenAPI description").
 */
export function documentAliases<T extends z.ZodType>(schema: T, name: string, aliases: readonly string[]): T {
  return documentInput(schema, (json) => {
    const properties = json.properties as Record<string, JsonSchema>;
    const primary = properties[name];
    if (!primary) throw new Error(`documentAliases: no property ${name}`);
    json.required = [...new Set([...((json.required ?? []) as string[]), name])];
    const all = [name, ...aliases];
    note(
      primary,
      `Older clients may send ${aliases.join(' or ')} instead (deprecated): an alias is read when the names before it ` +
        `are absent, and must then match this pattern; without any of ${all.join(', ')} the answer is 422.`,
    );
    aliases.forEach((alias, index) => {
      properties[alias] = {
        type: 'string',
        deprecated: true,
        description:
          `Deprecated: send ${name}. Read as ${name} when ${all.slice(0, index + 1).join(' and ')} ` +
          `${index === 0 ? 'is' : 'are'} absent; it must then match ${name}’s pattern`,
      };
    });
  });
}
