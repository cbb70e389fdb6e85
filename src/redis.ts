// Redis connections (REDIS_URL): pub/sub for live events and shared rate-limit counters across instances.
import { Redis } from 'ioredis';
import type { Logger } from './logger.js';

export class RedisUnavailableError extends Error {}

/**
 * A connection that is ready before it is returned: a subscription sent while ioredis is still handshaking would be
 * lost for good (ioredis re-subscribes only connections that were ready). Start-up fails when Redis does not answer.
 * Afterwards, commands wait while Redis is away (ioredis reconnects); errors are logged, never thrown at the process.
 */
export async function connectRedis(url: string, logger: Logger): Promise<Redis> {
  const client = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 2, enableOfflineQueue: true });
  client.on('error', (error: Error) => logger.warn({ err: error }, 'redis connection error'));
  try {
    await client.connect();
  } catch (error) {
    client.disconnect();
    const reason = error instanceof Error ? error.message : String(error);
    throw new RedisUnavailableError(`REDIS_URL is set, but Redis does not answer (${reason})`);
  }
  // Live events are published without waiting for Redis; a publish that fails is logged, not left unhandled.
  const publish = client.publish.bind(client) as (channel: string, message: string) => Promise<number>;
  (client as unknown as { publish: typeof publish }).publish = (channel, message) =>
    publish(channel, message).catch((error: unknown) => {
      logger.warn({ err: error }, 'could not publish a live event to Redis');
      return 0;
    });
  return client;
}
