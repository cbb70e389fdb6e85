// The federation subgraph's door at /subgraph (docs/supergraph.md): GraphQL on the subgraph schema through the same
// pipeline as /graphql (src/http/graphql-door.ts, without the prepared lane), with two rules of its own for the
// federation gateway in front of it:
// - with SUBGRAPH_TOKEN set, only a request carrying it in X-Subgraph-Token is served (403 otherwise): /subgraph stays
//   the gateway's although it shares the listener with /graphql;
// - errors are answered as GraphQL over HTTP asks for `application/json` (its appendix A): 200 with the `errors`, also
//   when the database is down (SERVICE_UNAVAILABLE), the rate or work budget is spent (RATE_LIMITED) or something
//   failed unexpectedly. A gateway keeps the body of a 200, with its codes and `retryAfter`; Apollo Gateway replaces
//   the body of any other status with "503: Service Unavailable". A client that prefers
//   `application/graphql-response+json` (Hive Gateway) keeps the 4xx and 5xx, which that media type allows.
import { createHash, timingSafeEqual } from 'node:crypto';
import { noteErrorCode } from '../core/request-context.js';
import { Response } from '../core/fetch-api.js';
import { graphqlDoor, type GraphQLDoorParts } from './graphql-door.js';
import { refuse } from './refusal.js';
import type { Door, Way } from './way.js';

/** The header the federation gateway sends SUBGRAPH_TOKEN in. */
export const SUBGRAPH_TOKEN_HEADER = 'x-subgraph-token';

/** The statuses of a well-formed request's errors (the server's state, not the request's shape), with their code. */
const ANSWERED_200: Readonly<Record<number, string>> = {
  429: 'RATE_LIMITED',
  500: 'INTERNAL_SERVER_ERROR',
  503: 'SERVICE_UNAVAILABLE',
};

const JSON_MEDIA = 'application/json';
const GRAPHQL_RESPONSE_MEDIA = 'application/graphql-response+json';

/**
 * Which of the two GraphQL response media types an Accept header asks for, as yoga chooses (the first named wins; a
 * wildcard or no header means `application/json`); null when it names neither (an SSE or multipart request).
 */
export function graphqlMediaType(accept: string | null): typeof JSON_MEDIA | typeof GRAPHQL_RESPONSE_MEDIA | null {
  if (accept === null || accept.trim() === '') return JSON_MEDIA;
  for (const range of accept.split(',')) {
    const media = range.split(';')[0]!.trim().toLowerCase();
    if (media === GRAPHQL_RESPONSE_MEDIA) return GRAPHQL_RESPONSE_MEDIA;
    if (media === JSON_MEDIA || media === 'application/*' || media === '*/*') return JSON_MEDIA;
  }
  return null;
}

const digest = (text: string) => createHash('sha256').update(text).digest();

export function subgraphDoor(parts: Omit<GraphQLDoorParts, 'lane' | 'shadow' | 'name'>): Door {
  const door = graphqlDoor({ ...parts, lane: null, shadow: false, name: 'subgraph' });
  const token = parts.services.config.SUBGRAPH_TOKEN;
  // Compared as SHA-256 digests, in constant time: equal lengths whatever was sent, and nothing learnt from the time.
  const expected = token ? digest(token) : null;
  const fromTheGateway = (request: Request) => {
    if (!expected) return true;
    const given = request.headers.get(SUBGRAPH_TOKEN_HEADER);
    return given !== null && timingSafeEqual(digest(given), expected);
  };

  return {
    ...door,
    serve: (way) =>
      fromTheGateway(way.request)
        ? door.serve(way)
        : refuse(false, {
            status: 403,
            message: `This subgraph answers its federation gateway only: the ${SUBGRAPH_TOKEN_HEADER} header is missing or wrong`,
            code: 'FORBIDDEN',
          }),
    answered: asGraphQLOverHttp,
  };
}

/** A 429, 500 or 503 in GraphQL's JSON shape, answered 200 to a client that takes `application/json`. */
async function asGraphQLOverHttp(response: Response, way: Way): Promise<Response> {
  const code = ANSWERED_200[response.status];
  const type = response.headers.get('content-type') ?? '';
  if (!code || !(type.startsWith(JSON_MEDIA) || type.startsWith(GRAPHQL_RESPONSE_MEDIA))) return response;
  const wanted = graphqlMediaType(way.request.headers.get('accept'));
  if (wanted === GRAPHQL_RESPONSE_MEDIA) {
    // A refusal made before yoga says it in the media type asked for, keeping its status.
    if (type.startsWith(JSON_MEDIA)) response.headers.set('content-type', `${GRAPHQL_RESPONSE_MEDIA}; charset=utf-8`);
    return response;
  }
  if (wanted !== JSON_MEDIA) return response;
  // The access line and gateway_errors_total still say what it was (yoga's answers have noted their codes already).
  noteErrorCode(code);
  const headers = new Headers(response.headers);
  headers.delete('content-length');
  return new Response(await response.text(), { status: 200, headers });
}
