// Assembles the application on one database: migrations, services, the GraphQL server and the REST router,
// behind one fetch handler (the node:http listener in src/http/server.ts and the tests both call it).
import type { Plugin } from 'graphql-yoga';
import type { Config } from './config.js';
import { type DatabaseHandle, openDatabase } from './db/database.js';
import { migrateToLatest } from './db/migrate.js';
import { onEventsCommitted } from './domain/events.js';
import { loadVoiceCatalogue } from './domain/voices.js';
import { createCampaignEventBus } from './events/pubsub.js';
import { type DeliveryWorkerOptions, startDeliveryWorker } from './events/worker.js';
import type { Services } from './graphql/context.js';
import { createGraphQLServer, type Yoga } from './graphql/yoga.js';
import { createLogger } from './logger.js';
import { detailResponse } from './rest/fastapi-errors.js';
import { createRestRouter, REST_PREFIX } from './rest/router.js';
import { routes } from './rest/routes.js';
import { createSecretBox } from './security/secrets.js';
import { createTokenIssuer } from './security/tokens.js';

export interface App {
  fetch(request: Request): Promise<Response>;
  yoga: Yoga;
  database: DatabaseHandle;
  close(): Promise<void>;
}

export interface AppOptions {
  /** Extra envelop plugins (tests use one to see which operations ran). */
  plugins?: Plugin[];
  onQuery?: (sql: string) => void;
  /** The webhook delivery worker: on unless `false`; tests may set its clock and polling interval. */
  worker?: false | Pick<DeliveryWorkerOptions, 'clock' | 'pollMs'>;
}

export async function createApp(config: Config, options: AppOptions = {}): Promise<App> {
  const database = openDatabase(config.DATABASE_URL, { onQuery: options.onQuery });
  await migrateToLatest(database.db, database.dialect);
  await loadVoiceCatalogue(database.db);
  const logger = createLogger(config.LOG_LEVEL);
  const services: Services = {
    db: database.db,
    config,
    tokens: createTokenIssuer(config.JWT_SECRET, config.TOKEN_TTL_SECONDS),
    secrets: createSecretBox(config.SECRETS_KEY),
    logger,
    events: createCampaignEventBus(config.REDIS_URL, logger),
  };
  const yoga = createGraphQLServer(services, options.plugins);
  const rest = createRestRouter(yoga, services, routes);
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

  return {
    yoga,
    database,
    fetch: async (request) => {
      const { pathname } = new URL(request.url);
      if (pathname === REST_PREFIX || pathname.startsWith(`${REST_PREFIX}/`)) {
        try {
          return await rest(request);
        } catch (error) {
          services.logger.error(
            { err: error, method: request.method, path: pathname },
            'unexpected error in a REST call',
          );
          return detailResponse(500, 'Internal Server Error');
        }
      }
      return yoga.fetch(request);
    },
    async close() {
      stopListening();
      await worker?.stop();
      await services.events.close();
      await database.close();
    },
  };
}
