// `@live` queries (docs/live-queries.md; docs/graphql-internals.md "Live queries"), with The Guild's stack: @envelop/live-query
// and @n1ru4l's in-memory live query store run the query again whenever a key of what it read is invalidated
// (src/graphql/live/live-keys.ts), and send each new result — or, when the client asks, a JSON patch from the last one.
//
// Around the store, the gateway's own rules:
//   - a live query needs a stream (SSE, multipart or WebSocket) and a signed-in caller; at most
//     LIVE_QUERIES_PER_ACCOUNT open per account on this instance;
//   - at most one re-execution per LIVE_QUERY_THROTTLE_MS (or the longer `@live(throttle:)`), bursts coalesced into
//     the one that ends the window (the store's own throttle is off: its timer may fire a millisecond before its
//     window ends and then drop the run); a slow reader gets the latest result, not a queue of stale ones;
//   - a write that lands while a run is under way, after the run read what it changed and before the store has
//     tracked the run's keys, is not lost: a run that ends finds the keys invalidated since it began among its own
//     and runs again;
//   - every re-execution authenticates the caller again, as a new request would (src/authentication.ts), with a fresh
//     context (fresh dataloaders); a caller that no longer checks out gets a final UNAUTHENTICATED result and the
//     stream ends. The stream also ends, with a final message, when the token expires or is revoked (at once on this
//     instance: services.streams) and when the server shuts down.
import { AsyncResource } from 'node:async_hooks';
import { useLiveQuery } from '@envelop/live-query';
import { getLiveDirectiveArgumentValues, getLiveDirectiveNode } from '@n1ru4l/graphql-live-query';
import { applyLiveQueryJSONPatchGenerator } from '@n1ru4l/graphql-live-query-patch-json-patch';
import { InMemoryLiveQueryStore } from '@n1ru4l/in-memory-live-query-store';
import { Repeater, SlidingBuffer } from '@repeaterjs/repeater';
import {
  type DirectiveNode,
  type DocumentNode,
  type ExecutionArgs,
  type ExecutionResult,
  getOperationAST,
  getVariableValues,
  GraphQLError,
  type GraphQLSchema,
  Kind,
  OperationTypeNode,
} from 'graphql';
import { isAsyncIterable, type Plugin } from 'graphql-yoga';
import { AUTH_FAILURE_MESSAGES, type Authentication, authenticateRequest } from '../../authentication.js';
import { FOREVER, type StreamEnd } from '../../events/live-streams.js';
import type { Services } from '../../services.js';
import type { Context } from '../schema/context.js';
import { ALL, type LiveContext, type LiveKeyCollector, withLiveKeys } from './live-keys.js';
import { runAtWork } from '../../core/request-context.js';
import { yieldToLoop } from '../../core/event-loop.js';

/** The longest throttle a client may ask for with `@live(throttle:)`, in ms. */
export const MAX_THROTTLE_MS = 60_000;

/** The request extension that asks for JSON patches (RFC 6902) after the first result: `{"livePatch": "json-patch"}`. */
export const PATCH_EXTENSION = 'livePatch';

export interface LiveQueryOptions {
  perAccount: number;
  throttleMs: number;
  /** The share of the time (0–1] an account's re-executions may take on average; past it they wait. */
  share: number;
  /** Each execution of a live query (the first and every re-execution), for /metrics. */
  onExecution?(seconds: number, first: boolean): void;
  /** A live query refused: too many open, or no stream to send it on. */
  onRefused?(reason: 'limit' | 'transport'): void;
}

export interface LiveQueries {
  /** In this order among yoga's plugins, after graphql-jit (which leaves live queries alone). */
  plugins: Plugin[];
  /** The live queries that read any of `keys` run again (each at most once per throttle window). */
  invalidate(keys: Iterable<string>): void;
  /** Every live query runs again (the keys of writes on other instances may have been missed). */
  invalidateAll(): void;
  /** Live queries open on this instance. */
  readonly open: number;
}

type ExecuteFn = (args: ExecutionArgs) => unknown;

