// What a query asks of a field's result, for resolvers that can read less when less is asked.
import { type GraphQLResolveInfo, Kind, type SelectionSetNode } from 'graphql';

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
