// The MCP door's `text_read` tool (docs/mcp.md "Answer sizes"): reads a long text of a campaign or a call in pieces,
// where another answer cut it (its marker gives these arguments: src/mcp/answer-budget.ts). The text is read through
// the public graph like every tool's data (the same tenancy: another account's campaign or call is NOT_FOUND), and the
// piece answered is the longest that fits the answer budget, from `offset`, at most `length` characters.
import type { CallToolResult } from '@modelcontextprotocol/server';
import { type DocumentNode, type ExecutionResult, GraphQLError, parse } from 'graphql';
import { answerBytes, cutText, LONG_TEXTS, type TextSource } from './answer-budget.js';
import { toolResult } from './tool-results.js';

/** The most characters one call asks for (the answer budget may allow fewer). */
const MAX_PIECE = 100_000;
/** No text is longer than this (a transcript: 500 000 characters). */
const MAX_OFFSET = 1_000_000;
const DEFAULT_PIECE = 20_000;

/** A text's name as the tool takes it (SYSTEM_PROMPT), from its field's (systemPrompt): enum values, as elsewhere. */
export const textFieldName = (field: string): string => field.replace(/([a-z])([A-Z])/g, '$1_$2').toUpperCase();

/** Each text the tool reads: its record kind and its GraphQL field, by the name the tool takes. */
const TEXTS = new Map<string, { source: TextSource; field: string }>(
  (Object.entries(LONG_TEXTS) as Array<[TextSource, readonly string[]]>).flatMap(([source, fields]) =>
    fields.map((field) => [textFieldName(field), { source, field }] as const),
  ),
);

export const TEXT_READ_TOOL = {
  name: 'text_read',
  title: 'Read a long text',
  description:
    'Reads a long text of a campaign or of a call (SUMMARY, TRANSCRIPT) in pieces. Arguments: `id` (the campaign’s ' +
    'campId or the call’s callId), `field`, `offset`, `length`; a text cut in another answer ends with a marker ' +
    'giving them. Answers the piece and `nextOffset`, where the next starts; the text is read once it equals `total`.',
  inputSchema: {
    type: 'object',
    properties: {
      id: { type: 'string', minLength: 1, maxLength: 64, description: 'The campaign’s campId, or the call’s callId.' },
      field: {
        type: 'string',
        enum: [...TEXTS.keys()],
        description: 'Which text: SUMMARY and TRANSCRIPT are a call’s, the others a campaign’s.',
      },
      offset: {
        type: 'integer',
        minimum: 0,
        maximum: MAX_OFFSET,
        default: 0,
        description: 'Where the piece starts, in characters (UTF-16 code units).',
      },
      length: {
        type: 'integer',
        minimum: 1,
        maximum: MAX_PIECE,
        default: DEFAULT_PIECE,
        description: 'At most this many characters (fewer when the answer would not fit).',
      },
    },
    required: ['id', 'field'],
    additionalProperties: false,
  },
  outputSchema: {
    type: 'object',
    properties: {
      text: { type: 'string', description: 'The piece.' },
      offset: { type: 'integer', description: 'Where it starts.' },
      nextOffset: { type: 'integer', description: 'Where the next piece starts: total once the text is read.' },
      total: { type: 'integer', description: 'The whole text’s length; 0 when the record has none.' },
    },
    required: ['text', 'offset', 'nextOffset', 'total'],
    additionalProperties: false,
  },
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
};

/** Runs a document through the door's pipeline (src/mcp/server.ts). */
export type RunOperation = (document: DocumentNode, variables: Record<string, unknown>) => Promise<ExecutionResult>;

const documents = new Map<string, DocumentNode>();
/** The operation reading one text (parsed once per source and field). */
function documentFor(source: TextSource, field: string): DocumentNode {
  const key = `${source}.${field}`;
  let document = documents.get(key);
  if (!document) {
    document = parse(
      source === 'campaign'
        ? `query TextRead($id: String!) { record: campaign(campId: $id) { text: ${field} } }`
        : `query TextRead($id: ID!) { record: node(id: $id) { ... on CallLog { text: ${field} } } }`,
    );
    documents.set(key, document);
  }
  return document;
}

const refused = (message: string, issues: Array<{ path: string[]; message: string }> = []): CallToolResult =>
  toolResult({
    errors: [
      new GraphQLError(message, {
        extensions: {
          code: 'BAD_USER_INPUT',
          ...(issues.length ? { issues: issues.map((issue) => ({ ...issue, type: 'value_error' })) } : {}),
        },
      }),
    ],
  });

const notFound = (message: string): CallToolResult =>
  toolResult({ errors: [new GraphQLError(message, { extensions: { code: 'NOT_FOUND' } })] });

const isInteger = (value: unknown, min: number, max: number): value is number =>
  typeof value === 'number' && Number.isInteger(value) && value >= min && value <= max;

export async function textReadResult(
  args: Record<string, unknown>,
  run: RunOperation,
  budgetBytes: number,
): Promise<CallToolResult> {
  const { id, field, offset = 0, length = DEFAULT_PIECE } = args;
  const text = typeof field === 'string' ? TEXTS.get(field) : undefined;
  const issues: Array<{ path: string[]; message: string }> = [];
  if (typeof id !== 'string' || id.length === 0 || id.length > 64) {
    issues.push({ path: ['id'], message: 'A string of 1 to 64 characters' });
  }
  if (!text) issues.push({ path: ['field'], message: `One of ${[...TEXTS.keys()].join(', ')}` });
  if (!isInteger(offset, 0, MAX_OFFSET)) {
    issues.push({ path: ['offset'], message: `An integer from 0 to ${MAX_OFFSET}` });
  }
  if (!isInteger(length, 1, MAX_PIECE)) {
    issues.push({ path: ['length'], message: `An integer from 1 to ${MAX_PIECE}` });
  }
  const unknown = Object.keys(args).filter((name) => !['id', 'field', 'offset', 'length'].includes(name));
  for (const name of unknown) issues.push({ path: [name], message: 'Extra inputs are not permitted' });
  if (issues.length > 0 || !text) {
    return refused(`The arguments are refused: ${issues.map((issue) => issue.path[0]).join(', ')}`, issues);
  }
  const kind = text.source;
  const variables = {
    id: kind === 'campaign' ? id : Buffer.from(`CallLog:${String(id)}`).toString('base64'),
  };
  const result = await run(documentFor(kind, text.field), variables);
  if (result.errors?.length) return toolResult(result);
  const record = (result.data as { record?: { text?: string | null } | null } | null)?.record;
  if (!record || !('text' in record)) {
    return notFound(`${kind === 'campaign' ? 'Campaign' : 'Call'} ${String(id)} not found`);
  }
  const full = record.text ?? '';
  const start = Math.min(offset as number, full.length);
  // The longest piece that fits the budget, from `start`, at most `length` characters.
  let low = 0;
  let high = Math.min(length as number, full.length - start);
  const answerOf = (size: number) => {
    const piece = cutText(full.slice(start), size);
    return { text: piece, offset: start, nextOffset: start + piece.length, total: full.length };
  };
  while (low < high) {
    const middle = Math.ceil((low + high) / 2);
    if (answerBytes(answerOf(middle)) <= budgetBytes) low = middle;
    else high = middle - 1;
  }
  return toolResult({ data: answerOf(low) }, budgetBytes);
}
