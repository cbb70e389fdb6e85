// Environment → typed configuration, parsed and validated once at start (docs/architecture.md).
// Secrets that are not given are generated once into ./data/secrets.json (mode 0600).
import { randomBytes } from 'node:crypto';
import {
  closeSync,
  existsSync,
  fsyncSync,
  linkSync,
  mkdirSync,
  openSync,
  readFileSync,
  renameSync,
  rmSync,
  writeSync,
} from 'node:fs';
import { dirname } from 'node:path';
import { parse as parseConnectionString } from 'pg-connection-string';
import { z } from 'zod';

const booleanFlag = z.enum(['true', 'false', '1', '0']).transform((value) => value === 'true' || value === '1');

/** A comma-separated list of browser origins (scheme://host[:port]); each entry that is not one is an issue. */
function originList(value: string, context: z.RefinementCtx, alternatives: string): string[] {
  const origins = value
    .split(',')
    .map((entry) => entry.trim())
    .filter(Boolean);
  for (const origin of origins) {
    if (URL.parse(origin)?.origin !== origin) {
      context.addIssue({ code: 'custom', message: `${origin} is not an origin (scheme://host[:port])${alternatives}` });
    }
  }
  return origins;
}

const envSchema = z
  .object({
    PORT: z.coerce.number().int().min(0).max(65535).default(4000),
    HOST: z.string().min(1).default('127.0.0.1'),
    DATABASE_URL: z
      .string()
      .regex(/^(sqlite:.+|postgres(ql)?:\/\/.+)$/, 'must be sqlite:PATH, sqlite::memory: or postgres://...')
      .refine(
        // As pg itself reads it (a Unix socket's folder as `?host=` included), naming a host or a database.
        (value) => !value.startsWith('postgres') || postgresUrlReadable(value),
        'is not a URL PostgreSQL can be reached at (postgres://USER:PASSWORD@HOST:PORT/DATABASE)',
      )
      .default('sqlite:./data/campaigns.db'),
    JWT_SECRET: z.string().min(32, 'must be at least 32 characters').optional(),
    SECRETS_KEY: z
      .string()
      .refine((value) => Buffer.from(value, 'base64').length === 32, 'must be 32 bytes, base64-encoded')
      .optional(),
    TOKEN_TTL_SECONDS: z.coerce.number().int().min(60).max(31_536_000).default(3600),
    ALLOW_SIGNUP: booleanFlag.default(true),
    PUBLIC_BASE_URL: z.url().optional(),
    ALLOW_PRIVATE_WEBHOOK_TARGETS: booleanFlag.default(false),
    WEBHOOK_RETRY_SCHEDULE: z
      .string()
      .regex(/^\d+(\.\d+)?(,\d+(\.\d+)?)*$/, 'must be a comma-separated list of seconds')
      .default('5,300,1800,7200,18000,36000')
      .transform((value) => value.split(',').map(Number)),
    /** How long a receiver has to answer one delivery attempt (docs/decisions.md §9: 10 s). */
    WEBHOOK_TIMEOUT_SECONDS: z.coerce.number().positive().max(60).default(10),
    /**
     * How long a request may wait for the database: PostgreSQL's connect (and pool) timeout, SQLite's busy timeout.
     * Past it the request is answered 503 with Retry-After.
     */
    DATABASE_TIMEOUT_SECONDS: z.coerce.number().positive().max(60).default(3),
    REDIS_URL: z
      .string()
      .regex(/^rediss?:\/\/.+/, 'must be redis://... or rediss://...')
      .refine((value) => Boolean(URL.parse(value)?.hostname), 'is not a URL Redis can be reached at')
      .optional(),
    /** The longest a request waits for a Redis command before going on without it (docs/decisions.md §15). */
    REDIS_COMMAND_TIMEOUT_MS: z.coerce.number().int().min(5).max(5000).default(100),
    /** Requests per minute per account, on both doors (docs/decisions.md §11). */
    RATE_LIMIT_PER_MINUTE: z.coerce.number().int().min(1).max(1_000_000).default(1200),
    /** Requests without a valid bearer token (sign-up, login, provider webhooks, …) per client address per minute. */
    ANONYMOUS_RATE_LIMIT_PER_MINUTE: z.coerce.number().int().min(1).max(1_000_000).default(300),
    /**
     * Tokens /oauth/token grants per OAuth client ID per minute, from any addresses (a platform's backend speaks for
     * all of its users from a few addresses); a token request counts against its address until it is granted.
     */
    OAUTH_CLIENT_REQUESTS_PER_MINUTE: z.coerce.number().int().min(1).max(1_000_000).default(6000),
    /** The listener's timeouts (docs/limits.md): a request's headers, the whole request, an idle keep-alive connection. */
    HTTP_HEADERS_TIMEOUT_SECONDS: z.coerce.number().int().min(1).max(600).default(10),
    HTTP_REQUEST_TIMEOUT_SECONDS: z.coerce.number().int().min(1).max(3600).default(30),
    HTTP_KEEP_ALIVE_TIMEOUT_SECONDS: z.coerce.number().int().min(1).max(600).default(5),
    /**
     * Signed provider callbacks (call status; social messages with an app secret) per account per minute, counted
     * once their signature is verified, never against the sender's address (docs/limits.md).
     */
    CALLBACK_RATE_LIMIT_PER_MINUTE: z.coerce.number().int().min(1).max(1_000_000).default(6000),
    /**
     * Request bodies over 64 KiB, in MiB per tenant (account, or client address without a token) per minute: parsing a
     * large body takes the shared event loop milliseconds, so a tenant may not send them back to back.
     */
    LARGE_BODY_MIB_PER_MINUTE: z.coerce.number().positive().max(100_000).default(16),
    /**
     * The work budget (docs/limits.md "Work budget"): ms of handling time (from the door to the answer) an account's
     * requests may take per minute, whatever their number; a twelfth of it may be spent at once, then it refills.
     */
    WORK_BUDGET_MS_PER_MINUTE: z.coerce.number().int().min(100).max(100_000_000).default(3_000),
    /** The same per client address for requests without a valid token. */
    ANONYMOUS_WORK_BUDGET_MS_PER_MINUTE: z.coerce.number().int().min(100).max(100_000_000).default(1_500),
    /** Requests of one account handled at once on one instance; more wait in a short queue. */
    REQUESTS_IN_FLIGHT_PER_ACCOUNT: z.coerce.number().int().min(1).max(10_000).default(8),
    /** Requests without a valid token from one client address handled at once on one instance. */
    REQUESTS_IN_FLIGHT_PER_ADDRESS: z.coerce.number().int().min(1).max(10_000).default(4),
    /** Requests of one tenant that may wait for a place beyond those; one more is refused at once (429). */
    REQUESTS_QUEUED_PER_TENANT: z.coerce.number().int().min(0).max(10_000).default(32),
    /**
     * How many reverse proxies in front of the gateway append to X-Forwarded-For: the client address is the entry that
     * many places from the right (0: the socket's peer, X-Forwarded-For ignored).
     */
    TRUST_PROXY: z.coerce.number().int().min(0).max(10).default(0),
    /**
     * Login attempts of one e-mail from one client address that lock that pair out for the rest of
     * LOGIN_FAILURE_WINDOW_SECONDS (the same e-mail from another address is not locked out).
     */
    LOGIN_MAX_FAILURES: z.coerce.number().int().min(1).max(1000).default(5),
    LOGIN_FAILURE_WINDOW_SECONDS: z.coerce.number().int().min(1).max(86_400).default(900),
    /**
     * ms a refusal is held before it is answered — a refused login attempt (locked out, slowed down), a 429 of the
     * rate or a budget, a 413 — so that a client waiting for each answer makes a few requests a second, not thousands
     * (src/security/rate-limits.ts holdRefusal; src/http/doors.ts).
     */
    REFUSAL_DELAY_MS: z.coerce.number().int().min(0).max(10_000).default(250),
    /** log2 of scrypt's N for new password hashes (14 = 16384, ~50 ms here); tests lower it to stay fast. */
    PASSWORD_HASH_COST: z.coerce.number().int().min(10).max(20).default(14),
    /** `apq`: automatic persisted queries; `only`: trusted documents, from the manifest; `off` (docs/graphql-api.md "Persisted operations"). */
    PERSISTED_OPERATIONS: z.enum(['apq', 'only', 'off']).default('apq'),
    /** The trusted documents of `PERSISTED_OPERATIONS=only`: a JSON object of SHA-256 hash → document. */
    PERSISTED_OPERATIONS_MANIFEST: z.string().min(1).default('schema/persisted-operations.json'),
    /** Prometheus metrics at /metrics (docs/observability.md "Metrics"); with METRICS_TOKEN, only for `Authorization: Bearer <it>`. */
    METRICS: booleanFlag.default(true),
    METRICS_TOKEN: z.string().min(16, 'must be at least 16 characters').optional(),
    /** With it, /subgraph answers only requests that carry it in X-Subgraph-Token: the federation gateway's (docs/supergraph.md). */
    SUBGRAPH_TOKEN: z.string().min(16, 'must be at least 16 characters').optional(),
    /** The optional response cache (docs/graphql-api.md "HTTP caching"): query results per account, invalidated by every write. */
    RESPONSE_CACHE: booleanFlag.default(false),
    RESPONSE_CACHE_MAX_ENTRIES: z.coerce.number().int().min(1).max(100_000).default(1000),
    /** MiB the response cache's results may hold, by estimate (docs/limits.md "Memory"). */
    RESPONSE_CACHE_MAX_MB: z.coerce.number().int().min(1).max(4096).default(64),
    RESPONSE_CACHE_TTL_SECONDS: z.coerce.number().int().min(1).max(3600).default(60),
    /**
     * The prepared lane (docs/graphql-internals.md "Prepared lane"): a query document yoga has parsed and validated once is
     * answered again without yoga's HTTP pipeline. `shadow` (tests) answers on the lane and through yoga, and fails on
     * any difference.
     */
    GRAPHQL_PREPARED_LANE: z.enum(['on', 'off', 'shadow']).default('on'),
    /**
     * Compiled plans (docs/graphql-internals.md "Compiled plans"): a query whose selection below its root fields is plain runs on
     * a plan compiled from the schema instead of graphql-jit's compiled query, with the same answer.
     */
    GRAPHQL_COMPILED_PLANS: booleanFlag.default(true),
    /** How many documents (with their operation names) the prepared lane keeps, least recently used out first. */
    GRAPHQL_PREPARED_DOCUMENTS: z.coerce.number().int().min(1).max(10_000).default(1000),
    /**
     * MiB that parsed documents (with their validation results and compiled queries) may hold, by estimate
     * (src/core/byte-bounded-caches.ts): yoga's parse cache, and the prepared lane as much again (docs/limits.md "Memory").
     */
    GRAPHQL_DOCUMENT_CACHE_MB: z.coerce.number().int().min(1).max(4096).default(48),
    /** `@live` queries (docs/live-queries.md): a query's result kept current over SSE or WebSocket. */
    LIVE_QUERIES: booleanFlag.default(true),
    /** Live queries one account may hold open at once on one instance; one more is refused (RATE_LIMITED). */
    LIVE_QUERIES_PER_ACCOUNT: z.coerce.number().int().min(1).max(10_000).default(100),
    /**
     * The shortest time between two re-executions of one live query (ms): changes within it are coalesced into one.
     * `@live(throttle:)` may ask for longer, up to a minute.
     */
    LIVE_QUERY_THROTTLE_MS: z.coerce.number().int().min(0).max(60_000).default(250),
    /**
     * The share of one core (percent) an account's live query re-executions may take on average on one instance; past
     * it (after a burst of a second) they wait, coalesced, so that one tenant's live queries cannot starve the others.
     */
    LIVE_QUERY_SHARE_PERCENT: z.coerce.number().int().min(1).max(100).default(25),
    /** @defer and @stream on queries (docs/graphql-api.md "Incremental delivery"). */
    INCREMENTAL_DELIVERY: booleanFlag.default(true),
    /**
     * The most a tool answer weighs on the wire, both copies of its data counted (docs/mcp.md "Answer sizes"): long
     * texts are cut to fit, then list pages shortened.
     */
    MCP_ANSWER_MAX_KB: z.coerce.number().int().min(16).max(4096).default(64),
    /** The MCP door's `graphql` tool, which runs any document under /graphql's limits (docs/mcp.md): off by default. */
    MCP_GRAPHQL_TOOL: booleanFlag.default(false),
    /** The authorisation server for hosted MCP agents (docs/mcp-oauth.md): /oauth/* and the .well-known metadata. */
    MCP_OAUTH: booleanFlag.default(true),
    /** How long the access token of an agent that has a refresh token lasts (docs/mcp-oauth.md "Refresh tokens"). */
    OAUTH_ACCESS_TOKEN_MINUTES: z.coerce.number().int().min(5).max(1440).default(60),
    /** How long a refresh token lasts without being used (each use rotates it and starts the time again). */
    OAUTH_REFRESH_TOKEN_DAYS: z.coerce.number().int().min(1).max(365).default(30),
    /** How long the access token of an agent without refresh tokens (it did not ask for them) lasts. */
    OAUTH_ACCESS_TOKEN_DAYS: z.coerce.number().int().min(1).max(365).default(30),
    /** Dynamic client registration (RFC 7591), the deprecated fallback to client ID metadata documents. */
    OAUTH_DYNAMIC_CLIENT_REGISTRATION: booleanFlag.default(true),
    /**
     * At most this many pending registrations (no code issued to them yet) exist at once, from all addresses: past it
     * the oldest pending one is deleted, none is refused (docs/mcp-oauth.md "Registrations"). A pending one goes after
     * an hour; one that authorised is not counted, and is kept 90 days after its last token.
     */
    OAUTH_MAX_REGISTERED_CLIENTS: z.coerce.number().int().min(1).max(1_000_000).default(10_000),
    /**
     * At most this many pending registrations per client address (an IPv6 /64): past it that address's oldest pending
     * one is deleted. Hosted platforms register for all their users from a few addresses: raise it for a busy one.
     */
    OAUTH_MAX_PENDING_CLIENTS_PER_ADDRESS: z.coerce.number().int().min(1).max(100_000).default(50),
    /** Tests only: client metadata documents may be fetched from private and loopback addresses. */
    OAUTH_ALLOW_PRIVATE_CLIENT_METADATA: booleanFlag.default(false),
    /** Tests only: a PEM file of extra CA certificates trusted when fetching client metadata documents. */
    OAUTH_CLIENT_METADATA_CA_FILE: z.string().min(1).optional(),
    /**
     * Browser origins (scheme://host[:port], comma-separated) allowed to call /mcp besides the gateway's own: a request
     * with any other `Origin` is refused with 403 (DNS rebinding, docs/mcp.md). Requests without `Origin` (agents,
     * servers) are not affected.
     */
    MCP_ALLOWED_ORIGINS: z
      .string()
      .default('')
      .transform((value, context) => originList(value, context, '')),
    /**
     * Browser origins allowed to call /graphql (docs/security.md "Browsers and CORS"): `*` (the default) any page, with
     * a bearer token and without credentials; or a comma-separated list of origins (scheme://host[:port]), which alone
     * get CORS headers, with credentials, at /graphql, /subgraph and /mcp; `none`: no origin.
     */
    CORS_ALLOWED_ORIGINS: z
      .string()
      .default('*')
      .transform((value, context): '*' | string[] => {
        if (value.trim() === '*') return '*';
        if (value.trim() === 'none') return [];
        return originList(value, context, ' or *');
      }),
    /** At most this many automatic persisted queries are stored; the oldest go first. */
    APQ_MAX_QUERIES: z.coerce.number().int().min(1).max(1_000_000).default(10_000),
    LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
    /**
     * The start-up's own lines (banner, warnings, failures, SIGTERM): `auto` plain text on a terminal and JSON
     * elsewhere, or always `plain`, or always `json` (src/core/logger.ts plainTextOn). Request logs are JSON always.
     */
    LOG_FORMAT: z.enum(['auto', 'plain', 'json']).default('auto'),
    SECRETS_FILE: z.string().default('./data/secrets.json'),
  })
  .superRefine((env, problems) => {
    // Several instances on PostgreSQL must share the cache's generation, or one would not see the others' writes.
    if (env.RESPONSE_CACHE && env.DATABASE_URL.startsWith('postgres') && !env.REDIS_URL) {
      problems.addIssue({
        code: 'custom',
        path: ['RESPONSE_CACHE'],
        message: 'needs REDIS_URL on PostgreSQL (every instance must see every write)',
      });
    }
    // The graphql tool runs any document: that is what PERSISTED_OPERATIONS=only exists to forbid.
    if (env.MCP_GRAPHQL_TOOL && env.PERSISTED_OPERATIONS === 'only') {
      problems.addIssue({
        code: 'custom',
        path: ['MCP_GRAPHQL_TOOL'],
        message: 'runs any GraphQL document, which PERSISTED_OPERATIONS=only forbids: set one or the other',
      });
    }
  });

