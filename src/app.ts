// Assembles the application on one database: migrations, services, the GraphQL server, the REST router and the
// delivery worker, behind one fetch handler (src/http/doors.ts; the node:http listener and the tests both call it).
import type { Plugin } from 'graphql-yoga';
import type { DestinationStream } from 'pino';
import { MB } from './core/byte-bounded-caches.js';
import type { Config } from './core/config.js';
import type { IncomingMessage } from 'node:http';
import { createDatabaseAvailability, type DatabaseAvailability } from './db/availability.js';
import { type DatabaseHandle, databaseReachable, openDatabase } from './db/database.js';
import { migrateToLatest } from './db/migrate.js';
import { eventsSince, onEventsCommitted } from './domain/events.js';
import { findAccountById, tokenVersionOf } from './domain/accounts.js';
import { createAccountCache } from './domain/account-cache.js';
import { accessTokenExists, findAccessTokenCredential } from './domain/access-tokens.js';
import { loadVoiceCatalogue } from './domain/voices.js';
import { createCampaignEventBus } from './events/pubsub.js';
import { type DeliveryWorker, type DeliveryWorkerOptions, startDeliveryWorker } from './events/worker.js';
import type { Services } from './services.js';
import { inShadow, offLoop } from './core/request-context.js';
import { onFirstUse } from './core/first-use.js';
import { createLiveStreams } from './events/live-streams.js';
import { createGraphQLServer, documentCaches, handBody, type Yoga } from './graphql/server/yoga.js';
import { createLiveQueries, type LiveQueries } from './graphql/live/live-queries.js';
import { keysOfWrites } from './graphql/live/live-keys.js';
import { createPreparedLane, type PreparedLane } from './graphql/lane/prepared-lane.js';
import { createDoors, SUBGRAPH_PATH } from './http/doors.js';
import { schema, subgraphSchema } from './graphql/schema/schema.js';
import { health } from './http/health.js';
import { createLogger, type Logger } from './core/logger.js';
import { graphqlCors } from './graphql/server/cors.js';
import { connectRedis, type RedisLink } from './core/redis.js';
import { createRateLimits } from './security/rate-limits.js';
import { createWorkBudget } from './security/work-budget.js';
import { callbackRefusedEarly } from './domain/call-callbacks.js';
import { createDocs } from './rest/docs.js';
import { createRestRouter } from './rest/router.js';
import type { McpDoor } from './mcp/door.js';
import { createOAuthDoor, type OAuthDoor } from './oauth/door.js';
import { createMetrics, type Metrics } from './http/metrics.js';
import { clientAddressOf } from './http/client-address.js';
import { graphqlSpans, tracingWanted } from './core/tracing.js';
import { createGeneration, type Generation, responseCache } from './graphql/server/response-cache.js';
import { createWebSocketDoor, type WebSocketDoor } from './http/websockets.js';
import { countPendingDeliveries, oldestDueDeliverySeconds } from './domain/delivery-leases.js';
import { routes } from './rest/routes.js';
import { createSecretBox } from './security/secrets.js';
import { createTokenIssuer } from './security/tokens.js';

export interface App {
  /**
   * `client.address`: the socket's peer address (absent for in-process calls); `client.target`: the request target as
   * sent, before the URL normalised it (the node:http listener gives it; src/http/path-variants.ts).
   */
  fetch(request: Request, client?: { address?: string; target?: string }): Promise<Response>;
  yoga: Yoga;
  /** The prepared lane, when it is on (its stats: tests and docs/graphql-internals.md). */
  lane: PreparedLane | null;
  /** GraphQL over WebSocket (graphql-transport-ws) on /graphql: the HTTP server hands it upgrade requests. */
  websockets: WebSocketDoor;
  database: DatabaseHandle;
  /** The authorisation server for hosted MCP agents (docs/mcp-oauth.md), served by the node:http listener. */
  oauth: OAuthDoor;
  /** GraphQL requests reach `fetch` from node:http without the fetch-API adapter while the prepared lane is on. */
  lightGraphQL: boolean;
  /** Set when shutdown begins: /readyz answers 503 so load balancers stop sending requests. */
  draining: boolean;
  logger: Logger;
  /** Shutdown begins: `draining` is set and every live stream ends (each client gets `event: complete`). */
  drain(): void;
  close(): Promise<void>;
}

