// The MCP door's resources (docs/mcp.md "Resources"): the GraphQL schema, and templates for the caller's own records —
// a campaign, a call, and a call's transcript read in pieces — read through the public graph like every tool's data
// (the same tenancy: another account's campaign or call is not found). Each answer fits the answer budget on the wire,
// as a tool's does (src/mcp/answer-budget.ts): a campaign's long texts are cut with a marker saying how to read the
// rest (text_read), and a transcript is answered one piece at a time, each saying where the next starts.
import { ProtocolError, ProtocolErrorCode, ResourceNotFoundError } from '@modelcontextprotocol/server';
import { type ExecutionResult, parse } from 'graphql';
import { fitAnswer } from './answer-budget.js';
import { callLogGlobalId, MAX_OFFSET, MAX_PIECE, readTextPiece, type RunOperation } from './text-tool.js';
import { codeOf } from './tool-results.js';

export const SCHEMA_RESOURCE = 'campaign-gateway://schema.graphql';

const CAMPAIGN_PREFIX = 'campaign-gateway://campaigns/';
const CALL_PREFIX = 'campaign-gateway://calls/';

export const RESOURCE_TEMPLATES = [
  {
    uriTemplate: `${CAMPAIGN_PREFIX}{campId}`,
    name: 'campaign',
    title: 'A campaign',
    description:
      'One of your campaigns by its campId: its settings, voice and text pipeline as JSON (what campaign_get answers). ' +
      'A long text cut to fit ends with a marker saying how to read the rest with text_read.',
    mimeType: 'application/json',
  },
  {
    uriTemplate: `${CALL_PREFIX}{callId}`,
    name: 'call',
    title: 'A call',
    description:
      'One of your calls by its callId: its status, numbers, times, cost, summary and analysis as JSON. Its ' +
      `transcript is the resource ${CALL_PREFIX}{callId}/transcript.`,
    mimeType: 'application/json',
  },
  {
    uriTemplate: `${CALL_PREFIX}{callId}/transcript{?offset}`,
    name: 'call-transcript',
    title: 'A call’s transcript',
    description:
      'A call’s transcript as plain text, in pieces that fit one answer: read from offset 0 (the default); while ' +
      'the content’s _meta.nextUri is present, read it for the next piece (_meta.nextOffset and _meta.total say ' +
      'where it starts and how long the whole text is, in characters).',
    mimeType: 'text/plain',
  },
] as const;

/** What a resource URI names, or why it names nothing this server has. */
export type ResourceRef =
  | { kind: 'schema' }
  | { kind: 'campaign'; campId: string }
  | { kind: 'call'; callId: string }
  | { kind: 'transcript'; callId: string; offset: number };

/** A URI longer than this names nothing here (a campId or callId is at most 64 characters). */
const MAX_URI_LENGTH = 512;
const ID = /^[A-Za-z0-9_.:-]{1,64}$/;

const decoded = (segment: string): string | null => {
  try {
    const value = decodeURIComponent(segment);
    return ID.test(value) ? value : null;
  } catch {
    return null;
  }
};

