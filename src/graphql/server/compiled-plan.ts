// Compiled plans (issue 55; docs/graphql-internals.md "Compiled plans"): a known query whose selection below its root fields is
// covered — plain fields of shaped types (src/graphql/schema/plain-fields.ts), properties (connections, their edges
// and page info), fields whose resolvers answer at once (node ids, cursors) or through a data loader — is executed by
// a function compiled once per document and operation from the schema's own field definitions: each root field's
// resolver (with everything Pothos wraps it in: argument validation, scope checks, the data loaders) is called once,
// and the answer below it is built by one function per selection set, an object literal of a fixed shape, without
// graphql-jit's per-field machinery. Objects are not shaped for a plan's request: each plain field the document
// selects is computed of the object as made, by that field's own resolver, and no other.
//
// What the plan does not cover is declined when it is compiled (directives, abstract types, fields with arguments
// below the root, introspection); what it cannot answer is met while it runs and handed to the executor it replaces,
// which answers from the start as before: an error anywhere (a bad argument, a refused scope, a null in a non-null
// field, a value its scalar refuses), and a promise where the schema promises a value (the plan is then dropped for
// that document, so that the promise's work is not done twice again).
import {
  defaultFieldResolver,
  type DocumentNode,
  type ExecutionArgs,
  type ExecutionResult,
  type FieldNode,
  type FragmentDefinitionNode,
  isAbstractType,
  type NamedTypeNode,
  typeFromAST,
  getArgumentValues,
  getNamedType,
  getVariableValues,
  GraphQLBoolean,
  GraphQLFloat,
  GraphQLID,
  GraphQLInt,
  type GraphQLField,
  type GraphQLLeafType,
  GraphQLList,
  GraphQLNonNull,
  GraphQLObjectType,
  type GraphQLOutputType,
  type GraphQLResolveInfo,
  type GraphQLSchema,
  GraphQLString,
  isLeafType,
  isObjectType,
  Kind,
  type OperationDefinitionNode,
  type SelectionSetNode,
} from 'graphql';
import type { Path } from 'graphql/jsutils/Path.js';
import { timedWork } from '../../core/request-context.js';
import { leaveUnshaped, plainReaderOf } from '../schema/plain-fields.js';

/** Thrown inside a plan when it cannot answer the request: the executor it replaces answers instead. */
class Declined extends Error {
  constructor(readonly dropPlan = false) {
    super('compiled plan declined');
  }
}

/** A value's completion below the root: its JSON-ready value, or Declined thrown. */
type Complete = (value: unknown, context: unknown, run: Run, path: Path) => unknown;
/** The object a selection set makes of its parent's value. */
type Build = (source: unknown, context: unknown, run: Run, path: Path) => Record<string, unknown>;

/** What a request's run of a plan shares: its variables (for the resolve infos it makes), and what it awaits. */
interface Run {
  variableValues: Record<string, unknown>;
  rootValue: unknown;
  /** Values of resolvers that answered with a promise (a data loader's), completed into their object once settled. */
  pending: Pending[];
}

interface Pending {
  promise: PromiseLike<unknown>;
  complete: Complete;
  path: Path;
  key: string;
  /** The object the value goes in, set by the builder that made it. */
  holder: Record<string, unknown> | undefined;
}

/** Gives the values a builder left pending (from `from` on, those of no nested object) the object it made. */
function bindPending(run: Run, from: number, holder: Record<string, unknown>): void {
  for (let index = from; index < run.pending.length; index++) {
    const pending = run.pending[index] as Pending;
    pending.holder ??= holder;
  }
}

type RootField = { key: string; typename: string } | RootResolved;

interface RootResolved {
  key: string;
  field: GraphQLField<unknown, unknown>;
  nodes: FieldNode[];
  /** The arguments when they hold no variable (computed once), else computed per request. */
  fixedArgs: Record<string, unknown> | undefined;
  complete: Complete;
}

export interface CompiledPlan {
  /** The result, or why the plan declined this request (its `dropPlan`: whether to stop trying it). */
  run(args: ExecutionArgs): Promise<ExecutionResult | Declined>;
}

export { Declined as PlanDeclined };

/** Why a document has no plan (a test and docs/graphql-internals.md list them). */
export type NoPlan = { reason: string };

const isThenable = (value: unknown): value is PromiseLike<unknown> =>
  value !== null && (typeof value === 'object' || typeof value === 'function') && 'then' in value;

