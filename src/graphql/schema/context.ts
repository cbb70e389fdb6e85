// The per-request context every resolver sees: the app's services and who is calling.
import type { Authentication, AuthFailure } from '../../authentication.js';
import type { Account } from '../../domain/accounts.js';
import type { Services } from '../../services.js';

/**
 * How the caller is answered: `http`, yoga's own HTTP handling of /graphql (a stream if the request accepts one);
 * `websocket`, a graphql-transport-ws connection (always a stream); `once`, a door that runs a document in process and
 * answers one result (a REST route, an MCP tool), whatever its HTTP request accepts.
 */
export type Transport = 'http' | 'websocket' | 'once';

export interface Context extends Services {
  /** Set by whoever builds the context (src/graphql/server/yoga.ts); read by live queries (they need a stream). */
  transport: Transport;
  viewer: Account | null;
  authFailure: AuthFailure | null;
  /** Where the request comes from (docs/limits.md: TRUST_PROXY), for throttles keyed by client address. */
  clientAddress: string;
  /** When the caller's access token expires (ms since the epoch); live streams end then. */
  tokenExpiresAt?: number;
  /** The caller's named access token is read-only: mutations are refused (src/graphql/server/read-only-tokens.ts). */
  readOnly?: boolean;
  /** The id of the caller's named access token, when that is the credential (live streams end when it is revoked). */
  accessTokenId?: string;
  /**
   * Present when the caller was taken provisionally (src/authentication.ts): resolves null when that stands, else to the
   * caller as the database has it now (src/graphql/server/provisional-credentials.ts answers with that instead).
   */
  confirmCredential?: () => Promise<Authentication | null>;
  /**
   * The Authorization header a WebSocket connection signed in with (HTTP requests carry their own): a live query checks
   * it again before each re-execution (src/graphql/live/live-queries.ts). Never logged or answered.
   */
  credential?: string | null;
}
