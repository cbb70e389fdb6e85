// The request id of the request being served, for every log line written while serving it (pino's mixin reads it).
// A client's `X-Request-Id` is kept when it is a sane token; otherwise a new UUID is made. It is echoed back.
import { AsyncLocalStorage } from 'node:async_hooks';
import { randomUUID } from 'node:crypto';

interface RequestState {
  /** Unset for work outside any request that is measured as a piece of work (a live re-execution: runAtWork). */
  requestId?: string;
  /** The error codes of the GraphQL errors answered, for the request's access-log line. */
  errorCodes?: string[];
  /** The GraphQL operation it ran first (its name in the document, or '' unnamed), for the operation metrics. */
  operation?: { name: string; type: string };
  /** The REST route template the request matched (a bounded metrics label, never the raw path). */
  route?: string;
  /** The caller's credential, answered provisionally and still to be checked (src/authentication.ts). */
  credentialCheck?: CredentialCheck;
  /** A second answer computed only to compare with the first (runAsShadow). */
  shadow?: boolean;
  /** A signed provider callback counted against its account's budget (src/graphql/schema/callback-budget.ts). */
  callbackCounted?: boolean;
  /** The account that callback's signature verified for: its handling time is charged there (src/http/work-budget.ts). */
  callbackAccount?: string;
  /** The piece of work the work budget measures for this request (src/security/work-budget.ts). */
  work?: OwnWork;
  /** Characters of long text (transcripts, summaries) its answers hold so far (src/graphql/schema/field-costs.ts). */
  answerText?: number;
}

/**
 * What a piece of work measured by the work budget did on its own: the ms of synchronous work timed inside it
 * (`timedWork`: SQLite statements, answers serialised), during which nothing else can run, so none of it is shared.
 */
export interface OwnWork {
  ownMs: number;
  /**
   * The piece now waits for work done off the event loop (a password hashed in libuv's pool, a PostgreSQL query): it
   * is not at work, so takes no share of the loop's time, until the function returned is called (once). A PostgreSQL
   * answer's rows, parsed on the loop meanwhile, are timed as the piece's own (src/db/database.ts).
   */
  away?(): () => void;
  /** Set once the piece is charged: work timed after that is nobody's own (it stays shared). */
  ended?: boolean;
}

/**
 * A credential a request was answered provisionally on PostgreSQL (docs/decisions.md §14): the account (and named
 * access token) last read for it, to be confirmed by the first hot read of the request, which carries this check in
 * its own statement (src/db/reusable-query.ts), or else by reading the account before the answer leaves.
 */
export interface CredentialCheck {
  readonly accountId: string;
  /** The account's token version the answer relies on. */
  readonly tokenVersion: number;
  /** A named access token: its id and stored digest, which must still be there. */
  readonly accessToken?: { readonly tokenId: string; readonly tokenHash: string };
  /** What a statement of this request found: whether the credential still stands. */
  outcome?: boolean;
}

const storage = new AsyncLocalStorage<RequestState>();

/** What requests without a socket (in-process calls) count as for the per-address throttles (src/http/client-address.ts). */
export const UNKNOWN_CLIENT = 'unknown';

/** Request bodies are at most 1 MiB on every door (docs/decisions.md §11; src/http/body-limit.ts enforces it). */
export const MAX_BODY_BYTES = 1024 * 1024;

const SANE_ID = /^[A-Za-z0-9._:-]{1,128}$/;

export function requestIdFor(request: Request): string {
  const given = request.headers.get('x-request-id');
  return given && SANE_ID.test(given) ? given : randomUUID();
}

export function runWithRequestId<T>(requestId: string, work: () => T): T {
  return storage.run({ requestId }, work);
}

/**
 * Runs a second answer to the same request in a context of its own (GRAPHQL_PREPARED_LANE=shadow, tests only): its
 * error codes, route and credential checks stay out of the request's, and it is marked as the shadow.
 */
export function runAsShadow<T>(work: () => T): T {
  return storage.run({ requestId: `${currentRequestId() ?? 'unknown'}:shadow`, shadow: true }, work);
}

/** Whether the code running is a shadow answer (tests leave its SQL out of the statements they count). */
export function inShadow(): boolean {
  return storage.getStore()?.shadow === true;
}

/** From here on (the rest of the request), synchronous work timed by `timedWork` is the piece's own. */
export function noteWorkPiece(piece: OwnWork): void {
  const state = storage.getStore();
  if (state) state.work = piece;
}

