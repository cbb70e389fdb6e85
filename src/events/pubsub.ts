// Live campaign events for GraphQL subscriptions (DESIGN.md §9): in-process by default; with REDIS_URL, through
// Redis pub/sub, so an event committed on one instance reaches subscribers connected to any other.
import { createRedisEventTarget } from '@graphql-yoga/redis-event-target';
import { createPubSub, type PubSub } from 'graphql-yoga';
import { Redis } from 'ioredis';
import type { CampaignEvent } from '../domain/events.js';
import type { Logger } from '../logger.js';

type Channels = { 'campaign-events': [topic: string, event: CampaignEvent] };

export interface CampaignEventBus {
  publish(event: CampaignEvent): void;
  /** Events of one campaign of one account (campaign ids are unique per account only). */
  subscribe(accountId: string, campId: string): AsyncIterable<CampaignEvent>;
  close(): Promise<void>;
}

const topicOf = (accountId: string, campId: string) => JSON.stringify([accountId, campId]);

export function createCampaignEventBus(redisUrl: string | undefined, logger: Logger): CampaignEventBus {
  let pubsub: PubSub<Channels>;
  let clients: Redis[] = [];
  if (redisUrl) {
    const connect = () => {
      const client = new Redis(redisUrl, { lazyConnect: false, maxRetriesPerRequest: null });
      client.on('error', (error: Error) => logger.warn({ err: error }, 'redis connection error'));
      return client;
    };
    clients = [connect(), connect()];
    const [publishClient, subscribeClient] = clients as [Redis, Redis];
    pubsub = createPubSub<Channels>({ eventTarget: createRedisEventTarget({ publishClient, subscribeClient }) });
  } else {
    pubsub = createPubSub<Channels>();
  }
  return {
    publish: (event) => pubsub.publish('campaign-events', topicOf(event.accountId, event.campId), event),
    subscribe: (accountId, campId) => pubsub.subscribe('campaign-events', topicOf(accountId, campId)),
    async close() {
      await Promise.all(clients.map((client) => client.quit().catch(() => client.disconnect())));
    },
  };
}
