// The graphql-yoga server over the Pothos schema: context from the bearer token, error masking, GraphiQL.

import { maxAliasesPlugin } from '@escape.tech/graphql-armor-max-aliases';
import { maxDepthPlugin } from '@escape.tech/graphql-armor-max-depth';
import { maxTokensPlugin } from '@escape.tech/graphql-armor-max-tokens';
import { useDeferStream } from '@graphql-yoga/plugin-defer-stream';
import { PothosValidationError } from '@pothos/core';
import { type DocumentNode, type ExecutionArgs, getOperationAST, GraphQLError, type GraphQLSchema } from 'graphql';
import { createYoga, maskError, type Plugin, type YogaServerInstance } from 'graphql-yoga';
import { ablated } from '../../core/ablation.js';
import { isClientAbort } from '../../core/client-abort.js';
import { byteBoundedCache, documentBytes, MB, parseErrorBytes } from '../../core/byte-bounded-caches.js';
import { DATABASE_RETRY_AFTER_SECONDS } from '../../db/availability.js';
import { badInput, DomainError, serviceUnavailable, withoutStack } from '../../core/errors.js';
import { UNKNOWN_CLIENT } from '../../core/request-context.js';
import { currentWorkPiece, noteErrorCode, noteOperation } from '../../core/request-context.js';
import { authenticateRequest, type RequestAuth } from '../../authentication.js';
import { type Services } from '../../services.js';
import { compiledQueries } from './compiled-queries.js';
import { isShadowCopy } from './shadow-copies.js';
import { compiledPlans } from './compiled-plans.js';
import { anonymousDocumentLimit, documentWorkLimits } from './document-work.js';
import { documentCostLimit } from './document-cost.js';
import { type Context, type Transport } from '../schema/context.js';
import { GRAPHQL_LIMITS } from '../schema/document-limits.js';
import { GRAPHIQL_DEFAULT_QUERY, withTokenFromLogin } from './graphiql.js';
import { isWholeQuery, limitIncrementalDirectives } from './incremental-delivery.js';
import { confirmProvisionalCredentials } from './provisional-credentials.js';
import { nulCharacters } from './nul-characters.js';
import { persistedOperationPlugins } from './persisted-operations.js';
import { requestShapeLimits } from './request-limits.js';
import { inputErrors } from './input-errors.js';
import { readOnlyTokens } from './read-only-tokens.js';
import { referenceSchema, schema } from '../schema/schema.js';
import { requestCachesReleased } from './request-caches.js';
import { graphqlCors } from './cors.js';

export type Yoga = YogaServerInstance<Record<string, unknown>, Context>;

/** MiB that parse errors (each holding the text it points into) may hold. */
export const PARSE_ERROR_CACHE_MB = 8;

/** Expected errors keep their message and code; anything else becomes "Unexpected error." and is logged. */
/** PostgreSQL refuses text holding U+0000 (SQLite stores it): the client's mistake, not a failure. */
const isNulCharacterError = (error: unknown) =>
  error instanceof Error && 'code' in error && (error.code === '22021' || error.code === '22P05');

const unavailable = serviceUnavailable(DATABASE_RETRY_AFTER_SECONDS);

