// The JSON Schemas of an MCP tool, derived from its GraphQL operation and the schema (docs/mcp.md): `inputSchema` from
// the operation's variables (types, required fields, enums, defaults, and the bounds, patterns and formats of the zod
// schemas the server validates input objects and arguments with: @pothos/plugin-validation keeps them in the
// schema's extensions), `outputSchema` from the selection set (the shape of `data`).
import { flatAnswerSchema } from './flat-answers.js';
import { INTERNAL_ALIAS_PREFIX } from './answer-budget.js';
import {
  type DocumentNode,
  type FieldNode,
  type FragmentDefinitionNode,
  type GraphQLInputType,
  GraphQLNonNull,
  type GraphQLOutputType,
  type GraphQLSchema,
  getNamedType,
  isEnumType,
  isInputObjectType,
  isInterfaceType,
  isListType,
  isNonNullType,
  isObjectType,
  isScalarType,
  Kind,
  type OperationDefinitionNode,
  OperationTypeNode,
  type SelectionSetNode,
  TypeInfo,
  typeFromAST,
  valueFromAST,
  visit,
  visitWithTypeInfo,
} from 'graphql';
import { z } from 'zod';
import { MAX_PAGE_SIZE } from '../graphql/schema/pagination.js';
import { inputOverride, type JsonSchema } from '../validation/input-json-schema.js';
import { describedFor } from './descriptions.js';

const VALIDATION = '@pothos/plugin-validation';

/** The zod schemas @pothos/plugin-validation attached to an input type, an input field or an argument. */
function validationSchemas(extensions: unknown): z.ZodType[] {
  const found = (extensions as Record<string, { schemas?: unknown[] } | undefined> | null | undefined)?.[VALIDATION];
  return (found?.schemas ?? []).filter((schema): schema is z.ZodType => schema instanceof z.ZodType);
}

/** What a client may send for `schema` (zod's JSON Schema of its input side, as the OpenAPI description has it). */
function zodInputJson(schema: z.ZodType): JsonSchema {
  const { $schema: _dialect, ...json } = z.toJSONSchema(schema, {
    io: 'input',
    unrepresentable: 'any',
    override: inputOverride,
  }) as JsonSchema;
  return json;
}

/**
 * What graphql-scalars' DateTime takes (validateDateTime): an RFC 3339 date-time with seconds and an offset, `T` and
 * `Z` in either case; `format: date-time` adds what a pattern cannot say (the day exists in its month).
 */
export const DATE_TIME_PATTERN =
  '^\\d{4}-(?:0[1-9]|1[0-2])-(?:0[1-9]|[12]\\d|3[01])[Tt](?:[01]\\d|2[0-3]):[0-5]\\d:[0-5]\\d(?:\\.\\d+)?(?:[Zz]|[+-](?:[01]\\d|2[0-3]):[0-5]\\d)$';

const SCALARS: Record<string, JsonSchema> = {
  String: { type: 'string' },
  ID: { type: 'string' },
  Boolean: { type: 'boolean' },
  Int: { type: 'integer', minimum: -2147483648, maximum: 2147483647 },
  Float: { type: 'number' },
  DateTime: { type: 'string', format: 'date-time', pattern: DATE_TIME_PATTERN },
  JSON: {},
  JSONObject: { type: 'object' },
};

/** What an answer holds: the same types, without the bounds that only say what an input may be. */
const OUTPUT_SCALARS: Record<string, JsonSchema> = {
  ...SCALARS,
  Int: { type: 'integer' },
  DateTime: { type: 'string', format: 'date-time' },
  // Any JSON value but null (an answer leaves null fields out): one branch per type, each with a single `type`.
  JSON: { anyOf: ['object', 'array', 'string', 'number', 'boolean'].map((type) => ({ type })) },
};

/**
 * Scalars a zod rule sees only after GraphQL parsed them (a DateTime is a Date by then): the rule's string keywords
 * describe that parsed value, not what a client sends, and are left out.
 */
