// The REST door as the HTTP room routes to it (src/http/doors.ts): under /api/v3, its interactive docs and OpenAPI
// description, then the router (a prepared GraphQL operation per legacy path). Its own rules at the door: a method
// no path serves is answered by the router (it names each path's methods, or says 404), and a request let in as a
// signed provider callback that turned out not to be one is counted against its address and the key it named.
import type { RequestAuth } from '../authentication.js';
import { callbackCounted, noteRoute } from '../core/request-context.js';
import type { Services } from '../services.js';
import type { DocsHandler } from './docs.js';
import { detailResponse } from './fastapi-errors.js';
import type { RestHandler } from './router.js';

/**
 * The API key a provider callback's path names (`/api/v3/<hook>/<apiKey>/<campId>`), as sent, cut to a bounded length:
 * what its failed callbacks are counted against, beside the address.
 */
export const callbackApiKeyOf = (pathname: string): string => (pathname.split('/')[4] ?? '').slice(0, 128);

export interface RestDoor {
  /** A method no door serves: the router's 405 naming the path's methods, or its 404 (nothing reads the body). */
  unknownMethod(request: Request, url: URL, clientAddress: string): Promise<Response>;
  /** `signedCallback`: let in uncounted as a provider callback with a signature (src/http/rate-limit.ts). */
  serve(
    request: Request,
    url: URL,
    clientAddress: string,
    auth: RequestAuth | null,
    counting: { signedCallback: boolean; limiting: boolean },
  ): Promise<Response>;
  /** An error nobody expected: logged with its stack, and FastAPI's 500 body. */
  unexpected(error: unknown, method: string): Response;
}

export function createRestDoor(router: RestHandler, docs: DocsHandler, services: Services): RestDoor {
  return {
    unknownMethod: (request, url, clientAddress) => router(request, url, clientAddress),
    async serve(request, url, clientAddress, auth, { signedCallback, limiting }) {
      if (request.method === 'GET') {
        const page = await docs(url.pathname);
        if (page) {
          noteRoute(url.pathname);
          return page;
        }
      }
      const answer = await router(request, url, clientAddress, auth ?? undefined);
      // Let through as a signed callback that was not one after all: its address and the key it named pay, not the
      // address alone, whose other tenants' callbacks would then be refused (src/graphql/schema/callback-budget.ts).
      if (limiting && signedCallback && !callbackCounted())
        await services.limits.failedCallback(clientAddress, callbackApiKeyOf(url.pathname));
      return answer;
    },
    unexpected(error, method) {
      services.logger.error({ err: error, method }, 'unexpected error in a REST call');
      return detailResponse(500, 'Internal Server Error');
    },
  };
}
