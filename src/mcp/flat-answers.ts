// Answers shaped for agents (docs/mcp.md "Answers"; issue 53): a page of a list is `items`, `hasMore` and, while more
// follow, `nextCursor` (what `after` takes) — not GraphQL's `edges[].node` and `pageInfo`. The operations select
// connections as GraphQL has them (the answer budget cuts a page on its edges' cursors: src/mcp/answer-budget.ts);
// the answer, once fitted, and the tool's output schema are flattened the same way here.
import type { JsonSchema } from '../validation/input-json-schema.js';
import { isObject, type Json, type JsonObject } from './answer-budget.js';

/** A connection as the operations select it: `edges` (each with its `node`) and `pageInfo`. */
const isConnection = (value: JsonObject): value is { edges: Json[]; pageInfo: JsonObject } =>
  Array.isArray(value.edges) && isObject(value.pageInfo) && Object.keys(value).length === 2;

/** `data` with every connection in it as `{ items, hasMore, nextCursor? }`. */
export function flatAnswer(data: Json): Json {
  if (Array.isArray(data)) return data.map(flatAnswer);
  if (!isObject(data)) return data;
  if (isConnection(data)) {
    const items = data.edges.map((edge) => flatAnswer(isObject(edge) ? (edge.node ?? null) : null));
    const hasMore = data.pageInfo.hasNextPage === true;
    const cursor = data.pageInfo.endCursor;
    return { items, hasMore, ...(hasMore && typeof cursor === 'string' ? { nextCursor: cursor } : {}) };
  }
  return Object.fromEntries(Object.entries(data).map(([key, value]) => [key, flatAnswer(value)]));
}

const CONNECTION_KEYS = ['edges', 'pageInfo'];

/** The output schema of a flattened answer: each connection's schema as `{ items, hasMore, nextCursor }`. */
export function flatAnswerSchema(schema: JsonSchema): JsonSchema {
  if (Array.isArray(schema.anyOf)) return { ...schema, anyOf: (schema.anyOf as JsonSchema[]).map(flatAnswerSchema) };
  if (schema.type === 'array' && schema.items)
    return { ...schema, items: flatAnswerSchema(schema.items as JsonSchema) };
  const properties = schema.properties as Record<string, JsonSchema> | undefined;
  if (schema.type !== 'object' || !properties) return schema;
  const keys = Object.keys(properties);
  if (keys.length === 2 && CONNECTION_KEYS.every((key) => keys.includes(key))) {
    const edge = (properties.edges?.items ?? {}) as JsonSchema;
    const node = ((edge.properties as Record<string, JsonSchema> | undefined)?.node ?? {}) as JsonSchema;
    return {
      type: 'object',
      properties: {
        items: { type: 'array', items: flatAnswerSchema(node) },
        hasMore: { type: 'boolean' },
        nextCursor: { type: 'string' },
      },
      required: ['items', 'hasMore'],
    };
  }
  return {
    ...schema,
    properties: Object.fromEntries(Object.entries(properties).map(([key, value]) => [key, flatAnswerSchema(value)])),
  };
}
