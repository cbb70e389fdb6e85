// The authorisation server for hosted MCP agents (docs/mcp-oauth.md), built on oidc-provider: authorisation code with
// PKCE (S256 only), RFC 9207 `iss` on every authorisation response, resource indicators (RFC 8707: the one resource
// is this gateway's /mcp), refresh tokens rotated on every use, client ID metadata documents and dynamic client
// registration (RFC 7591, with the RFC 7592 read of a registration) for public and confidential clients.
// Its state lives in the database (src/domain/oauth-artifacts.ts); what it signs with and what its cookies are signed
// with derive from JWT_SECRET, so every instance is the same authorisation server.
import { createHmac, createPrivateKey, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Kysely } from 'kysely';
import Provider, { type Configuration, errors, type KoaContextWithOIDC } from 'oidc-provider';
import type { IncomingMessage } from 'node:http';
import type { Config } from '../core/config.js';
import type { Logger } from '../core/logger.js';
import type { Database } from '../db/types.js';
import {
  accountExists,
  clientSecretDigest,
  oauthArtifactAdapter,
  REFRESH_TOKEN_USED_MOMENTS_AGO,
  refreshTokenUsedMomentsAgo,
} from '../domain/oauth-artifacts.js';
import {
  clientMetadataFetch,
  FAILED_FETCH_SECONDS,
  FailedFetches,
  MAX_CLIENT_METADATA_BYTES,
  METADATA_FETCH_FAILED,
  metadataFetchFailure,
} from './client-metadata-fetch.js';
import { CHECKED_CLIENT_METADATA, settleClientMetadata, validateClientMetadata } from './client-rules.js';
import { MAX_OAUTH_BODY_BYTES } from './hostile-input.js';
import { problemPage } from './interaction-page.js';
import { INTERACTION_PATH, mcpResourceUrl, OAUTH_ROUTES, SCOPES } from './endpoints.js';
import { settleRegistration } from './registrations.js';

/** An authorisation code is good for this long (and once). */
export const AUTHORIZATION_CODE_SECONDS = 60;
/** The login and consent page of one request stays usable this long. */
export const INTERACTION_SECONDS = 600;
/** The scope of an authorisation request that names none: read-only access. */
export const DEFAULT_SCOPE = 'mcp:read';
/**
 * Every scope an authorisation request may name: the resource's, `openid`, and `offline_access` (which some clients
 * send to ask for a refresh token: one is issued to any client registered for the refresh_token grant anyway).
 */
const KNOWN_SCOPES = new Set<string>(['openid', 'offline_access', ...SCOPES]);
/** How clients authenticate at the token endpoint: public clients (PKCE alone), or with their secret. */
export const CLIENT_AUTH_METHODS = ['none', 'client_secret_post', 'client_secret_basic'] as const;

export type OAuthConfig = Pick<
  Config,
  | 'JWT_SECRET'
  | 'TRUST_PROXY'
  | 'OAUTH_ACCESS_TOKEN_MINUTES'
  | 'OAUTH_REFRESH_TOKEN_DAYS'
  | 'OAUTH_DYNAMIC_CLIENT_REGISTRATION'
  | 'OAUTH_MAX_REGISTERED_CLIENTS'
  | 'OAUTH_MAX_PENDING_CLIENTS_PER_ADDRESS'
  | 'OAUTH_ALLOW_PRIVATE_CLIENT_METADATA'
  | 'OAUTH_CLIENT_METADATA_CA_FILE'
>;

const derived = (secret: string, purpose: string): Buffer =>
  createHmac('sha256', secret).update(`oauth:${purpose}`).digest();

/** An Ed25519 signing key (id tokens, should a client ask for `openid`) derived from JWT_SECRET: the same everywhere. */
function signingKey(secret: string) {
  // PKCS #8 for an Ed25519 private key is this fixed prefix and the 32-byte seed (RFC 8410).
  const pkcs8 = Buffer.concat([Buffer.from('302e020100300506032b657004220420', 'hex'), derived(secret, 'signing-key')]);
  const jwk = createPrivateKey({ key: pkcs8, format: 'der', type: 'pkcs8' }).export({ format: 'jwk' });
  return {
    ...jwk,
    kid: derived(secret, 'signing-key-id').subarray(0, 8).toString('base64url'),
    use: 'sig',
    alg: 'EdDSA',
  };
}