export type Config = Omit<z.infer<typeof envSchema>, 'JWT_SECRET' | 'SECRETS_KEY' | 'SECRETS_FILE'> & {
  JWT_SECRET: string;
  SECRETS_KEY: Buffer;
};

export class ConfigError extends Error {}

/** Whether pg reads `value` as a connection string that names a host or a database (else it is a mistake). */
function postgresUrlReadable(value: string): boolean {
  try {
    const parsed = parseConnectionString(value);
    return Boolean(parsed.host || parsed.database);
  } catch {
    return false;
  }
}

/** Query parameters that carry a password (ioredis reads `password`; libpq `password` and `sslpassword`). */
const SECRET_PARAMETERS = /([?&](?:ssl)?password=)[^&#]*/gi;

/**
 * A URL with its password (if any, in the user part or a query parameter) replaced by `****`. Text that does not
 * parse as a URL (a password with an unencoded `/`, `?` or `#`) has everything between `//` and its last `@`
 * replaced; other text is returned unchanged.
 */
export function maskUrl(value: string): string {
  const url = URL.parse(value);
  if (url) {
    if (url.password) url.password = '****';
    return url.toString().replace(SECRET_PARAMETERS, '$1****');
  }
  const start = value.indexOf('//');
  const at = value.lastIndexOf('@');
  const masked = start >= 0 && at > start ? `${value.slice(0, start + 2)}****${value.slice(at)}` : value;
  return masked.replace(SECRET_PARAMETERS, '$1****');
}

/** Which database DATABASE_URL names, as the banner and the first log line say it: never its password or user. */
export interface DatabaseNamed {
  kind: 'postgres' | 'sqlite';
  /** PostgreSQL's host and port. */
  host?: string;
  port?: number;
  /** PostgreSQL's database; SQLite's file (or :memory:). */
  name: string;
}

export function databaseNamed(databaseUrl: string): DatabaseNamed {
  if (!databaseUrl.startsWith('postgres')) return { kind: 'sqlite', name: databaseUrl.slice('sqlite:'.length) };
  // As pg reads it: a Unix socket's folder as `?host=`; the user (the database's name by default) is not shown.
  let parsed: Partial<ReturnType<typeof parseConnectionString>> = {};
  try {
    parsed = parseConnectionString(databaseUrl);
  } catch {
    // Refused by loadConfig; named as far as it goes.
  }
  return {
    kind: 'postgres',
    host: parsed.host || 'localhost',
    port: Number(parsed.port || 5432),
    name: parsed.database ?? '',
  };
}

/** `postgres 127.0.0.1:5432/campaigns`, `sqlite ./data/campaigns.db`. */
export function databaseLabel(database: DatabaseNamed): string {
  return database.kind === 'postgres'
    ? `postgres ${database.host}:${database.port}/${database.name}`
    : `sqlite ${database.name}`;
}

/** A setting's value as an error message may show it: quoted, secrets hidden, URL passwords masked. */
const shownValue = (name: string, value: string) =>
  name === 'JWT_SECRET' || name === 'SECRETS_KEY' || name === 'METRICS_TOKEN' || name === 'SUBGRAPH_TOKEN'
    ? '(hidden)'
    : JSON.stringify(maskUrl(value));

/** Settings refused when set to the empty string, with what to set instead. */
const REFUSED_WHEN_EMPTY = ['DATABASE_URL'] as const;
const REFUSED_WHEN_EMPTY_HINT: Record<(typeof REFUSED_WHEN_EMPTY)[number], string> = {
  DATABASE_URL: 'postgres://USER:PASSWORD@HOST:PORT/DATABASE or sqlite:PATH',
};

/** OpenTelemetry's endpoint settings (read by its exporter, validated here). */
const OTLP_ENDPOINTS = ['OTEL_EXPORTER_OTLP_ENDPOINT', 'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT'] as const;
const isHttpUrl = (value: string | undefined) => /^https?:$/.test(URL.parse(value ?? '')?.protocol ?? '');

/** The settings the gateway reads besides the schema's: OpenTelemetry's, the CLI's. */
const OTHER_SETTINGS = [
  'OTEL_EXPORTER_OTLP_ENDPOINT',
  'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT',
  'OTEL_EXPORTER_OTLP_HEADERS',
  'OTEL_EXPORTER_OTLP_TIMEOUT',
  'OTEL_SERVICE_NAME',
  'OTEL_SDK_DISABLED',
  'OTEL_TRACES_EXPORTER',
  'OTEL_TRACES_SAMPLER',
  'OTEL_SHUTDOWN_TIMEOUT_MS',
  'GATEWAY',
  'NODE_ENV',
];

export const SETTING_NAMES: readonly string[] = [...Object.keys(envSchema.shape), ...OTHER_SETTINGS];

/** Levenshtein distance, given up past `most` (names are short; this runs once at start). */
function editDistance(a: string, b: string, most: number): number {
  if (Math.abs(a.length - b.length) > most) return most + 1;
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      current[j] = Math.min(
        (previous[j] ?? 0) + 1,
        (current[j - 1] ?? 0) + 1,
        (previous[j - 1] ?? 0) + (a[i - 1] === b[j - 1] ? 0 : 1),
      );
    }
    previous = current;
  }
  return previous[b.length] ?? most + 1;
}

