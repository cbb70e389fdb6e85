// The server's own rules of a tool's arguments, for an answer that names every mistake (docs/mcp.md "Mistakes, all at
// once"; issue 53). When GraphQL refuses a value of the wrong type, its variables are never coerced and the input
// types' rules (zod, through Pothos's validation plugin: an unknown voice, an unknown time zone) never run, so the
// agent would need a second failing call to hear of them. Here the arguments, with the mistakes already named taken
// out, are coerced as GraphQL would and checked against those same schemas; nothing runs, nothing is written.
import {
  coerceInputValue,
  type DocumentNode,
  type GraphQLInputType,
  type GraphQLSchema,
  getNamedType,
  isInputObjectType,
  isListType,
  isNonNullType,
  Kind,
  type OperationDefinitionNode,
  typeFromAST,
} from 'graphql';
import type { z } from 'zod';
import type { InputIssue } from '../core/errors.js';
import { issuesFromZod } from '../validation/issues.js';

type Path = ReadonlyArray<string | number>;

/** The zod schemas Pothos's validation plugin keeps on an input object type. */
interface Validated {
  '@pothos/plugin-validation'?: { schemas?: ReadonlyArray<z.ZodType> };
}

/** A copy of `value` without the values at `paths` (each a path inside it). */
function without(value: unknown, paths: Path[]): unknown {
  const copy = structuredClone(value);
  for (const path of paths) {
    let holder: unknown = copy;
    for (const step of path.slice(0, -1)) {
      holder =
        holder !== null && typeof holder === 'object' ? (holder as Record<string | number, unknown>)[step] : null;
    }
    const last = path.at(-1);
    if (last === undefined || holder === null || typeof holder !== 'object') continue;
    if (Array.isArray(holder) && typeof last === 'number') holder[last] = null;
    else delete (holder as Record<string | number, unknown>)[last];
  }
  return copy;
}

/** Whether `path` is `named` or lies inside (or above) it: a mistake already said. */
const overlaps = (path: Path, named: Path) => {
  const length = Math.min(path.length, named.length);
  for (let i = 0; i < length; i++) if (String(path[i]) !== String(named[i])) return false;
  return true;
};

/** The rules' issues of one coerced value of `type`, at `at`, and of the input objects inside it. */
function ruleIssuesOf(value: unknown, type: GraphQLInputType, at: Path, raw: unknown): InputIssue[] {
  if (value === null || value === undefined) return [];
  const inner = isNonNullType(type) ? type.ofType : type;
  if (isListType(inner)) {
    if (!Array.isArray(value)) return [];
    return value.flatMap((item, index) =>
      ruleIssuesOf(item, inner.ofType as GraphQLInputType, [...at, index], (raw as unknown[] | undefined)?.[index]),
    );
  }
  if (!isInputObjectType(inner) || typeof value !== 'object') return [];
  const issues: InputIssue[] = [];
  for (const field of Object.values(inner.getFields())) {
    const child = (value as Record<string, unknown>)[field.name];
    issues.push(
      ...ruleIssuesOf(child, field.type, [...at, field.name], (raw as Record<string, unknown>)?.[field.name]),
    );
  }
  for (const schema of (inner.extensions as Validated)['@pothos/plugin-validation']?.schemas ?? []) {
    const checked = schema.safeParse(value);
    if (!checked.success) issues.push(...issuesFromZod(checked.error.issues, raw, [...at]));
  }
  return issues;
}

/**
 * The issues the server's rules find in a tool's arguments besides those `named` (the paths of mistakes already in
 * the answer), each at its argument's path: for every variable of the operation, its value without the named
 * mistakes, coerced as GraphQL coerces it, checked by the zod schemas of the input objects in it.
 */
export function serverRuleIssues(
  schema: GraphQLSchema,
  document: DocumentNode,
  args: Record<string, unknown>,
  named: Path[],
): InputIssue[] {
  const operation = document.definitions.find(
    (definition): definition is OperationDefinitionNode => definition.kind === Kind.OPERATION_DEFINITION,
  );
  const issues: InputIssue[] = [];
  for (const definition of operation?.variableDefinitions ?? []) {
    const name = definition.variable.name.value;
    const type = typeFromAST(schema, definition.type) as GraphQLInputType | undefined;
    if (!type || !isInputObjectType(getNamedType(type)) || args[name] === undefined) continue;
    const inside = named.filter((path) => String(path[0]) === name).map((path) => path.slice(1));
    if (inside.some((path) => path.length === 0)) continue;
    const raw = without(args[name], inside);
    // What coercion cannot make of the rest stays unnamed here: the answer names it already.
    const coerced = coerceInputValue(raw, type, () => undefined);
    issues.push(...ruleIssuesOf(coerced, type, [name], raw));
  }
  return issues.filter((issue) => !named.some((path) => overlaps(issue.path, path)));
}
