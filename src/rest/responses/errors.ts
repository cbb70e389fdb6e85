// FastAPI's error bodies (docs/decisions.md §10), declared once: src/rest/fastapi-errors.ts builds them with these
// types, and the OpenAPI description documents every error status with them.
import { z } from 'zod';

/** `{"detail": "<sentence>"}`: every error but 422. */
export const detailBody = z
  .object({ detail: z.string() })
  .meta({ id: 'Detail', description: 'FastAPI’s error body: one sentence saying what went wrong' });

/** One problem of a 422, in pydantic v2's words. */
export const validationErrorSchema = z
  .object({
    type: z.string().describe('pydantic’s error type: missing, string_too_long, int_parsing, json_invalid, ...'),
    loc: z
      .array(z.union([z.string(), z.int()]))
      .describe('Where: "body", "query" or "path", then the field names and list indexes'),
    msg: z.string().describe('What is wrong, in pydantic’s words'),
    input: z.unknown().describe('The value that was refused (null when missing; secrets masked)'),
    ctx: z.record(z.string(), z.unknown()).optional().describe('The rule’s parameters (max_length, error, ...)'),
  })
  .meta({ id: 'ValidationError' });

/** A 422: every problem of the request at once. */
export const httpValidationErrorSchema = z
  .object({ detail: z.array(validationErrorSchema) })
  .meta({ id: 'HTTPValidationError', description: 'FastAPI’s 422 body: every problem of the request at once' });