export interface AppOptions {
  /** Extra envelop plugins (tests use one to see which operations ran). */
  plugins?: Plugin[];
  onQuery?: (sql: string, parameters: readonly unknown[]) => void;
  /** Tests: SQLite's account changes as PostgreSQL's (unknown), see src/db/database.ts OpenOptions. */
  accountChanges?: 'tracked' | 'unknown';
  /** Where log lines go (stdout when unset); tests read them. */
  logStream?: DestinationStream;
  /** Spans for SQL queries and GraphQL phases (docs/observability.md "Traces"); by default when the OTEL_* variables ask for traces. */
  tracing?: boolean;
  /** The webhook delivery worker: on unless `false`; tests may set its clock and polling interval. */
  worker?: false | Pick<DeliveryWorkerOptions, 'clock' | 'pollMs'>;
}

/**
 * What the app is made of, in the order it is put together. Each part is made by a function of its own below, or by
 * the room that owns it.
 */
export async function createApp(config: Config, options: AppOptions = {}): Promise<App> {
  const logger = createLogger(config.LOG_LEVEL, options.logStream);
  const availability = createDatabaseAvailability(logger);
  const traced = options.tracing ?? tracingWanted(process.env);
  // What each committed write reaches: live queries (here and on other instances) and the response cache.
  const writes: CommittedWrites = { liveQueries: null, publishKeys: null, generation: null };
  const database = openAppDatabase(config, options, { availability, traced, writes });
  await migrate(database, logger);
  await loadVoiceCatalogue(database.db);
  const redis = config.REDIS_URL
    ? await connectRedis(config.REDIS_URL, logger, { commandTimeoutMs: config.REDIS_COMMAND_TIMEOUT_MS })
    : null;
  const services = createServices(config, database, { logger, availability, redis });
  if (config.RESPONSE_CACHE) writes.generation = createGeneration(redis);
  await services.events.start();
  const metrics = createMetrics(config, {
    pendingDeliveries: () => countPendingDeliveries(database.db),
    openStreams: () => services.streams.open,
    openWebSockets: () => websockets.open,
    openLiveQueries: () => liveQueries?.open ?? 0,
    oldestDueDelivery: () => oldestDueDeliverySeconds(database.db),
    pool: () => database.pool?.() ?? null,
    redisConnected: () => (redis ? redis.available : null),
    draining: () => app.draining,
    databaseAnswers: () => databaseReachable(database.db),
  });
  const liveQueries = config.LIVE_QUERIES ? createAppLiveQueries(config, services, metrics, writes) : null;
  const lane = createAppLane(config, () => yoga);
  // One set of parse caches for both GraphQL servers: one GRAPHQL_DOCUMENT_CACHE_MB in all (docs/limits.md "Memory").
  const parseCaches = documentCaches(services);
  const yoga = createGraphQLServer(
    services,
    graphqlPlugins(config, { metrics, traced, generation: writes.generation, options, lane, liveQueries }),
    { schema, endpoint: '/graphql', documentCaches: parseCaches },
  );
  // The federation subgraph (/subgraph): the same pipeline on the subgraph schema, without the lane or live queries.
  // Made on its first request (issue 55): an instance no federation gateway calls holds no third schema. Its making
  // is no one's work: the requests that wait for it are off the loop meanwhile (not charged to their work budget).
  let subgraphServer: Yoga | undefined;
  let makingSubgraph: Promise<Yoga> | undefined;
  const makeSubgraph = () =>
    (subgraphServer = createGraphQLServer(services, [...(traced ? [graphqlSpans] : []), ...(options.plugins ?? [])], {
      schema: subgraphSchema(),
      endpoint: SUBGRAPH_PATH,
      documentCaches: parseCaches,
    }));
  const subgraph = () => subgraphServer ?? offLoop((makingSubgraph ??= Promise.resolve().then(makeSubgraph)));
  const rest = createRestRouter(yoga, services, routes);
  // Loaded on the first /mcp request (issue 55): the MCP SDK and the tools' schemas are megabytes most instances
  // never use. Loading is no one's work: the requests that wait for it are off the loop meanwhile.
  const mcpDoor = onFirstUse(() => import('./mcp/door.js').then(({ createMcpDoor }) => createMcpDoor(yoga, services)));
  const mcp: McpDoor = async (request, clientAddress, auth) => (await offLoop(mcpDoor()))(request, clientAddress, auth);

  const websockets = createWebSocketDoor(yoga, services);
  const worker = options.worker === false ? null : startAppWorker(config, services, metrics, options.worker);
  // After a commit that raised events: live subscribers hear of them, and the worker looks for deliveries at once.
  const stopListening = onEventsCommitted(database.db, (events) => {
    for (const event of events) services.events.publish(event);
    worker?.wake();
  });
  const doors = createDoors({
    services,
    tracing: traced,
    health: (pathname) => health(pathname, database, app.draining, redis && !redis.available ? ['redis'] : []),
    docs: createDocs(routes),
    rest,
    yoga,
    lane,
    shadow: config.GRAPHQL_PREPARED_LANE === 'shadow',
    mcp,
    metrics,
    subgraph,
  });
  const app: App = {
    yoga,
    lane,
    websockets,
    database,
    oauth: createOAuthDoor(services, oauthClientAddress(config)),
    draining: false,
    lightGraphQL: lane !== null,
    logger,
    drain() {
      app.draining = true;
      void websockets.closeAll();
      services.streams.closeAll();
    },
    fetch: (request, client) => doors(request, client?.address, client?.target),
    async close() {
      await websockets.closeAll();
      stopListening();
      await worker?.stop();
      await redis?.close();
      await database.close();
    },
  };
  return app;
}