/**
 * Variables of the environment that look like one of our settings but are not one (`DATABSE_URL`, `database_url`,
 * `REDIS_URI`): each with the setting it most likely meant. Short names (PORT, HOST) are matched only by case, so
 * that the environment's own variables (PATH, HOME) are not taken for them.
 */
export function lookalikeSettings(env: NodeJS.ProcessEnv): Array<{ given: string; meant: string }> {
  const known = new Set(SETTING_NAMES);
  const found: Array<{ given: string; meant: string }> = [];
  for (const name of Object.keys(env)) {
    if (known.has(name)) continue;
    const upper = name.toUpperCase();
    let meant = known.has(upper) ? upper : undefined;
    for (const setting of SETTING_NAMES) {
      if (meant) break;
      if (setting.length < 8 || upper.length < 8) continue;
      if (editDistance(upper, setting, 2) <= (setting.length >= 12 ? 2 : 1)) meant = setting;
    }
    if (meant) found.push({ given: name, meant });
  }
  return found;
}

/**
 * DATABASE_URL alone, checked as loadConfig checks it: for what needs only the database (`cli migrate`, which a
 * migration job runs without the secrets the gateway needs on PostgreSQL).
 */
export function loadDatabaseUrl(env: NodeJS.ProcessEnv = process.env): string {
  const given = env.DATABASE_URL;
  const problem =
    given === ''
      ? `DATABASE_URL is set but empty: set it (${REFUSED_WHEN_EMPTY_HINT.DATABASE_URL}), or unset it for the default`
      : undefined;
  const parsed = envSchema.shape.DATABASE_URL.safeParse(given);
  if (problem || !parsed.success) {
    const message =
      problem ?? `DATABASE_URL=${shownValue('DATABASE_URL', given ?? '')} ${parsed.error?.issues[0]?.message}`;
    throw new ConfigError(`Invalid configuration (see docs/configuration.md): ${message}`);
  }
  return parsed.data;
}