/** What the provider knows about accounts: that one exists (the interaction page signs the user in). */
const findAccount: Configuration['findAccount'] = async (ctx, id) => {
  const db = (ctx as KoaContextWithOIDC & { state: { db?: Kysely<Database> } }).state.db;
  if (!db || !(await accountExists(db, id))) return undefined;
  return { accountId: id, claims: () => ({ sub: id }) };
};

/** Who registers (the bounds on pending registrations count by client address) and where evictions are noted. */
export interface RegistrantContext {
  addressOf(req: IncomingMessage): string;
  logger: Logger;
}

export function createOAuthProvider(
  issuer: string,
  config: OAuthConfig,
  db: Kysely<Database>,
  registrants: RegistrantContext,
): Provider {
  const resource = mcpResourceUrl(issuer);
  // The provider's own access token is never handed out (src/oauth/token-minting.ts): its lifetime is a formality.
  const accessTokenSeconds = config.OAUTH_ACCESS_TOKEN_MINUTES * 60;
  const refreshTokenSeconds = config.OAUTH_REFRESH_TOKEN_DAYS * 86_400;
  // Client ID metadata documents: which ones a request tried to fetch and which it got (clientMetadataAttempt, below),
  // and the ones that failed lately.
  const failedFetches = new FailedFetches();
  const attempts = new WeakMap<object, { tried: Set<string>; got: Set<string>; reason?: string }>();
  const attemptsOf = (ctx: unknown) => {
    if (!ctx || typeof ctx !== 'object') return undefined;
    let entry = attempts.get(ctx);
    if (!entry) attempts.set(ctx, (entry = { tried: new Set(), got: new Set() }));
    return entry;
  };
  const provider = new Provider(issuer, {
    adapter: oauthArtifactAdapter(db),
    clients: [],
    findAccount,
    jwks: { keys: [signingKey(config.JWT_SECRET)] },
    cookies: { keys: [derived(config.JWT_SECRET, 'cookies').toString('base64url')] },
    routes: OAUTH_ROUTES,
    // mcp:read and mcp:write are the resource's scopes (getResourceServerInfo below); listed here too so that clients
    // may name them when they register (the consent page grants or rejects them both ways).
    scopes: ['openid', ...SCOPES],
    // A request that names no scope (or an empty one) asks for read-only access: without a scope the provider would
    // grant nothing and answer access_denied. Runs after its own scope checks (checkScope), before the interaction.
    extraParams: {
      scope: async (ctx: KoaContextWithOIDC, value: string | undefined) => {
        // A scope this server does not know is refused here, before any consent (the provider would drop it silently,
        // and the code would then be refused at the token endpoint with a generic invalid_grant).
        const unknown = (value ?? '').split(' ').filter((scope) => scope && !KNOWN_SCOPES.has(scope));
        if (unknown.length > 0) {
          throw new errors.InvalidScope(
            `unknown scope ${unknown.slice(0, 3).join(' ').slice(0, 100)}: ask for mcp:read (read-only) or mcp:read mcp:write`,
            unknown.join(' ').slice(0, 200),
          );
        }
        // No scope asked: read-only access, unless the client registered a scope that does not include it.
        const registered = ctx.oidc.client?.scope?.split(' ');
        if (!value?.trim() && (!registered || registered.includes(DEFAULT_SCOPE))) {
          ctx.oidc.params!.scope = DEFAULT_SCOPE;
        }
      },
    },
    responseTypes: ['code'],
    // Public clients (PKCE alone) and confidential ones with a secret (kept as its digest: compareClientSecret below);
    // PKCE is required of both. No client assertions.
    clientAuthMethods: [...CLIENT_AUTH_METHODS],
    pkce: { required: () => true },
    allowOmittingSingleRegisteredRedirectUri: false,
    clientDefaults: {
      grant_types: ['authorization_code'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
      id_token_signed_response_alg: 'EdDSA',
    },
    // Agents may run in a browser (the MCP Inspector does): public clients with PKCE, bearer tokens.
    clientBasedCORS: () => true,
    // Consent is asked every time (each approval makes a new named access token): only the grant the consent page
    // just made counts, never one remembered in the session.
    loadExistingGrant: async (ctx) => {
      const grantId = ctx.oidc.result?.consent?.grantId;
      return grantId ? ctx.oidc.provider.Grant.find(grantId) : undefined;
    },
    // A refresh token for every client registered for the refresh_token grant (MCP clients do not ask for
    // offline_access), rotated on every use; a used one presented again revokes the whole grant (the adapter's
    // consume, and oidc-provider's check of a consumed token: OAuth 2.1 §4.3.1).
    issueRefreshToken: async (_ctx, client) => client.grantTypeAllowed('refresh_token'),
    rotateRefreshToken: true,
    // Errors that cannot go back to the client (an unknown client, a redirect URI it does not have) get our page.
    renderError: (ctx, out, error) => {
      ctx.type = 'html';
      const reason = metadataFetchFailure(error);
      const description = String(out.error_description ?? out.error ?? 'The request is not valid.');
      ctx.body = problemPage(reason ? `${description}: ${reason}` : description);
    },
    interactions: { url: (_ctx, interaction) => `${INTERACTION_PATH}${interaction.uid}` },
    // Redirect URIs and lengths (src/oauth/client-rules.ts), for registered clients and metadata documents alike.
    extraClientMetadata: {
      properties: [...CHECKED_CLIENT_METADATA],
      validator: (_ctx, key, value) => validateClientMetadata(key, value),
    },
    ttl: {
      AuthorizationCode: AUTHORIZATION_CODE_SECONDS,
      Interaction: INTERACTION_SECONDS,
      Session: INTERACTION_SECONDS,
      // A grant lives as long as the refresh tokens issued under it (each refresh extends it: token-minting.ts).
      Grant: refreshTokenSeconds,
      RefreshToken: refreshTokenSeconds,
      AccessToken: accessTokenSeconds,
      IdToken: 3600,
    },
    features: {
      devInteractions: { enabled: false },
      userinfo: { enabled: false },
      // RFC 7009 (docs/mcp-oauth.md "Revocation"): a refresh token revoked ends its whole grant (the provider's revoke
      // by grant: the named access token with it); a named access token is handled by revokeNamedAccessTokens. Only
      // the client a token was issued to may revoke it; any other token is answered 200 and left alone (§2.2).
      revocation: {
        enabled: true,
        allowedPolicy: (_ctx, client, token) => token.clientId === client.clientId,
      },
      introspection: { enabled: false },
      rpInitiatedLogout: { enabled: false },
      pushedAuthorizationRequests: { enabled: false },
      // Every token is a Bearer token: no DPoP algorithms are advertised.
      dPoP: { enabled: false },
      registration: {
        enabled: config.OAUTH_DYNAMIC_CLIENT_REGISTRATION,
        initialAccessToken: false,
        // registration_client_uri and a registration access token (RFC 7592 read), which some hosted clients need.
        issueRegistrationAccessToken: true,
        // Runs before the provider builds the client from the request, so the request can be settled here:
        // - without a token_endpoint_auth_method it would hand out a client_secret to a client whose method (the
        //   default) is none: a client that names none is a public client;
        // - grant types and response types this server does not serve are left out rather than refused (RFC 7591
        //   §3.2.1 lets the server trim; the answer shows what was kept), and authorization_code is always kept.
        idFactory: (ctx) => {
          const body = ctx.oidc.body as Record<string, unknown> | undefined;
          if (body) {
            if (body.token_endpoint_auth_method === undefined) body.token_endpoint_auth_method = 'none';
            settleClientMetadata(body);
          }
          return randomBytes(16).toString('base64url');
        },
      },
      clientIdMetadataDocument: {
        enabled: true,
        ack: 'draft-02',
        cacheDuration: { min: 60, max: 3600 },
        // One fetch per request at most (the provider looks the client up again to report an error), and none of a
        // document that failed in the last FAILED_FETCH_SECONDS.
        allowFetch: async (ctx, clientId) => {
          const seen = attemptsOf(ctx);
          if (seen?.tried.has(clientId)) {
            throw new errors.InvalidClient('client_id metadata document fetch failed', 'tried once in this request');
          }
          const wait = failedFetches.retryAfter(clientId);
          if (wait !== null) {
            const reason = failedFetches.reasonOf(clientId);
            throw new errors.InvalidClient(
              `client_id metadata document fetch failed${reason ? `: ${reason}` : ''} (it failed less than ` +
                `${FAILED_FETCH_SECONDS} s ago; try again in ${wait} s)`,
            );
          }
          seen?.tried.add(clientId);
          return true;
        },
        allowClient: async (ctx, client) => {
          attemptsOf(ctx)?.got.add(client.clientId);
          return true;
        },
      },
      resourceIndicators: {
        enabled: true,
        defaultResource: () => resource,
        useGrantedResource: () => true,
        getResourceServerInfo: (_ctx, indicator) => {
          if (indicator !== resource) throw new errors.InvalidTarget(`the only resource is ${resource}`);
          return {
            scope: SCOPES.join(' '),
            audience: resource,
            accessTokenTTL: accessTokenSeconds,
            accessTokenFormat: 'opaque',
          };
        },
      },
    },
    fetch: clientMetadataFetch({
      allowPrivate: config.OAUTH_ALLOW_PRIVATE_CLIENT_METADATA,
      ...(config.OAUTH_CLIENT_METADATA_CA_FILE ? { caFile: config.OAUTH_CLIENT_METADATA_CA_FILE } : {}),
    }) as unknown as Configuration['fetch'],
    fetchResponseBodyLimits: { 'client_id metadata document': MAX_CLIENT_METADATA_BYTES },
  });
  provider.proxy = config.TRUST_PROXY > 0;
  // A body over the provider's limit, sent in chunks (a declared one is answered before: the middleware below).
  const bodyTooLarge = (ctx: KoaContextWithOIDC, error: unknown) => {
    const cause = (error as { cause?: unknown } | undefined)?.cause;
    if (cause instanceof Error && cause.message === 'request entity too large') {
      (ctx.state as { bodyTooLarge?: boolean }).bodyTooLarge = true;
    }
  };
  provider.on('grant.error', bodyTooLarge);
  // A client ID metadata document that was not taken: why, to the client (the page says it: renderError) and in the
  // log, and remembered with the failure (allowFetch above says it again while it is not fetched).
  const explainMetadataFailure = (ctx: KoaContextWithOIDC, error: unknown) => {
    const reason = metadataFetchFailure(error);
    if (!reason) return;
    const seen = attemptsOf(ctx);
    if (seen) seen.reason = reason;
    registrants.logger.info(
      { clientId: ctx.oidc?.params?.client_id, route: ctx.oidc?.route, reason },
      'client ID metadata document refused',
    );
    const body = ctx.body as { error_description?: unknown } | undefined;
    if (body && typeof body === 'object' && body.error_description === METADATA_FETCH_FAILED) {
      body.error_description = `${METADATA_FETCH_FAILED}: ${reason}`;
    }
  };
  provider.on('grant.error', explainMetadataFailure);
  provider.on('authorization.error', explainMetadataFailure);
  provider.on('revocation.error', explainMetadataFailure);
  // A code whose code_verifier did not match is burnt (issue 41: it stayed redeemable, so a stolen code could be tried
  // against verifiers until one matched, and the rightful client could still redeem it after an attacker's attempt).
  provider.on('grant.error', (ctx: KoaContextWithOIDC, error: unknown) => {
    const cause = (error as { cause?: unknown } | undefined)?.cause;
    if (
      ctx.oidc?.params?.grant_type === 'authorization_code' &&
      cause instanceof Error &&
      /code_verifier/.test(cause.message)
    ) {
      (ctx.state as { burnCode?: string }).burnCode = String(ctx.oidc.params.code);
    }
  });
  provider.on('registration_create.error', bodyTooLarge);
  provider.on('authorization.error', bodyTooLarge);
  const tooLarge = (ctx: KoaContextWithOIDC) => {
    ctx.status = 413;
    ctx.set('cache-control', 'no-store');
    ctx.body = {
      error: 'invalid_request',
      error_description: `the request body is larger than ${MAX_OAUTH_BODY_BYTES} bytes`,
    };
  };
  // The database for findAccount, the body limit, the bounds on pending registrations, and the metadata documents
  // that failed.
  provider.use(async (ctx, next) => {
    (ctx.state as { db?: Kysely<Database> }).db = db;
    if (Number(ctx.get('content-length')) > MAX_OAUTH_BODY_BYTES) return tooLarge(ctx as KoaContextWithOIDC);
    try {
      await next();
    } finally {
      const seen = attempts.get(ctx);
      for (const clientId of seen?.tried ?? []) if (!seen?.got.has(clientId)) failedFetches.add(clientId, seen?.reason);
    }
    if ((ctx.state as { bodyTooLarge?: boolean }).bodyTooLarge) tooLarge(ctx as KoaContextWithOIDC);
    // A refresh refused because its token was used moments ago (a retry, or a refresh racing it): say so, rather than
    // oidc-provider's "grant request is invalid" for a token it did not find.
    await explainRefreshRetry(ctx as KoaContextWithOIDC, db);
    // A registration is never refused for want of room (docs/mcp-oauth.md "Registrations"): it is pending from its
    // address until a code is issued to it, and the oldest pending ones of that address, then of all, make room.
    const registered = ctx.status === 201 && (ctx as KoaContextWithOIDC).oidc?.route === 'registration';
    const clientId = registered ? (ctx.body as { client_id?: unknown } | undefined)?.client_id : undefined;
    if (typeof clientId === 'string') {
      await settleRegistration(db, registrants.logger, clientId, registrants.addressOf(ctx.req), {
        perAddress: config.OAUTH_MAX_PENDING_CLIENTS_PER_ADDRESS,
        total: config.OAUTH_MAX_REGISTERED_CLIENTS,
      });
    }
    // The RFC 7592 read of a registration: the secret was shown once, at registration; what is kept is its digest.
    const oidc = (ctx as KoaContextWithOIDC).oidc;
    if (oidc?.route === 'client' && ctx.body && typeof ctx.body === 'object') {
      delete (ctx.body as Record<string, unknown>).client_secret;
    }
    const burnt = (ctx.state as { burnCode?: string }).burnCode;
    if (burnt) {
      const code = await provider.AuthorizationCode.find(burnt, { ignoreExpiration: true }).catch(() => undefined);
      const client = (ctx as KoaContextWithOIDC).oidc?.client?.clientId;
      if (code && code.clientId === client) await code.destroy();
    }
  });
  // A confidential client's secret is kept as its digest (src/domain/oauth-artifacts.ts): the one presented is
  // compared as a digest, in constant time.
  const clients = provider.Client as unknown as {
    prototype: { clientSecret?: string; compareClientSecret(actual: string): boolean | Promise<boolean> };
  };
  clients.prototype.compareClientSecret = function compareClientSecret(this: { clientSecret?: string }, actual) {
    const stored = Buffer.from(this.clientSecret ?? '');
    const given = Buffer.from(clientSecretDigest(String(actual)));
    return stored.length === given.length && timingSafeEqual(stored, given);
  };
  return provider;
}

async function explainRefreshRetry(ctx: KoaContextWithOIDC, db: Kysely<Database>): Promise<void> {
  const body = ctx.body as { error?: unknown; error_description?: unknown } | undefined;
  const token = ctx.oidc?.params?.refresh_token;
  if (ctx.oidc?.route !== 'token' || ctx.status !== 400 || body?.error !== 'invalid_grant') return;
  if (ctx.oidc.params?.grant_type !== 'refresh_token' || typeof token !== 'string') return;
  if (await refreshTokenUsedMomentsAgo(db, token)) body.error_description = REFRESH_TOKEN_USED_MOMENTS_AGO;
}
