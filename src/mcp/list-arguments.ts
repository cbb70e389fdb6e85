// A single value where a tool's input schema wants a list: GraphQL's input coercion would make it a list of one, but
// the schema says `array`, and the door takes exactly what its schemas say (docs/mcp.md), so it is refused.
import type { InputIssue } from '../core/errors.js';
import type { JsonSchema } from '../validation/input-json-schema.js';

const typesOf = (schema: JsonSchema): unknown[] => [schema.type].flat().filter((type) => type !== undefined);

const isPlainObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** The issues of every place in `value` holding a single value where `schema` (or a part of it) wants an array. */
export function singleValuesForLists(
  schema: JsonSchema,
  value: unknown,
  path: Array<string | number> = [],
  depth = 0,
): InputIssue[] {
  // The arguments' nesting is bounded before this runs (jsonShapeProblem); the schemas' by tool-schemas.ts.
  if (depth > 32 || value === null || value === undefined) return [];
  const parts = [schema, ...((schema.allOf ?? []) as JsonSchema[]), ...((schema.anyOf ?? []) as JsonSchema[])];
  const wantsList = parts.some((part) => typesOf(part).includes('array'));
  const takesOther = parts.some((part) => typesOf(part).some((type) => type !== 'array' && type !== 'null'));
  if (wantsList && !takesOther && !Array.isArray(value)) {
    return [{ path, type: 'list_type', message: 'Input should be a valid list' }];
  }
  const issues: InputIssue[] = [];
  for (const part of parts) {
    if (Array.isArray(value) && part.items) {
      value.forEach((item, index) =>
        issues.push(...singleValuesForLists(part.items as JsonSchema, item, [...path, index], depth + 1)),
      );
    }
    const properties = part.properties as Record<string, JsonSchema> | undefined;
    if (properties && isPlainObject(value)) {
      for (const [name, item] of Object.entries(value)) {
        const property = properties[name];
        if (property) issues.push(...singleValuesForLists(property, item, [...path, name], depth + 1));
      }
    }
  }
  return issues;
}