/** The serialiser of a leaf type, with the built-in scalars' common case inline. */
function leafOf(type: GraphQLLeafType): (value: unknown) => unknown {
  const serialize = (value: unknown): unknown => {
    const serialized = type.serialize(value);
    if (serialized === undefined) throw new Declined();
    return serialized;
  };
  if (type === GraphQLString || type === GraphQLID) {
    return (value) => (typeof value === 'string' ? value : serialize(value));
  }
  if (type === GraphQLBoolean) return (value) => (typeof value === 'boolean' ? value : serialize(value));
  if (type === GraphQLInt) {
    return (value) =>
      typeof value === 'number' && Number.isInteger(value) && Math.abs(value) <= 2147483647 ? value : serialize(value);
  }
  if (type === GraphQLFloat)
    return (value) => (typeof value === 'number' && Number.isFinite(value) ? value : serialize(value));
  return serialize;
}

const step = (prev: Path | undefined, key: string | number, typename: string | undefined): Path => ({
  prev,
  key,
  typename,
});

interface Compilation {
  schema: GraphQLSchema;
  operation: OperationDefinitionNode;
  fragments: Record<string, FragmentDefinitionNode>;
}

/**
 * The plan of one operation of a document, or why it has none. `document` must be valid against `schema` (the
 * plan is compiled at execution, after validation).
 */
export function compilePlan(
  schema: GraphQLSchema,
  document: DocumentNode,
  operationName: string | null | undefined,
): CompiledPlan | NoPlan {
  const operations = document.definitions.filter(
    (definition): definition is OperationDefinitionNode => definition.kind === Kind.OPERATION_DEFINITION,
  );
  const fragments: Record<string, FragmentDefinitionNode> = {};
  for (const definition of document.definitions) {
    if (definition.kind === Kind.FRAGMENT_DEFINITION) fragments[definition.name.value] = definition;
  }
  const operation = operationName ? operations.find((each) => each.name?.value === operationName) : operations[0];
  if (!operation || (!operationName && operations.length !== 1)) return { reason: 'no single operation' };
  if (operation.operation !== 'query') return { reason: 'not a query' };
  if (operation.directives?.length) return { reason: 'directives' };
  if (operation.variableDefinitions?.some((definition) => definition.directives?.length)) {
    return { reason: 'directives' };
  }
  const queryType = schema.getQueryType();
  if (!queryType) return { reason: 'no query type' };
  const compilation: Compilation = { schema, operation, fragments };

  const roots: RootField[] = [];
  const collected = collectFields(compilation, queryType, [operation.selectionSet]);
  if (!(collected instanceof Map)) return collected;
  for (const [key, nodes] of collected) {
    const selection = nodes[0] as FieldNode;
    const name = selection.name.value;
    if (name === '__typename') {
      roots.push({ key, typename: queryType.name });
      continue;
    }
    if (name.startsWith('__')) return { reason: 'introspection' };
    const field = queryType.getFields()[name];
    if (!field) return { reason: 'unknown field' };
    const complete = completionOf(compilation, field.type, nodes);
    if ('reason' in complete) return complete;
    const hasVariables = (selection.arguments ?? []).some((argument) => containsVariable(argument.value));
    roots.push({
      key,
      field,
      nodes,
      fixedArgs: hasVariables ? undefined : getArgumentValues(field, selection, {}),
      complete: complete.complete,
    });
  }
  const variableDefinitions = operation.variableDefinitions ?? [];
  const build = objectBuilder(roots.map((root) => root.key));

  return {
    async run(args) {
      let variableValues: Record<string, unknown> = {};
      if (variableDefinitions.length > 0) {
        const coerced = getVariableValues(schema, variableDefinitions, args.variableValues ?? {}, { maxErrors: 1 });
        if (coerced.errors) return new Declined();
        variableValues = coerced.coerced;
      }
      const run: Run = { variableValues, rootValue: args.rootValue, pending: [] };
      const context = args.contextValue;
      // Nothing is shaped for this request: the plan reads the plain fields it selects of each object as made.
      leaveUnshaped(context, true);
      try {
        // Timed as the request's own work (the work budget), as graphql-jit's compiled query is.
        const values = timedWork(() =>
          roots.map((root) => {
            if ('typename' in root) return root.typename;
            const path = step(undefined, root.key, queryType.name);
            const info = resolveInfo(compilation, root.field, root.nodes, queryType, path, run);
            const fieldArgs =
              root.fixedArgs ?? getArgumentValues(root.field, root.nodes[0] as FieldNode, variableValues);
            const resolve = root.field.resolve ?? defaultFieldResolver;
            return resolve(args.rootValue, fieldArgs, context, info);
          }),
        );
        const settled = values.some(isThenable) ? await Promise.all(values) : values;
        const data = timedWork(() => {
          const completed = settled.map((value, index) => {
            const root = roots[index] as RootField;
            if ('typename' in root) return value;
            return root.complete(value, context, run, step(undefined, root.key, queryType.name));
          });
          return build(completed);
        });
        // The data loaders' values, a level at a time (each level's loads batched, as the executor batches them).
        while (run.pending.length > 0) {
          const level = run.pending;
          run.pending = [];
          const values = await Promise.all(level.map((pending) => pending.promise));
          timedWork(() => {
            for (let index = 0; index < level.length; index++) {
              const pending = level[index] as Pending;
              (pending.holder as Record<string, unknown>)[pending.key] = pending.complete(
                values[index],
                context,
                run,
                pending.path,
              );
            }
          });
        }
        return { data };
      } catch (error) {
        return error instanceof Declined ? error : new Declined();
      } finally {
        // Before graphql-jit answers a request the plan declined: it reads shaped objects.
        leaveUnshaped(context, false);
      }
    },
  };
}

