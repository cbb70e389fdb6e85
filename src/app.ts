// Assembles the application on one database: migrations, services, the GraphQL server and the REST router,
// behind one fetch handler (the node:http listener in src/http/server.ts and the tests both call it).
import type { Plugin } from 'graphql-yoga';
import type { DestinationStream } from 'pino';
import type { Config } from './config.js';
import { type DatabaseHandle, openDatabase } from './db/database.js';
import { migrateToLatest } from './db/migrate.js';
import { onEventsCommitted } from './domain/events.js';
import { loadVoiceCatalogue } from './domain/voices.js';
import { createCampaignEventBus } from './events/pubsub.js';
import { type DeliveryWorkerOptions, startDeliveryWorker } from './events/worker.js';
import type { Services } from './graphql/context.js';
import { createGraphQLServer, type Yoga } from './graphql/yoga.js';
import { limitBody } from './http/body-limit.js';
import { HEALTH_PATHS, health } from './http/health.js';
import { loggablePath, requestIdFor, runWithRequestId } from './http/request-context.js';
import { rateLimitResponse } from './http/rate-limit.js';
import { createLogger } from './logger.js';
import { connectRedis } from './redis.js';
import { createRateLimits } from './security/rate-limits.js';
import { detailResponse } from './rest/fastapi-errors.js';
import { createDocs } from './rest/docs.js';
import { createRestRouter, REST_PREFIX } from './rest/router.js';
import { routes } from './rest/routes.js';
import { createSecretBox } from './security/secrets.js';
import { createTokenIssuer } from './security/tokens.js';

export interface App {
  fetch(request: Request): Promise<Response>;
  yoga: Yoga;
  database: DatabaseHandle;
  /** Set when shutdown begins: /readyz answers 503 so load balancers stop sending requests. */
  draining: boolean;
  close(): Promise<void>;
}

export interface AppOptions {
  /** Extra envelop plugins (tests use one to see which operations ran). */
  plugins?: Plugin[];
  onQuery?: (sql: string) => void;
  /** Where log lines go (stdout when unset); tests read them. */
  logStream?: DestinationStream;
  /** The webhook delivery worker: on unless `false`; tests may set its clock and polling interval. */
  worker?: false | Pick<DeliveryWorkerOptions, 'clock' | 'pollMs'>;
}

/** yoga answers a few refusals (415, 405) with an empty body; clients get a JSON error like everywhere else. */
async function withErrorBody(response: Response): Promise<Response> {
  if (response.status < 400 || response.headers.get('content-type')) return response;
  const message = response.statusText || `HTTP ${response.status}`;
  const body = JSON.stringify({ errors: [{ message, extensions: { code: 'BAD_REQUEST' } }] });
  const headers = new Headers(response.headers);
  headers.set('content-type', 'application/json');
  headers.delete('content-length');
  await response.body?.cancel();
  return new Response(body, { status: response.status, headers });
}

export async function createApp(config: Config, options: AppOptions = {}): Promise<App> {
  const database = openDatabase(config.DATABASE_URL, { onQuery: options.onQuery });
  await migrateToLatest(database.db, database.dialect);
  await loadVoiceCatalogue(database.db);
  const logger = createLogger(config.LOG_LEVEL, options.logStream);
  const redis = config.REDIS_URL
    ? {
        publish: await connectRedis(config.REDIS_URL, logger),
        subscribe: await connectRedis(config.REDIS_URL, logger),
      }
    : null;
  const services: Services = {
    db: database.db,
    config,
    tokens: createTokenIssuer(config.JWT_SECRET, config.TOKEN_TTL_SECONDS),
    secrets: createSecretBox(config.SECRETS_KEY),
    logger,
    events: createCampaignEventBus(redis),
    limits: createRateLimits(
      {
        requestsPerMinute: config.RATE_LIMIT_PER_MINUTE,
        loginMaxFailures: config.LOGIN_MAX_FAILURES,
        loginWindowSeconds: config.LOGIN_FAILURE_WINDOW_SECONDS,
      },
      redis?.publish ?? null,
    ),
  };
  const yoga = createGraphQLServer(services, options.plugins);
  const rest = createRestRouter(yoga, services, routes);
  const docs = createDocs(routes);
  const worker =
    options.worker === false
      ? null
      : startDeliveryWorker({
          db: database.db,
          dialect: database.dialect,
          secrets: services.secrets,
          logger,
          retrySchedule: config.WEBHOOK_RETRY_SCHEDULE,
          timeoutMs: config.WEBHOOK_TIMEOUT_SECONDS * 1000,
          allowPrivate: config.ALLOW_PRIVATE_WEBHOOK_TARGETS,
          ...options.worker,
        });
  // After a commit that raised events: live subscribers hear of them, and the worker looks for deliveries at once.
  const stopListening = onEventsCommitted(database.db, (events) => {
    for (const event of events) services.events.publish(event);
    worker?.wake();
  });

  const route = async (received: Request, url: URL): Promise<Response> => {
    if (HEALTH_PATHS.has(url.pathname) && (received.method === 'GET' || received.method === 'HEAD')) {
      return health(url.pathname, database, app.draining);
    }
    const isRest = url.pathname === REST_PREFIX || url.pathname.startsWith(`${REST_PREFIX}/`);
    const limited = await rateLimitResponse(services, received, isRest);
    if (limited) return limited;
    const request = await limitBody(received, isRest);
    if (request instanceof Response) return request;
    if (isRest) {
      if (request.method === 'GET') {
        const page = await docs(url.pathname);
        if (page) return page;
      }
      try {
        return await rest(request);
      } catch (error) {
        logger.error({ err: error, method: request.method }, 'unexpected error in a REST call');
        return detailResponse(500, 'Internal Server Error');
      }
    }
    if (url.pathname !== '/graphql') return detailResponse(404, 'Not Found');
    return withErrorBody(await yoga.fetch(request));
  };

  const app: App = {
    yoga,
    database,
    draining: false,
    fetch: (request) => {
      const requestId = requestIdFor(request);
      return runWithRequestId(requestId, async () => {
        const started = performance.now();
        const url = new URL(request.url);
        const response = await route(request, url);
        response.headers.set('x-request-id', requestId);
        logger.info(
          {
            method: request.method,
            path: loggablePath(url),
            status: response.status,
            ms: Math.round((performance.now() - started) * 10) / 10,
          },
          'request',
        );
        return response;
      });
    },
    async close() {
      stopListening();
      await worker?.stop();
      await Promise.all(
        [redis?.publish, redis?.subscribe].map((client) => client?.quit().catch(() => client.disconnect())),
      );
      await database.close();
    },
  };
  return app;
}
