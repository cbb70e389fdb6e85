// Values for REST bodies and query parameters, generated from the served OpenAPI (JSON Schema) description: mostly
// plausible (the right type, within the stated bounds), each part spoiled by a hostile value now and then, so that
// most cases get past validation and reach the resolvers and the database with one bad part.
import fc from 'fast-check';
import { hostileValue } from './arbitraries.js';

export interface JsonSchema {
  type?: string | string[];
  enum?: unknown[];
  anyOf?: JsonSchema[];
  oneOf?: JsonSchema[];
  properties?: Record<string, JsonSchema>;
  required?: string[];
  additionalProperties?: JsonSchema | boolean;
  items?: JsonSchema;
  maxItems?: number;
  minLength?: number;
  maxLength?: number;
  minimum?: number;
  maximum?: number;
  pattern?: string;
  format?: string;
}

const someText = fc.oneof(
  fc.constantFrom('spring', 'x', 'Spring outreach', 'en-US', 'https://example.com/hook', '+14155550100', 'a@b.co'),
  fc.string({ maxLength: 12 }),
);

function stringFor(schema: JsonSchema): fc.Arbitrary<string> {
  if (schema.format === 'date-time') {
    return fc
      .date({ min: new Date('2000-01-01'), max: new Date('2100-01-01'), noInvalidDate: true })
      .map((d) => d.toISOString());
  }
  if (schema.format === 'uri' || schema.format === 'url') {
    return fc.constantFrom('https://example.com/hook', 'http://127.0.0.1/x', 'https://93.184.216.34/');
  }
  if (schema.format === 'email') return fc.constantFrom('a@b.co', 'fuzz@example.com');
  if (schema.pattern) return fc.stringMatching(new RegExp(schema.pattern)).filter((s) => s.length <= 200);
  const minLength = schema.minLength ?? 0;
  const maxLength = Math.max(minLength, Math.min(schema.maxLength ?? 40, 40));
  return fc.oneof(
    someText.filter((s) => s.length >= minLength && s.length <= maxLength),
    fc.string({ minLength, maxLength }),
  );
}

function plausible(schema: JsonSchema, spoilOneIn: number, depth: number): fc.Arbitrary<unknown> {
  if (schema.enum && schema.enum.length > 0) return fc.constantFrom(...schema.enum);
  const choices = schema.anyOf ?? schema.oneOf;
  if (choices && choices.length > 0) return fc.oneof(...choices.map((c) => schemaValue(c, spoilOneIn, depth)));
  const type = Array.isArray(schema.type) ? schema.type.find((t) => t !== 'null') : schema.type;
  switch (type) {
    case 'string':
      return stringFor(schema);
    case 'integer':
      return fc.integer({ min: schema.minimum ?? -5, max: Math.min(schema.maximum ?? 500, 1_000_000) });
    case 'number':
      return fc.double({ min: schema.minimum ?? -5, max: Math.min(schema.maximum ?? 500, 1e6), noNaN: true });
    case 'boolean':
      return fc.boolean();
    case 'null':
      return fc.constant(null);
    case 'array':
      return fc.array(schema.items ? schemaValue(schema.items, spoilOneIn, depth + 1) : fc.jsonValue({ maxDepth: 2 }), {
        maxLength: Math.min(schema.maxItems ?? 4, 4),
      });
    case 'object': {
      const properties = Object.entries(schema.properties ?? {});
      if (properties.length === 0) {
        const values =
          typeof schema.additionalProperties === 'object'
            ? schemaValue(schema.additionalProperties, spoilOneIn, depth + 1)
            : fc.jsonValue({ maxDepth: 2 });
        return fc.dictionary(someText, values, { maxKeys: 4 });
      }
      return fc.record(
        Object.fromEntries(properties.map(([name, property]) => [name, schemaValue(property, spoilOneIn, depth + 1)])),
        { requiredKeys: (schema.required ?? []).filter((name) => schema.properties?.[name]) },
      );
    }
    default:
      return fc.jsonValue({ maxDepth: 2 });
  }
}

/** A value for `schema`, each part replaced by a hostile value with probability 1 / `spoilOneIn`. */
export function schemaValue(schema: JsonSchema, spoilOneIn = 6, depth = 0): fc.Arbitrary<unknown> {
  if (depth > 5) return hostileValue;
  return fc.oneof(
    { weight: spoilOneIn - 1, arbitrary: plausible(schema, spoilOneIn, depth) },
    { weight: 1, arbitrary: hostileValue },
  );
}