function maskDomainErrors(services: Services, error: unknown, message: string, isDev?: boolean): Error {
  // The client closed its request before it was read: nobody will see the answer; the access line says 499.
  if (isClientAbort(error)) {
    return new GraphQLError('The client closed the request before it was read.', {
      extensions: { code: 'CLIENT_CLOSED_REQUEST', http: { status: 499 } },
    });
  }
  // A request yoga could not read (bad JSON in `variables` or `extensions`): a 400, not a failure.
  if (!(error instanceof GraphQLError) && error instanceof SyntaxError) {
    return new GraphQLError(`The request is not valid: ${error.message}`, {
      extensions: { code: 'BAD_REQUEST', http: { status: 400 } },
    });
  }
  // A request that is not a GraphQL-over-HTTP request (no query, say) is answered 400 whatever the client accepts, as
  // yoga answers the others (bad JSON, a query that is not a string): yoga marks "Must provide query string." with the
  // spec's per-media-type status, which is for documents that fail (issue 41: it answered 200 to application/json).
  if (error instanceof GraphQLError && error.extensions?.code === 'BAD_REQUEST' && error.path === undefined) {
    const http = error.extensions.http as { spec?: boolean; headers?: Record<string, string> } | undefined;
    if (http?.spec) {
      return new GraphQLError(error.message, {
        extensions: { ...error.extensions, http: { status: 400, ...(http.headers ? { headers: http.headers } : {}) } },
      });
    }
  }
  const caught = error instanceof GraphQLError ? error.originalError : error;
  // Pothos reports malformed relay ids (and the like) as validation errors: the client's mistake.
  const original =
    caught instanceof PothosValidationError
      ? badInput([{ path: [], type: 'value_error', message: caught.message }])
      : isNulCharacterError(caught)
        ? badInput([{ path: [], type: 'string_type', message: 'Text must not contain the NUL character (\\u0000)' }])
        : caught;
  if (services.availability.failed(original)) {
    return new GraphQLError(unavailable.message, {
      path: error instanceof GraphQLError ? error.path : undefined,
      extensions: {
        code: unavailable.code,
        retryAfter: unavailable.retryAfter,
        http: { status: 503, headers: { 'retry-after': String(unavailable.retryAfter) } },
      },
    });
  }
  if (original instanceof DomainError) {
    const located = error instanceof GraphQLError ? error : undefined;
    const issues = original.issues?.map(({ path, type, message: text }) => ({ path, type, message: text }));
    return withoutStack(
      () =>
        new GraphQLError(original.message, {
          nodes: located?.nodes,
          source: located?.source,
          positions: located?.positions,
          path: located?.path,
          extensions: {
            code: original.code,
            ...(issues ? { issues } : {}),
            ...(original.retryAfter ? { retryAfter: original.retryAfter } : {}),
          },
        }),
    );
  }
  // A GraphQLError raised while executing a field without a code (a value its scalar cannot serialize, a Pothos
  // schema error) is a fault of ours, not the client's: yoga would pass it through, so it goes to the masking below
  // as an unexpected error.
  const unexpected =
    error instanceof GraphQLError && error.path !== undefined && error.extensions?.code === undefined
      ? new GraphQLError(error.message, {
          nodes: error.nodes,
          source: error.source,
          positions: error.positions,
          path: error.path,
          originalError: new Error(error.message, { cause: error }),
        })
      : error;
  const masked = maskError(unexpected, message, isDev);
  if (masked !== unexpected) {
    services.logger.error({ err: original ?? error }, 'unexpected error in a GraphQL operation');
  }
  return masked;
}

/**
 * docs/decisions.md §11: depth ≤ 12, aliases ≤ 30, tokens ≤ 5000 checked before anything runs, and the cost, counted
 * with the variables before execution (./document-cost.ts; graphql-armor's cost limit read literals only).
 */
export { GRAPHQL_LIMITS };

/**
 * A refused document gets the code yoga gives invalid documents (its HTTP status then follows the GraphQL-over-HTTP
 * spec: 200 for `application/json`, 400 for `application/graphql-response+json`).
 */
const refused =
  (code: string) =>
  (_context: unknown, error: GraphQLError): void => {
    const extensions = error.extensions as Record<string, unknown>;
    extensions.code = code;
    // As yoga marks the validation errors it finds itself: 400 under application/graphql-response+json only.
    extensions.http = { status: 400, spec: true };
  };

/**
 * A document nested thousands deep overflows the parser's stack: a parse failure like any other, not a crash.
 * Placed after graphql-armor's token limit, it wraps that plugin's parser.
 */
const deepNestingIsAParseError: Plugin = {
  onParse({ parseFn, setParseFn }) {
    setParseFn((source, options) => {
      try {
        return parseFn(source, options);
      } catch (error) {
        if (error instanceof RangeError) {
          throw new GraphQLError('Syntax Error: the document is nested too deeply.', {
            extensions: { code: 'GRAPHQL_PARSE_FAILED', http: { status: 400, spec: true } },
          });
        }
        throw error;
      }
    });
  },
};

function armor(): Plugin[] {
  const common = { exposeLimits: true, propagateOnRejection: true, onReject: [refused('GRAPHQL_VALIDATION_FAILED')] };
  return [
    maxTokensPlugin({ ...common, n: GRAPHQL_LIMITS.tokens, onReject: [refused('GRAPHQL_PARSE_FAILED')] }),
    maxDepthPlugin({ ...common, n: GRAPHQL_LIMITS.depth, ignoreIntrospection: true }),
    maxAliasesPlugin({ ...common, n: GRAPHQL_LIMITS.aliases }),
  ] as Plugin[];
}

/**
 * yoga's own log calls. It logs at `error` every error its masking changed: client mistakes (which maskDomainErrors
 * maps to their codes, and the access line reports) and the unexpected (which maskDomainErrors has logged already,
 * with its stack). Neither needs a second line.
 */
