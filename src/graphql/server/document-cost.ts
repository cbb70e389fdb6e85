// The one cost model of every document (docs/limits.md, "What a document costs"; issue 52): computed on the operation
// that runs, with its variables and argument defaults applied, before any resolver does work — at envelop's
// onExecute and onSubscribe, which every door goes through: /graphql (GET, POST, SSE, WebSocket) and its prepared lane,
// /subgraph, the REST router, MCP tools; a live query's re-executions run the same document with the same variables.
//
// Fields declare their cost for @pothos/plugin-complexity (src/graphql/schema/field-costs.ts), whose
// `complexityFromQuery` counts the operation. Two things it does not count, added here:
// - introspection: it counts `__schema` and `__type` as one field each and never looks inside (their types are not
//   fields of Query). The answer's size is known from the schema, so their selections are counted by walking the
//   schema as introspection's own resolvers would, exactly, and stopped as soon as the limit is passed.
// - its own check runs inside the root fields' resolvers (after the document started, never for introspection or a
//   subscription's setup): it is off, and this plugin refuses the document instead, with a code of its own.
import { PothosValidationError } from '@pothos/core';
import { complexityFromQuery } from '@pothos/plugin-complexity';
import {
  type DocumentNode,
  type ExecutionArgs,
  type FieldNode,
  type FragmentDefinitionNode,
  getArgumentValues,
  getNamedType,
  getOperationAST,
  GraphQLError,
  type GraphQLField,
  type GraphQLObjectType,
  type GraphQLSchema,
  getVariableValues,
  isObjectType,
  Kind,
  type OperationDefinitionNode,
  type SelectionSetNode,
  type ValueNode,
  __Schema,
  TypeMetaFieldDef,
  __Type,
} from 'graphql';
import type { Plugin } from 'graphql-yoga';
import { badInput, DomainError } from '../../core/errors.js';
import { GRAPHQL_LIMITS } from '../schema/document-limits.js';
import { LEAF_FIELD_COST } from '../schema/field-costs.js';

/**
 * The limit every document runs under, the REST door's and MCP's own included: their largest (1000 call logs with
 * their texts, by the REST door) costs 3 651 (test/graphql/document-cost.test.ts costs every one at its largest page).
 */
export const costLimitOf = (_schema: GraphQLSchema): number => GRAPHQL_LIMITS.cost;

/** Introspection's count went past the limit: the walk stops there. */
class PastTheLimit extends Error {}

type Variables = Record<string, unknown>;

/** What counting introspection needs: the graph, fragments, variables, and how many values were counted so far. */
interface Walk {
  schema: GraphQLSchema;
  fragments: Record<string, FragmentDefinitionNode>;
  variables: Variables;
  limit: number;
  counted: number;
  /** A field's arguments, the same whatever object it is asked of. */
  args: Map<FieldNode, Record<string, unknown>>;
}

/**
 * The values a selection of an introspection object answers: 1 a field, and what each object it answers selects.
 * Objects are resolved with introspection's own resolvers (they read the schema: no request's data).
 */
function introspected(value: object, type: GraphQLObjectType, selectionSet: SelectionSetNode, walk: Walk): number {
  let cost = 0;
  for (const selection of selectionSet.selections) {
    if (selection.kind !== Kind.FIELD) {
      const fragment = selection.kind === Kind.INLINE_FRAGMENT ? selection : walk.fragments[selection.name.value];
      if (fragment && (!fragment.typeCondition || fragment.typeCondition.name.value === type.name)) {
        cost += introspected(value, type, fragment.selectionSet, walk);
      }
      continue;
    }
    // As every field of the graph costs (src/graphql/schema/field-costs.ts): an object 1, a scalar or enum less.
    const own = selection.selectionSet ? 1 : LEAF_FIELD_COST;
    cost += own;
    if ((walk.counted += own) > walk.limit) throw new PastTheLimit();
    const field = type.getFields()[selection.name.value];
    if (!field || !selection.selectionSet) continue;
    cost += fieldValues(value, field, selection, walk);
  }
  return cost;
}