const PARSED_SCALARS = new Set(['DateTime', 'JSON', 'JSONObject']);

/**
 * Rules across fields that zod's JSON Schema cannot show (a `.refine`), as JSON Schema, by input type. A test
 * generates arguments from the schemas and calls the server (test/mcp/tool-arguments.test.ts): a refinement missing
 * here shows there as valid arguments refused.
 */
const CROSS_FIELD_RULES: Readonly<Record<string, JsonSchema>> = {
  // meetings.schema.ts participantSchema: an email or a phone number (or both).
  ParticipantInput: {
    anyOf: [
      { required: ['email'], properties: { email: { type: 'string' } } },
      { required: ['phone'], properties: { phone: { type: 'string' } } },
    ],
  },
};

/** Keywords a zod schema adds to the GraphQL type's own (bounds, patterns, formats). */
const CONSTRAINTS = [
  // Patterns beside the pattern (an http(s) URL's shape: src/validation/input-patterns.ts).
  'allOf',
  'minLength',
  'maxLength',
  'pattern',
  'format',
  'minimum',
  'maximum',
  'exclusiveMinimum',
  'exclusiveMaximum',
  'minItems',
  'maxItems',
  'enum',
  'const',
  'default',
];

/** `rule` without its `null` alternative, and whether it had one (or allows anything: no rule on the value's type). */
function splitNull(rule: JsonSchema): { rule: JsonSchema; allowsNull: boolean } {
  const branches = rule.anyOf as JsonSchema[] | undefined;
  if (branches) {
    const others = branches.filter((branch) => branch.type !== 'null');
    if (others.length === branches.length) return { rule, allowsNull: false };
    const [only] = others;
    const rest: JsonSchema = others.length === 1 && only ? { ...only } : { ...rule, anyOf: others };
    if (rule.description && !rest.description) rest.description = rule.description;
    return { rule: rest, allowsNull: true };
  }
  const types = [rule.type].flat();
  const allowsNull =
    types.includes('null') || (rule.type === undefined && rule.enum === undefined && rule.const === undefined);
  return { rule, allowsNull };
}

/**
 * `base` (from the GraphQL type, never null) narrowed by `rule` (from the zod schema the server applies after
 * coercion): a simple rule's keywords are merged in; a rule with alternatives is kept whole, as an `allOf`.
 */
function narrowed(base: JsonSchema, rule: JsonSchema | undefined): JsonSchema {
  if (!rule) return base;
  const simple = simplestFor(base, rule);
  if (!simple) return { ...base, allOf: [rule] };
  const merged: JsonSchema = { ...base };
  for (const key of CONSTRAINTS) if (simple[key] !== undefined) merged[key] = simple[key];
  // A minimum length of 0 says nothing (every string has one).
  if (merged.minLength === 0) delete merged.minLength;
  const description = simple.description ?? rule.description;
  if (description && !merged.description) merged.description = description;
  return merged;
}

/**
 * The one part of `rule` that applies to values of the GraphQL type: the rule itself when it has no alternatives, or
 * its only alternative of that type (the lenient preprocessors of src/validation/fields.ts also take numeric strings
 * and boolean words, which GraphQL's own coercion has refused before the rule runs). Undefined: keep it whole.
 */
function simplestFor(base: JsonSchema, rule: JsonSchema): JsonSchema | undefined {
  // An allOf of patterns only adds patterns (a URL's length and its shape): still one simple rule.
  const patternsOnly = ((rule.allOf ?? []) as JsonSchema[]).every((part) =>
    Object.keys(part).every((key) => key === 'pattern'),
  );
  if (rule.oneOf || !patternsOnly) return undefined;
  if (!rule.anyOf) return rule;
  const type = base.type;
  const fitting = (rule.anyOf as JsonSchema[]).filter(
    (branch) => branch.type === type || (branch.type === 'integer' && type === 'number'),
  );
  const [only] = fitting;
  return fitting.length === 1 && only ? { ...only, description: only.description ?? rule.description } : undefined;
}

