// The GraphQL door at /graphql: a document seen before is answered on the prepared lane (src/graphql/lane/), any other
// request by yoga; a query sent by GET gets an ETag (src/http/etag.ts), and yoga's empty-bodied refusals a JSON body.
// With GRAPHQL_PREPARED_LANE=shadow every lane answer is also made by yoga and compared (src/http/lane-shadow.ts).
import { requestAuth } from '../authentication.js';
import { ablated } from '../core/ablation.js';
import { runAsShadow } from '../core/request-context.js';
import type { Answered, PreparedLane } from '../graphql/lane/prepared-lane.js';
import { markShadowCopy } from '../graphql/server/shadow-copies.js';
import { handBody, serveGraphQL, type Yoga } from '../graphql/server/yoga.js';
import type { Services } from '../services.js';
import { withETag } from './etag.js';
import { compareWithYoga } from './lane-shadow.js';
import { realRequest } from './light-request.js';
import { methodNotAllowed, withErrorBody } from './refusal.js';
import { authenticated, type Door } from './way.js';

export interface GraphQLDoorParts {
  services: Services;
  /** The yoga server behind the door (the subgraph's is made on its first request). */
  yoga: () => Yoga | Promise<Yoga>;
  /** The prepared lane in front of yoga, when it is on. */
  lane: PreparedLane | null;
  /** GRAPHQL_PREPARED_LANE=shadow: each lane answer is compared with yoga's. */
  shadow: boolean;
  /** `subgraph`: the federation subgraph at /subgraph, on the same pipeline (no lane). */
  name?: 'graphql' | 'subgraph';
}

export function graphqlDoor({ services, yoga: yogaOf, lane, shadow, name = 'graphql' }: GraphQLDoorParts): Door {
  /** A request the lane answered, answered again by yoga (shadow mode): its own credential check. */
  const throughYoga = async (request: Request, clientAddress: string, read: Answered): Promise<Response> => {
    const copy = new Request(request.url, {
      method: request.method,
      headers: request.headers,
      body: read.bytes && new Uint8Array(read.bytes),
    });
    markShadowCopy(copy);
    if (read.body !== undefined) handBody(copy, read.body);
    const auth = requestAuth(services, request.headers.get('authorization'), null);
    return withETag(copy, await withErrorBody(await serveGraphQL(await yogaOf(), copy, { clientAddress, auth })));
  };

  return {
    name,
    rest: false,
    limited: true,
    readsBody: true,
    audience: null,
    unknownMethod: () => methodNotAllowed(false, 'GET, POST, OPTIONS'),
    refusal: (response) => response,
    async serve(way) {
      const { request, clientAddress } = way;
      const facts = { clientAddress, auth: authenticated(way) };
      let toYoga = request;
      if (lane) {
        const laned = await lane.serve(request, facts);
        if ('answer' in laned) {
          const answer = await withETag(request, laned.answer);
          if (!shadow) return answer;
          return compareWithYoga(answer, () => runAsShadow(() => throughYoga(request, clientAddress, laned)));
        }
        // A request taken from node:http without the adapter (src/http/light-request.ts) becomes a real one for yoga.
        toYoga = await realRequest(laned.request);
      }
      const made = yogaOf();
      const yoga = made instanceof Promise ? await made : made;
      if (ablated.has('door-wrappers')) return await serveGraphQL(yoga, toYoga, facts);
      return withETag(toYoga, await withErrorBody(await serveGraphQL(yoga, toYoga, facts)));
    },
  };
}