/** What one object field of an introspection object answers below itself (a list: each item's). */
function fieldValues(source: unknown, field: GraphQLField<unknown, unknown>, node: FieldNode, walk: Walk): number {
  let args = walk.args.get(node);
  if (!args) walk.args.set(node, (args = node.arguments?.length ? getArgumentValues(field, node, walk.variables) : {}));
  const info = { schema: walk.schema } as Parameters<NonNullable<typeof field.resolve>>[3];
  const answer = field.resolve ? field.resolve(source, args, undefined, info) : undefined;
  const type = getNamedType(field.type);
  if (!isObjectType(type) || !node.selectionSet) return 0;
  if (!Array.isArray(answer)) {
    return answer !== null && typeof answer === 'object' ? introspected(answer, type, node.selectionSet, walk) : 0;
  }
  let cost = 0;
  for (const item of answer as unknown[]) {
    if (item !== null && typeof item === 'object') cost += introspected(item, type, node.selectionSet, walk);
  }
  return cost;
}

/** The root selections of an operation (fragments and inline fragments spread), for its introspection fields. */
function rootFields(selectionSet: SelectionSetNode, walk: Walk, into: FieldNode[] = []): FieldNode[] {
  for (const selection of selectionSet.selections) {
    if (selection.kind === Kind.FIELD) into.push(selection);
    else if (selection.kind === Kind.INLINE_FRAGMENT) rootFields(selection.selectionSet, walk, into);
    else {
      const fragment = walk.fragments[selection.name.value];
      if (fragment) rootFields(fragment.selectionSet, walk, into);
    }
  }
  return into;
}

/** What the operation's `__schema` and `__type` selections answer, beyond the 1 each that Pothos counted. */
function introspectionCost(operation: OperationDefinitionNode, walk: Walk): number {
  let cost = 0;
  for (const field of rootFields(operation.selectionSet, walk)) {
    const name = field.name.value;
    if ((name !== '__schema' && name !== '__type') || !field.selectionSet) continue;
    if (name === '__schema') {
      cost += introspected(walk.schema, __Schema, field.selectionSet, walk);
      continue;
    }
    const type = walk.schema.getType(String(getArgumentValues(TypeMetaFieldDef, field, walk.variables).name));
    if (type) cost += introspected(type, __Type, field.selectionSet, walk);
  }
  return cost;
}

/** Scalars cost a fraction (LEAF_FIELD_COST): a sum is rounded up, once the binary fractions' dust is wiped off. */
const roundedUp = (cost: number): number => Math.ceil(Math.round(cost * 100) / 100);

/** The cost of the operation that runs, or null when there is none or its variables do not coerce (execution says). */
export function documentCost(
  schema: GraphQLSchema,
  document: DocumentNode,
  operationName: string | null | undefined,
  variableValues: Variables | null | undefined,
  limit = costLimitOf(schema),
): { cost: number; atLeast: boolean } | null {
  const operation = getOperationAST(document, operationName);
  return operation ? operationCost(schema, document, operation, variableValues, limit) : null;
}

function operationCost(
  schema: GraphQLSchema,
  document: DocumentNode,
  operation: OperationDefinitionNode,
  variableValues: Variables | null | undefined,
  limit: number,
): { cost: number; atLeast: boolean } | null {
  const coerced = getVariableValues(schema, operation.variableDefinitions ?? [], variableValues ?? {});
  if (coerced.errors) return null;
  const fragments: Record<string, FragmentDefinitionNode> = {};
  for (const definition of document.definitions) {
    if (definition.kind === Kind.FRAGMENT_DEFINITION) fragments[definition.name.value] = definition;
  }
  // complexityFromQuery counts the first operation of a document: this one first, the fragments after it. It coerces
  // the variables itself (defaults applied).
  const counted = complexityFromQuery(
    { kind: Kind.DOCUMENT, definitions: [operation, ...Object.values(fragments)] },
    { schema, variables: variableValues ?? {} },
  ).complexity;
  const complexity = roundedUp(counted);
  if (complexity > limit) return { cost: complexity, atLeast: false };
  const walk: Walk = { schema, fragments, variables: coerced.coerced, limit, counted: complexity, args: new Map() };
  try {
    return { cost: roundedUp(complexity + introspectionCost(operation, walk)), atLeast: false };
  } catch (error) {
    if (error instanceof PastTheLimit) return { cost: roundedUp(walk.counted), atLeast: true };
    throw error;
  }
}

