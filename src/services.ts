// What the app is made of, as every door and the request context see it (built once by src/app.ts).
import type { Kysely } from 'kysely';
import type { Config } from './core/config.js';
import type { Logger } from './core/logger.js';
import type { DatabaseAvailability } from './db/availability.js';
import type { Database } from './db/types.js';
import type { AccountCache } from './domain/account-cache.js';
import type { AccessTokenCredential } from './domain/access-tokens.js';
import type { LiveStreams } from './events/live-streams.js';
import type { CampaignEventBus } from './events/pubsub.js';
import type { RateLimits } from './security/rate-limits.js';
import type { SecretBox } from './security/secrets.js';
import type { TokenIssuer } from './security/tokens.js';
import type { WorkBudget } from './security/work-budget.js';

export interface Services {
  db: Kysely<Database>;
  config: Config;
  tokens: TokenIssuer;
  secrets: SecretBox;
  logger: Logger;
  /** Live campaign events for subscriptions. */
  events: CampaignEventBus;
  limits: RateLimits;
  /** Each tenant's share of the server's time and its requests at once (src/security/work-budget.ts). */
  work: WorkBudget;
  /** Live subscription streams, ended on token expiry or revocation and at shutdown. */
  streams: LiveStreams;
  /** Whether the database answers (503s while it does not). */
  availability: DatabaseAvailability;
  /** Accounts by id, read once per change (src/domain/account-cache.ts). */
  accounts: AccountCache;
  /** Named access tokens with their accounts, by token id, under the same rules. */
  accessTokens: AccountCache<AccessTokenCredential>;
  /**
   * What a provider's call-status callback is refused for before its body is read — an unknown API key (one indexed
   * lookup), no signature — or null (src/domain/call-callbacks.ts; the REST door asks it, src/rest/routes/call-logs.ts).
   */
  callbackRefusedEarly(apiKey: string, signature: string | null): Promise<string | null>;
}
