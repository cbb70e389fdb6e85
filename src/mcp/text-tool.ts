// The MCP door's `text_read` tool (docs/mcp.md "Answer sizes"): reads a long text of a campaign or a call in pieces,
// where another answer cut it (its marker gives these arguments: src/mcp/answer-budget.ts). The text is read through
// the public graph like every tool's data (the same tenancy: another account's campaign or call is NOT_FOUND), and the
// piece answered is the longest that fits the answer budget, from `offset`, at most `length` characters.
import type { CallToolResult } from '@modelcontextprotocol/server';
import { type DocumentNode, type ExecutionResult, GraphQLError, parse } from 'graphql';
import {
  answerBytes,
  cutText,
  isHighSurrogate,
  isLowSurrogate,
  LONG_TEXTS,
  textFieldName,
  type TextSource,
} from './answer-budget.js';
import { argumentIssues } from './argument-check.js';
import { badArguments, toolResult } from './tool-results.js';

/** The most characters one call asks for (the answer budget may allow fewer). */
export const MAX_PIECE = 100_000;
/** No text is longer than this (a transcript: 500 000 characters). */
export const MAX_OFFSET = 1_000_000;
const DEFAULT_PIECE = 20_000;

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

/** A call log's global id (the `node` field's argument) from its callId. */
export const callLogGlobalId = (callId: string): string => Buffer.from(`CallLog:${callId}`).toString('base64');

/** The `id` variable of a source's document: a campId as it is, a callId as the call log's global id. */
const variableId = (source: TextSource, id: string) => (source === 'campaign' ? id : callLogGlobalId(id));

const recordOf = (result: ExecutionResult): { text?: string | null } | null => {
  const record = (result.data as { record?: { text?: string | null } | null } | null)?.record;
  return record && 'text' in record ? record : null;
};

/**
 * Why nothing was found: an id of the other kind (a campId given with a call's field, or a callId with a campaign's)
 * is said so, with the fields it does have; otherwise the record is not the caller's, or does not exist.
 */
async function notFoundMessage(kind: TextSource, id: string, field: string, run: RunOperation): Promise<string> {
  const other: TextSource = kind === 'campaign' ? 'callLog' : 'campaign';
  const [probe] = LONG_TEXTS[other];
  const found = recordOf(await run(documentFor(other, probe), { id: variableId(other, id) }));
  const names = (source: TextSource) => LONG_TEXTS[source].map(textFieldName).join(', ');
  if (found) {
    return kind === 'campaign'
      ? `${id} is a call's callId, and ${field} is a campaign's text: a call's texts are ${names('callLog')}`
      : `${id} is a campaign's campId, and ${field} is a call's text (read it with the call's callId, which ` +
          `call_log_list lists): a campaign's texts are ${names('campaign')}`;
  }
  return kind === 'campaign' ? `Campaign ${id} not found` : `Call ${id} not found`;
}

const notFound = (message: string): CallToolResult =>
  toolResult({ errors: [new GraphQLError(message, { extensions: { code: 'NOT_FOUND' } })] });

/** A piece of a text: where it starts, where the next starts, the whole text's length. */
export interface TextPiece {
  text: string;
  offset: number;
  nextOffset: number;
  total: number;
}

/**
 * The longest piece of a record's text that fits `budgetBytes` (measured as the tool's JSON answer), from `offset`, at
 * most `length` characters, on whole characters; or why there is none (the record is not the caller's, or an error).
 */
export async function readTextPiece(
  field: string,
  id: string,
  offset: number,
  length: number,
  run: RunOperation,
  budgetBytes: number,
): Promise<{ piece: TextPiece } | { notFound: string } | { errors: ExecutionResult }> {
  const text = TEXTS.get(field);
  if (!text) return { notFound: `${field} is not a text` };
  const kind = text.source;
  const result = await run(documentFor(kind, text.field), { id: variableId(kind, id) });
  if (result.errors?.length) return { errors: result };
  const record = recordOf(result);
  if (!record) return { notFound: await notFoundMessage(kind, id, field, run) };
  const full = record.text ?? '';
  // Pieces start and end on whole characters: an offset inside a surrogate pair (a 4-byte character, 2 UTF-16 units)
  // starts at the pair, and the piece is never a lone surrogate (issue 53).
  let start = Math.min(offset, full.length);
  if (start > 0 && isLowSurrogate(full.charCodeAt(start)) && isHighSurrogate(full.charCodeAt(start - 1))) start -= 1;
  const rest = full.slice(start);
  // A piece holds at least one whole character, so that reading piece by piece always advances (`length: 1` at a
  // pair answers the pair: two units).
  const first = rest.length > 1 && isHighSurrogate(rest.charCodeAt(0)) && isLowSurrogate(rest.charCodeAt(1)) ? 2 : 1;
  // The longest piece that fits the budget, from `start`, at most `length` characters.
  let low = 0;
  let high = Math.min(Math.max(length, first), rest.length);
  const answerOf = (size: number): TextPiece => {
    const piece = size > 0 && size < first ? rest.slice(0, first) : cutText(rest, size);
    return { text: piece, offset: start, nextOffset: start + piece.length, total: full.length };
  };
  while (low < high) {
    const middle = Math.ceil((low + high) / 2);
    if (answerBytes(answerOf(middle)) <= budgetBytes) low = middle;
    else high = middle - 1;
  }
  return { piece: answerOf(low) };
}

export async function textReadResult(
  args: Record<string, unknown>,
  run: RunOperation,
  budgetBytes: number,
): Promise<CallToolResult> {
  // Checked against its input schema, every mistake named (as the other tools' arguments are: argument-check.ts).
  const issues = argumentIssues(TEXT_READ_TOOL.inputSchema, args);
  const {
    id,
    field,
    offset = 0,
    length = DEFAULT_PIECE,
  } = args as {
    id: string;
    field: string;
    offset?: number;
    length?: number;
  };
  if (issues.length > 0 || !TEXTS.has(field)) {
    const summary = issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`).join('; ');
    return badArguments(`The arguments are refused: ${summary}`, issues);
  }
  const read = await readTextPiece(field, id, offset, length, run, budgetBytes);
  if ('errors' in read) return toolResult(read.errors);
  if ('notFound' in read) return notFound(read.notFound);
  return toolResult({ data: { ...read.piece } }, budgetBytes);
}
