// The OAuth door (docs/mcp-oauth.md): the protected resource metadata of /mcp (RFC 9728), the authorisation server's
// metadata and endpoints under /oauth (oidc-provider, a Koa app, so this door is served from the node:http listener
// before the fetch-API doors: src/http/server.ts), and the login and consent page. Requests are rate limited per
// client address like anonymous requests elsewhere — a token request that succeeds counts against its OAuth client
// instead (src/oauth/client-budget.ts) —, refused here for a method the path does not serve or a control
// character in a parameter (src/oauth/hostile-input.ts), and get one access-log line.
import { isClientAbort } from '../core/client-abort.js';
import { onFirstUse } from '../core/first-use.js';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type Provider from 'oidc-provider';
import type { KoaContextWithOIDC } from 'oidc-provider';
import { isLoopbackHostname, OAUTH_UNAVAILABLE, oauthIssuer, oauthIssuerFor } from '../core/oauth-issuer.js';
import type { Services } from '../services.js';
import {
  INTERACTION_PATH,
  isOAuthPath,
  mcpResourceUrl,
  OAUTH_ROUTES,
  PROTECTED_RESOURCE_PATHS,
  SCOPES,
} from './endpoints.js';
import {
  bodyKindOf,
  controlInAuthorization,
  controlInBody,
  controlInTarget,
  MAX_OAUTH_BODY_BYTES,
  methodsOf,
  readBody,
  replayBody,
} from './hostile-input.js';
import { clientIdOf, isTokenRequest } from './client-budget.js';

/**
 * The authorisation server's own modules (oidc-provider and Koa, the MCP SDK's metadata helper): loaded on the first
 * OAuth request that needs them (issue 55), not at start — most instances never serve one.
 */
const authorisationServer = onFirstUse(loadAuthorisationServer);

async function loadAuthorisationServer() {
  const [sdk, provider, interactions, minting, revocation] = await Promise.all([
    import('@modelcontextprotocol/server'),
    import('./provider.js'),
    import('./interactions.js'),
    import('./token-minting.js'),
    import('./revocation.js'),
  ]);
  return {
    buildOAuthProtectedResourceMetadata: sdk.buildOAuthProtectedResourceMetadata,
    createOAuthProvider: provider.createOAuthProvider,
    handleInteraction: interactions.handleInteraction,
    mintNamedTokens: minting.mintNamedTokens,
    revokeNamedAccessTokens: revocation.revokeNamedAccessTokens,
  };
}

export interface OAuthDoor {
  handles(pathname: string): boolean;
  handle(req: IncomingMessage, res: ServerResponse): Promise<void>;
}

/**
 * Without PUBLIC_BASE_URL each origin requests come to gets its own issuer — loopback origins only (src/core/
 * oauth-issuer.ts) —; at most this many are kept.
 */
const MAX_ISSUERS = 8;
const UID_SHAPE = /^[A-Za-z0-9_-]{1,64}$/;

function json(res: ServerResponse, status: number, body: unknown, extra: Record<string, string> = {}): void {
  res.writeHead(status, { 'content-type': 'application/json', 'cache-control': 'no-store', ...extra });
  res.end(JSON.stringify(body));
}

/** RFC 9728 metadata of this gateway's /mcp, built with the MCP SDK's helper (the issuer is https or loopback). */
export async function protectedResourceMetadata(issuer: string) {
  const loopback = isLoopbackHostname(new URL(issuer).hostname);
  const { buildOAuthProtectedResourceMetadata } = await authorisationServer();
  return buildOAuthProtectedResourceMetadata({
    oauthMetadata: {
      issuer,
      authorization_endpoint: `${issuer}${OAUTH_ROUTES.authorization}`,
      token_endpoint: `${issuer}${OAUTH_ROUTES.token}`,
      response_types_supported: ['code'],
    },
    resourceServerUrl: new URL(mcpResourceUrl(issuer)),
    scopesSupported: [...SCOPES],
    resourceName: 'campaign-gateway MCP door',
    dangerouslyAllowInsecureIssuerUrl: loopback,
  });
}

