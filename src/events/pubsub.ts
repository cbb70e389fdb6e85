// Live campaign events for GraphQL subscriptions (docs/decisions.md §9): in-process by default; with REDIS_URL, through
// Redis pub/sub, so an event committed on one instance reaches subscribers connected to any other.
import { createRedisEventTarget } from '@graphql-yoga/redis-event-target';
import { createPubSub, type PubSub } from 'graphql-yoga';
import type { Redis } from 'ioredis';
import type { CampaignEvent } from '../domain/events.js';

type Channels = { 'campaign-events': [topic: string, event: CampaignEvent] };

export interface CampaignEventBus {
  publish(event: CampaignEvent): void;
  /** Events of one campaign of one account (campaign ids are unique per account only). */
  subscribe(accountId: string, campId: string): AsyncIterable<CampaignEvent>;
}

const topicOf = (accountId: string, campId: string) => JSON.stringify([accountId, campId]);

/** With Redis connections (one for commands, one given over to subscribing), events go through Redis pub/sub. */
export function createCampaignEventBus(redis: { publish: Redis; subscribe: Redis } | null): CampaignEventBus {
  const pubsub: PubSub<Channels> = redis
    ? createPubSub<Channels>({
        eventTarget: createRedisEventTarget({ publishClient: redis.publish, subscribeClient: redis.subscribe }),
      })
    : createPubSub<Channels>();
  return {
    publish: (event) => pubsub.publish('campaign-events', topicOf(event.accountId, event.campId), event),
    subscribe: (accountId, campId) => pubsub.subscribe('campaign-events', topicOf(accountId, campId)),
  };
}
