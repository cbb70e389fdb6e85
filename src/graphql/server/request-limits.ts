// An envelop plugin that refuses GraphQL requests whose variables or extensions are nested deeper than
// MAX_JSON_DEPTH, hold a list longer than MAX_LIST_LENGTH or more than MAX_JSON_VALUES keys and items in all
// (docs/limits.md), before graphql-js's recursive coercion or any plugin walks them: a clear 400, never a stack
// overflow or seconds of work. The count is taken of a JSON body's bytes before it is decoded and parsed (building an object of
// 60 000 keys, and listing them, is what costs), and stops at the limit.
import { GraphQLError } from 'graphql';
import type { Plugin } from 'graphql-yoga';
import { timedWork } from '../../core/request-context.js';
import { decodeBody } from '../../core/body-text.js';
import { jsonShapeProblem, jsonValuesOverAt, MAX_JSON_VALUES, MAX_LIST_LENGTH } from '../../validation/json-limits.js';

interface Params {
  variables?: unknown;
  extensions?: unknown;
}

/** What a body holds beside its variables and extensions (query, operationName, their keys): a few per operation. */
const BODY_ALLOWANCE = 64;

const refusal = (problem: string) =>
  new GraphQLError(problem, { extensions: { code: 'BAD_USER_INPUT', http: { status: 400 } } });

/**
 * The refusal of a JSON body with more keys and items than its variables and extensions may hold (counted on its
 * bytes, before it is decoded), or null: yoga's parser and the prepared lane (src/graphql/lane/lane-request.ts) give
 * the same answer.
 */
export function bodyValuesRefusal(bytes: Uint8Array): GraphQLError | null {
  if (jsonValuesOverAt(bytes, MAX_JSON_VALUES + BODY_ALLOWANCE) < 0) return null;
  return refusal(
    `The request's variables and extensions are refused: more than ${MAX_JSON_VALUES} object keys and list items ` +
      'in all.',
  );
}

const problemOf = (params: Params): string | null => {
  for (const part of ['variables', 'extensions'] as const) {
    const problem = jsonShapeProblem(params[part], { maxListLength: MAX_LIST_LENGTH, maxValues: MAX_JSON_VALUES });
    if (problem) return `The request's ${part} are refused: ${problem}.`;
  }
  return null;
};

/** yoga's isPOSTJsonRequest (graphql-yoga/esm/plugins/request-parser/post-json.js). */
function isJsonPost(request: Request): boolean {
  if (request.method !== 'POST') return false;
  const type = request.headers.get('content-type')?.split(',')[0] ?? '';
  return ['application/json', 'application/graphql+json'].some((t) => type === t || type.startsWith(`${t};`));
}

const badRequest = (message: string, http: Record<string, unknown> = {}, more: Record<string, unknown> = {}) =>
  new GraphQLError(message, { extensions: { http: { ...http, status: 400 }, code: 'BAD_REQUEST', ...more } });

/** yoga's JSON body parser, its answers word for word, with the count of keys and items taken of the bytes first. */
async function parseCountedJson(request: Request): Promise<object> {
  const bytes = await request.bytes();
  // Synchronous from here: the request's own time (src/security/work-budget.ts).
  return timedWork(() => countedJson(bytes));
}

function countedJson(bytes: Uint8Array): object {
  const refused = bodyValuesRefusal(bytes);
  if (refused) throw refused;
  let body: unknown;
  try {
    body = JSON.parse(decodeBody(bytes));
  } catch (error) {
    const original = error instanceof Error ? { originalError: { name: error.name, message: error.message } } : {};
    throw badRequest('POST body sent invalid JSON.', { spec: true }, original);
  }
  if (body == null) throw badRequest(`POST body is expected to be object but received ${String(body)}`);
  if (typeof body !== 'object') throw badRequest(`POST body is expected to be object but received ${typeof body}`);
  return body;
}

export function requestShapeLimits(): Plugin {
  return {
    onRequestParse: ({ request, setRequestParser }) => {
      // A body the prepared lane has read already (or a copy of a request without one, handed its parsed body) is in
      // yoga's hands: the lane counted its text itself (src/graphql/lane/lane-request.ts).
      if (isJsonPost(request) && request.body !== null && !request.bodyUsed) {
        setRequestParser(parseCountedJson as unknown as Parameters<typeof setRequestParser>[0]);
      }
      return {
        onRequestParseDone({ requestParserResult }) {
          const batch: Params[] = Array.isArray(requestParserResult) ? requestParserResult : [requestParserResult];
          for (const params of batch) {
            // A batch entry that is not an object (`[null]`, `[0]`) is yoga's to refuse with its own 400.
            if (typeof params !== 'object' || params === null) continue;
            const problem = problemOf(params);
            if (problem) throw refusal(problem);
          }
        },
      };
    },
  };
}
