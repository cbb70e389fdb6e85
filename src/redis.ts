// Redis connections (REDIS_URL): pub/sub for live events and shared rate-limit counters across instances.
import { Redis } from 'ioredis';
import type { Logger } from './logger.js';

export function connectRedis(url: string, logger: Logger): Redis {
  // Commands wait while Redis is away (reconnecting); errors are logged, never thrown at the process.
  const client = new Redis(url, { maxRetriesPerRequest: 2, enableOfflineQueue: true });
  client.on('error', (error: Error) => logger.warn({ err: error }, 'redis connection error'));
  return client;
}
