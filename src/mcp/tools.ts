// MCP tools derived from named GraphQL operations (docs/mcp.md): the operation is parsed and validated against the
// public schema once, at start-up, and the tool's definition follows from it and the schema alone, so it changes only
// when one of them does.
//   name         the operation's name in snake_case (CampaignList → campaign_list)
//   description  written for the tool, per operation (src/mcp/descriptions.ts): what it does, its arguments, the
//                other tools it works with; an operation without one fails at start-up
//   inputSchema  the variables (src/mcp/tool-schemas.ts); outputSchema: the shape of `data`
//   annotations  queries are read-only and idempotent; a mutation's hints follow from the effect its root field
//                declares in src/mcp/annotations.ts (a mutation without one fails at start-up)
import {
  type DocumentNode,
  type FieldNode,
  getNamedType,
  type GraphQLField,
  type GraphQLSchema,
  isInterfaceType,
  isObjectType,
  Kind,
  type OperationDefinitionNode,
  OperationTypeNode,
  parse,
  validate,
} from 'graphql';
import type { JsonSchema } from '../validation/input-json-schema.js';
import { annotationsOf, type ToolAnnotations } from './annotations.js';
import { toolDescription, toolTitle } from './descriptions.js';
import { toolSchemas } from './tool-schemas.js';

export interface McpTool {
  name: string;
  title: string;
  description: string;
  inputSchema: JsonSchema;
  outputSchema: JsonSchema;
  annotations: ToolAnnotations;
  /** The parsed operation (with its fragments), run as it is. */
  document: DocumentNode;
  operationName: string;
  kind: OperationTypeNode;
}

/** CampaignList → campaign_list; WebhookDeliveryRedeliver → webhook_delivery_redeliver. */
export const toolName = (operationName: string) => operationName.replace(/([a-z0-9])([A-Z])/g, '$1_$2').toLowerCase();

/** The fields the operation goes through: the root field, then the single field selected below it, and so on. */
function fieldPath(schema: GraphQLSchema, operation: OperationDefinitionNode): Array<GraphQLField<unknown, unknown>> {
  const path: Array<GraphQLField<unknown, unknown>> = [];
  let parent = schema.getRootType(operation.operation) ?? null;
  let selections = operation.selectionSet.selections;
  while (parent && selections.length === 1 && selections[0]?.kind === Kind.FIELD) {
    const node: FieldNode = selections[0];
    const field: GraphQLField<unknown, unknown> | undefined = parent.getFields()[node.name.value];
    if (!field) break;
    path.push(field);
    const type = getNamedType(field.type);
    parent = isObjectType(type) || isInterfaceType(type) ? (type as typeof parent) : null;
    selections = node.selectionSet?.selections ?? [];
    // A connection's `edges`/`pageInfo`, or an object of several fields: the path ends.
  }
  return path;
}

export function toolFromOperation(schema: GraphQLSchema, source: string): McpTool {
  const document = parse(source);
  const errors = validate(schema, document);
  if (errors.length > 0) throw new Error(`MCP operation: ${errors.map((error) => error.message).join('; ')}`);
  const operations = document.definitions.filter(
    (definition): definition is OperationDefinitionNode => definition.kind === Kind.OPERATION_DEFINITION,
  );
  const [operation] = operations;
  if (!operation || operations.length !== 1 || !operation.name) {
    throw new Error('MCP operation: each document holds exactly one named operation');
  }
  const operationName = operation.name.value;
  const path = fieldPath(schema, operation);
  const root = path[0];
  if (!root) throw new Error(`MCP operation ${operationName}: it must select one root field`);
  for (const field of path) {
    if (field.deprecationReason) throw new Error(`MCP operation ${operationName}: ${field.name} is deprecated`);
  }
  const description = toolDescription(operationName);
  const title = toolTitle(operationName);
  return {
    name: toolName(operationName),
    title,
    description,
    ...toolSchemas(schema, operation, document),
    annotations: annotationsOf(operationName, operation.operation, root.name),
    document,
    operationName,
    kind: operation.operation,
  };
}

/**
 * Where a tool's default differs from the graph's: campaign_create makes a PAUSED campaign unless asked for an ACTIVE
 * one (an agent sets a campaign up before it calls; GraphQL and REST keep ACTIVE, the legacy behaviour). Shown as the
 * argument's `default` in the input schema, and filled in when the argument is left out (withToolDefaults).
 */
const TOOL_DEFAULTS: Record<string, ReadonlyArray<{ path: readonly string[]; value: unknown; description: string }>> = {
  campaign_create: [
    {
      path: ['input', 'status'],
      value: 'PAUSED',
      description:
        'PAUSED (when omitted) places no call until campaign_resume, so the campaign can be set up and checked ' +
        'first; ACTIVE calls from the start.',
    },
  ],
};