/**
 * A schema that also takes null, spelled portably (issue 42: `type: [X, "null"]` is refused by the single-type
 * dialects some model providers map tool schemas onto): `anyOf` of the schema and null, its description and default
 * outside. An untyped schema takes null already.
 */
const nullable = (json: JsonSchema): JsonSchema => {
  const { description, default: fallback, ...rest } = json;
  if (Object.keys(rest).length === 0) return json;
  return {
    anyOf: [rest, { type: 'null' }],
    ...(description !== undefined ? { description } : {}),
    ...(fallback !== undefined ? { default: fallback } : {}),
  };
};

/**
 * JSON Schema of a GraphQL input type; `rule` is the zod JSON Schema of the value, when the server has one. A
 * nullable type takes null only when its rule does too (zod's `.optional()` refuses a null GraphQL lets through).
 */
export function inputTypeJson(type: GraphQLInputType, rule?: JsonSchema, depth = 0): JsonSchema {
  if (depth > 12) throw new Error('mcp: input types nested more than 12 deep');
  const split = rule ? splitNull(rule) : { rule: undefined, allowsNull: true };
  const inner = isNonNullType(type) ? type.ofType : type;
  const json = narrowed(nonNullInputJson(inner, split.rule, depth), onTheWire(inner, split.rule));
  return !isNonNullType(type) && split.allowsNull ? nullable(json) : json;
}

/**
 * A zod rule's keywords as a client must send the value: the rule checks what GraphQL made of it, so an enum's values
 * are its internal ones (`call.ended`) and become the names a client sends (CALL_ENDED); a parsed scalar's keywords
 * say nothing about its text. The schema must speak the server's spelling, the one its answers use.
 */
function onTheWire(type: GraphQLInputType, rule: JsonSchema | undefined): JsonSchema | undefined {
  if (!rule || isListType(type) || isInputObjectType(type)) return rule;
  if (isScalarType(type)) return PARSED_SCALARS.has(type.name) ? undefined : rule;
  if (!isEnumType(type)) return rule;
  const nameOf = new Map(type.getValues().map((value) => [value.value as unknown, value.name]));
  const { enum: values, const: constant, default: fallback, ...rest } = simplestFor({ type: 'string' }, rule) ?? {};
  const named = (value: unknown) => nameOf.get(value) ?? value;
  return {
    ...rest,
    ...(Array.isArray(values) ? { enum: values.filter((value) => nameOf.has(value)).map(named) } : {}),
    ...(constant !== undefined ? { const: named(constant) } : {}),
    ...(fallback !== undefined ? { default: named(fallback) } : {}),
  };
}

function nonNullInputJson(type: GraphQLInputType, rule: JsonSchema | undefined, depth: number): JsonSchema {
  if (isListType(type)) {
    const items = rule?.items as JsonSchema | undefined;
    return { type: 'array', items: inputTypeJson(type.ofType, items, depth + 1) };
  }
  if (isEnumType(type)) {
    return { type: 'string', enum: type.getValues().map((value) => value.name) };
  }
  if (isScalarType(type)) return { ...(SCALARS[type.name] ?? {}) };
  if (isInputObjectType(type)) {
    // The type's own zod schema (an object, or a pipe/intersection of objects) describes its fields, and so does the
    // rule of the place it is used in (the items of a list the containing type's schema checks).
    const typeRules = [...validationSchemas(type.extensions).map(zodInputJson), ...(rule ? [rule] : [])];
    const properties: Record<string, JsonSchema> = {};
    const required: string[] = [];
    for (const field of Object.values(type.getFields())) {
      const fieldRule = [
        ...validationSchemas(field.extensions).map(zodInputJson),
        ...typeRules.flatMap((json) => propertyRules(json, field.name)),
      ][0];
      const json = inputTypeJson(field.type, fieldRule, depth + 1);
      const description = describedFor(`${type.name}.${field.name}`, field.description);
      if (description) json.description = description;
      if (field.defaultValue !== undefined) json.default = field.defaultValue;
      properties[field.name] = json;
      if (isNonNullType(field.type) && field.defaultValue === undefined) required.push(field.name);
    }
    const description = describedFor(type.name, type.description);
    return {
      type: 'object',
      ...(description ? { description } : {}),
      properties,
      ...(required.length ? { required } : {}),
      additionalProperties: false,
      ...CROSS_FIELD_RULES[type.name],
    };
  }
  return {};
}