function yogaLogger(logger: Services['logger']) {
  return {
    debug: (...args: unknown[]) => logger.debug(args.map(String).join(' ')),
    info: (...args: unknown[]) => logger.info(args.map(String).join(' ')),
    warn: (...args: unknown[]) => logger.warn(args.map(String).join(' ')),
    error: () => undefined,
  };
}

/** Every GraphQL error code a result (or batch of results) carries goes to the request's access-log line. */
/**
 * GraphiQL's page, rendered once per process and kept (the options are the same each time; a change renders again):
 * rendering it costs ~0.4 s of the event loop and loading its bundle ~1 s more, each time without the cache. That
 * first render is the process's warm-up, not the work of whoever opened GraphiQL first: it is not charged to them.
 * Each later open still writes the 9 MB page (tens of ms), charged as any request.
 */
let renderedGraphiQL: { key: string; page: Promise<string> } | undefined;
function graphiqlPage(options: unknown): Promise<string> {
  const key = JSON.stringify(options ?? null);
  let rendered = renderedGraphiQL;
  if (rendered?.key !== key) {
    // The process's warm-up (the bundle loaded and compiled — synchronously, inside import() —, the page rendered, the
    // garbage it leaves collected while the answer is written): the request that happened to bring it is not charged
    // for the rest of its time.
    currentWorkPiece()?.away?.();
    const page = import('@graphql-yoga/render-graphiql').then(({ renderGraphiQL }) =>
      withTokenFromLogin(renderGraphiQL(options as Parameters<typeof renderGraphiQL>[0])),
    );
    rendered = renderedGraphiQL = { key, page };
    page.catch(() => {
      if (renderedGraphiQL?.page === page) renderedGraphiQL = undefined;
    });
  }
  return rendered.page;
}

export function noteErrorCodes(result: unknown): void {
  for (const item of Array.isArray(result) ? result : [result]) {
    if (!item || typeof item !== 'object' || !('errors' in item) || !Array.isArray(item.errors)) continue;
    for (const error of item.errors as GraphQLError[]) {
      const code = error.extensions?.code;
      noteErrorCode(typeof code === 'string' ? code : 'INTERNAL_SERVER_ERROR');
    }
  }
}

/** The operation an execution runs, noted for the access line's operation metrics (every door: envelop's execute). */
function noteOperationOf({ args }: { args: { document: DocumentNode; operationName?: string | null } }): void {
  const operation = getOperationAST(args.document, args.operationName);
  if (operation) noteOperation(operation.name?.value ?? '', operation.operation);
}

const errorCodesToAccessLog: Plugin = {
  onExecute: noteOperationOf,
  onSubscribe: noteOperationOf,
  onResultProcess({ result }) {
    noteErrorCodes(result);
  },
};

/**
 * JSON bodies the prepared lane read before leaving the request to yoga (src/graphql/lane/prepared-lane.ts): yoga's
 * request parser is given the parsed body instead of reading a body that is gone.
 */
const parsedBodies = new WeakMap<Request, unknown>();

export const handBody = (request: Request, parsed: unknown): void => {
  parsedBodies.set(request, parsed);
};

const bodiesAlreadyRead: Plugin = {
  onRequestParse({ request, setRequestParser }) {
    if (!parsedBodies.has(request)) return;
    const parsed = parsedBodies.get(request);
    setRequestParser(() => parsed as ReturnType<Parameters<typeof setRequestParser>[0]>);
  },
};

/** yoga's enveloped pipeline for one request of the prepared lane, with the door's facts for the context factory. */
export function envelopedFor(yoga: Yoga, request: Request, params: object, facts: DoorFacts) {
  doorFacts.set(request, facts);
  return yoga.getEnveloped({ request, params });
}

/** An error thrown past every plugin, as yoga answers it: masked (logged there when unexpected). */
export function maskUnexpected(yoga: Yoga, error: unknown): GraphQLError {
  const { maskedErrorsOpts: masking } = yoga as unknown as {
    maskedErrorsOpts: { maskError: typeof maskError; errorMessage: string; isDev?: boolean } | null;
  };
  const masked = masking ? masking.maskError(error, masking.errorMessage, masking.isDev) : error;
  return masked instanceof GraphQLError
    ? masked
    : new GraphQLError('Unexpected error.', { originalError: masked as Error });
}

/** The request's authentication, when the door worked it out already (src/http/doors.ts). */
const isRequestAuth = (value: unknown): value is RequestAuth =>
  typeof value === 'object' && value !== null && 'authentication' in value && 'claims' in value;

/** What the HTTP door knows of a request before yoga sees it. */
/** The transport a door named when it asked for an enveloped pipeline (src/graphql/schema/context.ts); yoga's own is http. */
const transportOf = (named: unknown): Transport => (named === 'websocket' || named === 'once' ? named : 'http');