/** A function making an object of these keys, in this order, from their values (one shape for every object). */
function objectBuilder(keys: string[]): (values: unknown[]) => Record<string, unknown> {
  const body = keys.map((key, index) => `${JSON.stringify(key)}: values[${index}]`).join(', ');
  return new Function('values', `return { ${body} };`) as (values: unknown[]) => Record<string, unknown>;
}

function containsVariable(value: import('graphql').ValueNode): boolean {
  switch (value.kind) {
    case Kind.VARIABLE:
      return true;
    case Kind.LIST:
      return value.values.some(containsVariable);
    case Kind.OBJECT:
      return value.fields.some((field) => containsVariable(field.value));
    default:
      return false;
  }
}

function resolveInfo(
  compilation: Compilation,
  field: GraphQLField<unknown, unknown>,
  nodes: FieldNode[],
  parentType: GraphQLObjectType,
  path: Path,
  run: Run,
): GraphQLResolveInfo {
  // graphql-js's own fields; the helpers some packages declare on the type (Hive Gateway's, in bench/) are theirs.
  const info: Omit<GraphQLResolveInfo, 'getAbortSignal' | 'getAsyncHelpers'> = {
    fieldName: field.name,
    fieldNodes: nodes,
    returnType: field.type,
    parentType,
    path,
    schema: compilation.schema,
    fragments: compilation.fragments,
    rootValue: run.rootValue,
    operation: compilation.operation,
    variableValues: run.variableValues,
  };
  return info as GraphQLResolveInfo;
}

/** The completion of a value of `type` selected by these field nodes, or why the plan cannot cover it. */
function completionOf(
  compilation: Compilation,
  type: GraphQLOutputType,
  nodes: FieldNode[],
): { complete: Complete } | NoPlan {
  if (type instanceof GraphQLNonNull) {
    const inner = completionOf(compilation, type.ofType, nodes);
    if ('reason' in inner) return inner;
    const complete = inner.complete;
    return {
      complete: (value, context, run, path) => {
        const completed = complete(value, context, run, path);
        if (completed === null) throw new Declined();
        return completed;
      },
    };
  }
  if (type instanceof GraphQLList) {
    const inner = completionOf(compilation, type.ofType, nodes);
    if ('reason' in inner) return inner;
    const item = inner.complete;
    return {
      complete: (value, context, run, path) => {
        if (value === null || value === undefined) return null;
        if (!Array.isArray(value)) throw new Declined();
        const list = new Array<unknown>(value.length);
        for (let index = 0; index < value.length; index++) {
          list[index] = item(value[index], context, run, step(path, index, undefined));
        }
        return list;
      },
    };
  }
  if (isLeafType(type)) {
    if (nodes.some((node) => node.selectionSet)) return { reason: 'a selection on a leaf' };
    const leaf = leafOf(type);
    return {
      complete: (value) => {
        if (value === null || value === undefined) return null;
        if (isThenable(value)) throw new Declined(true);
        return leaf(value);
      },
    };
  }
  if (!isObjectType(type)) return { reason: `an abstract type (${getNamedType(type).name})` };
  const selectionSets = nodes.flatMap((node) => (node.selectionSet ? [node.selectionSet] : []));
  if (selectionSets.length !== nodes.length) return { reason: 'an object without a selection' };
  const build = builderOf(compilation, type, selectionSets);
  if ('reason' in build) return build;
  const make = build.build;
  return {
    complete: (value, context, run, path) => {
      if (value === null || value === undefined) return null;
      if (isThenable(value)) throw new Declined(true);
      return make(value, context, run, path);
    },
  };
}

/** How one selected field's value is read from its parent's value. */
type Read = (source: unknown, context: unknown, run: Run, path: Path) => unknown;

/**
 * The fields a selection set selects on an object type, by response key in the order graphql-js collects them
 * (fragments applied by their type condition, a key's field nodes merged), or why the plan cannot cover it.
 */
