// The authorisation server for hosted MCP agents (docs/mcp-oauth.md), built on oidc-provider: authorisation code with
// PKCE (S256 only), RFC 9207 `iss` on every authorisation response, resource indicators (RFC 8707: the one resource
// is this gateway's /mcp), client ID metadata documents and, as the deprecated fallback, dynamic client registration.
// Its state lives in the database (src/domain/oauth-artifacts.ts); what it signs with and what its cookies are signed
// with derive from JWT_SECRET, so every instance is the same authorisation server.
import { createHmac, createPrivateKey } from 'node:crypto';
import type { Kysely } from 'kysely';
import Provider, { type Configuration, errors, type KoaContextWithOIDC } from 'oidc-provider';
import type { Config } from '../core/config.js';
import type { Database } from '../db/types.js';
import { accountExists, countRegisteredClients, oauthArtifactAdapter } from '../domain/oauth-artifacts.js';
import { clientMetadataFetch, MAX_CLIENT_METADATA_BYTES } from './client-metadata-fetch.js';
import { problemPage } from './interaction-page.js';
import { INTERACTION_PATH, mcpResourceUrl, OAUTH_ROUTES, SCOPES } from './endpoints.js';

/** An authorisation code is good for this long (and once). */
export const AUTHORIZATION_CODE_SECONDS = 60;
/** The login and consent page of one request stays usable this long. */
export const INTERACTION_SECONDS = 600;

export type OAuthConfig = Pick<
  Config,
  | 'JWT_SECRET'
  | 'TRUST_PROXY'
  | 'OAUTH_ACCESS_TOKEN_DAYS'
  | 'OAUTH_DYNAMIC_CLIENT_REGISTRATION'
  | 'OAUTH_MAX_REGISTERED_CLIENTS'
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

export function createOAuthProvider(issuer: string, config: OAuthConfig, db: Kysely<Database>): Provider {
  const resource = mcpResourceUrl(issuer);
  const accessTokenSeconds = config.OAUTH_ACCESS_TOKEN_DAYS * 86_400;
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
    responseTypes: ['code'],
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
    issueRefreshToken: async () => false,
    // Errors that cannot go back to the client (an unknown client, a redirect URI it does not have) get our page.
    renderError: (ctx, out) => {
      ctx.type = 'html';
      ctx.body = problemPage(String(out.error_description ?? out.error ?? 'The request is not valid.'));
    },
    interactions: { url: (_ctx, interaction) => `${INTERACTION_PATH}${interaction.uid}` },
    ttl: {
      AuthorizationCode: AUTHORIZATION_CODE_SECONDS,
      Interaction: INTERACTION_SECONDS,
      Session: INTERACTION_SECONDS,
      Grant: INTERACTION_SECONDS,
      AccessToken: accessTokenSeconds,
      IdToken: 3600,
    },
    features: {
      devInteractions: { enabled: false },
      userinfo: { enabled: false },
      revocation: { enabled: false },
      introspection: { enabled: false },
      rpInitiatedLogout: { enabled: false },
      pushedAuthorizationRequests: { enabled: false },
      registration: {
        enabled: config.OAUTH_DYNAMIC_CLIENT_REGISTRATION,
        initialAccessToken: false,
        issueRegistrationAccessToken: false,
      },
      clientIdMetadataDocument: {
        enabled: true,
        ack: 'draft-02',
        cacheDuration: { min: 60, max: 3600 },
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
  // The database for findAccount, and the cap on registered clients.
  provider.use(async (ctx, next) => {
    (ctx.state as { db?: Kysely<Database> }).db = db;
    if (ctx.path === OAUTH_ROUTES.registration && ctx.method === 'POST') {
      if ((await countRegisteredClients(db)) >= config.OAUTH_MAX_REGISTERED_CLIENTS) {
        ctx.status = 400;
        ctx.body = { error: 'invalid_client_metadata', error_description: 'no more clients can be registered now' };
        return;
      }
    }
    await next();
  });
  return provider;
}