/** The rules for property `name` in a zod object's JSON Schema (also inside allOf, as intersections give). */
function propertyRules(json: JsonSchema, name: string): JsonSchema[] {
  const own = (json.properties as Record<string, JsonSchema> | undefined)?.[name];
  const nested = ((json.allOf ?? []) as JsonSchema[]).flatMap((part) => propertyRules(part, name));
  return [...(own ? [own] : []), ...nested];
}

/** Connections page at most MAX_PAGE_SIZE items (src/graphql/schema/pagination.ts): `first`/`last` say so. */
const PAGE_ARGUMENTS = new Set(['first', 'last']);

/**
 * What a connection pages when neither `first` nor `last` is given (DEFAULT_PAGE_SIZE, src/graphql/schema/pagination.ts):
 * `first`'s default in a tool that has no `last`.
 */
export const DEFAULT_PAGE_SIZE = 20;

/** The fragments of `document` by name. */
function fragmentsOf(document: DocumentNode): Map<string, FragmentDefinitionNode> {
  return new Map(
    document.definitions
      .filter((definition): definition is FragmentDefinitionNode => definition.kind === Kind.FRAGMENT_DEFINITION)
      .map((fragment) => [fragment.name.value, fragment]),
  );
}

/** The JSON Schema of an operation's variables: what a tool's arguments must be. */
export function variablesSchema(
  schema: GraphQLSchema,
  operation: OperationDefinitionNode,
  document: DocumentNode,
): JsonSchema {
  const usage = variableUsage(schema, operation, fragmentsOf(document));
  const properties: Record<string, JsonSchema> = {};
  const required: string[] = [];
  const variables = new Set((operation.variableDefinitions ?? []).map((definition) => definition.variable.name.value));
  for (const definition of operation.variableDefinitions ?? []) {
    const name = definition.variable.name.value;
    const type = typeFromAST(schema, definition.type) as GraphQLInputType | undefined;
    if (!type) throw new Error(`mcp: variable $${name} has an unknown type`);
    const used = usage.get(name);
    const rule =
      used?.rule ?? (used && PAGE_ARGUMENTS.has(used.argument) ? { minimum: 0, maximum: MAX_PAGE_SIZE } : undefined);
    // A nullable variable with a default in a non-null place (`$limit: Int = 50` for `limit: Int! = 50`): left out,
    // its default applies; null is refused there. Its default must be the argument's own.
    let defaultValue = definition.defaultValue ? valueFromAST(definition.defaultValue, type) : undefined;
    if (used?.defaultValue !== undefined && defaultValue !== undefined && used.defaultValue !== defaultValue) {
      throw new Error(
        `mcp: $${name} defaults to ${String(defaultValue)}, its argument to ${String(used.defaultValue)}`,
      );
    }
    // `first` left out (and no `last`): the connection pages DEFAULT_PAGE_SIZE, the default the server has.
    if (defaultValue === undefined && used?.argument === 'first' && !variables.has('last')) {
      defaultValue = DEFAULT_PAGE_SIZE;
    }
    const nonNull = used?.nonNull && !isNonNullType(type) ? new GraphQLNonNull(type) : type;
    const json = inputTypeJson(nonNull, rule);
    if (used?.description) json.description = used.description;
    if (defaultValue !== undefined) json.default = defaultValue;
    properties[name] = json;
    if (isNonNullType(type) && !definition.defaultValue) required.push(name);
  }
  return { type: 'object', properties, ...(required.length ? { required } : {}), additionalProperties: false };
}