/** Parses the environment; throws ConfigError naming every bad variable. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env, warn: (m: string) => void = console.warn): Config {
  const given = Object.fromEntries(Object.entries(env).filter(([, value]) => value !== undefined && value !== ''));
  for (const name of lookalikeSettings(env)) {
    warn(`${name.given} is not a setting of the gateway (did you mean ${name.meant}?): it is ignored`);
  }
  const parsed = envSchema.safeParse(given);
  // An empty DATABASE_URL is a mistake (a variable of a deployment left blank), not a request for the default SQLite
  // file: the instance would start on a database of its own.
  const blank = [
    ...REFUSED_WHEN_EMPTY.filter((name) => env[name] === '').map(
      (name) => `${name} is set but empty: set it (${REFUSED_WHEN_EMPTY_HINT[name]}), or unset it for the default`,
    ),
    // OpenTelemetry's exporter would start on an endpoint that is not a URL without a word, and export nothing.
    ...OTLP_ENDPOINTS.filter((name) => env[name] && !isHttpUrl(env[name])).map(
      (name) => `${name}=${shownValue(name, env[name] ?? '')} must be an http:// or https:// URL`,
    ),
  ];
  if (!parsed.success || blank.length > 0) {
    const problems = (parsed.error?.issues ?? []).map((issue) => {
      const name = String(issue.path[0] ?? '');
      const value = given[name];
      const message =
        issue.code === 'invalid_type' && issue.expected === 'number'
          ? 'must be a number'
          : issue.code === 'too_small' && issue.origin === 'number'
            ? `must be at least ${issue.minimum}`
            : issue.code === 'too_big' && issue.origin === 'number'
              ? `must be at most ${issue.maximum}`
              : issue.code === 'invalid_value'
                ? `must be one of ${issue.values.join(', ')}`
                : issue.message;
      return value === undefined ? `${name} ${message}` : `${name}=${shownValue(name, value)} ${message}`;
    });
    throw new ConfigError(`Invalid configuration (see docs/configuration.md): ${[...blank, ...problems].join('; ')}`);
  }
  const { JWT_SECRET, SECRETS_KEY, SECRETS_FILE, ...rest } = parsed.data;
  // Secrets are generated only beside a SQLite file: instances sharing a PostgreSQL database must share them, and
  // each (a fresh container) would generate its own (docs/configuration.md "Secrets").
  const generate = !rest.DATABASE_URL.startsWith('postgres');
  const secrets =
    JWT_SECRET && SECRETS_KEY
      ? { JWT_SECRET, SECRETS_KEY }
      : readOrCreateSecrets(SECRETS_FILE, { JWT_SECRET, SECRETS_KEY }, warn, generate);
  return { ...rest, JWT_SECRET: secrets.JWT_SECRET, SECRETS_KEY: Buffer.from(secrets.SECRETS_KEY, 'base64') };
}

type Secrets = { JWT_SECRET: string; SECRETS_KEY: string };

/**
 * A secrets file holds the secrets generated so far: both, or the one the environment did not give then. Other keys
 * (an operator's note) are kept as they are when a secret is added.
 */
