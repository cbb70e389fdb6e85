// Error bodies exactly as the legacy FastAPI service sent them (docs/decisions.md §10).
import { Response } from '../core/fetch-api.js';
import { visit as visitJsonc } from 'jsonc-parser';
import type { z } from 'zod';
import type { ErrorCode, InputIssue } from '../core/errors.js';
import { SECRET_FIELD_NAMES } from '../domain/secrets.schema.js';
import { redactSecrets } from '../security/redact.js';
import { tooManyFormFields } from '../validation/form-fields.js';
import { jsonShapeProblem, MAX_JSON_DEPTH } from '../validation/json-limits.js';
import type { validationErrorSchema } from './responses/errors.js';

export type Loc = Array<string | number>;

/** One entry of a 422's `detail`, as declared for the OpenAPI description (src/rest/responses/errors.ts). */
export type FastApiValidationError = z.output<typeof validationErrorSchema>;

export const STATUS_BY_CODE: Record<ErrorCode, number> = {
  BAD_USER_INPUT: 422,
  UNAUTHENTICATED: 401,
  FORBIDDEN: 403,
  NOT_FOUND: 404,
  CONFLICT: 409,
  RATE_LIMITED: 429,
  SERVICE_UNAVAILABLE: 503,
  // The caller asked for too much at once (a smaller `limit` is answered): 400 with the sentence that says so.
  COST_LIMIT_EXCEEDED: 400,
  RESPONSE_TOO_LARGE: 400,
};

const JSON_HEADERS = { 'content-type': 'application/json' };

export function jsonResponse(status: number, body: unknown, headers: Record<string, string> = {}): Response {
  return jsonTextResponse(status, JSON.stringify(body), headers);
}

/** The same for a body already serialised (a long answer, in pieces: src/graphql/server/long-answers.ts). */
export function jsonTextResponse(status: number, text: string, headers: Record<string, string> = {}): Response {
  return new Response(text, { status, headers: { ...JSON_HEADERS, ...headers } });
}

/** `{"detail": "<sentence>"}`; 401s carry `WWW-Authenticate: Bearer` as OAuth2PasswordBearer sends it. */
export function detailResponse(status: number, detail: string, headers: Record<string, string> = {}): Response {
  const auth: Record<string, string> = status === 401 ? { 'www-authenticate': 'Bearer' } : {};
  return jsonResponse(status, { detail }, { ...auth, ...headers });
}

/**
 * The most object keys and list items, in all, of an input echoed back: FastAPI echoes the whole body for a missing
 * field, once per missing field, which for a hostile body of thousands of keys is megabytes. A bigger input is echoed
 * as null; strings are echoed as they came (the body limit bounds them).
 */
export const MAX_ECHOED_VALUES = 100;

const echoable = (input: unknown): unknown =>
  jsonShapeProblem(input, { maxValues: MAX_ECHOED_VALUES }) === null ? input : null;

/**
 * One entry per issue, `loc` prefixed with where the value came from ("body", "query", "path").
 * `perField`: the values were validated one by one (query, path and form parameters), so a missing one has no
 * parent input, as FastAPI reports it.
 */
export function toValidationErrors(
  issues: InputIssue[],
  locate: (path: InputIssue['path']) => Loc,
  perField = false,
): FastApiValidationError[] {
  return issues.map((issue) => {
    const loc = locate(issue.path);
    const given = issue.type === 'missing' && (perField || loc[0] !== 'body') ? null : echoable(issue.input);
    // FastAPI echoes inputs; secrets (passwords, tokens, keys) are echoed masked.
    const input = redactSecrets(
      given,
      SECRET_FIELD_NAMES,
      issue.type !== 'missing' && SECRET_FIELD_NAMES.has(String(loc.at(-1))),
    );
    // pydantic prefixes a validator's message with "Value error, "; its own e-mail check (ctx.reason) does not.
    const prefixed = issue.type === 'value_error' && !issue.ctx?.reason;
    return {
      type: issue.type,
      loc,
      msg: prefixed ? `Value error, ${issue.message}` : issue.message,
      input: input === undefined ? null : input,
      ...(issue.ctx ? { ctx: issue.ctx } : {}),
    };
  });
}

export function validationResponse(errors: FastApiValidationError[]): Response {
  return jsonResponse(422, { detail: errors });
}

// Python's json module words, by jsonc-parser error code (ParseErrorCode).
const PYTHON_JSON_ERRORS: Record<number, string> = {
  3: 'Expecting property name enclosed in double quotes',
  5: "Expecting ':' delimiter",
  6: "Expecting ',' delimiter",
  7: "Expecting ',' delimiter",
  8: "Expecting ',' delimiter",
  9: 'Extra data',
  12: 'Unterminated string',
};

const FIRST_ERROR_FOUND = new Error('the first JSON error is found');

/**
 * What FastAPI answers for a body that is not JSON: `loc` holds the offset where Python's parser stopped.
 * JSON.parse has already failed; jsonc-parser (strict options) tells where and why.
 */
export function jsonInvalid(text: string): FastApiValidationError {
  // Only the first error is reported: the scan stops there rather than reading on through a megabyte of errors.
  const found: Array<{ error: number; offset: number }> = [];
  try {
    visitJsonc(
      text,
      {
        onError(error, offset) {
          found.push({ error, offset });
          throw FIRST_ERROR_FOUND;
        },
      },
      { allowTrailingComma: false, disallowComments: true, allowEmptyContent: false },
    );
  } catch (stop) {
    if (stop !== FIRST_ERROR_FOUND) throw stop;
  }
  const first = found[0];
  const error = first ? (PYTHON_JSON_ERRORS[first.error] ?? 'Expecting value') : 'Expecting value';
  return {
    type: 'json_invalid',
    loc: ['body', first?.offset ?? 0],
    msg: 'JSON decode error',
    input: {},
    ctx: { error },
  };
}

/** A body nested deeper than MAX_JSON_DEPTH: refused as undecodable, at the offset where the limit was crossed. */
export function jsonTooDeep(offset: number): FastApiValidationError {
  return {
    type: 'json_invalid',
    loc: ['body', offset],
    msg: 'JSON decode error',
    input: {},
    ctx: { error: `Nested deeper than ${MAX_JSON_DEPTH} levels` },
  };
}

/**
 * A body with more form fields, or JSON keys and list items, than its route takes: refused before it is parsed, the
 * limit named, nothing of the input echoed.
 */
export function tooManyFields(limit: number, kind: 'form' | 'json'): FastApiValidationError {
  return {
    type: 'too_long',
    loc: ['body'],
    msg:
      kind === 'form'
        ? tooManyFormFields(limit)
        : `A JSON body may hold at most ${limit} object keys and list items in all`,
    input: null,
    ctx: { max_length: limit },
  };
}