/**
 * The arguments as the tool runs them: its own defaults filled in where they were left out (TOOL_DEFAULTS), and a
 * null wherever the input schema gives a default read as that default — at every depth, in lists too. Clients that
 * fill every optional field with null (OpenAI's strict schemas do) mean "not given" by it; GraphQL would pass the null
 * on (a default applies only to what is absent), and a null `status` on campaign_create made an ACTIVE campaign that
 * called at once. Any other null goes on as it is: refused where the schema refuses null, passed on where null is
 * allowed and has no default (a filter not applied).
 */
export function withToolDefaults(tool: McpTool, args: Record<string, unknown>): Record<string, unknown> {
  const defaults = TOOL_DEFAULTS[tool.name] ?? [];
  const withDefaults = nullsAsDefaults(tool.inputSchema, args) as Record<string, unknown>;
  // A copy before the tool's own defaults are written into it: the caller's arguments stay as they were sent.
  const filled = defaults.length > 0 ? structuredClone(withDefaults) : withDefaults;
  for (const { path, value } of defaults) {
    let parent: Record<string, unknown> = filled;
    for (const key of path.slice(0, -1)) {
      const next = parent[key];
      if (!next || typeof next !== 'object' || Array.isArray(next)) {
        parent = {};
        break;
      }
      parent = next as Record<string, unknown>;
    }
    const last = path[path.length - 1]!;
    if (parent[last] === undefined || parent[last] === null) parent[last] = structuredClone(value);
  }
  return filled;
}

/** The object branches of a schema: itself, or those of its `anyOf` (a nullable object is `anyOf [object, null]`). */
const branches = (schema: JsonSchema): JsonSchema[] =>
  Array.isArray(schema.anyOf) ? (schema.anyOf as JsonSchema[]) : [schema];

/** Whether the schema lets a value be null (`anyOf [X, null]`, as src/mcp/tool-schemas.ts spells a nullable). */
const acceptsNull = (schema: JsonSchema): boolean =>
  branches(schema).some(
    (branch) => branch.type === 'null' || (Array.isArray(branch.type) && branch.type.includes('null')),
  );

/**
 * `value` with each null the schema allows and gives a default for replaced by that default (a copy where anything
 * changed). A null the schema refuses stays, to be refused (the tool's schema says what the server accepts).
 */
export function nullsAsDefaults(schema: JsonSchema, value: unknown, depth = 0): unknown {
  if (value === null || typeof value !== 'object' || depth > 16) return value;
  if (Array.isArray(value)) {
    const items = branches(schema)
      .map((branch) => branch.items as JsonSchema | undefined)
      .find((found) => found !== undefined);
    if (!items) return value;
    let copy: unknown[] | undefined;
    value.forEach((item, index) => {
      const next = nullsAsDefaults(items, item, depth + 1);
      if (next !== item) (copy ??= [...value])[index] = next;
    });
    return copy ?? value;
  }
  const properties = branches(schema)
    .map((branch) => branch.properties as Record<string, JsonSchema> | undefined)
    .find((found) => found !== undefined);
  if (!properties) return value;
  const record = value as Record<string, unknown>;
  let copy: Record<string, unknown> | undefined;
  for (const [key, child] of Object.entries(record)) {
    const property = Object.hasOwn(properties, key) ? properties[key] : undefined;
    if (!property) continue;
    const next =
      child === null && property.default !== undefined && acceptsNull(property)
        ? structuredClone(property.default)
        : nullsAsDefaults(property, child, depth + 1);
    if (next !== child) (copy ??= { ...record })[key] = next;
  }
  return copy ?? value;
}

function applySchemaDefaults(tool: McpTool): void {
  for (const { path, value, description } of TOOL_DEFAULTS[tool.name] ?? []) {
    let node: JsonSchema | undefined = tool.inputSchema;
    for (const key of path) node = (node?.properties as Record<string, JsonSchema> | undefined)?.[key];
    if (!node) throw new Error(`MCP tool ${tool.name}: no argument ${path.join('.')} to give a default`);
    node.default = value;
    node.description = description;
  }
}

/** Every declared operation as a tool, by name; two operations with one tool name are a mistake. */
export function buildTools(schema: GraphQLSchema, operations: readonly string[]): Map<string, McpTool> {
  const tools = new Map<string, McpTool>();
  for (const source of operations) {
    const tool = toolFromOperation(schema, source);
    applySchemaDefaults(tool);
    if (tools.has(tool.name)) throw new Error(`MCP operations: two tools are named ${tool.name}`);
    tools.set(tool.name, tool);
  }
  return tools;
}