const secretsFileSchema = z.looseObject({
  JWT_SECRET: z.string().min(32).optional(),
  SECRETS_KEY: z.string().optional(),
});

const GENERATE: Record<keyof Secrets, () => string> = {
  JWT_SECRET: () => randomBytes(48).toString('base64url'),
  SECRETS_KEY: () => randomBytes(32).toString('base64'),
};

/**
 * The secrets the environment does not give, from the file; those the file does not hold yet are generated into it,
 * and the warning names exactly those (not one the environment gave).
 */
function readOrCreateSecrets(
  file: string,
  given: Record<keyof Secrets, string | undefined>,
  warn: (m: string) => void,
  generate: boolean,
): Secrets {
  let stored = readSecretsFile(file);
  const missing = (['JWT_SECRET', 'SECRETS_KEY'] as const).filter((name) => !given[name] && !stored?.[name]);
  if (missing.length > 0 && !generate) {
    throw new ConfigError(
      `On PostgreSQL set ${missing.join(' and ')}, the same for every instance (they are generated only for a SQLite ` +
        "file: instances sharing a database each generating their own would refuse each other's tokens and secrets): " +
        'for instance JWT_SECRET=$(openssl rand -base64 48) SECRETS_KEY=$(openssl rand -base64 32); see ' +
        'docs/configuration.md',
    );
  }
  if (missing.length > 0) {
    const generated = { ...stored, ...Object.fromEntries(missing.map((name) => [name, GENERATE[name]()])) };
    if (writeSecretsFile(file, generated, stored !== null)) {
      const what =
        missing.length === 1
          ? `${missing[0]} not set: generated it`
          : `${missing.join(' and ')} not set: generated them`;
      warn(`${what} into ${file} (keep this file private and backed up)`);
    }
    // What the file holds now: ours, or what another process starting at the same moment wrote first.
    stored = readSecretsFile(file);
  }
  const JWT_SECRET = given.JWT_SECRET ?? stored?.JWT_SECRET;
  const SECRETS_KEY = given.SECRETS_KEY ?? stored?.SECRETS_KEY;
  if (!JWT_SECRET || !SECRETS_KEY) throw new Error('unreachable: a secret is neither given nor stored');
  return { JWT_SECRET, SECRETS_KEY };
}