/** What a committed write reaches once the app has it (migrations run before any of them exists). */
interface CommittedWrites {
  liveQueries: LiveQueries | null;
  /** Tells the other instances which live-query keys this instance's writes touched. */
  publishKeys: ((keys: readonly string[]) => void) | null;
  /** The response cache's generation, once Redis (if any) is connected. */
  generation: Generation | null;
}

/** The database, telling every committed write to live queries and the response cache. */
function openAppDatabase(
  config: Config,
  options: AppOptions,
  { availability, traced, writes }: { availability: DatabaseAvailability; traced: boolean; writes: CommittedWrites },
): DatabaseHandle {
  return openDatabase(config.DATABASE_URL, {
    onCommittedWrite: (written) => {
      if (writes.liveQueries) {
        const keys = [...keysOfWrites(written)];
        writes.liveQueries.invalidate(keys);
        writes.publishKeys?.(keys);
      }
      return writes.generation?.bump();
    },
    traceQueries: traced,
    // A shadow answer's statements (GRAPHQL_PREPARED_LANE=shadow) are not the request's: tests count the request's.
    onQuery: options.onQuery && ((sql, parameters) => inShadow() || options.onQuery?.(sql, parameters)),
    accountChanges: options.accountChanges,
    onAnswer: (sql, startedAt) => availability.answered(sql, startedAt),
    timeoutMs: config.DATABASE_TIMEOUT_SECONDS * 1000,
  });
}

/** Applies the pending migrations, one log line each (before the banner: src/main.ts). */
async function migrate(database: DatabaseHandle, logger: Logger): Promise<void> {
  for (const migration of await migrateToLatest(database.db, database.dialect)) {
    logger.info({ migration }, 'migration applied');
  }
}

/** `Services`: what the app is made of, as every door sees it (src/services.ts). */
function createServices(
  config: Config,
  database: DatabaseHandle,
  { logger, availability, redis }: { logger: Logger; availability: DatabaseAvailability; redis: RedisLink | null },
): Services {
  return {
    db: database.db,
    config,
    tokens: createTokenIssuer(config.JWT_SECRET, config.TOKEN_TTL_SECONDS),
    secrets: createSecretBox(config.SECRETS_KEY),
    logger,
    availability,
    accounts: createAccountCache((id) => findAccountById(database.db, id), database.accountChanges),
    accessTokens: createAccountCache((id) => findAccessTokenCredential(database.db, id), database.accountChanges),
    streams: createLiveStreams({
      currentTokenVersion: (accountId) => tokenVersionOf(database.db, accountId),
      accessTokenExists: (tokenId) => accessTokenExists(database.db, tokenId),
    }),
    events: createCampaignEventBus(
      redis,
      (accountId, campId, since, afterId) => eventsSince(database.db, accountId, campId, since, afterId),
      logger,
    ),
    limits: createRateLimits(
      {
        requestsPerMinute: config.RATE_LIMIT_PER_MINUTE,
        anonymousPerMinute: config.ANONYMOUS_RATE_LIMIT_PER_MINUTE,
        callbacksPerMinute: config.CALLBACK_RATE_LIMIT_PER_MINUTE,
        largeBodyMiBPerMinute: config.LARGE_BODY_MIB_PER_MINUTE,
        oauthClientPerMinute: config.OAUTH_CLIENT_REQUESTS_PER_MINUTE,
        loginMaxFailures: config.LOGIN_MAX_FAILURES,
        loginWindowSeconds: config.LOGIN_FAILURE_WINDOW_SECONDS,
        refusalDelayMs: config.REFUSAL_DELAY_MS,
      },
      redis,
    ),
    work: createWorkBudget(
      {
        accountMsPerMinute: config.WORK_BUDGET_MS_PER_MINUTE,
        addressMsPerMinute: config.ANONYMOUS_WORK_BUDGET_MS_PER_MINUTE,
        inFlightPerAccount: config.REQUESTS_IN_FLIGHT_PER_ACCOUNT,
        inFlightPerAddress: config.REQUESTS_IN_FLIGHT_PER_ADDRESS,
        queuedPerTenant: config.REQUESTS_QUEUED_PER_TENANT,
      },
      redis,
    ),
    callbackRefusedEarly: (apiKey, signature) => callbackRefusedEarly(database.db, apiKey, signature),
  };
}

