// A GraphQL subscription over SSE, read incrementally from an in-process app (POST /graphql with
// `Accept: text/event-stream`, as graphql-yoga serves it). Collects the `next` payloads so a test can await
// "the next one within N ms" or check that none came; always `close()` it so no stream stays open.
import type { App } from '../../src/app.js';

export const CAMPAIGN_EVENTS = /* GraphQL */ `
  subscription ($c: String!) {
    campaignEvents(campId: $c) {
      id
      type
      campId
      createdAt
      data
    }
  }
`;

/** One `event: next` payload: a GraphQL execution result. */
export interface Payload {
  data?: any;
  errors?: any[];
}

export interface Received {
  payload: Payload;
  /** Date.now() when its frame was parsed. */
  at: number;
}

export interface Subscription {
  status: number;
  contentType: string | null;
  /** Every `next` payload so far, in order. */
  received: Received[];
  /** An `event: complete` frame came, or the stream ended. */
  readonly ended: boolean;
  /** The next payload not yet taken by `next()` (it may have arrived already); rejects after `timeoutMs`. */
  next(timeoutMs?: number): Promise<Received>;
  /** Waits `ms` and fails if any payload not yet taken by `next()` arrived meanwhile (or had already). */
  expectNothing(ms: number): Promise<void>;
  close(): Promise<void>;
}

const open: Set<Subscription> = new Set();

/** Closes every subscription a test left open (call it in afterEach). */
export async function closeAll(): Promise<void> {
  await Promise.all([...open].map((subscription) => subscription.close()));
}

/**
 * Starts the subscription and resolves once its stream is flowing: the response is in, yoga's first keep-alive has
 * been read (so the stream pulls from the subscription and its listener gets registered), and `settleMs` passed.
 */
export async function subscribe(
  app: App,
  campId: string,
  token?: string,
  settleMs = 50,
  query = CAMPAIGN_EVENTS,
  variables: Record<string, unknown> = { c: campId },
): Promise<Subscription> {
  const abort = new AbortController();
  const headers: Record<string, string> = { accept: 'text/event-stream', 'content-type': 'application/json' };
  if (token) headers.authorization = `Bearer ${token}`;
  const response = await app.fetch(
    new Request('http://127.0.0.1/graphql', {
      method: 'POST',
      headers,
      body: JSON.stringify({ query, variables }),
      signal: abort.signal,
    }),
  );

  const received: Received[] = [];
  let taken = 0;
  let ended = false;
  let wake: (() => void) | null = null;
  const notify = () => {
    wake?.();
    wake = null;
  };
  const changed = () => new Promise<void>((resolve) => (wake = resolve));

  const isStream = response.headers.get('content-type')?.startsWith('text/event-stream') ?? false;
  const reader = isStream ? response.body?.getReader() : undefined;
  const decoder = new TextDecoder();
  let buffer = '';
  let sawFirstChunk!: () => void;
  const firstChunk = new Promise<void>((resolve) => (sawFirstChunk = resolve));

  const parseFrames = () => {
    let end: number;
    while ((end = buffer.indexOf('\n\n')) >= 0) {
      const frame = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      let event = 'message';
      const data: string[] = [];
      for (const line of frame.split('\n')) {
        if (line.startsWith(':')) continue; // a keep-alive comment
        const colon = line.indexOf(':');
        const field = colon < 0 ? line : line.slice(0, colon);
        const value = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '');
        if (field === 'event') event = value;
        else if (field === 'data') data.push(value);
      }
      if (event === 'next') received.push({ payload: JSON.parse(data.join('\n')) as Payload, at: Date.now() });
      else if (event === 'complete') ended = true;
    }
    notify();
  };

  const pump = (async () => {
    if (!reader) {
      // Not an event stream (e.g. a plain JSON error response): keep its body as the one payload.
      const text = await response.text();
      received.push({ payload: JSON.parse(text) as Payload, at: Date.now() });
      ended = true;
      return;
    }
    try {
      for (;;) {
        const { done, value } = await reader.read();
        sawFirstChunk();
        if (done) break;
        buffer += decoder.decode(value, { stream: true });
        parseFrames();
      }
    } catch {
      // cancelled or aborted by close()
    }
  })().finally(() => {
    ended = true;
    sawFirstChunk();
    notify();
  });

  const subscription: Subscription = {
    status: response.status,
    contentType: response.headers.get('content-type'),
    received,
    get ended() {
      return ended;
    },
    async next(timeoutMs = 1000) {
      const deadline = Date.now() + timeoutMs;
      while (received.length <= taken) {
        const left = deadline - Date.now();
        if (ended || left <= 0) {
          throw new Error(
            `no subscription payload within ${timeoutMs} ms${ended ? ' (the stream ended)' : ''}; ` +
              `${received.length} received in all`,
          );
        }
        let timer: NodeJS.Timeout | undefined;
        await Promise.race([changed(), new Promise<void>((resolve) => (timer = setTimeout(resolve, left)))]);
        clearTimeout(timer);
      }
      return received[taken++]!;
    },
    async expectNothing(ms) {
      await new Promise((resolve) => setTimeout(resolve, ms));
      const extra = received.slice(taken);
      if (extra.length > 0) {
        throw new Error(`expected no subscription payload, got ${JSON.stringify(extra.map((r) => r.payload))}`);
      }
    },
    async close() {
      if (!open.delete(subscription)) return;
      abort.abort();
      await reader?.cancel().catch(() => {});
      await pump;
    },
  };
  open.add(subscription);

  await firstChunk;
  await new Promise((resolve) => setTimeout(resolve, settleMs));
  return subscription;
}