/** What a live query's runs share: who asked, how to check them again, and how the stream must end. */
interface LiveRun {
  context: Context & { request?: Request };
  authorization: string | null;
  /** A key only this live query gives: invalidating it runs this one again. */
  key: string;
  throttleMs: number;
  runs: number;
  /** performance.now() when the last run began. */
  startedAt: number;
  /** Runs asked for so far: a run that waited for its window runs only if no later one was asked for meanwhile. */
  asked: number;
  /** The end of the current window, while runs wait for it: one timer per live query, whatever the writes. */
  window: Promise<void> | null;
  /** Its place in the lane, while it waits there. */
  turn: Turn | null;
  /** Set when a re-execution found the caller gone: the stream sends this result last. */
  ended: ExecutionResult | null;
  stopped: boolean;
}

/** A live query's place in the lane: `granted` when its turn comes, with the way out; `claimed` by the run that takes it. */
interface Turn {
  granted: Promise<() => void>;
  claimed: boolean;
}

/**
 * A run that sends nothing: a later one overtook it, or the stream has ended. Thrown: the store drops a run that
 * rejects (it sends only the results of runs that resolve, and of those only the latest run's).
 */
class Superseded extends Error {}

/** How many keys' last invalidation is remembered (a forgotten key counts as invalidated). */
const REMEMBERED_KEYS = 10_000;
/** An account may run ahead of its share of the time by this much (a burst) before its live queries wait. */
const BUDGET_BURST_MS = 1000;
/** How far ahead of now an account's debt of time may run (see charge). */
const MAX_DEBT_MS = 10_000;
/** A re-execution that failed (the database away, say) is tried again this much later. */
const RETRY_MS = 1000;
/** A live query's stream that nobody starts reading within this long is given up, and its slot given back. */
const UNREAD_MS = 10_000;

/** Runs `work` outside any request's async context (request ids, traces, credential checks are not the writer's). */
const outsideRequests = AsyncResource.bind((work: () => void) => work());

const delay = (ms: number) =>
  new Promise<void>((resolve) => {
    setTimeout(resolve, ms).unref();
  });

const FINAL_MESSAGES: Record<StreamEnd | 'credential', string> = {
  expired: 'The access token expired: the live query has ended.',
  revoked: 'The access token was revoked: the live query has ended.',
  credential: 'The access token no longer checks out (revoked, or the password changed): the live query has ended.',
  shutdown: 'The server is shutting down: the live query has ended; open it again.',
};

const ended = (reason: StreamEnd | 'credential'): ExecutionResult => ({
  errors: [
    new GraphQLError(FINAL_MESSAGES[reason], {
      extensions: { code: reason === 'shutdown' ? 'SERVICE_UNAVAILABLE' : 'UNAUTHENTICATED' },
    }),
  ],
});

/**
 * Whether the caller can take a stream: a WebSocket always; yoga's HTTP over SSE or multipart when the request accepts
 * one; a door that answers once (a REST route, an MCP tool) never, whatever its own HTTP request accepts.
 */
function streams(context: Pick<Context, 'transport'> & { request?: Request }): boolean {
  if (context.transport === 'websocket') return true;
  if (context.transport === 'once' || !context.request) return false;
  const accept = context.request.headers.get('accept') ?? '';
  return accept.includes('text/event-stream') || accept.includes('multipart/mixed');
}

/** The store's context of one run holds the query's own context under a symbol of its own; found once. */
let originalContextKey: symbol | undefined;
function originalContextOf(liveContext: object): symbol {
  originalContextKey ??= Object.getOwnPropertySymbols(liveContext).find(
    (symbol) => symbol.description === 'originalContext',
  );
  if (!originalContextKey) throw new Error('@n1ru4l/in-memory-live-query-store: its run context has changed shape');
  return originalContextKey;
}

const wantsPatches = (context: Context & { params?: { extensions?: Record<string, unknown> } }) =>
  context.params?.extensions?.[PATCH_EXTENSION] === 'json-patch';