function readSecretsFile(file: string): (Partial<Secrets> & Record<string, unknown>) | null {
  if (!existsSync(file)) return null;
  const parsed = secretsFileSchema.safeParse(JSON.parse(readFileSync(file, 'utf8')));
  if (!parsed.success) throw new ConfigError(`${file} is not a valid secrets file; remove it to regenerate`);
  return parsed.data;
}

/**
 * Writes the secrets file whole or not at all (a key lost to a crash half-way would make every integration secret
 * sealed under it unreadable): a private temporary file beside it, flushed to disk, then put in place. A new file is
 * put in place with a hard link, which fails when another process created the file first; false then, and the caller
 * reads theirs. An existing file (a secret added to it) is replaced by rename.
 */
function writeSecretsFile(file: string, secrets: Record<string, unknown>, replace: boolean): boolean {
  mkdirSync(dirname(file), { recursive: true });
  const temporary = `${file}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`;
  const fd = openSync(temporary, 'wx', 0o600);
  try {
    writeSync(fd, `${JSON.stringify(secrets, null, 2)}\n`);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  try {
    if (replace) {
      renameSync(temporary, file);
      return true;
    }
    try {
      linkSync(temporary, file);
      return true;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
      throw error;
    }
  } finally {
    rmSync(temporary, { force: true });
  }
}

/**
 * The URL a client on this machine reaches a gateway listening on `host`:`port` at: a wildcard address (`0.0.0.0`,
 * `::`) is reached on 127.0.0.1, an IPv6 address is bracketed. What `npm start` prints as GATEWAY, and what the CLI
 * sends to when GATEWAY is not set.
 */
export function reachableUrl(host: string, port: number): string {
  const reached = host === '0.0.0.0' || host === '::' ? '127.0.0.1' : host;
  return `http://${reached.includes(':') ? `[${reached}]` : reached}:${port}`;
}
