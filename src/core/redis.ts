// Redis (REDIS_URL): live events across instances, shared rate-limit counters, the response cache's generation. Redis is
// optional at run time (docs/decisions.md §15): while it is away nothing waits on it — commands fail at once instead of
// queueing (and a command to a Redis that hangs gives up after REDIS_COMMAND_TIMEOUT_MS), each feature falls back
// (per-instance rate limits, live events of this instance only, no response cache) and the log says so once; when it
// is back, the log says so once and the features catch up (src/events/pubsub.ts replays what subscribers missed).
import { type Command, Redis } from 'ioredis';
import { maskUrl } from './config.js';
import type { Logger } from './logger.js';

export interface RedisLink {
  /** Commands: publishing, rate-limit counters, the response cache's generation. Never queues while Redis is away. */
  command: Redis;
  /** Given over to SUBSCRIBE (ioredis subscribes again after a reconnection). */
  subscriber: Redis;
  /** Both connections are ready: a command may be sent. */
  readonly available: boolean;
  /** Told of each change of `available` (after the log line). */
  onChange(listener: (available: boolean) => void): () => void;
  close(): Promise<void>;
}

export interface RedisOptions {
  /** The longest a command may wait for Redis's answer (REDIS_COMMAND_TIMEOUT_MS). */
  commandTimeoutMs: number;
}

/** Reconnection back-off: 100 ms, doubling, at most 2 s. */
const retryStrategy = (times: number) => Math.min(100 * 2 ** Math.min(times, 5), 2000);

function client(url: string, logger: Logger, options: RedisOptions, queue: boolean): Redis {
  const redis = new Redis(url, {
    lazyConnect: true,
    // A command sent while Redis is away fails at once (the subscriber keeps its queue: ioredis re-subscribes).
    enableOfflineQueue: queue,
    maxRetriesPerRequest: queue ? null : 0,
    // The command timeout is set once connected (connectRedis): at start-up, ioredis's ready check (INFO) on a busy
    // machine may take longer than a request should wait, and failing it would fail the start.
    connectTimeout: 2000,
    retryStrategy,
  });
  // Connection errors repeat on every reconnection attempt: the state change is logged once, below.
  redis.on('error', (error: Error) => logger.debug({ reason: error.message }, 'redis connection error'));
  return redis;
}

/**
 * Both connections, ready before they are returned when Redis answers at start (a subscription sent while ioredis is
 * still handshaking would be lost for good). When it does not, the start goes on without it (a degraded start: an
 * instance restarting during a Redis outage must come back): the log says so once, ioredis keeps reconnecting in the
 * background, `available` is false until both connections are ready, and then listeners are told, as after an outage.
 */
export async function connectRedis(url: string, logger: Logger, options: RedisOptions): Promise<RedisLink> {
  const command = client(url, logger, options, false);
  const subscriber = client(url, logger, options, true);
  let answered = true;
  try {
    await Promise.all([command.connect(), subscriber.connect()]);
  } catch (error) {
    answered = false;
    const reason = error instanceof Error ? error.message : String(error);
    logger.warn(
      { redis: maskUrl(url), reason },
      'Redis does not answer at start: starting without it (rate limits per instance, live events of this instance ' +
        'only, no response cache) and connecting in the background; /readyz names it as degraded until it answers',
    );
  }
  command.options.commandTimeout = options.commandTimeoutMs;
  const listeners = new Set<(available: boolean) => void>();
  let available = answered;
  let closing = false;
  /** Set when a command timed out on a connection that looks open (a Redis that hangs): cleared by a PING. */
  let hung = false;
  let probe: NodeJS.Timeout | null = null;
  const update = () => {
    const now = !hung && command.status === 'ready' && subscriber.status === 'ready';
    if (now === available || closing) return;
    available = now;
    if (now) logger.info('Redis available again: shared rate limits and live events across instances resume');
    else
      logger.warn(
        'Redis unavailable: rate limits are counted per instance, live events reach the subscribers of this ' +
          'instance only (the others catch up when Redis is back), the response cache is bypassed',
      );
    for (const listener of listeners) listener(now);
  };
  for (const redis of [command, subscriber]) {
    for (const event of ['ready', 'close', 'end', 'reconnecting'] as const) redis.on(event, update);
  }
  // A command that timed out means Redis hangs: no command is sent until a PING answers again (every 500 ms), so that
  // one request, not every request, waits REDIS_COMMAND_TIMEOUT_MS.
  const send = command.sendCommand.bind(command) as (cmd: Command, ...rest: unknown[]) => unknown;
  (command as unknown as { sendCommand: typeof send }).sendCommand = (cmd, ...rest) => {
    const sent = send(cmd, ...rest);
    cmd.promise.catch((error: unknown) => {
      if (!(error instanceof Error) || error.message !== 'Command timed out' || hung || closing) return;
      hung = true;
      update();
      probe = setInterval(() => {
        command.ping().then(
          () => {
            if (probe) clearInterval(probe);
            probe = null;
            hung = false;
            update();
          },
          () => undefined,
        );
      }, 500).unref();
    });
    return sent;
  };
  return {
    command,
    subscriber,
    get available() {
      return available && command.status === 'ready';
    },
    onChange(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    async close() {
      closing = true;
      if (probe) clearInterval(probe);
      await Promise.all([command, subscriber].map((redis) => redis.quit().catch(() => redis.disconnect())));
    },
  };
}