export function createLiveQueries(services: Services, options: LiveQueryOptions): LiveQueries {
  const store = new InMemoryLiveQueryStore({
    // Keys are whole already (global ids, owner/Type): the store's `Type:id` would prefix them again.
    buildResourceIdentifier: ({ id }) => id,
    // The throttle is runOnce's (see above).
    validateThrottleValue: () => null,
  });
  /**
   * When each key was last invalidated (a number that counts invalidations), for the most recent REMEMBERED_KEYS keys:
   * a run that ends checks what it read against the invalidations since it began. A key forgotten since then counts as
   * invalidated (`forgotten` is the newest number among the forgotten).
   */
  const lastInvalidated = new Map<string, number>();
  let sequence = 0;
  let forgotten = 0;
  let lastKey = 0;
  const noteInvalidation = (keys: readonly string[]) => {
    sequence += 1;
    for (const key of keys) {
      lastInvalidated.delete(key);
      lastInvalidated.set(key, sequence);
    }
    while (lastInvalidated.size > REMEMBERED_KEYS) {
      const [oldest, at] = lastInvalidated.entries().next().value as [string, number];
      lastInvalidated.delete(oldest);
      forgotten = Math.max(forgotten, at);
    }
  };
  /** Whether a key of `read` was invalidated after invalidation number `since`. */
  const invalidatedSince = (since: number, read: ReadonlySet<string>) => {
    if (since === sequence) return false;
    if (forgotten > since) return true;
    for (const key of read) if ((lastInvalidated.get(key) ?? 0) > since) return true;
    return false;
  };
  /** Each account's share of the time: when its live queries may run again without going over LIVE_QUERY_SHARE. */
  const budgets = new Map<string, { freeAt: number }>();
  // And its work budget, which its requests share (src/security/work-budget.ts): spent, its re-executions wait.
  const budgetWait = (accountId: string) => {
    const budget = budgets.get(accountId);
    const share = budget ? Math.max(0, budget.freeAt - BUDGET_BURST_MS - performance.now()) : 0;
    return Math.max(share, services.work.wait(`account:${accountId}`));
  };
  /** `ms`: the run's wall time, for the live queries' own share; `cpuMs`: its share of the CPU, for the work budget. */
  const charge = (accountId: string, ms: number, cpuMs: number) => {
    const now = performance.now();
    const budget = budgets.get(accountId) ?? { freeAt: now };
    // A debt is never more than MAX_DEBT_MS ahead: one slow run (the database slow for everyone) does not freeze an
    // account's live queries for long.
    budget.freeAt = Math.min(Math.max(budget.freeAt, now) + ms / options.share, now + MAX_DEBT_MS);
    budgets.set(accountId, budget);
    services.work.charge(`account:${accountId}`, cpuMs);
  };
  /**
   * The lane: re-executions run one at a time on this instance, each in an event-loop turn of its own (after the I/O
   * that is waiting: other tenants' requests). On SQLite a run completes in microtasks; run back to back, a queue of
   * them would never let the loop reach its I/O (the isolation bench saw every other request wait 8 s and more).
   */
  let lane: Promise<void> | null = null;
  const enterLane = async (): Promise<() => void> => {
    const ahead = lane;
    let leave!: () => void;
    const mine = new Promise<void>((resolve) => (leave = resolve));
    const tail = (ahead ?? Promise.resolve()).then(() => mine);
    lane = tail;
    await ahead;
    await yieldToLoop();
    let left = false;
    return () => {
      if (left) return;
      left = true;
      leave();
      if (lane === tail) lane = null;
    };
  };
  const liveSchemas = new WeakMap<GraphQLSchema, GraphQLSchema>();
  const liveSchemaOf = (schema: GraphQLSchema) => {
    let live = liveSchemas.get(schema);
    if (!live) liveSchemas.set(schema, (live = withLiveKeys(schema)));
    return live;
  };
  /** Each open live query by the context of the request that opened it. */
  const running = new WeakMap<object, LiveRun>();
  const perAccount = new Map<string, number>();
  let open = 0;

  const release = (accountId: string) => {
    open -= 1;
    const left = (perAccount.get(accountId) ?? 1) - 1;
    if (left > 0) perAccount.set(accountId, left);
    else {
      perAccount.delete(accountId);
      // Its debt, once paid, need not be kept (a debt not paid yet stays: closing and opening again does not clear it).
      if ((budgets.get(accountId)?.freeAt ?? 0) <= performance.now()) budgets.delete(accountId);
    }
  };

  /** A re-execution that could not run (the database away): nothing is sent now, and it runs again a little later. */
  const retryLater = (live: LiveRun): never => {
    setTimeout(() => outsideRequests(() => void store.invalidate(live.key)), RETRY_MS).unref();
    throw new Superseded();
  };

  /** One run of a live query: the caller checked again (after the first), a fresh context, keys collected. */
  const runOnce =
    (execute: ExecuteFn): ExecuteFn =>
    async (args) => {
      const liveContext = args.contextValue as Record<symbol, unknown> & {
        addResourceIdentifier(values: string): void;
      };
      const key = originalContextOf(liveContext);
      const live = running.get(liveContext[key] as object);
      if (!live) return execute(args);
      const viewer = live.context.viewer!;
      const asked = ++live.asked;
      // Re-executions wait for the end of the throttle window and for the account's share of the time; while they
      // wait, only the latest one asked for will run.
      // Then they run one at a time (the lane): the time each takes is its own, and what its account is charged.
      let leaveLane = () => undefined as void;
      while (live.runs > 0) {
        const wait = Math.max(live.startedAt + live.throttleMs - performance.now(), budgetWait(viewer.id));
        if (wait > 0) {
          live.window ??= delay(wait).then(() => void (live.window = null));
          await live.window;
          if (asked !== live.asked || live.stopped) throw new Superseded();
          continue;
        }
        // One place in the lane per live query, whatever the writes meanwhile: when its turn comes, the latest run asked
        // for takes it (an older one is superseded). Re-queued at each write, a query on a busy campaign would be
        // overtaken for ever.
        if (!live.turn) {
          const turn: Turn = { granted: enterLane(), claimed: false };
          live.turn = turn;
          // Nobody took the turn (the latest run is waiting for its account's share, or the stream ended): give it up.
          void turn.granted.then((leave) => setImmediate(() => turn.claimed || leave()));
        }
        const turn = live.turn;
        const leave = await turn.granted;
        if (live.turn === turn) live.turn = null;
        if (asked !== live.asked || live.stopped) throw new Superseded();
        turn.claimed = true;
        // The account may have spent its share while this one waited in the lane.
        if (budgetWait(viewer.id) > 0) {
          leave();
          continue;
        }
        leaveLane = leave;
        break;
      }
      if (live.stopped) {
        leaveLane();
        throw new Superseded();
      }
      live.startedAt = performance.now();
      live.runs += 1;
      const first = live.runs === 1;
      let caller: Partial<Authentication> = {};
      if (!first) {
        const now = await authenticateRequest(services, live.authorization).catch(() => null);
        if (!now) {
          leaveLane();
          return retryLater(live);
        }
        if (!now.viewer || now.viewer.id !== viewer.id || now.authFailure) {
          leaveLane();
          live.ended = ended('credential');
          return live.ended;
        }
        caller = now;
      }
      const read = new Set<string>();
      const collector: LiveKeyCollector = {
        accountId: viewer.id,
        add: (value) => {
          if (read.has(value)) return;
          read.add(value);
          liveContext.addResourceIdentifier(value);
        },
        seen: new WeakSet(),
      };
      collector.add(ALL);
      collector.add(live.key);
      const since = sequence;
      // A fresh object: Pothos keeps dataloaders (and what they loaded) per context object.
      liveContext[key] = {
        ...live.context,
        ...caller,
        confirmCredential: undefined,
        liveKeys: collector,
      } satisfies Context & LiveContext;
      const started = performance.now();
      const mark = services.work.begin();
      try {
        // The first run is the request's (its piece of work is the request's, charged with its answer); later runs are
        // their own, charged to the account below.
        const result = await (first ? execute(args) : runAtWork(mark, () => execute(args)));
        // After the store has tracked this run's keys (it does so once this result is in).
        if (invalidatedSince(since, read)) setImmediate(() => outsideRequests(() => void store.invalidate(live.key)));
        return result;
      } catch (error) {
        if (!first) return retryLater(live);
        // The first run failed outright (not a field's error: those are in the result): say so and end the stream.
        services.logger.error({ err: error }, 'a live query could not run');
        live.ended = {
          data: null,
          errors: [new GraphQLError('Unexpected error.', { extensions: { code: 'INTERNAL_SERVER_ERROR' } })],
        };
        return live.ended;
      } finally {
        leaveLane();
        const ms = performance.now() - started;
        const cpuMs = services.work.end(mark);
        if (!first) charge(viewer.id, ms, cpuMs);
        options.onExecution?.(ms / 1000, first);
      }
    };

  /**
   * The store's stream, as the client gets it: the latest result only (a slow reader skips stale ones), a final
   * message when the caller's token ends or the server shuts down, and the account's slot given back at the end.
   */
  const follow = (source: AsyncIterable<ExecutionResult>, live: LiveRun): AsyncIterable<ExecutionResult> => {
    const viewer = live.context.viewer!;
    let released = false;
    const releaseOnce = () => {
      if (released) return;
      released = true;
      live.stopped = true;
      release(viewer.id);
    };
    const owner = {
      accountId: viewer.id,
      tokenVersion: viewer.tokenVersion,
      expiresAt: live.context.tokenExpiresAt,
      ...(live.context.accessTokenId ? { accessTokenId: live.context.accessTokenId } : {}),
    };
    const repeater = new Repeater<ExecutionResult>(async (push, stop) => {
      const iterator = source[Symbol.asyncIterator]();
      let lifetimeEnd: StreamEnd | null = null;
      const bound = services.streams.bound(FOREVER, owner, (reason) => (lifetimeEnd = reason));
      const lifetime = bound[Symbol.asyncIterator]();
      const lifetimeEnded = lifetime.next();
      // The client went away (its request's signal aborts at once: SSE, multipart): the stream ends and gives its slot
      // back now, not when a keep-alive write to the dead socket fails seconds later (issue 41).
      const signal = live.context.request?.signal;
      let onAbort: (() => void) | null = null;
      const clientGone = new Promise<null>((resolve) => {
        if (!signal) return;
        if (signal.aborted) return resolve(null);
        onAbort = () => resolve(null);
        signal.addEventListener('abort', onAbort, { once: true });
      });
      try {
        for (;;) {
          const next = await Promise.race([
            iterator.next(),
            lifetimeEnded.then(() => null),
            stop.then(() => null),
            clientGone,
          ]);
          if (lifetimeEnd) {
            await push(ended(lifetimeEnd));
            break;
          }
          if (!next || next.done) break;
          await push(next.value);
          if (live.ended) break;
        }
      } finally {
        if (onAbort) signal?.removeEventListener('abort', onAbort);
        void lifetime.return?.();
        void iterator.return?.();
        releaseOnce();
        stop();
      }
    }, new SlidingBuffer(1));
    // A stream given up before it was first read (the client went away at once) never starts the repeater: its slot is
    // given back here, or after UNREAD_MS when nobody ever reads it.
    const unread = setTimeout(() => {
      releaseOnce();
      void repeater.return(undefined as never);
    }, UNREAD_MS);
    unread.unref();
    return {
      [Symbol.asyncIterator]: () => ({
        next: () => {
          clearTimeout(unread);
          return repeater.next();
        },
        return: (value?: unknown) => {
          clearTimeout(unread);
          releaseOnce();
          return repeater.return(value as never);
        },
        throw: (error?: unknown) => {
          clearTimeout(unread);
          releaseOnce();
          return repeater.throw(error);
        },
      }),
    };
  };

  /** Before @envelop/live-query: what the store runs on each invalidation (runOnce). */
  const beforeStore: Plugin = {
    onExecute({ args, executeFn, setExecuteFn }) {
      if (liveArguments(args)) setExecuteFn(runOnce(executeFn as ExecuteFn) as typeof executeFn);
    },
  };

  /** After @envelop/live-query: who may open a live query, on what schema, and how its stream reaches the client. */
  const afterStore: Plugin = {
    onExecute({ args, executeFn, setExecuteFn, setResultAndStopExecution }) {
      const asked = liveArguments(args);
      if (!asked) return;
      const context = args.contextValue as unknown as LiveRun['context'];
      const viewer = context.viewer;
      // No signed-in caller: one answer, UNAUTHENTICATED, and no stream.
      if (!viewer) {
        setResultAndStopExecution({
          data: null,
          errors: [
            new GraphQLError(AUTH_FAILURE_MESSAGES[context.authFailure ?? 'missing'], {
              extensions: { code: 'UNAUTHENTICATED' },
            }),
          ],
        });
        return;
      }
      if (!streams(context)) {
        options.onRefused?.('transport');
        setResultAndStopExecution({
          errors: [
            new GraphQLError(
              context.transport === 'once'
                ? '@live is not offered here: this door answers once. Send the query to /graphql with Accept: ' +
                    'text/event-stream (SSE) or multipart/mixed, or over WebSocket (graphql-transport-ws).'
                : 'A @live query is a stream: send it with Accept: text/event-stream (SSE) or multipart/mixed, or ' +
                    'over WebSocket (graphql-transport-ws).',
              { extensions: { code: 'BAD_REQUEST', http: { status: 406 } } },
            ),
          ],
        });
        return;
      }
      const count = perAccount.get(viewer.id) ?? 0;
      if (count >= options.perAccount) {
        options.onRefused?.('limit');
        setResultAndStopExecution({
          errors: [
            new GraphQLError(
              `At most ${options.perAccount} live queries at once per account: end one (close its stream) first.`,
              { extensions: { code: 'RATE_LIMITED', http: { status: 429 } } },
            ),
          ],
        });
        return;
      }
      const live: LiveRun = {
        context,
        authorization: context.request?.headers.get('authorization') ?? context.credential ?? null,
        key: `live:${(lastKey += 1)}`,
        throttleMs: Math.min(Math.max(asked.throttleValue ?? 0, options.throttleMs), MAX_THROTTLE_MS),
        runs: 0,
        startedAt: 0,
        asked: 0,
        window: null,
        turn: null,
        ended: null,
        stopped: false,
      };
      const patches = wantsPatches(context);
      setExecuteFn(((executeArgs: ExecutionArgs) => {
        perAccount.set(viewer.id, (perAccount.get(viewer.id) ?? 0) + 1);
        open += 1;
        running.set(executeArgs.contextValue as object, live);
        const answer = (result: unknown) => {
          if (!isAsyncIterable<ExecutionResult>(result)) {
            release(viewer.id);
            return result;
          }
          const followed = follow(result, live);
          return patches ? applyLiveQueryJSONPatchGenerator(followed as never) : followed;
        };
        let result: unknown;
        try {
          result = (executeFn as ExecuteFn)({ ...executeArgs, schema: liveSchemaOf(executeArgs.schema) });
        } catch (error) {
          release(viewer.id);
          throw error;
        }
        return result instanceof Promise
          ? result.then(answer, (error: unknown) => {
              release(viewer.id);
              throw error;
            })
          : answer(result);
      }) as typeof executeFn);
    },
  };

  return {
    plugins: [beforeStore, onlyWhenLive(useLiveQuery({ liveQueryStore: store }) as Plugin), afterStore],
    invalidate(keys) {
      const list = [...keys];
      if (list.length === 0) return;
      noteInvalidation(list);
      outsideRequests(() => void store.invalidate(list));
    },
    invalidateAll() {
      noteInvalidation([ALL]);
      outsideRequests(() => void store.invalidate(ALL));
    },
    get open() {
      return open;
    },
  };
}