/** The refusal: the cost found and the limit, in the caller's terms (`http`: for yoga's HTTP answer). */
export function costRefusal(cost: number, limit: number, atLeast = false, http = true): GraphQLError {
  return new GraphQLError(
    `The query would cost ${atLeast ? 'at least ' : ''}${cost}, more than the limit of ${limit}: ask for fewer items ` +
      '(first/last, limit) or fewer nested lists (docs/limits.md, "What a document costs").',
    // As the other refusals of a document before it runs: 400, and 200 under application/json as the GraphQL-over-HTTP
    // spec asks of that media type (src/graphql/server/yoga.ts, `refused`). Other transports answer no status.
    {
      extensions: { code: 'COST_LIMIT_EXCEEDED', cost, limit, ...(http ? { http: { status: 400, spec: true } } : {}) },
    },
  );
}

/** The arguments that size a list (src/graphql/schema/field-costs.ts, and `_entities`): the cost reads no other. */
const SIZING_ARGUMENTS = new Set(['first', 'last', 'limit', 'ids', 'representations']);

/**
 * The variables an operation's cost depends on: those given to a sizing argument (anywhere, its fragments included),
 * sorted; null when the cost may depend on others (introspection: `includeDeprecated: $x`), so it is not kept.
 */
function sizingVariables(operation: OperationDefinitionNode, fragments: Map<string, FragmentDefinitionNode>) {
  const names = new Set<string>();
  const seen = new Set<string>();
  let cacheable = true;
  const collect = (value: ValueNode): void => {
    if (value.kind === Kind.VARIABLE) names.add(value.name.value);
    else if (value.kind === Kind.LIST) value.values.forEach(collect);
    else if (value.kind === Kind.OBJECT) value.fields.forEach((field) => collect(field.value));
  };
  const visit = (selectionSet: SelectionSetNode, root: boolean): void => {
    for (const selection of selectionSet.selections) {
      if (selection.kind === Kind.FIELD) {
        if (root && (selection.name.value === '__schema' || selection.name.value === '__type')) cacheable = false;
        for (const argument of selection.arguments ?? []) {
          if (SIZING_ARGUMENTS.has(argument.name.value)) collect(argument.value);
        }
        if (selection.selectionSet) visit(selection.selectionSet, false);
      } else if (selection.kind === Kind.INLINE_FRAGMENT) {
        visit(selection.selectionSet, root);
      } else if (!seen.has(selection.name.value)) {
        seen.add(selection.name.value);
        const fragment = fragments.get(selection.name.value);
        if (fragment) visit(fragment.selectionSet, root);
      }
    }
  };
  visit(operation.selectionSet, true);
  return cacheable ? [...names].sort() : null;
}

/** What a sizing variable's value says of the cost: a list its length (ids, representations), else the value. */
const sizeOf = (value: unknown): string =>
  Array.isArray(value) ? `#${value.length}` : value === undefined ? '-' : JSON.stringify(value);

/** A document's operations: the variables each one's cost depends on, and its costs so far by their values. */
interface Known {
  sizing: Map<string, readonly string[] | null>;
  costs: Map<string, number>;
}

/** Costs kept per document, at most (by the values of its sizing variables: a page size is one of a few). */
export const MAX_COSTS_PER_DOCUMENT = 64;

/**
 * Costs already found, by graph and document: yoga's parse cache, the prepared lane, the REST door and MCP tools hand
 * the same DocumentNode back each time, and a cost changes only with the values of the variables that size lists.
 * So the hot path counts a document once per page size, not once per request.
 */