interface VariableUse {
  argument: string;
  nonNull: boolean;
  defaultValue?: unknown;
  description?: string;
  rule?: JsonSchema;
}

/**
 * For each variable used directly as an argument, of a field or of a directive (`@include(if: $withTexts)`), in the
 * operation or in a fragment it spreads (and the fragments those spread): the argument's name, description and zod
 * rule, and whether the place is non-null (in any of its uses: null is refused there).
 */
function variableUsage(
  schema: GraphQLSchema,
  operation: OperationDefinitionNode,
  fragments: ReadonlyMap<string, FragmentDefinitionNode>,
) {
  const usage = new Map<string, VariableUse>();
  const visited = new Set<string>();
  const pending: Array<OperationDefinitionNode | FragmentDefinitionNode> = [operation];
  for (let node = pending.shift(); node; node = pending.shift()) {
    // A fragment definition's type condition is its TypeInfo's type (TypeInfo enters it as it enters the fragment).
    const typeInfo = new TypeInfo(schema);
    visit(
      node,
      visitWithTypeInfo(typeInfo, {
        FragmentSpread(spread) {
          const name = spread.name.value;
          if (visited.has(name)) return;
          const fragment = fragments.get(name);
          if (!fragment) throw new Error(`mcp: unknown fragment ${name}`);
          visited.add(name);
          pending.push(fragment);
        },
        Argument(argumentNode) {
          if (argumentNode.value.kind !== Kind.VARIABLE) return;
          const argument = typeInfo.getArgument();
          if (!argument) return;
          const rule = validationSchemas(argument.extensions).map(zodInputJson)[0];
          const directive = typeInfo.getDirective();
          const place = directive
            ? `@${directive.name}`
            : `${typeInfo.getParentType()?.name}.${typeInfo.getFieldDef()?.name}`;
          const description = describedFor(`${place}(${argument.name})`, argument.description);
          const use: VariableUse = {
            argument: argument.name,
            nonNull: isNonNullType(argument.type),
            ...(argument.defaultValue !== undefined ? { defaultValue: argument.defaultValue } : {}),
            ...(description ? { description } : {}),
            ...(rule ? { rule } : {}),
          };
          const name = argumentNode.value.name.value;
          const before = usage.get(name);
          // The first use says what the variable is; a non-null use anywhere makes it non-null.
          usage.set(name, before ? { ...before, nonNull: before.nonNull || use.nonNull } : use);
        },
      }),
    );
  }
  return usage;
}

/** The JSON Schema of what an operation answers in `data`. */
export function dataSchema(schema: GraphQLSchema, operation: OperationDefinitionNode, document: DocumentNode) {
  const root = schema.getRootType(operation.operation);
  if (!root) throw new Error(`mcp: the schema has no ${operation.operation} type`);
  return selectionJson(schema, root, operation.selectionSet, fragmentsOf(document));
}

