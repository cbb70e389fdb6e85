// The prepared lane (docs/graphql-internals.md "Prepared lane"; issue 34): a query whose document yoga has already parsed and
// validated (the armor limits included) is answered again the way the REST door answers its own prepared documents:
// yoga's enveloped pipeline (every envelop plugin: authentication and the provisional credential check, read-only
// tokens, input errors, the response cache, metrics, traces, error masking) around graphql-jit's compiled query, and
// yoga's own result processor for the body, status and headers — without yoga's HTTP pipeline (request parsing,
// parameter hooks, parse and validate lookups, result-processor negotiation, response hooks).
//
// Known documents live in an LRU keyed by document text and operation name, bounded in entries and in bytes. An entry is learnt from yoga's
// own verdict: a plugin notes each document yoga validated without errors for a whole query (no @defer or @stream,
// not a mutation or subscription) sent with no extensions. The schema does not change while the process runs, so a
// verdict never goes stale; the bound is the only eviction. Everything else stays yoga's: a document seen for the first
// time, persisted operations by hash, batches, other content types, streams, GraphiQL, WebSocket, multipart.
import { getCORSHeadersByRequestAndOptions } from '@whatwg-node/server';
import type { DocumentNode, ExecutionResult, GraphQLError } from 'graphql';
import { type Plugin, processRegularResult } from 'graphql-yoga';
import { byteBoundedCache, documentBytes } from '../../core/byte-bounded-caches.js';
import { ANONYMOUS_MAX_TOKENS, hasMoreTokensThan } from '../server/document-work.js';
import { isWholeQuery } from '../server/incremental-delivery.js';
import { internalSchema } from '../schema/schema.js';
import {
  getParams,
  isLanePost,
  type LaneParams,
  type PostBody,
  postParams,
  type RegularMediaType,
  regularMediaType,
} from './lane-request.js';
import { type DoorFacts, envelopedFor, maskUnexpected, noteErrorCodes, type Yoga } from '../server/yoga.js';
import type { CorsFor } from '../server/cors.js';

/** A request the lane leaves to yoga: the request to hand it (the same one, or one carrying the body already read). */
export interface Declined {
  request: Request;
}

/**
 * The lane's answer, with the JSON body it read (a POST's) or, for a body it refused unread, its bytes: a shadow answer
 * through yoga needs them again.
 */
export interface Answered {
  answer: Response;
  body?: unknown;
  bytes?: Uint8Array;
}

export interface PreparedLane {
  /** The lane's answer, or the request yoga is to answer instead. */
  serve(request: Request, facts: DoorFacts): Promise<Answered | Declined>;
  /** The yoga plugin that teaches the lane the documents yoga found valid (goes last among the plugins). */
  readonly plugin: Plugin;
  /** How many documents it holds, and how many requests it answered and left to yoga (tests, docs/graphql-internals.md). */
  stats(): { documents: number; served: number; declined: number };
}

/** Documents longer than this are not kept (yoga's parse cache holds them; the lane's bound is then by count). */
export const MAX_LANE_DOCUMENT_LENGTH = 16 * 1024;

/** The key of a document and the operation it runs (no name and an empty one are not the same request). */
const keyOf = (query: string, operationName: string | null | undefined) =>
  `${operationName == null ? '' : `=${operationName}`}\n${query}`;

/** Hands a body already read to yoga's request parser (src/graphql/server/yoga.ts: parsedBodies). */
export type HandBody = (request: Request, parsed: unknown) => void;

