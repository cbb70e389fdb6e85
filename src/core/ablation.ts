// Per-request steps a benchmark may take out, one at a time, to measure what each costs (bench/archive.md, "The floor
// and the ablation"). Only bench/ablation-server.ts fills this set, before the app starts; in the gateway it is always
// empty, and every check is one Set lookup.
export const ABLATABLE_STEPS = [
  /** Each Authorization header is authenticated once, then its viewer reused (no token check, no account read). */
  'authentication',
  /** No per-account request counting and no large-body budget. */
  'rate-limit',
  /** The 1 MiB body limit is not checked. */
  'body-limit',
  /** No AsyncLocalStorage request state (the request id of log lines, error codes and route of the access line). */
  'request-context',
  /** No graphql-armor limits (depth, aliases, tokens, cost) and no request-shape limits. */
  'armor',
  /** Relay cursors and global ids are left as the raw keys (no JSON, no base64). */
  'cursors',
  /** The request goes straight to yoga: no ETag step, no empty-body rewrite, no x-request-id header. */
  'door-wrappers',
] as const;

export type AblatableStep = (typeof ABLATABLE_STEPS)[number];

export const ablated = new Set<AblatableStep>();
