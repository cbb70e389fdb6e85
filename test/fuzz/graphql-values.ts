// Values for GraphQL arguments, generated from their types: mostly plausible (right type, sensible content), each
// leaf spoiled by a hostile value now and then, so that most cases get past coercion and validation and reach the
// resolvers and the database with one bad part. Also prints such a value as a GraphQL literal, for documents that
// carry their inputs inline instead of as variables.
import fc from 'fast-check';
import {
  getNamedType,
  type GraphQLInputType,
  type GraphQLSchema,
  isEnumType,
  isInputObjectType,
  isListType,
  isNonNullType,
  isObjectType,
} from 'graphql';
import { hostileValue } from './arbitraries.js';

const plausibleString = fc.oneof(
  fc.constantFrom('spring', 'x', 'Spring outreach', 'en-US', 'https://example.com/hook', '+14155550100', 'a@b.co'),
  fc.string({ maxLength: 12 }),
);

const plausibleJson = fc.jsonValue({ maxDepth: 3 });

/** Global ids of every node type of the schema (and of a few that are not), for `ID` arguments. */
function idsOf(schema: GraphQLSchema): fc.Arbitrary<string> {
  const nodeTypes = Object.values(schema.getTypeMap())
    .filter((type) => isObjectType(type) && type.getInterfaces().some((face) => face.name === 'Node'))
    .map((type) => type.name);
  return fc
    .tuple(fc.constantFrom(...nodeTypes, 'Nope', 'Query', 'CallStatus', ''), fc.constantFrom('spring', 'x', '1', ''))
    .map(([typename, id]) => Buffer.from(`${typename}:${id}`).toString('base64'));
}

function leafFor(schema: GraphQLSchema, name: string, enumValues: string[] | null): fc.Arbitrary<unknown> {
  if (enumValues) return fc.constantFrom(...enumValues);
  switch (name) {
    case 'Int':
      return fc.integer({ min: -2, max: 200 });
    case 'Float':
      return fc.oneof(fc.double({ min: -10, max: 1e6, noNaN: true }), fc.integer({ min: 0, max: 100 }));
    case 'Boolean':
      return fc.boolean();
    case 'ID':
      return idsOf(schema);
    case 'DateTime':
      return fc
        .date({ min: new Date('2000-01-01'), max: new Date('2100-01-01'), noInvalidDate: true })
        .map((d) => d.toISOString());
    case 'JSON':
      return plausibleJson;
    case 'JSONObject':
      return fc.dictionary(plausibleString, plausibleJson, { maxKeys: 5 });
    default:
      return plausibleString;
  }
}

/**
 * A value of `type`: plausible, with each leaf replaced by a hostile value with probability 1 / `spoilOneIn`.
 * Input objects always carry their required fields (a spoiled object may lack them) and sometimes the optional ones.
 */
export function typedValue(
  schema: GraphQLSchema,
  type: GraphQLInputType,
  spoilOneIn = 6,
  depth = 0,
): fc.Arbitrary<unknown> {
  const spoilable = (plausible: fc.Arbitrary<unknown>) =>
    fc.oneof({ weight: spoilOneIn - 1, arbitrary: plausible }, { weight: 1, arbitrary: hostileValue });
  if (isNonNullType(type)) return typedValue(schema, type.ofType, spoilOneIn, depth);
  if (isListType(type)) {
    return spoilable(fc.array(typedValue(schema, type.ofType, spoilOneIn, depth + 1), { maxLength: 4 }));
  }
  if (isInputObjectType(type)) {
    if (depth > 3) return hostileValue;
    const fields = Object.values(type.getFields());
    return spoilable(
      fc.record(Object.fromEntries(fields.map((f) => [f.name, typedValue(schema, f.type, spoilOneIn, depth + 1)])), {
        requiredKeys: fields.filter((f) => isNonNullType(f.type)).map((f) => f.name),
      }),
    );
  }
  const named = getNamedType(type);
  const enumValues = isEnumType(named) ? named.getValues().map((value) => value.name) : null;
  return spoilable(leafFor(schema, named.name, enumValues));
}

const NAME = /^[_A-Za-z][_0-9A-Za-z]*$/;

/**
 * `value` written as a GraphQL literal for an argument of `type`: enum values bare, object keys that are not
 * GraphQL names left out. What cannot be written (undefined) becomes null.
 */
export function literalOf(value: unknown, type: GraphQLInputType | null): string {
  const inner = type && isNonNullType(type) ? type.ofType : type;
  if (value === null || value === undefined) return 'null';
  if (typeof value === 'string') {
    return inner && isEnumType(inner) && NAME.test(value) ? value : JSON.stringify(value);
  }
  if (typeof value === 'number') return Number.isFinite(value) ? String(value) : 'null';
  if (typeof value === 'boolean') return String(value);
  if (Array.isArray(value)) {
    const item = inner && isListType(inner) ? inner.ofType : null;
    return `[${value.map((v) => literalOf(v, item)).join(', ')}]`;
  }
  const fields = inner && isInputObjectType(inner) ? inner.getFields() : {};
  const entries = Object.entries(value as Record<string, unknown>).filter(([key]) => NAME.test(key));
  return `{${entries.map(([key, v]) => `${key}: ${literalOf(v, fields[key]?.type ?? null)}`).join(', ')}}`;
}
