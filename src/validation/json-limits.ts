// Limits on the shape of JSON a client sends (docs/limits.md): nesting at most 64 levels deep (REST bodies, GraphQL
// bodies, variables and JSON scalars) and, in GraphQL variables, no list longer than 1000 items. Both checks are
// iterative, so a hostile document cannot overflow the stack of the code that measures it, and they run before any
// recursive code (graphql-js's coercion, jsonc-parser's error reporting, zod) sees the value.

export const MAX_JSON_DEPTH = 64;
export const MAX_LIST_LENGTH = 1000;

export interface ShapeLimits {
  maxDepth?: number;
  /** Longest array allowed anywhere in the value; unlimited when unset. */
  maxListLength?: number;
}

/** What is wrong with a value's shape, as a sentence, or null when it is within the limits. */
export function jsonShapeProblem(value: unknown, limits: ShapeLimits = {}): string | null {
  const maxDepth = limits.maxDepth ?? MAX_JSON_DEPTH;
  const maxList = limits.maxListLength ?? Infinity;
  const pending: Array<[unknown, number]> = [[value, 0]];
  for (let next = pending.pop(); next; next = pending.pop()) {
    const [item, depth] = next;
    if (item === null || typeof item !== 'object') continue;
    if (depth >= maxDepth) return `JSON is nested deeper than ${maxDepth} levels`;
    const children = Array.isArray(item) ? item : Object.values(item);
    if (Array.isArray(item) && item.length > maxList)
      return `a list has ${item.length} items; at most ${maxList} are allowed`;
    for (const child of children) if (child !== null && typeof child === 'object') pending.push([child, depth + 1]);
  }
  return null;
}

/**
 * Whether JSON text nests deeper than `maxDepth`, read without parsing it (so also for text that is not valid JSON):
 * brackets inside strings do not count. Returns the offset where the limit was crossed, or -1.
 */
export function jsonTextTooDeepAt(text: string, maxDepth = MAX_JSON_DEPTH): number {
  let depth = 0;
  let inString = false;
  for (let index = 0; index < text.length; index++) {
    const code = text.charCodeAt(index);
    if (inString) {
      if (code === 0x5c /* \ */) index++;
      else if (code === 0x22 /* " */) inString = false;
    } else if (code === 0x22) {
      inString = true;
    } else if (code === 0x5b /* [ */ || code === 0x7b /* { */) {
      if (++depth > maxDepth) return index;
    } else if (code === 0x5d /* ] */ || code === 0x7d /* } */) {
      depth--;
    }
  }
  return -1;
}
