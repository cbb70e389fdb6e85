// What the prepared lane (src/graphql/lane/prepared-lane.ts) reads of an HTTP request, exactly as yoga would read it: the
// GraphQL parameters of a GET or an `application/json` POST, and the media type yoga's result processors would pick
// for a single result. Anything yoga would read differently, refuse or answer in another shape (batches, extensions,
// other content types, an Accept only the SSE or multipart processors match) is not the lane's: it returns null and
// yoga reads the request as always.
import type { GraphQLError } from 'graphql';
import { decodeBody } from '../../core/body-text.js';
import { jsonShapeProblem, jsonValuesOverAt, MAX_JSON_VALUES, MAX_LIST_LENGTH } from '../../validation/json-limits.js';
import { bodyValuesRefusal } from '../server/request-limits.js';

export interface LaneParams {
  query: string;
  operationName?: string | null;
  variables?: Record<string, unknown> | null;
}

/** The two media types of yoga's regular (single result) processor. */
export type RegularMediaType = 'application/graphql-response+json' | 'application/json';

const REGULAR: readonly RegularMediaType[] = ['application/graphql-response+json', 'application/json'];

/** yoga's getMediaTypesForRequestInOrder (graphql-yoga/esm/plugins/result-processor/accept.js). */
function mediaTypesInOrder(accept: string | null): string[] {
  const types: string[] = [];
  for (const entry of (accept || '*/*').replace(/\s/g, '').toLowerCase().split(',')) {
    const [mediaType, ...params] = entry.split(';');
    if (mediaType === undefined) continue;
    const charset = params.find((param) => param.includes('charset=')) || 'charset=utf-8';
    if (charset !== 'charset=utf-8') continue;
    types.push(mediaType);
  }
  return types.reverse();
}

/** yoga's isMatchingMediaType, arguments in the order yoga's result processor passes them. */
function matches(processorType: string, requestType: string): boolean {
  const [askedPre, askedSuf] = processorType.split('/');
  const [pre, suf] = requestType.split('/');
  return (pre === '*' || pre === askedPre) && (suf === '*' || suf === askedSuf);
}

/**
 * The media type yoga answers a single result in: the regular processor comes last in yoga's list, so its last match
 * wins over the SSE and multipart ones; null when it does not match at all (yoga then streams, or answers 406).
 */
export function regularMediaType(accept: string | null): RegularMediaType | null {
  let chosen: RegularMediaType | null = null;
  for (const requestType of mediaTypesInOrder(accept)) {
    for (const processorType of REGULAR) if (matches(processorType, requestType)) chosen = processorType;
  }
  return chosen;
}

/** yoga's isContentTypeMatch for `application/json`. */
function isJsonPost(request: Request): boolean {
  const type = request.headers.get('content-type')?.split(',')[0] || null;
  return type === 'application/json' || type?.startsWith('application/json;') === true;
}

const isPlainObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

const PARAM_NAMES = new Set(['query', 'variables', 'operationName', 'extensions']);

/** The parameters when yoga would take them as they are (its checks pass, nothing for its plugins to change). */
function laneParams(
  query: unknown,
  operationName: unknown,
  variables: unknown,
  extensions: unknown,
): LaneParams | null {
  if (typeof query !== 'string' || query === '') return null;
  if (operationName != null && typeof operationName !== 'string') return null;
  if (variables != null && !isPlainObject(variables)) return null;
  // Persisted operations and anything else carried in extensions are yoga's (its plugins read them).
  if (extensions != null) return null;
  // The variables' shape limits (src/graphql/server/request-limits.ts): a request past them gets yoga's 400.
  const limits = { maxListLength: MAX_LIST_LENGTH, maxValues: MAX_JSON_VALUES };
  if (variables != null && jsonShapeProblem(variables, limits)) return null;
  return { query, operationName, variables } as LaneParams;
}

/** A GET's parameters, read as yoga's GET parser reads them (an empty value is no value). */
export function getParams(request: Request): LaneParams | null {
  const search = new URLSearchParams(request.url.substring(request.url.indexOf('?') + 1));
  const variablesText = search.get('variables') || undefined;
  let variables: unknown;
  try {
    variables = variablesText ? JSON.parse(variablesText) : undefined;
  } catch {
    return null;
  }
  return laneParams(
    search.get('query') || undefined,
    search.get('operationName') || undefined,
    variables,
    search.get('extensions') || undefined,
  );
}

/**
 * A POST's body as yoga's JSON parser would see it, or why the lane leaves it to yoga, or the refusal yoga's parser
 * would give a body of too many keys and items (src/graphql/server/request-limits.ts), given by the lane itself.
 */
export type PostBody =
  | { params: LaneParams; parsed: unknown }
  | { params: null; parsed: unknown }
  | { text: string }
  | { refused: GraphQLError; bytes: Uint8Array };

/** Whether the lane can read this POST at all (before its body is read). */
export const isLanePost = (request: Request): boolean => request.method === 'POST' && isJsonPost(request);

/** Reads a JSON POST's body: its parameters when the lane takes them; otherwise what yoga needs to read it again. */
export async function postParams(request: Request): Promise<PostBody> {
  const bytes = await request.bytes();
  if (jsonValuesOverAt(bytes, MAX_JSON_VALUES) >= 0) {
    // Too many keys and items to be read: refused on the bytes, as yoga would (not decoded, copied and read again);
    // within yoga's allowance for the body's own keys (the rare case), yoga reads it.
    const refused = bodyValuesRefusal(bytes);
    return refused ? { refused, bytes } : { text: decodeBody(bytes) };
  }
  const text = decodeBody(bytes);
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return { text };
  }
  if (!isPlainObject(parsed) || Object.keys(parsed).some((name) => !PARAM_NAMES.has(name))) {
    return { params: null, parsed };
  }
  return { params: laneParams(parsed.query, parsed.operationName, parsed.variables, parsed.extensions), parsed };
}
