// An envelop plugin that refuses GraphQL requests whose variables or extensions are nested deeper than
// MAX_JSON_DEPTH or hold a list longer than MAX_LIST_LENGTH (docs/limits.md), before graphql-js's recursive
// coercion sees them: a clear 400, never a stack overflow or seconds of work.
import { GraphQLError } from 'graphql';
import type { Plugin } from 'graphql-yoga';
import { jsonShapeProblem, MAX_LIST_LENGTH } from '../../validation/json-limits.js';

interface Params {
  variables?: unknown;
  extensions?: unknown;
}

const problemOf = (params: Params): string | null => {
  for (const part of ['variables', 'extensions'] as const) {
    const problem = jsonShapeProblem(params[part], { maxListLength: MAX_LIST_LENGTH });
    if (problem) return `The request's ${part} are refused: ${problem}.`;
  }
  return null;
};

export function requestShapeLimits(): Plugin {
  return {
    onRequestParse: () => ({
      onRequestParseDone({ requestParserResult }) {
        const batch: Params[] = Array.isArray(requestParserResult) ? requestParserResult : [requestParserResult];
        for (const params of batch) {
          // A batch entry that is not an object (`[null]`, `[0]`) is yoga's to refuse with its own 400.
          if (typeof params !== 'object' || params === null) continue;
          const problem = problemOf(params);
          if (problem) {
            throw new GraphQLError(problem, { extensions: { code: 'BAD_USER_INPUT', http: { status: 400 } } });
          }
        }
      },
    }),
  };
}