export interface DoorFacts {
  clientAddress: string;
  auth: RequestAuth;
}

/** The door's facts of each request it hands to yoga, read by the context factory (see serveGraphQL). */
const doorFacts = new WeakMap<Request, DoorFacts>();

/** An HTTP request the door found no valid token on (the REST and MCP doors' own documents are never these). */
function isAnonymousHttpRequest(context: unknown): boolean {
  const request = (context as { request?: Request } | null)?.request;
  const facts = request ? doorFacts.get(request) : undefined;
  return facts !== undefined && !facts.auth.claims?.accountId;
}

/**
 * Hands an HTTP request to yoga from the door (src/http/doors.ts), which has converted it from node:http already.
 * Not `yoga.fetch(request, facts)`: that runs yoga's server adapter a second time around the first — a copy of the
 * server context by property descriptors, an abort listener racing the answer — and the answer's data then lives
 * long enough to be promoted out of V8's young generation (bench/archive.md, "One adapter"). The facts travel beside
 * the request instead.
 */
export function serveGraphQL(yoga: Yoga, request: Request, facts: DoorFacts): Promise<Response> | Response {
  doorFacts.set(request, facts);
  // An empty server context: the adapter adds its waitUntil; the rest is in doorFacts.
  return yoga.handleRequest(request, {});
}

/** bench/ablation-server.ts: each Authorization header authenticated once, then its answer reused. */
const authenticatedOnce = (() => {
  const known = new Map<string | null, ReturnType<typeof authenticateRequest>>();
  return (services: Services, authorization: string | null) => {
    let found = known.get(authorization);
    if (!found) known.set(authorization, (found = authenticateRequest(services, authorization)));
    return found;
  };
})();

/** What another GraphQL server on the same pipeline serves instead of /graphql's public graph (the subgraph). */
export interface GraphQLServerOptions {
  schema: GraphQLSchema;
  endpoint: string;
  /** Another server's parse caches, so that both stay within one GRAPHQL_DOCUMENT_CACHE_MB (docs/limits.md "Memory"). */
  documentCaches?: DocumentCaches;
}

export interface DocumentCaches {
  documentCache: ReturnType<typeof byteBoundedCache<string, DocumentNode>>;
  errorCache: ReturnType<typeof byteBoundedCache<string, NonNullable<unknown>>>;
}

/**
 * yoga's parse caches, bounded in bytes: a parsed document keyed by its text, and a parse error. Validation stays
 * yoga's own, per schema (it keys its results by schema and document object).
 */
export function documentCaches(services: Services): DocumentCaches {
  return {
    documentCache: byteBoundedCache<string, DocumentNode>({
      maxBytes: services.config.GRAPHQL_DOCUMENT_CACHE_MB * MB,
      sizeOf: (_document, text) => documentBytes(text),
    }),
    errorCache: byteBoundedCache<string, NonNullable<unknown>>({
      maxBytes: PARSE_ERROR_CACHE_MB * MB,
      sizeOf: (_error, text) => parseErrorBytes(text),
    }),
  };
}