/**
 * @envelop/live-query's plugin for live queries only: its validation rule (no @live with @defer/@stream) for every
 * document, its execute wrapper for live queries alone. Other requests then pay nothing for it: no wrapper around
 * their execute, and no copy of their context for the store it would put there (nothing here reads it).
 */
function onlyWhenLive(plugin: Plugin): Plugin {
  const { onExecute, onValidate } = plugin;
  return {
    onValidate,
    onExecute: onExecute && ((payload) => (liveArguments(payload.args) ? onExecute(payload) : undefined)),
  };
}

/** The @live directive of each document's query operations, by operation name (yoga caches parsed documents). */
const liveDirectives = new WeakMap<DocumentNode, Map<string, DirectiveNode | null>>();

function liveDirectiveOf(args: ExecutionArgs): DirectiveNode | null {
  let known = liveDirectives.get(args.document);
  if (!known) liveDirectives.set(args.document, (known = new Map()));
  const name = args.operationName ?? '';
  let directive = known.get(name);
  if (directive === undefined) {
    const operation = getOperationAST(args.document, args.operationName);
    directive = operation?.operation === OperationTypeNode.QUERY ? (getLiveDirectiveNode(operation) ?? null) : null;
    known.set(name, directive);
  }
  return directive;
}

/**
 * A query operation's @live arguments, when it has @live (and not `@live(if: false)`); null otherwise. Its variables
 * are read with the operation's defaults (`query ($live: Boolean = false) @live(if: $live)`), as execution reads them.
 */
function liveArguments(args: ExecutionArgs): { throttleValue?: number | null } | null {
  const directive = liveDirectiveOf(args);
  if (!directive) return null;
  const usesVariables = directive.arguments?.some((argument) => argument.value.kind === Kind.VARIABLE);
  let variables = args.variableValues;
  if (usesVariables) {
    const operation = getOperationAST(args.document, args.operationName);
    const coerced = getVariableValues(args.schema, operation?.variableDefinitions ?? [], args.variableValues ?? {});
    // Variables that do not coerce: not live; execution reports them.
    if (coerced.errors) return null;
    variables = coerced.coerced;
  }
  const values = getLiveDirectiveArgumentValues(directive, variables);
  return values.isLive ? values : null;
}
