// Text holding U+0000 (NUL) is refused on every door, the same on both databases (issue 41): SQLite stored it,
// PostgreSQL refused it at the INSERT (22021), answered 422 at `["body"]` with the request's internal variables echoed.
// Checked before anything runs: in the variables (where every REST body and MCP argument arrives), naming the place
// of the first one (REST turns that path into the field's `loc`), and in string literals of the document; a
// provider's raw signed body is left to its resolver, which checks it once parsed (RAW_BODIES).
import { GraphQLError, Kind, type StringValueNode, type ValidationContext } from 'graphql';
import type { Plugin } from 'graphql-yoga';

const NUL = '\u0000';
const MESSAGE = 'Text must not contain the NUL character (\\u0000)';
/** Nesting followed at most (variables are capped at 64 levels before this: src/graphql/server/request-limits.ts). */
const MAX_DEPTH = 64;

/** The path of the first string (or object key) holding NUL, or null. */
export function nulPath(value: unknown, path: Array<string | number> = [], depth = 0): Array<string | number> | null {
  if (typeof value === 'string') return value.includes(NUL) ? path : null;
  if (value === null || typeof value !== 'object' || depth > MAX_DEPTH) return null;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const found = nulPath(value[i], [...path, i], depth + 1);
      if (found) return found;
    }
    return null;
  }
  for (const [key, item] of Object.entries(value)) {
    if (key.includes(NUL)) return [...path, key];
    const found = nulPath(item, [...path, key], depth + 1);
    if (found) return found;
  }
  return null;
}

/**
 * Variables that carry a provider's signed body as received (the social webhook's `rawBody`): their resolver checks
 * it once parsed, refusing NUL at the message field that holds it (src/domain/social.schema.ts) or, for a raw NUL
 * byte, which no JSON text holds, answering `json_invalid` at the body. Refused here, the whole body would be echoed.
 */
const RAW_BODIES: ReadonlySet<string> = new Set(['rawBody']);

/** The variables this plugin looks at: all of them but raw bodies. */
function checkedVariables(variables: Record<string, unknown> | null | undefined): Record<string, unknown> | null {
  if (!variables) return null;
  if (!Object.keys(variables).some((name) => RAW_BODIES.has(name))) return variables;
  return Object.fromEntries(Object.entries(variables).filter(([name]) => !RAW_BODIES.has(name)));
}

const refusal = (path: Array<string | number>) =>
  new GraphQLError(`${path.join('.')}: ${MESSAGE}`, {
    extensions: { code: 'BAD_USER_INPUT', issues: [{ path, type: 'string_type', message: MESSAGE }] },
  });

export const nulCharacters: Plugin = {
  onValidate({ addValidationRule }) {
    addValidationRule((context: ValidationContext) => ({
      [Kind.STRING](node: StringValueNode) {
        if (!node.value.includes(NUL)) return;
        context.reportError(new GraphQLError(MESSAGE, { nodes: [node], extensions: { code: 'BAD_USER_INPUT' } }));
      },
    }));
  },
  onExecute({ args, setResultAndStopExecution }) {
    const path = nulPath(checkedVariables(args.variableValues));
    if (path) setResultAndStopExecution({ errors: [refusal(path)] });
  },
  onSubscribe({ args, setResultAndStopExecution }) {
    const path = nulPath(checkedVariables(args.variableValues));
    if (path) setResultAndStopExecution({ errors: [refusal(path)] });
  },
};