/** The record a URI names (its template's variables), or null when it names nothing this server has. */
export function resourceOf(uri: string): ResourceRef | null {
  if (uri === SCHEMA_RESOURCE) return { kind: 'schema' };
  if (uri.length > MAX_URI_LENGTH) return null;
  if (uri.startsWith(CAMPAIGN_PREFIX)) {
    const campId = decoded(uri.slice(CAMPAIGN_PREFIX.length));
    return campId ? { kind: 'campaign', campId } : null;
  }
  if (!uri.startsWith(CALL_PREFIX)) return null;
  const found = /^([^/?#]+)(\/transcript(?:\?offset=(0|[1-9][0-9]{0,6}))?)?$/.exec(uri.slice(CALL_PREFIX.length));
  const callId = found ? decoded(found[1]!) : null;
  if (!found || !callId) return null;
  if (!found[2]) return { kind: 'call', callId };
  const offset = Number(found[3] ?? 0);
  return offset <= MAX_OFFSET ? { kind: 'transcript', callId, offset } : null;
}

const transcriptUri = (callId: string, offset: number) =>
  `${CALL_PREFIX}${encodeURIComponent(callId)}/transcript${offset > 0 ? `?offset=${offset}` : ''}`;

const CAMPAIGN = parse(`
  query CampaignResource($campId: String!) {
    record: campaign(campId: $campId) {
      campId status title language timeZone voiceId tone flowName sampleSid isFreeflow public maxCallTimeout
      inactiveCallTimeout postCallAnalysis createdAt updatedAt description purpose script systemPrompt firstLine
      knowledgeBase calendar postCallAnalysisSchema
      voice { voiceId name language gender }
      textPipeline { campId goal messageDelay mexRetry retryDelay postWebhook postWebhookDelay updatedAt }
    }
  }
`);

const CALL = parse(`
  query CallResource($id: ID!) {
    record: node(id: $id) {
      ... on CallLog {
        callId campId status callDirection fromNumber toNumber startedAt endedAt durationSeconds cost recordingUrl
        summary analysis
      }
    }
  }
`);

/** A read whose GraphQL answer is an error: not found where the graph says so, else the error's own words. */
function refusedRead(uri: string, result: ExecutionResult): never {
  const [error] = result.errors ?? [];
  if (error && codeOf(error) === 'NOT_FOUND') throw new ResourceNotFoundError(uri);
  throw new ProtocolError(ProtocolErrorCode.InvalidParams, error?.message ?? 'The resource could not be read');
}

interface ResourceContent {
  uri: string;
  mimeType: string;
  text: string;
  _meta?: Record<string, unknown>;
}

/** What a content weighs on the wire (its JSON, without a tool answer's structured copy). */
const wireBytes = (value: unknown): number => Buffer.byteLength(JSON.stringify(value));

/**
 * A record as one JSON content within `budget` bytes on the wire. The fitter measures a tool's answer (the data and
 * its JSON-escaped copy), about twice what the one escaped copy here weighs: it is given twice the room, less until
 * the content fits.
 */
function jsonContent(uri: string, data: unknown, budget: number): ResourceContent {
  let room = 2 * (budget - wireBytes({ uri, mimeType: 'application/json', text: '' }));
  for (let attempt = 0; attempt < 6; attempt++) {
    const fitted = fitAnswer(data, room, { omitNulls: false });
    if ('refusal' in fitted) throw new ProtocolError(ProtocolErrorCode.InvalidParams, fitted.refusal);
    const content = { uri, mimeType: 'application/json', text: fitted.text };
    const size = wireBytes(content);
    if (size <= budget) return content;
    room = Math.floor((room * budget) / size) - 256;
  }
  throw new ProtocolError(ProtocolErrorCode.InvalidParams, 'The resource does not fit one answer');
}

/**
 * Reads a resource of the caller's (`run` runs a document as the caller), fitted to `budget` bytes on the wire; the
 * schema's text is the caller's to pass (it is the same for everyone).
 */
export async function readResource(
  uri: string,
  ref: Exclude<ResourceRef, { kind: 'schema' }>,
  run: RunOperation,
  budget: number,
): Promise<ResourceContent> {
  if (ref.kind === 'campaign') {
    const result = await run(CAMPAIGN, { campId: ref.campId });
    if (result.errors?.length) refusedRead(uri, result);
    const record = (result.data as { record?: unknown } | null)?.record;
    if (!record) throw new ResourceNotFoundError(uri);
    return jsonContent(uri, record, budget);
  }
  if (ref.kind === 'call') {
    const result = await run(CALL, { id: callLogGlobalId(ref.callId) });
    if (result.errors?.length) refusedRead(uri, result);
    const record = (result.data as { record?: { callId?: string } | null } | null)?.record;
    if (!record?.callId) throw new ResourceNotFoundError(uri);
    return jsonContent(uri, record, budget);
  }
  // The piece is measured as text_read's answer (its text JSON-escaped twice: at least twice what it weighs here),
  // within twice the room this content's own keys leave.
  const envelope = wireBytes({
    uri,
    mimeType: 'text/plain',
    text: '',
    _meta: {
      offset: MAX_OFFSET,
      nextOffset: MAX_OFFSET,
      total: MAX_OFFSET,
      nextUri: transcriptUri(ref.callId, MAX_OFFSET),
    },
  });
  const read = await readTextPiece('TRANSCRIPT', ref.callId, ref.offset, MAX_PIECE, run, 2 * (budget - envelope));
  if ('errors' in read) refusedRead(uri, read.errors);
  if ('notFound' in read) throw new ResourceNotFoundError(uri);
  const { text, offset, nextOffset, total } = read.piece;
  const more = nextOffset < total;
  return {
    uri,
    mimeType: 'text/plain',
    text,
    _meta: { offset, nextOffset, total, ...(more ? { nextUri: transcriptUri(ref.callId, nextOffset) } : {}) },
  };
}

/** Refuses a URI that names nothing here, saying what the resources are. */
export function unknownResource(uri: string): ProtocolError {
  const templates = RESOURCE_TEMPLATES.map((template) => template.uriTemplate).join(', ');
  return new ProtocolError(
    ProtocolErrorCode.InvalidParams,
    `Unknown resource: ${uri.slice(0, 200)}; the resources are ${SCHEMA_RESOURCE} and ${templates}`,
  );
}