function collectFields(
  compilation: Compilation,
  type: GraphQLObjectType,
  selectionSets: readonly SelectionSetNode[],
): Map<string, FieldNode[]> | NoPlan {
  const fields = new Map<string, FieldNode[]>();
  const visited = new Set<string>();
  const collect = (selectionSet: SelectionSetNode): NoPlan | undefined => {
    for (const selection of selectionSet.selections) {
      if (selection.directives?.length) return { reason: 'directives' };
      if (selection.kind === Kind.FIELD) {
        const key = selection.alias?.value ?? selection.name.value;
        const nodes = fields.get(key);
        if (nodes) nodes.push(selection);
        else fields.set(key, [selection]);
        continue;
      }
      let fragment: { typeCondition?: NamedTypeNode | undefined; selectionSet: SelectionSetNode };
      if (selection.kind === Kind.INLINE_FRAGMENT) fragment = selection;
      else {
        const name = selection.name.value;
        if (visited.has(name)) continue;
        visited.add(name);
        const definition = compilation.fragments[name];
        if (!definition) return { reason: 'unknown fragment' };
        fragment = definition;
      }
      if (!conditionMatches(compilation.schema, fragment.typeCondition, type)) continue;
      const refused = collect(fragment.selectionSet);
      if (refused) return refused;
    }
    return undefined;
  };
  for (const selectionSet of selectionSets) {
    const refused = collect(selectionSet);
    if (refused) return refused;
  }
  return fields;
}

/** Whether a fragment of this type condition applies to an object of `type` (graphql-js's rule). */
function conditionMatches(schema: GraphQLSchema, condition: NamedTypeNode | undefined, type: GraphQLObjectType) {
  if (!condition) return true;
  const conditionType = typeFromAST(schema, condition);
  if (conditionType === type) return true;
  return conditionType !== undefined && isAbstractType(conditionType) && schema.isSubType(conditionType, type);
}

/** The builder of a selection set on an object type, or why the plan cannot cover it. */
function builderOf(
  compilation: Compilation,
  type: GraphQLObjectType,
  selectionSets: readonly SelectionSetNode[],
): { build: Build } | NoPlan {
  const collected = collectFields(compilation, type, selectionSets);
  if (!(collected instanceof Map)) return collected;
  const keys: string[] = [];
  const reads: Read[] = [];
  const fields = type.getFields();
  for (const [key, nodes] of collected) {
    const selection = nodes[0] as FieldNode;
    const name = selection.name.value;
    keys.push(key);
    if (name === '__typename') {
      const typename = type.name;
      reads.push(() => typename);
      continue;
    }
    if (name.startsWith('__')) return { reason: 'introspection' };
    const field = fields[name];
    if (!field) return { reason: 'unknown field' };
    if (field.args.length > 0 || nodes.some((node) => (node.arguments?.length ?? 0) > 0)) {
      return { reason: 'arguments below the root' };
    }
    const completion = completionOf(compilation, field.type, nodes);
    if ('reason' in completion) return completion;
    const complete = completion.complete;
    const resolve = field.resolve;
    // A plain field of a shaped type: made of the unshaped object by its own resolver (only the ones selected).
    const plain = plainReaderOf(field);
    const childPath = !isLeafType(getNamedType(field.type));
    if (plain) {
      reads.push(
        childPath
          ? (source, context, run, path) =>
              complete(plain(source as object, context as object), context, run, step(path, key, type.name))
          : (source, context, run, path) => complete(plain(source as object, context as object), context, run, path),
      );
    } else if (!resolve || resolve === defaultFieldResolver) {
      // Read as graphql-js's default resolver reads it (a method is for the executor, which calls it).
      // A leaf's path is never read (an error anywhere is the executor's to answer): none is made for it.
      if (!childPath) {
        reads.push((source, context, run, path) => {
          const value = (source as Record<string, unknown>)[name];
          if (typeof value === 'function') throw new Declined(true);
          return complete(value, context, run, path);
        });
      } else {
        reads.push((source, context, run, path) => {
          const value = (source as Record<string, unknown>)[name];
          if (typeof value === 'function') throw new Declined(true);
          return complete(value, context, run, step(path, key, type.name));
        });
      }
    } else {
      const noArguments = Object.freeze({});
      reads.push((source, context, run, path) => {
        const here = step(path, key, type.name);
        const value = resolve(source, noArguments, context, resolveInfo(compilation, field, nodes, type, here, run));
        // A resolver that answers later (a data loader's): completed once settled, its place in the object kept.
        if (isThenable(value)) {
          run.pending.push({ promise: value, complete, path: here, key, holder: undefined });
          return null;
        }
        return complete(value, context, run, here);
      });
    }
  }
  const make = new Function(
    'reads',
    'bindPending',
    `return (source, context, run, path) => {
      const from = run.pending.length;
      const made = { ${keys
        .map((key, index) => `${JSON.stringify(key)}: reads[${index}](source, context, run, path)`)
        .join(', ')} };
      if (run.pending.length !== from) bindPending(run, from, made);
      return made;
    };`,
  ) as (reads: Read[], bind: typeof bindPending) => Build;
  return { build: make(reads, bindPending) };
}