/** `yogaOf`: the yoga server the lane answers beside (made after the lane: its plugin is one of yoga's). */
export function createPreparedLane(
  yogaOf: () => Yoga,
  options: {
    maxDocuments: number;
    /** Bytes the documents it keeps may hold, by src/core/byte-bounded-caches.ts's estimate. */
    maxBytes: number;
    handBody: HandBody;
    /** The CORS rule yoga answers /graphql with (src/graphql/server/cors.ts). */
    cors: CorsFor;
    /**
     * Shadow mode (tests): a document not known yet is parsed and validated by the lane itself, through the same
     * enveloped parse and validate (and so the same limits), so that every request the lane could take is compared.
     */
    prepareUnknown?: boolean;
  },
): PreparedLane {
  const documents = byteBoundedCache<string, DocumentNode>({
    maxBytes: options.maxBytes,
    maxEntries: options.maxDocuments,
    sizeOf: (_document, key) => documentBytes(key),
  });
  let served = 0;
  let declined = 0;

  const learn = (query: string, operationName: string | null | undefined, document: DocumentNode) => {
    if (query.length > MAX_LANE_DOCUMENT_LENGTH || !isWholeQuery(document, operationName)) return;
    const key = keyOf(query, operationName);
    if (!documents.has(key)) documents.set(key, document);
  };

  /**
   * The document (now the most recently used), or the shadow mode's own verdict. A document a caller without a valid
   * token may not send (src/graphql/server/document-work.ts) is yoga's to refuse, even when another caller made it known.
   */
  const known = (params: LaneParams, request: Request, facts: DoorFacts): DocumentNode | undefined => {
    if (!facts.auth.claims?.accountId && hasMoreTokensThan(params.query, ANONYMOUS_MAX_TOKENS)) return undefined;
    const document = documents.get(keyOf(params.query, params.operationName));
    return document ?? (options.prepareUnknown ? prepare(params, request) : undefined);
  };

  /** prepareUnknown: the enveloped parse and validate's verdict, taken when it is valid. */
  const prepare = (params: LaneParams, request: Request): DocumentNode | undefined => {
    const enveloped = yogaOf().getEnveloped({ request, params });
    try {
      const document = enveloped.parse(params.query);
      if (enveloped.validate(enveloped.schema, document).length > 0) return undefined;
      learn(params.query, params.operationName, document);
      return documents.get(keyOf(params.query, params.operationName));
    } catch {
      return undefined;
    }
  };

  const decline = (request: Request): Declined => {
    declined += 1;
    return { request };
  };

  /** A POST whose body the lane has read: yoga gets what it would have read itself. */
  const handBack = (
    request: Request,
    body: Exclude<PostBody, { refused: GraphQLError; bytes: Uint8Array }>,
  ): Declined => {
    if ('text' in body || typeof body.parsed !== 'object' || body.parsed === null) {
      const text = 'text' in body ? body.text : JSON.stringify(body.parsed);
      return decline(new Request(request.url, { method: request.method, headers: request.headers, body: text }));
    }
    options.handBody(request, body.parsed);
    return decline(request);
  };

  /** A refusal of the body, answered as yoga answers an error its request parser throws. */
  const refusalAnswer = (request: Request, error: GraphQLError, mediaType: RegularMediaType): Response =>
    finish(request, { errors: [error] }, mediaType);

  /** A result as yoga answers it: its error codes noted, in the media type asked for, with yoga's CORS headers. */
  function finish(request: Request, result: ExecutionResult, mediaType: RegularMediaType): Response {
    noteErrorCodes(result);
    const response = processRegularResult(result, yogaOf().fetchAPI, mediaType);
    const corsOptions = options.cors(request);
    const cors = corsOptions && getCORSHeadersByRequestAndOptions(request, corsOptions);
    if (cors) for (const name in cors) response.headers.set(name, cors[name] as string);
    return response;
  }

  async function answer(
    request: Request,
    facts: DoorFacts,
    params: LaneParams,
    document: DocumentNode,
    mediaType: RegularMediaType,
  ): Promise<Response> {
    const yoga = yogaOf();
    const enveloped = envelopedFor(yoga, request, params, facts);
    let result: ExecutionResult;
    try {
      const contextValue = await enveloped.contextFactory();
      result = (await enveloped.execute({
        schema: enveloped.schema,
        document,
        contextValue,
        variableValues: params.variables,
        operationName: params.operationName,
      })) as ExecutionResult;
    } catch (error) {
      // As yoga answers an error thrown past its plugins: masked, in the same shape.
      result = { errors: [maskUnexpected(yoga, error)] };
    }
    return finish(request, result, mediaType);
  }

  return {
    async serve(request, facts) {
      const mediaType = regularMediaType(request.headers.get('accept'));
      if (!mediaType) return decline(request);
      if (request.method === 'GET') {
        const params = getParams(request);
        const document = params && known(params, request, facts);
        if (!params || !document) return decline(request);
        served += 1;
        return { answer: await answer(request, facts, params, document, mediaType) };
      }
      if (!isLanePost(request)) return decline(request);
      const body = await postParams(request);
      if ('refused' in body) return { answer: refusalAnswer(request, body.refused, mediaType), bytes: body.bytes };
      const document = 'params' in body && body.params ? known(body.params, request, facts) : undefined;
      if (!document || !('params' in body) || !body.params) return handBack(request, body);
      served += 1;
      return { answer: await answer(request, facts, body.params, document, mediaType), body: body.parsed };
    },
    plugin: {
      onValidate({ context, params }) {
        // Only a verdict on the public graph counts (the REST door's documents run on the internal one).
        if (params.schema === internalSchema) return undefined;
        const given = (context as { params?: { query?: unknown; operationName?: unknown; extensions?: unknown } })
          .params;
        if (!given || typeof given.query !== 'string' || given.extensions != null) return undefined;
        const { query } = given;
        const operationName = typeof given.operationName === 'string' ? given.operationName : null;
        return ({ result }) => {
          if (result.length === 0) learn(query, operationName, params.documentAST);
        };
      },
    },
    stats: () => ({ documents: documents.size, served, declined }),
  };
}
