// zod → JSON Schema 2020-12 (the dialect of OpenAPI 3.1) for the OpenAPI description. A schema with an `id` in its
// metadata (the shared shapes of src/rest/responses/) becomes one entry of components/schemas, referenced by $ref
// wherever it appears, so a client generator names it once (LegacyCampaign, CallLog, Webhook...). Request schemas
// (io: 'input') are rewritten to what a client may send (src/validation/input-json-schema.ts).
import { isDeepStrictEqual } from 'node:util';
import { z } from 'zod';
import { inputOverride, type JsonSchema } from '../validation/input-json-schema.js';

export type { JsonSchema };

export const COMPONENT_SCHEMAS = '#/components/schemas/';

/** zod names extracted schemas `#/$defs/<id>`; in the description they live in components/schemas. */
function relink(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(relink);
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(
    Object.entries(value).map(([key, item]) => [
      key,
      key === '$ref' && typeof item === 'string' ? item.replace(/^#\/\$defs\//, COMPONENT_SCHEMAS) : relink(item),
    ]),
  );
}

export interface SchemaCollector {
  /** The JSON Schema of `schema`, as a request (`input`: before transforms) or a response (`output`). */
  toSchema(schema: z.ZodType, io: 'input' | 'output'): JsonSchema;
  /** Every named schema met so far, by name. */
  components(): Record<string, JsonSchema>;
}

export function schemaCollector(): SchemaCollector {
  const named: Record<string, JsonSchema> = {};
  return {
    toSchema(schema, io) {
      // A request schema says what a client may send, before the server's preprocessing (src/validation/input-json-schema.ts).
      const override = io === 'input' ? inputOverride : undefined;
      const generated = z.toJSONSchema(schema, {
        io,
        unrepresentable: 'any',
        ...(override ? { override } : {}),
      }) as JsonSchema;
      const { $schema: _dialect, $defs, ...root } = generated;
      for (const [id, definition] of Object.entries(($defs ?? {}) as Record<string, JsonSchema>)) {
        const linked = relink(definition) as JsonSchema;
        // An id names one shape: the same name for two different schemas would be a silent lie in the description.
        if (named[id] && !isDeepStrictEqual(named[id], linked))
          throw new Error(`Two different schemas are named ${id}`);
        named[id] = linked;
      }
      return relink(root) as JsonSchema;
    },
    components: () => Object.fromEntries(Object.entries(named).sort(([a], [b]) => a.localeCompare(b))),
  };
}