function selectionJson(
  schema: GraphQLSchema,
  parent: GraphQLOutputType,
  selectionSet: SelectionSetNode,
  fragments: Map<string, FragmentDefinitionNode>,
): JsonSchema {
  const named = getNamedType(parent);
  if (!isObjectType(named) && !isInterfaceType(named)) throw new Error(`mcp: ${named.name} has no fields`);
  const isRoot = named === schema.getRootType(OperationTypeNode.QUERY) || named === schema.getMutationType();
  const properties: Record<string, JsonSchema> = {};
  const fields: FieldNode[] = [];
  const collect = (set: SelectionSetNode) => {
    for (const selection of set.selections) {
      if (selection.kind === Kind.FIELD) fields.push(selection);
      else if (selection.kind === Kind.INLINE_FRAGMENT) collect(selection.selectionSet);
      else {
        const fragment = fragments.get(selection.name.value);
        if (!fragment) throw new Error(`mcp: unknown fragment ${selection.name.value}`);
        collect(fragment.selectionSet);
      }
    }
  };
  collect(selectionSet);
  // A field under @include or @skip is in the answer only when its condition says so.
  const conditional = (node: FieldNode) =>
    (node.directives ?? []).some((directive) => ['include', 'skip'].includes(directive.name.value));
  const required: string[] = [];
  for (const node of fields) {
    const key = node.alias?.value ?? node.name.value;
    // The door's own selections (an edge's cursor, to cut a page: src/mcp/answer-budget.ts) are not in the answer.
    if (key.startsWith(INTERNAL_ALIAS_PREFIX)) continue;
    if (node.name.value === '__typename') {
      properties[key] = { type: 'string' };
      if (!conditional(node)) required.push(key);
      continue;
    }
    const field = named.getFields()[node.name.value];
    if (!field) throw new Error(`mcp: ${named.name}.${node.name.value} does not exist`);
    // A null field is left out of the answer (src/mcp/answer-budget.ts), so the schema has no null type — but for
    // a root field, whose null says "not found".
    const nullableField = !isNonNullType(field.type);
    if (!conditional(node) && (!nullableField || isRoot)) required.push(key);
    properties[key] =
      nullableField && isRoot
        ? outputTypeJson(schema, field.type, node, fragments)
        : nonNullOutputJson(schema, isNonNullType(field.type) ? field.type.ofType : field.type, node, fragments);
  }
  // What each field means is said by the tool's description, its input schema and the schema resource, and which
  // fields an answer holds by the answer: an output schema says the shape and the types only (docs/mcp.md "Answer
  // sizes": tools/list within 64 KB). A root field is required, so that "not found" (null) is said.
  return { type: 'object', properties, ...(isRoot ? { required } : {}) };
}

function outputTypeJson(
  schema: GraphQLSchema,
  type: GraphQLOutputType,
  node: FieldNode,
  fragments: Map<string, FragmentDefinitionNode>,
): JsonSchema {
  if (isNonNullType(type)) return nonNullOutputJson(schema, type.ofType, node, fragments);
  return nullable(nonNullOutputJson(schema, type, node, fragments));
}

/** A list's items: a null item stays in the list (its place matters), so it keeps its null type. */
function itemJson(
  schema: GraphQLSchema,
  type: GraphQLOutputType,
  node: FieldNode,
  fragments: Map<string, FragmentDefinitionNode>,
): JsonSchema {
  return outputTypeJson(schema, type, node, fragments);
}

function nonNullOutputJson(
  schema: GraphQLSchema,
  type: GraphQLOutputType,
  node: FieldNode,
  fragments: Map<string, FragmentDefinitionNode>,
): JsonSchema {
  if (isListType(type)) return { type: 'array', items: itemJson(schema, type.ofType, node, fragments) };
  if (isEnumType(type)) return { type: 'string', enum: type.getValues().map((value) => value.name) };
  if (isScalarType(type)) return { ...(OUTPUT_SCALARS[type.name] ?? {}) };
  if (!node.selectionSet) throw new Error(`mcp: ${node.name.value} needs a selection`);
  return selectionJson(schema, type, node.selectionSet, fragments);
}

/** A tool's two schemas: what it takes, described, and the shape of what it answers. */
export function toolSchemas(schema: GraphQLSchema, operation: OperationDefinitionNode, document: DocumentNode) {
  return {
    inputSchema: variablesSchema(schema, operation, document),
    // Lists as agents read them: `items`, `hasMore`, `nextCursor` (src/mcp/flat-answers.ts).
    outputSchema: flatAnswerSchema(dataSchema(schema, operation, document)),
  };
}