/** Runs `work` (a live re-execution, a WebSocket operation) as the piece's: what `timedWork` times inside is its own. */
export function runAtWork<T>(piece: OwnWork, work: () => T): T {
  const state = storage.getStore();
  return storage.run(state ? { ...state, work: piece } : { work: piece }, work);
}

let ownWorkMs = 0;
let timing = false;

/**
 * Runs `work` (synchronous) and, inside a measured piece of work, adds the time it took to the piece's own: the event
 * loop was that piece's alone meanwhile. Nested calls count once (the outermost).
 */
export function timedWork<T>(work: () => T): T {
  const piece = currentWorkPiece();
  return piece ? timedFor(piece, work) : work();
}

/** The running piece of work, if any (for work done later on its behalf outside its context: timedFor). */
export function currentWorkPiece(): OwnWork | undefined {
  return storage.getStore()?.work;
}

/**
 * `timedWork` for a piece named rather than the running one: work done on its behalf in another context (a
 * PostgreSQL answer parsed in its connection's socket handler). Nested calls count once (the outermost).
 */
export function timedFor<T>(piece: OwnWork, work: () => T): T {
  if (timing || piece.ended) return work();
  timing = true;
  const started = performance.now();
  try {
    return work();
  } finally {
    timing = false;
    const ms = performance.now() - started;
    piece.ownMs += ms;
    ownWorkMs += ms;
  }
}

/**
 * Awaits work done off the event loop (`waiting`: a password hash) as the piece of work running:
 * meanwhile it takes no share of the loop's time (src/security/work-budget.ts).
 */
export function offLoop<T>(waiting: Promise<T>): Promise<T> {
  const back = currentWorkPiece()?.away?.();
  return back ? waiting.finally(back) : waiting;
}

/** The ms of synchronous work `timedWork` has timed in all, since the process started (the work meter reads it). */
export const ownWorkTotal = (): number => ownWorkMs;

export function currentRequestId(): string | undefined {
  return storage.getStore()?.requestId;
}

/** Notes the code of an error the request is answered with (client mistakes are logged only this way). */
export function noteErrorCode(code: string): void {
  const state = storage.getStore();
  if (!state) return;
  state.errorCodes ??= [];
  if (state.errorCodes.length < 10 && !state.errorCodes.includes(code)) state.errorCodes.push(code);
}

/** A signed callback of this request was verified and counted against its account. */
export function noteCallbackCounted(accountId?: string): void {
  const state = storage.getStore();
  if (!state) return;
  state.callbackCounted = true;
  if (accountId) state.callbackAccount = accountId;
}

/** The account a verified signed callback of this request was counted against, if any. */
export function callbackAccount(): string | undefined {
  return storage.getStore()?.callbackAccount;
}

export function callbackCounted(): boolean {
  return storage.getStore()?.callbackCounted === true;
}

export function currentErrorCodes(): string[] | undefined {
  return storage.getStore()?.errorCodes;
}

/** Notes the GraphQL operation the request runs, on every door and path (the first one, for MCP's several). */
export function noteOperation(name: string, type: string): void {
  const state = storage.getStore();
  if (state && !state.operation) state.operation = { name, type };
}

export function currentOperation(): { name: string; type: string } | undefined {
  return storage.getStore()?.operation;
}

/** Notes the route template the request matched (docs/observability.md "Metrics"). */
export function noteRoute(template: string): void {
  const state = storage.getStore();
  if (state) state.route = template;
}

export function currentRoute(): string | undefined {
  return storage.getStore()?.route;
}

/** Notes the credential the request was answered provisionally on (false when there is no request state to keep it). */
export function noteCredentialCheck(check: CredentialCheck): boolean {
  const state = storage.getStore();
  if (state) state.credentialCheck = check;
  return state !== undefined;
}

/** The request's credential while no statement has confirmed or refuted it yet. */
export function pendingCredentialCheck(): CredentialCheck | undefined {
  const check = storage.getStore()?.credentialCheck;
  return check && check.outcome === undefined ? check : undefined;
}

/**
 * The path as logs may show it: provider webhook paths carry the account's API key (`ck_…`), so it is masked; the
 * query string is left out (it may hold verify tokens).
 */
export function loggablePath(url: URL): string {
  return url.pathname.replace(/ck_[A-Za-z0-9_-]+/g, 'ck_****');
}

/** Counts characters of long text the request's answer holds (answerText, src/graphql/schema/field-costs.ts). */
export function noteAnswerText(characters: number): void {
  const state = storage.getStore();
  if (state) state.answerText = (state.answerText ?? 0) + characters;
}

/** The characters of long text the request's answers hold so far. */
export const answerTextNoted = (): number => storage.getStore()?.answerText ?? 0;