/** `addressOf`: the client address of a request (src/http/client-address.ts, honouring TRUST_PROXY). */
export function createOAuthDoor(services: Services, addressOf: (req: IncomingMessage) => string): OAuthDoor {
  const { config, logger, db, tokens, limits } = services;
  if (config.MCP_OAUTH && !config.PUBLIC_BASE_URL && !isLoopbackHostname(config.HOST)) {
    logger.warn(
      { host: config.HOST },
      'OAuth for hosted agents is served to loopback clients only until PUBLIC_BASE_URL is set (pasted tokens work)',
    );
  }
  if (config.MCP_OAUTH && config.PUBLIC_BASE_URL && !oauthIssuer(config, null)) {
    logger.warn(
      { publicBaseUrl: new URL(config.PUBLIC_BASE_URL).origin },
      'OAuth for hosted agents is off until PUBLIC_BASE_URL is https: its paths answer 404 and /mcp names no ' +
        'authorisation server (pasted tokens keep working)',
    );
  }
  const providers = new Map<string, { provider: Provider; callback: ReturnType<Provider['callback']> }>();
  const providerFor = async (issuer: string) => {
    let entry = providers.get(issuer);
    if (!entry) {
      const { createOAuthProvider, mintNamedTokens, revokeNamedAccessTokens } = await authorisationServer();
      // Another request may have made it while the modules loaded.
      entry = providers.get(issuer);
      if (entry) return entry;
      const provider = createOAuthProvider(issuer, config, db, { addressOf, logger });
      provider.use(
        mintNamedTokens({
          db,
          tokens,
          logger,
          accessTokenMinutes: config.OAUTH_ACCESS_TOKEN_MINUTES,
          accessTokenDays: config.OAUTH_ACCESS_TOKEN_DAYS,
          refreshTokenDays: config.OAUTH_REFRESH_TOKEN_DAYS,
        }) as Parameters<Provider['use']>[0],
      );
      provider.use(revokeNamedAccessTokens({ db, tokens, logger }) as Parameters<Provider['use']>[0]);
      // A grant revoked because a refresh token or an authorisation code was used a second time (a stolen copy, or
      // a replay): the account's connection ends, which its user will notice — said once, at warn, with the client.
      // (A revocation the client asked for is logged by revokeNamedAccessTokens.)
      provider.on('grant.revoked', (ctx: KoaContextWithOIDC) => {
        if (ctx.oidc?.route === 'revocation') return;
        logger.warn(
          { clientId: ctx.oidc?.client?.clientId, grantType: ctx.oidc?.params?.grant_type },
          'OAuth grant revoked: a refresh token or authorization code was presented a second time',
        );
      });
      provider.on('server_error', (_ctx: unknown, error: unknown) =>
        logger.error({ err: error }, 'unexpected error in the authorisation server'),
      );
      // Koa's own error listener prints plain-text stacks to stderr: a client that went away mid-request, a body that
      // would not parse. Those are the client's (info, no stack); anything else is ours, as one JSON line.
      // The provider is the Koa application itself (oidc-provider 9): its 'error' event is Koa's.
      (provider as unknown as NodeJS.EventEmitter).on(
        'error',
        (error: Error & { status?: number; expose?: boolean; code?: string }) => {
          if (isClientAbort(error) || error.expose || (error.status !== undefined && error.status < 500)) {
            logger.info({ code: error.code, status: error.status, reason: error.message }, 'OAuth request refused');
          } else logger.error({ err: error }, 'unexpected error in the authorisation server');
        },
      );
      if (providers.size >= MAX_ISSUERS) providers.delete(providers.keys().next().value ?? '');
      entry = { provider, callback: provider.callback() };
      providers.set(issuer, entry);
    }
    return entry;
  };

  const route = async (req: IncomingMessage, res: ServerResponse, pathname: string): Promise<void> => {
    const issuer = oauthIssuerFor(config, req.headers.host, req.socket.remoteAddress);
    if (!issuer) {
      // Not an error of ours: OAuth 2.1 wants an https issuer, and plain http is only served on loopback.
      logger.info({ path: pathname }, 'OAuth request to an origin without an authorisation server');
      return json(res, 404, { error: 'not_found', error_description: OAUTH_UNAVAILABLE });
    }
    const address = addressOf(req);
    const tooMany = (wait: number) =>
      json(res, 429, { error: 'slow_down', error_description: 'too many requests' }, { 'retry-after': String(wait) });
    // A token request is counted against its address until it succeeds, then against its client instead
    // (src/oauth/client-budget.ts).
    const tokenRequest = isTokenRequest(pathname, req.method);
    const wait = await (tokenRequest ? limits.oauthTokenAttempt(address) : limits.anonymousRequest(address));
    if (wait !== null) return tooMany(wait);
    // Methods a path does not serve, and control characters in any parameter, are refused here, before the provider
    // or the database sees them (src/oauth/hostile-input.ts).
    const methods = methodsOf(pathname, config.OAUTH_DYNAMIC_CLIENT_REGISTRATION);
    if (!methods) return json(res, 404, { error: 'not_found', error_description: 'no such OAuth endpoint' });
    const method = req.method ?? 'GET';
    const allow = methods.allow.join(', ');
    if (!methods.allow.includes(method) && !(method === 'HEAD' && methods.allow.includes('GET'))) {
      logger.info({ method, path: pathname }, 'OAuth request refused: method not allowed');
      return json(
        res,
        405,
        { error: 'invalid_request', error_description: `this endpoint serves ${allow} only` },
        { allow },
      );
    }
    // A CORS preflight (it names an Origin) is the provider's to answer where it serves them; any other OPTIONS is ours.
    if (method === 'OPTIONS' && (!methods.cors || !req.headers.origin)) {
      res.writeHead(204, { allow, 'cache-control': 'no-store' });
      return void res.end();
    }
    const registering = pathname === OAUTH_ROUTES.registration && method === 'POST';
    const refuse = (field: string) => {
      logger.info({ method, path: pathname, parameter: field }, 'OAuth request refused: a control character');
      return json(res, 400, {
        error: registering ? 'invalid_client_metadata' : 'invalid_request',
        error_description: `${field} holds a control character (U+0000-U+001F, U+007F-U+009F), which no OAuth parameter may`,
      });
    };
    const query = (req.url ?? '').indexOf('?');
    const inTarget =
      controlInTarget(pathname, query === -1 ? '' : (req.url ?? '').slice(query + 1)) ??
      controlInAuthorization(req.headers.authorization);
    if (inTarget) return refuse(inTarget);
    const kind = bodyKindOf(req);
    let body: Buffer | undefined;
    if (method === 'POST' && kind && !pathname.startsWith(INTERACTION_PATH)) {
      // Read here (at most what the provider would read) and handed back to it: src/oauth/hostile-input.ts.
      const tooLarge = () =>
        json(res, 413, {
          error: 'invalid_request',
          error_description: `the request body is larger than ${MAX_OAUTH_BODY_BYTES} bytes`,
        });
      if (Number(req.headers['content-length']) > MAX_OAUTH_BODY_BYTES) return tooLarge();
      let read: Awaited<ReturnType<typeof readBody>>;
      try {
        read = await readBody(req, MAX_OAUTH_BODY_BYTES);
      } catch (error) {
        if (!isClientAbort(error)) throw error;
        logger.info({ path: pathname }, 'OAuth request abandoned by the client');
        return void res.destroy();
      }
      if (read === 'too large') return tooLarge();
      const inBody = controlInBody(kind, read, req.headers['content-type']);
      if (inBody) return refuse(inBody);
      replayBody(req, read);
      body = read;
    }
    const clientId = tokenRequest ? clientIdOf(req, kind, body) : null;
    if (clientId !== null) {
      const clientWait = await limits.oauthClientSpent(clientId);
      if (clientWait !== null) return tooMany(clientWait);
    }
    if (PROTECTED_RESOURCE_PATHS.has(pathname)) {
      const cors = { 'access-control-allow-origin': '*' };
      if (method === 'OPTIONS') {
        res.writeHead(204, { ...cors, 'access-control-allow-methods': 'GET', 'access-control-allow-headers': '*' });
        return void res.end();
      }
      // The issuer comes from the Host header unless PUBLIC_BASE_URL is set: then no cache may keep it.
      const caching = config.PUBLIC_BASE_URL ? 'max-age=3600' : 'no-store';
      return json(res, 200, await protectedResourceMetadata(issuer), { ...cors, 'cache-control': caching });
    }
    const { provider, callback } = await providerFor(issuer);
    if (pathname.startsWith(INTERACTION_PATH)) {
      const uid = pathname.slice(INTERACTION_PATH.length);
      if (!UID_SHAPE.test(uid)) return json(res, 404, { error: 'not found' });
      return (await authorisationServer()).handleInteraction(
        provider,
        { db, limits, logger, passwordCost: config.PASSWORD_HASH_COST },
        req,
        res,
        uid,
        address,
      );
    }
    await callback(req, res);
    if (clientId !== null && res.statusCode === 200) await limits.oauthTokenGranted(address, clientId);
  };

  return {
    handles: (pathname) => config.MCP_OAUTH && isOAuthPath(pathname),
    async handle(req, res) {
      const started = performance.now();
      const pathname = URL.parse(req.url ?? '/', 'http://x')?.pathname ?? '/';
      try {
        await route(req, res, pathname);
      } catch (error) {
        if (services.availability.failed(error)) {
          if (!res.headersSent) json(res, 503, { error: 'temporarily_unavailable' }, { 'retry-after': '1' });
        } else {
          logger.error({ err: error, method: req.method, path: pathname }, 'unexpected error in the OAuth door');
          if (!res.headersSent) json(res, 500, { error: 'server_error' });
          else res.destroy();
        }
      }
      logger.info(
        {
          method: req.method,
          path: pathname,
          status: res.statusCode,
          ms: Math.round((performance.now() - started) * 10) / 10,
        },
        'request',
      );
    },
  };
}
