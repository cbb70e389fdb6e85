// What a query asks of a field's result, for resolvers that can read less when less is asked.
import {
  type FieldNode,
  type FragmentDefinitionNode,
  type GraphQLResolveInfo,
  Kind,
  type SelectionNode,
  type SelectionSetNode,
} from 'graphql';

/**
 * Whether every field the query selects on this field's result is one of `allowed`. Fragments (named and inline)
 * are followed; directives such as @include are not evaluated, so a field under one counts as asked for.
 */
export function asksOnly(info: GraphQLResolveInfo, allowed: ReadonlySet<string>): boolean {
  const pending: SelectionSetNode[] = info.fieldNodes.flatMap((node) => (node.selectionSet ? [node.selectionSet] : []));
  for (let set = pending.pop(); set; set = pending.pop()) {
    for (const selection of set.selections) {
      if (selection.kind === Kind.FIELD) {
        if (!allowed.has(selection.name.value)) return false;
      } else if (selection.kind === Kind.INLINE_FRAGMENT) {
        pending.push(selection.selectionSet);
      } else {
        const fragment = info.fragments[selection.name.value];
        if (!fragment) return false;
        pending.push(fragment.selectionSet);
      }
    }
  }
  return true;
}

/** One @include/@skip on the way to a field: the field is there when the argument's value is `when`. */
interface Condition {
  variable: string;
  when: boolean;
}

/** Per name: the ways the query reaches a field of that name, each the conditions it sits under (none: always). */
type Plan = Map<string, Condition[][]>;

/** Selections walked for one plan; past this the walk stops and every name counts as asked (a deep fragment web). */
export const MAX_SELECTION_WALK = 2000;

/** The conditions `node`'s own @include/@skip add, or null when a literal argument leaves it out for certain. */
function conditionsOf(node: SelectionNode, outer: readonly Condition[]): readonly Condition[] | null {
  if (!node.directives?.length) return outer;
  let conditions = outer;
  for (const directive of node.directives) {
    const name = directive.name.value;
    if (name !== 'include' && name !== 'skip') continue;
    const when = name === 'include';
    const value = directive.arguments?.find((argument) => argument.name.value === 'if')?.value;
    if (value?.kind === Kind.BOOLEAN) {
      if (value.value !== when) return null;
    } else if (value?.kind === Kind.VARIABLE) {
      conditions = [...conditions, { variable: value.name.value, when }];
    }
    // Anything else fails validation; counted as there.
  }
  return conditions;
}

/** The plan of `names` under these field nodes, or null when the walk ran past MAX_SELECTION_WALK. */
function planOf(
  fieldNodes: readonly FieldNode[],
  fragments: Readonly<Record<string, FragmentDefinitionNode>>,
  names: readonly string[],
): Plan | null {
  const plan: Plan = new Map(names.map((name) => [name, []]));
  const pending: { set: SelectionSetNode; conditions: readonly Condition[] }[] = [];
  for (const node of fieldNodes) {
    const conditions = conditionsOf(node, []);
    if (node.selectionSet && conditions) pending.push({ set: node.selectionSet, conditions });
  }
  let walked = 0;
  for (let next = pending.pop(); next; next = pending.pop()) {
    for (const selection of next.set.selections) {
      if (++walked > MAX_SELECTION_WALK) return null;
      const conditions = conditionsOf(selection, next.conditions);
      if (!conditions) continue;
      if (selection.kind === Kind.FIELD) {
        plan.get(selection.name.value)?.push([...conditions]);
        if (selection.selectionSet) pending.push({ set: selection.selectionSet, conditions });
      } else if (selection.kind === Kind.INLINE_FRAGMENT) {
        pending.push({ set: selection.selectionSet, conditions });
      } else {
        const fragment = fragments[selection.name.value];
        // An unknown fragment fails validation; counted as asking for everything.
        if (!fragment) return null;
        pending.push({ set: fragment.selectionSet, conditions });
      }
    }
  }
  return plan;
}

interface CachedPlan {
  fieldNodes: readonly FieldNode[];
  names: readonly string[];
  plan: Plan | null;
}

/**
 * Plans by the field's first node: a node belongs to one parsed document (the parse cache keeps documents), and the
 * same node can be merged with different others (a fragment spread in two places), hence the whole list is compared.
 */
const plans = new WeakMap<FieldNode, CachedPlan[]>();

/** The most plans kept per node (one per distinct merge of it; a document has few). */
const MAX_PLANS_PER_NODE = 8;

function cachedPlan(info: GraphQLResolveInfo, names: readonly string[]): Plan | null {
  const { fieldNodes } = info;
  const first = fieldNodes[0];
  if (!first) return null;
  let cached = plans.get(first);
  const hit = cached?.find(
    (entry) =>
      entry.names === names &&
      entry.fieldNodes.length === fieldNodes.length &&
      entry.fieldNodes.every((node, index) => node === fieldNodes[index]),
  );
  if (hit) return hit.plan;
  const plan = planOf(fieldNodes, info.fragments, names);
  if (!cached) plans.set(first, (cached = []));
  if (cached.length < MAX_PLANS_PER_NODE) cached.push({ fieldNodes: [...fieldNodes], names, plan });
  return plan;
}

/**
 * Which of `names` the query asks for as fields anywhere under this field (at any depth: a list's entries, an edge's
 * node). Fragments, named and inline, are followed whatever their type condition, aliases do not matter, and
 * @include/@skip are evaluated with the request's variables; so a name is left out only when no field of that name
 * can be in the answer. The walk is made once per document (and merge of the field), then only the variables are read.
 * `names` should be one constant array per caller (plans are kept by its identity).
 */
export function asksFor<N extends string>(info: GraphQLResolveInfo, names: readonly N[]): ReadonlySet<N> {
  const plan = cachedPlan(info, names);
  if (!plan) return new Set(names);
  const variables = (info.variableValues ?? {}) as Record<string, unknown>;
  const holds = ({ variable, when }: Condition) => {
    const value = variables[variable];
    // A variable that is no boolean (it cannot be, after validation) counts as keeping the field.
    return typeof value !== 'boolean' || value === when;
  };
  return new Set(names.filter((name) => plan.get(name)?.some((conditions) => conditions.every(holds)) ?? true));
}