/** Live queries, kept current by this instance's writes and, through the event bus, by the other instances'. */
function createAppLiveQueries(
  config: Config,
  services: Services,
  metrics: Metrics,
  writes: CommittedWrites,
): LiveQueries {
  const live = createLiveQueries(services, {
    perAccount: config.LIVE_QUERIES_PER_ACCOUNT,
    throttleMs: config.LIVE_QUERY_THROTTLE_MS,
    share: config.LIVE_QUERY_SHARE_PERCENT / 100,
    onExecution: (seconds, first) => metrics.liveQueryExecution(seconds, first),
    onRefused: (reason) => metrics.liveQueryRefused(reason),
  });
  services.events.onInvalidation((keys) => (keys === 'all' ? live.invalidateAll() : live.invalidate(keys)));
  writes.publishKeys = (keys) => services.events.publishInvalidation(keys);
  writes.liveQueries = live;
  return live;
}

/**
 * The prepared lane (src/graphql/lane/prepared-lane.ts): off under PERSISTED_OPERATIONS=only, where only yoga's
 * persisted-operation plugins decide what runs.
 */
function createAppLane(config: Config, yoga: () => Yoga): PreparedLane | null {
  if (config.GRAPHQL_PREPARED_LANE === 'off' || config.PERSISTED_OPERATIONS === 'only') return null;
  return createPreparedLane(yoga, {
    maxDocuments: config.GRAPHQL_PREPARED_DOCUMENTS,
    maxBytes: config.GRAPHQL_DOCUMENT_CACHE_MB * MB,
    handBody,
    cors: graphqlCors(config.CORS_ALLOWED_ORIGINS, true),
    prepareUnknown: config.GRAPHQL_PREPARED_LANE === 'shadow',
  });
}

/** The envelop plugins the app adds to yoga's own (src/graphql/server/yoga.ts), in order. */
function graphqlPlugins(
  config: Config,
  parts: {
    metrics: Metrics;
    traced: boolean;
    generation: Generation | null;
    options: AppOptions;
    lane: PreparedLane | null;
    liveQueries: LiveQueries | null;
  },
): Plugin[] {
  const { metrics, traced, generation, options, lane, liveQueries } = parts;
  return [
    ...(config.METRICS ? [metrics.yogaPlugin()] : []),
    ...(traced ? [graphqlSpans] : []),
    ...(generation
      ? [
          responseCache({
            generation,
            maxEntries: config.RESPONSE_CACHE_MAX_ENTRIES,
            maxBytes: config.RESPONSE_CACHE_MAX_MB * MB,
            ttlSeconds: config.RESPONSE_CACHE_TTL_SECONDS,
          }),
        ]
      : []),
    ...(options.plugins ?? []),
    ...(lane ? [lane.plugin] : []),
    ...(liveQueries?.plugins ?? []),
  ];
}

/** The webhook delivery worker of this instance (src/events/worker.ts). */
function startAppWorker(
  config: Config,
  services: Services,
  metrics: Metrics,
  overrides: AppOptions['worker'],
): DeliveryWorker {
  return startDeliveryWorker({
    db: services.db,
    secrets: services.secrets,
    logger: services.logger,
    retrySchedule: config.WEBHOOK_RETRY_SCHEDULE,
    timeoutMs: config.WEBHOOK_TIMEOUT_SECONDS * 1000,
    allowPrivate: config.ALLOW_PRIVATE_WEBHOOK_TARGETS,
    availability: services.availability,
    onAttempt: (outcome, lagSeconds) => metrics.deliveryAttempt(outcome, lagSeconds),
    work: services.work,
    ...(overrides || {}),
  });
}

/** The client address of an OAuth request, which node:http hands over without a fetch Request. */
function oauthClientAddress(config: Config) {
  return (req: IncomingMessage): string => {
    const forwarded = req.headers['x-forwarded-for'];
    const headers = typeof forwarded === 'string' ? { 'x-forwarded-for': forwarded } : undefined;
    return clientAddressOf(
      new Request('http://oauth.invalid/', { headers }),
      req.socket.remoteAddress,
      config.TRUST_PROXY,
    );
  };
}