const knownCosts = new WeakMap<GraphQLSchema, WeakMap<DocumentNode, Known>>();

function knownOf(schema: GraphQLSchema, document: DocumentNode): Known {
  let byDocument = knownCosts.get(schema);
  if (!byDocument) knownCosts.set(schema, (byDocument = new WeakMap()));
  let known = byDocument.get(document);
  if (!known) byDocument.set(document, (known = { sizing: new Map(), costs: new Map() }));
  return known;
}

/** Whether yoga answers this execution over HTTP (a WebSocket message or a REST/MCP answer carries no status). */
const overHttp = (args: ExecutionArgs): boolean =>
  (args.contextValue as { transport?: string } | undefined)?.transport === 'http';

/** A field's refusal of an argument, met while reading it for the cost, in the shape execution would answer it. */
function argumentError(error: unknown): GraphQLError | null {
  const domain =
    error instanceof DomainError
      ? error
      : error instanceof PothosValidationError
        ? badInput([{ path: [], type: 'value_error', message: error.message }])
        : null;
  if (!domain) return null;
  const issues = domain.issues?.map(({ path, type, message }) => ({ path, type, message }));
  return new GraphQLError(domain.message, { extensions: { code: domain.code, ...(issues ? { issues } : {}) } });
}

/** The refusal of a document over its limit, or null. */
function refusalOf(args: ExecutionArgs): GraphQLError | null {
  const { schema, document, operationName } = args;
  const variables = args.variableValues as Variables | null | undefined;
  const limit = costLimitOf(schema);
  const known = knownOf(schema, document);
  const name = operationName ?? '';
  let sizing = known.sizing.get(name);
  let operation: OperationDefinitionNode | null | undefined;
  if (sizing === undefined) {
    operation = getOperationAST(document, operationName);
    if (!operation) return null;
    const fragments = new Map<string, FragmentDefinitionNode>();
    for (const definition of document.definitions) {
      if (definition.kind === Kind.FRAGMENT_DEFINITION) fragments.set(definition.name.value, definition);
    }
    known.sizing.set(name, (sizing = sizingVariables(operation, fragments)));
  }
  let key: string | undefined;
  if (sizing) {
    key = name;
    for (const variable of sizing) key += `\n${sizeOf(variables?.[variable])}`;
    const cost = known.costs.get(key);
    if (cost !== undefined) return cost > limit ? costRefusal(cost, limit, false, overHttp(args)) : null;
  }
  operation ??= getOperationAST(document, operationName);
  if (!operation) return null;
  let found: ReturnType<typeof operationCost>;
  try {
    found = operationCost(schema, document, operation, variables, limit);
  } catch (error) {
    // An argument the cost reads that its field refuses (a `limit` out of range, a malformed id): reading it ran the
    // field's own argument checks, and their error is the answer, as execution would give it (yoga's masking does not
    // see a result set here, so it is shaped as maskDomainErrors shapes it). Anything else is left to execution,
    // which meets it again where it is masked and logged.
    const refused = argumentError(error);
    if (refused) return refused;
    found = null;
  }
  // Variables that do not coerce: execution reports them, before any resolver runs.
  if (!found) return null;
  if (key !== undefined && !found.atLeast) {
    if (known.costs.size >= MAX_COSTS_PER_DOCUMENT) known.costs.clear();
    known.costs.set(key, found.cost);
  }
  return found.cost > limit ? costRefusal(found.cost, limit, found.atLeast, overHttp(args)) : null;
}

/**
 * The envelop plugin: placed before compiled queries (a refused document is never compiled) and before live queries
 * (a refused one opens no stream).
 */
export const documentCostLimit: Plugin = {
  onExecute({ args, setResultAndStopExecution }) {
    const refusal = refusalOf(args);
    if (refusal) setResultAndStopExecution({ errors: [refusal] });
  },
  onSubscribe({ args, setResultAndStopExecution }) {
    const refusal = refusalOf(args);
    if (refusal) setResultAndStopExecution({ errors: [refusal] });
  },
};