export function createGraphQLServer(
  services: Services,
  plugins: Plugin[] = [],
  served: GraphQLServerOptions = { schema, endpoint: '/graphql' },
): Yoga {
  const yoga: Yoga = createYoga<Record<string, unknown>, Context>({
    schema: served.schema,
    graphqlEndpoint: served.endpoint,
    landingPage: false,
    // No file uploads here: multipart requests are refused (415) instead of half-parsed.
    multipart: false,
    // Every door limits a request's body before yoga sees it (src/http/body-limit.ts: 1 MiB, a declared length checked
    // before anything is read, an undeclared one buffered up to the limit); yoga's own 25 MB check would pipe each body
    // through one more transform stream and a second Request (bench/archive.md, "Second pass"; docs/decisions.md §14).
    maxRequestBodySize: false,
    // CORS_ALLOWED_ORIGINS (src/graphql/server/cors.ts): `*` reaches /graphql, never /subgraph; the prepared lane adds the same.
    cors: graphqlCors(services.config.CORS_ALLOWED_ORIGINS, served.endpoint === '/graphql'),
    // GraphiQL at /graphql only: the subgraph is for a federation gateway.
    graphiql: served.schema === schema ? { title: 'Campaign gateway', defaultQuery: GRAPHIQL_DEFAULT_QUERY } : false,
    // GraphiQL's bundle (~27 MB of strings in memory) loads the first time someone opens GraphiQL, not at start.
    renderGraphiQL: (options) => graphiqlPage(options),
    maskedErrors: { maskError: (error, message, isDev) => maskDomainErrors(services, error, message, isDev) },
    logging: yogaLogger(services.logger),
    // Parsed documents and parse errors, bounded in bytes (yoga's own caches count 1 024 entries of any size); shared
    // with the other server of the app when it passes them (a parse does not depend on the schema).
    parserAndValidationCache: served.documentCaches ?? documentCaches(services),
    plugins: [
      // First: a later plugin that answers in execution's place (the response cache, read-only tokens) stops the
      // onExecute hooks after its own, and the caches of that context must be let go all the same.
      requestCachesReleased,
      // Before any plugin that may answer in execution's place (the response cache, read-only tokens).
      confirmProvisionalCredentials((context) => yoga.getEnveloped(context).execute),
      // A body the prepared lane has read already (it left the request to yoga).
      bodiesAlreadyRead,
      // A persisted operation's document is in place before anything reads or limits it.
      ...persistedOperationPlugins(services),
      ...(ablated.has('armor')
        ? []
        : [anonymousDocumentLimit(isAnonymousHttpRequest), ...armor(), deepNestingIsAParseError, requestShapeLimits()]),
      errorCodesToAccessLog,
      // Before input errors and execution: text with NUL is the client's mistake on both databases.
      nulCharacters,
      inputErrors(),
      readOnlyTokens,
      // Before compiled queries and live queries: a document over its cost is refused before it is compiled or runs.
      ...(ablated.has('armor') ? [] : [documentCostLimit]),
      // Compiled execution (graphql-jit) for queries, cached per parsed document and operation
      // (src/graphql/server/compiled-queries.ts): yoga's parser cache and the REST door's prepared documents hand it the same
      // DocumentNode each time. Mutations and subscriptions keep graphql-js's executor: graphql-jit coerces
      // input-object variables differently (it does not apply input field defaults, and turns absent fields into
      // nulls, graphql-jit#142 and #230), and a patch must tell the two apart. A query with @defer or @stream runs on
      // graphql-js's executor too (graphql-jit knows neither).
      compiledQueries({
        enableIf: (args) => isWholeQuery(args.document, args.operationName),
        // Shadow mode: yoga's copy of a lane answer runs on every resolver (src/http/lane-shadow.ts). Otherwise no
        // request asks.
        ...(services.config.GRAPHQL_PREPARED_LANE === 'shadow'
          ? {
              referenceFor: (args: ExecutionArgs) =>
                isShadowCopy((args.contextValue as { request?: Request } | undefined)?.request)
                  ? referenceSchema(args.schema)
                  : undefined,
            }
          : {}),
      }),
      // After graphql-jit's: a query whose document a compiled plan covers runs on the plan instead
      // (src/graphql/server/compiled-plans.ts; a plan covers no @defer, @stream or @live: no directive at all),
      // graphql-jit's compiled query answering what the plan declines. Never a shadow copy: that one is the reference
      // the plan's answers are compared with (src/http/lane-shadow.ts).
      ...(services.config.GRAPHQL_COMPILED_PLANS
        ? [
            compiledPlans({
              enableIf: (args) => !isShadowCopy((args.contextValue as { request?: Request } | undefined)?.request),
            }),
          ]
        : []),
      ...(services.config.INCREMENTAL_DELIVERY ? [useDeferStream(), limitIncrementalDirectives] : []),
      // After useDeferStream (whose merging rule it takes out again for documents without @stream).
      documentWorkLimits,
      ...plugins,
    ],
    // The REST door authenticates before validating (as FastAPI does) and passes the result in.
    context: async (initial) => {
      const facts = doorFacts.get(initial.request);
      const clientAddress =
        facts?.clientAddress ?? (typeof initial.clientAddress === 'string' ? initial.clientAddress : UNKNOWN_CLIENT);
      const auth = facts?.auth ?? initial.auth;
      const transport = transportOf(initial.transport);
      return 'viewer' in initial
        ? {
            ...services,
            transport,
            clientAddress,
            ...(initial as unknown as Pick<Context, 'viewer' | 'authFailure' | 'readOnly' | 'accessTokenId'>),
          }
        : {
            ...services,
            transport,
            clientAddress,
            ...(await (ablated.has('authentication')
              ? authenticatedOnce(services, initial.request.headers.get('authorization'))
              : isRequestAuth(auth)
                ? auth
                    .provisional()
                    .then((authentication) =>
                      auth.taken ? { ...authentication, confirmCredential: auth.confirm } : authentication,
                    )
                : authenticateRequest(services, initial.request.headers.get('authorization')))),
          };
    },
  });
  return yoga;
}
