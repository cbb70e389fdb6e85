// The lifetime of live subscription streams (SSE on /graphql). A stream ends — yoga then sends `event: complete` and
// closes the response — when the access token it was opened with expires, when that token is revoked (API key
// rotated, password changed: at once on this instance, within REVOCATION_CHECK_MS on the others), and when the
// server shuts down, so that a draining process is not held open by clients that never hang up.

/** How often a stream checks that its token has not been revoked on another instance. */
export const REVOCATION_CHECK_MS = 10_000;

export interface StreamOwner {
  accountId: string;
  tokenVersion: number;
  /** Opened with a named access token: the stream lives while that token exists, whatever the token version. */
  accessTokenId?: string;
  /** When the token expires, ms since the epoch. */
  expiresAt?: number;
}

/** Never yields: bound to a token's lifetime (`bound`), it ends when the token does — a lifetime to wait on. */
export const FOREVER: AsyncIterable<never> = {
  [Symbol.asyncIterator]: () => ({ next: () => new Promise<IteratorResult<never>>(() => undefined) }),
};

/** Why a bound stream ended before its source did. */
export type StreamEnd = 'expired' | 'revoked' | 'shutdown';

export interface LiveStreams {
  /**
   * `source`, ending when its owner's token expires or is revoked, or at shutdown; `onEnd` is told why (just before
   * the stream ends), so that a live query can say it in a last message.
   */
  bound<T>(source: AsyncIterable<T>, owner: StreamOwner, onEnd?: (reason: StreamEnd) => void): AsyncIterable<T>;
  /** The account's login tokens were revoked here: their streams end now. */
  revoked(accountId: string): void;
  /** A named access token was revoked here: its streams end now. */
  accessTokenRevoked(tokenId: string): void;
  /** Shutdown: every stream ends, and streams opened from now on end at once. */
  closeAll(): void;
  readonly open: number;
}

export interface LiveStreamOptions {
  /** The account's current token version (null if it is gone). */
  currentTokenVersion(accountId: string): Promise<number | null>;
  /** Whether a named access token still exists (it has not been revoked). */
  accessTokenExists(tokenId: string): Promise<boolean>;
  recheckMs?: number;
}

type Stop = (reason: StreamEnd) => void;

const MAX_TIMEOUT_MS = 2 ** 31 - 1;

const DONE = { done: true, value: undefined } as const;

export function createLiveStreams(options: LiveStreamOptions): LiveStreams {
  const streams = new Map<Stop, StreamOwner>();
  let closed = false;
  const recheckMs = options.recheckMs ?? REVOCATION_CHECK_MS;

  const bound = <T>(
    source: AsyncIterable<T>,
    owner: StreamOwner,
    onEnd?: (reason: StreamEnd) => void,
  ): AsyncIterable<T> => ({
    [Symbol.asyncIterator]() {
      const iterator = source[Symbol.asyncIterator]();
      let resolveEnded: () => void = () => undefined;
      const ended = new Promise<IteratorResult<T>>((resolve) => {
        resolveEnded = () => resolve(DONE);
      });
      let endedFor: StreamEnd | null = null;
      const end: Stop = (reason) => {
        if (endedFor === null) {
          endedFor = reason;
          onEnd?.(reason);
        }
        resolveEnded();
      };
      const timers: NodeJS.Timeout[] = [];
      const finish = (reason?: StreamEnd) => {
        for (const timer of timers) clearTimeout(timer);
        streams.delete(end);
        if (reason) end(reason);
        else resolveEnded();
        return iterator.return?.() ?? Promise.resolve(DONE);
      };
      streams.set(end, owner);
      if (closed) void finish('shutdown');
      if (owner.expiresAt !== undefined) {
        // setTimeout takes at most 2^31-1 ms (about 24.8 days): a token living longer waits in steps.
        const expiresAt = owner.expiresAt;
        const waitForExpiry = () => {
          const left = expiresAt - Date.now();
          const timer =
            left > MAX_TIMEOUT_MS
              ? setTimeout(waitForExpiry, MAX_TIMEOUT_MS)
              : setTimeout(() => void finish('expired'), left);
          timer.unref();
          timers.push(timer);
        };
        waitForExpiry();
      }
      const { accessTokenId } = owner;
      const stillValid = accessTokenId
        ? () => options.accessTokenExists(accessTokenId)
        : () => options.currentTokenVersion(owner.accountId).then((version) => version === owner.tokenVersion);
      const recheck = setInterval(() => {
        stillValid().then(
          (valid) => {
            if (!valid) void finish('revoked');
          },
          () => undefined, // the database is unreachable: try again next time
        );
      }, recheckMs);
      timers.push(recheck);
      for (const timer of timers) timer.unref();
      return {
        next: async () => {
          const result = await Promise.race([iterator.next(), ended]);
          if (result.done) await finish();
          return result;
        },
        return: async () => {
          await finish();
          return DONE;
        },
        throw: async (error: unknown) => {
          await finish();
          throw error;
        },
      };
    },
  });

  return {
    bound,
    revoked(accountId) {
      for (const [stop, owner] of streams) if (owner.accountId === accountId && !owner.accessTokenId) stop('revoked');
    },
    accessTokenRevoked(tokenId) {
      for (const [stop, owner] of streams) if (owner.accessTokenId === tokenId) stop('revoked');
    },
    closeAll() {
      closed = true;
      for (const stop of streams.keys()) stop('shutdown');
    },
    get open() {
      return streams.size;
    },
  };
}
