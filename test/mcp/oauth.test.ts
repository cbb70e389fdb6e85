// Acceptance (docs/mcp-oauth.md): a hosted agent gets a named access token of the account through OAuth, with the MCP
// SDK's client-side auth() against a real server: its client ID metadata document is served over https (a test
// certificate the gateway is told to trust), the user approves on the login and consent page, and the token calls a
// tool on /mcp, is listed among the account's tokens, and stops working once revoked. Then the refusals: a wrong
// redirect URI, a replayed code, a missing or wrong PKCE verifier, another resource, a metadata document on a private
// address without the test allowance; and dynamic client registration as the fallback.
import { randomBytes } from 'node:crypto';
import { createServer } from 'node:http';
import { auth, Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import type { OAuthClientProvider as LegacyOAuthClientProvider } from '@modelcontextprotocol/sdk/client/auth.js';
import { Client as LegacyClient } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as LegacyTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { errors } from 'oidc-provider';
import { afterEach, describe, expect, it } from 'vitest';
import { oauthIssuer, oauthIssuerFor } from '../../src/core/oauth-issuer.js';
import { createAccessToken, listAccessTokens } from '../../src/domain/access-tokens.js';
import { oauthArtifactAdapter, recordIssuedToken, REFRESH_RETRY_SECONDS } from '../../src/domain/oauth-artifacts.js';
import { listen } from '../../src/http/server.js';
import { mcpBearerChallenge } from '../../src/mcp/challenge.js';
import { clientMetadataFetch, ClientMetadataRefused } from '../../src/oauth/client-metadata-fetch.js';
import { FailedFetches } from '../../src/oauth/client-metadata-fetch.js';
import { mintNamedTokens, tokenNameFor } from '../../src/oauth/token-minting.js';
import { createTokenIssuer } from '../../src/security/tokens.js';
import { startApp, type StartOptions, type TestApp } from '../helpers/app.js';
import { loopbackGateways, rawHttp } from '../helpers/gateway.js';
import { logCapture } from '../helpers/log-lines.js';
import {
  authorizeUrl,
  Browser,
  type MetadataBehaviour,
  type MetadataHost,
  pkce,
  REDIRECT_URI,
  serveClientMetadata,
  TestAgent,
} from '../helpers/oauth-agent.js';

const PASSWORD = 'correct horse battery';

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

const gateway = loopbackGateways();

async function serve(env: Record<string, string>, options: StartOptions = {}) {
  const { t, base, url } = await gateway(env, options);
  return { t, base, mcp: url };
}

async function metadataHost(
  extra: Record<string, unknown> = {},
  behaviour: MetadataBehaviour = {},
): Promise<MetadataHost> {
  const host = await serveClientMetadata(extra, behaviour);
  cleanups.push(() => host.close());
  return host;
}

/** A gateway that trusts the metadata host's certificate and may fetch from loopback (tests only). */
async function gatewayFor(host: MetadataHost, env: Record<string, string> = {}, options: StartOptions = {}) {
  return serve(
    { OAUTH_ALLOW_PRIVATE_CLIENT_METADATA: 'true', OAUTH_CLIENT_METADATA_CA_FILE: host.caFile, ...env },
    options,
  );
}

/** A request with a Host header of its own (fetch sends the URL's), or a raw request line. */
function rawRequest(base: string, path: string, headers: Record<string, string>, method = 'GET') {
  return rawHttp(new URL(base).port, method, path, { headers });
}

const METADATA_PATH = '/.well-known/oauth-protected-resource/mcp';

async function callTool(mcp: URL, token: string) {
  const client = new Client({ name: 'oauth-test', version: '1.0.0' });
  await client.connect(
    new StreamableHTTPClientTransport(mcp, { requestInit: { headers: { authorization: `Bearer ${token}` } } }),
  );
  try {
    return await client.callTool({ name: 'campaign_list', arguments: {} });
  } finally {
    await client.close();
  }
}

/** What ChatGPT's connectors register with (a public client asking for refresh tokens). */
const CHATGPT = {
  client_name: 'ChatGPT',
  redirect_uris: [REDIRECT_URI],
  grant_types: ['authorization_code', 'refresh_token'],
  response_types: ['code'],
  token_endpoint_auth_method: 'none',
};
/** What Claude's hosted connector registers with, from its backend: a confidential client and its https callback. */
const CLAUDE_CALLBACK = 'https://claude.ai/api/mcp/auth_callback';
const CLAUDE = {
  client_name: 'Claude',
  redirect_uris: [CLAUDE_CALLBACK],
  grant_types: ['authorization_code', 'refresh_token'],
  response_types: ['code'],
  token_endpoint_auth_method: 'client_secret_post',
};

const LIST = 'query { viewer { accessTokens { tokenId name readOnly mcpOnly expiresAt } } }';
const REVOKE = 'mutation ($id: String!) { accessTokenRevoke(input: { tokenId: $id }) { deletedId } }';

async function redeem(base: string, form: Record<string, string>) {
  const response = await fetch(`${base}/oauth/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams(form).toString(),
  });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

/** Redeems a refresh token of `clientId` (a public client: no secret). */
const refresh = (base: string, refreshToken: string, clientId: string) =>
  redeem(base, { grant_type: 'refresh_token', refresh_token: refreshToken, client_id: clientId });

/** Redeems an authorisation code of `clientId` sent back to REDIRECT_URI; `extra` adds (or replaces) form fields. */
const redeemCode = (base: string, clientId: string, code: string, extra: Record<string, string> = {}) =>
  redeem(base, { grant_type: 'authorization_code', code, client_id: clientId, redirect_uri: REDIRECT_URI, ...extra });

async function codeFor(t: TestApp, base: string, clientId: string, challenge: string) {
  const { email } = await t.account();
  const back = await new Browser().authorize(
    authorizeUrl(base, clientId, { code_challenge: challenge, code_challenge_method: 'S256' }),
    base,
    { email, password: PASSWORD },
  );
  const code = back.searchParams.get('code');
  if (!code) throw new Error(`no code: ${back.href}`);
  return code;
}

describe('OAuth for hosted MCP agents', () => {
  it('issues a named access token through the SDK, with a client ID metadata document', async () => {
    const host = await metadataHost();
    const { t, base, mcp } = await gatewayFor(host);
    const { email, token: login } = await t.account();

    const unauthenticated = await fetch(mcp, { method: 'POST' });
    expect(unauthenticated.status).toBe(401);
    expect(unauthenticated.headers.get('www-authenticate')).toContain(
      `resource_metadata="${base}/.well-known/oauth-protected-resource/mcp"`,
    );
    const metadataResponse = await fetch(`${base}/.well-known/oauth-protected-resource/mcp`);
    // The issuer comes from the Host header here (no PUBLIC_BASE_URL): no cache may keep it.
    expect(metadataResponse.headers.get('cache-control')).toBe('no-store');
    const metadata = await metadataResponse.json();
    expect(metadata).toMatchObject({ resource: `${base}/mcp`, authorization_servers: [base] });
    const server = await (await fetch(`${base}/.well-known/oauth-authorization-server`)).json();
    expect(server).toMatchObject({
      issuer: base,
      client_id_metadata_document_supported: true,
      authorization_response_iss_parameter_supported: true,
      code_challenge_methods_supported: ['S256'],
      // Only what works: codes and refresh tokens; public clients and confidential ones with a secret.
      grant_types_supported: ['authorization_code', 'refresh_token'],
      token_endpoint_auth_methods_supported: ['none', 'client_secret_post', 'client_secret_basic'],
    });
    // Every token is a Bearer token: no DPoP advertised.
    expect(server).not.toHaveProperty('dpop_signing_alg_values_supported');

    const agent = new TestAgent(host.clientId);
    expect(await auth(agent, { serverUrl: mcp })).toBe('REDIRECT');
    const sent = agent.authorizationUrl;
    expect(sent?.searchParams.get('client_id')).toBe(host.clientId);
    expect(sent?.searchParams.get('code_challenge_method')).toBe('S256');
    expect(sent?.searchParams.get('resource')).toBe(`${base}/mcp`);

    const back = await new Browser().authorize(sent!.href, base, { email, password: PASSWORD });
    expect(back.origin + back.pathname).toBe(REDIRECT_URI);
    expect(back.searchParams.get('iss')).toBe(base);
    const code = back.searchParams.get('code');
    expect(code).toBeTruthy();
    expect(await auth(agent, { serverUrl: mcp, authorizationCode: code!, iss: back.searchParams.get('iss')! })).toBe(
      'AUTHORIZED',
    );
    const token = agent.tokens()?.access_token ?? '';
    expect(token).toMatch(/^cgat_/);

    const result = await callTool(mcp, token);
    expect(result.isError).toBeFalsy();
    // Bound to the resource it was issued for (RFC 8707): /mcp only, no credential on the other doors.
    const graphql = await fetch(`${base}/graphql`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ query: '{ viewer { email } }' }),
    });
    expect((await graphql.json()).errors?.[0]?.extensions?.code).toBe('UNAUTHENTICATED');
    const rest = await fetch(`${base}/api/v3/get_campaigns`, { headers: { authorization: `Bearer ${token}` } });
    expect(rest.status).toBe(401);

    const listed = await t.gql(LIST, {}, login);
    const tokens = listed.body.data.viewer.accessTokens as Array<{ tokenId: string; name: string; readOnly: boolean }>;
    expect(tokens).toEqual([expect.objectContaining({ name: 'MCP: Test <Agent>', readOnly: false, mcpOnly: true })]);
    await t.gql(REVOKE, { id: tokens[0]!.tokenId }, login);
    await expect(callTool(mcp, token)).rejects.toThrow();
  });

  it('refuses a wrong redirect URI, a replayed code, a missing or wrong verifier, and another resource', async () => {
    const host = await metadataHost();
    const { t, base } = await gatewayFor(host);
    const { email } = await t.account();

    // Not a redirect URI of the client: an error page, no redirect anywhere.
    const wrong = await new Browser().go(
      authorizeUrl(base, host.clientId, {
        redirect_uri: 'https://agent.example/other',
        code_challenge: pkce().challenge,
        code_challenge_method: 'S256',
      }),
    );
    expect(wrong.response.status).toBe(400);
    expect(wrong.location).toBeNull();
    // Another resource: back to the agent with invalid_target, and iss.
    const other = await new Browser().go(
      authorizeUrl(base, host.clientId, {
        resource: 'https://other.example/mcp',
        code_challenge: pkce().challenge,
        code_challenge_method: 'S256',
      }),
    );
    const refused = new URL(other.location ?? 'x:');
    expect(refused.searchParams.get('error')).toBe('invalid_target');
    expect(refused.searchParams.get('iss')).toBe(base);
    // No PKCE, or plain PKCE: refused too.
    const plain = await new Browser().go(
      authorizeUrl(base, host.clientId, { code_challenge: 'a'.repeat(43), code_challenge_method: 'plain' }),
    );
    expect(new URL(plain.location ?? 'x:').searchParams.get('error')).toBe('invalid_request');
    const none = await new Browser().go(authorizeUrl(base, host.clientId));
    expect(new URL(none.location ?? 'x:').searchParams.get('error')).toBe('invalid_request');

    const redeemWith = (code: string, extra: Record<string, string>) => redeemCode(base, host.clientId, code, extra);
    const { verifier, challenge } = pkce();
    const missing = await codeFor(t, base, host.clientId, challenge);
    expect(await redeemWith(missing, {})).toMatchObject({ status: 400, body: { error: 'invalid_grant' } });
    const wrongVerifier = await codeFor(t, base, host.clientId, challenge);
    expect(await redeemWith(wrongVerifier, { code_verifier: pkce().verifier })).toMatchObject({
      status: 400,
      body: { error: 'invalid_grant' },
    });
    // The failed verification burnt the code: the right verifier cannot redeem it afterwards (nor a missing one).
    expect(await redeemWith(wrongVerifier, { code_verifier: verifier })).toMatchObject({
      status: 400,
      body: { error: 'invalid_grant' },
    });
    expect(await redeemWith(missing, { code_verifier: verifier })).toMatchObject({ status: 400 });
    const good = await codeFor(t, base, host.clientId, challenge);
    expect(
      await redeemWith(good, { code_verifier: verifier, redirect_uri: 'https://agent.example/other' }),
    ).toMatchObject({
      status: 400,
      body: { error: 'invalid_grant' },
    });
    const once = await codeFor(t, base, host.clientId, challenge);
    const first = await redeemWith(once, { code_verifier: verifier });
    expect(first.status).toBe(200);
    expect(first.body.access_token).toMatch(/^cgat_/);
    expect((await callTool(new URL(`${base}/mcp`), String(first.body.access_token))).isError).toBeFalsy();
    expect(await redeemWith(once, { code_verifier: verifier })).toMatchObject({
      status: 400,
      body: { error: 'invalid_grant' },
    });
    // The replay revokes what the code was redeemed for: whoever replays a code may have stolen it.
    await expect(callTool(new URL(`${base}/mcp`), String(first.body.access_token))).rejects.toThrow();
    void email;
  });

  it('grants read-only access when the user chooses it', async () => {
    const host = await metadataHost();
    const { t, base, mcp } = await gatewayFor(host);
    const { email, token: login } = await t.account();
    const { verifier, challenge } = pkce();
    const back = await new Browser().authorize(
      authorizeUrl(base, host.clientId, { code_challenge: challenge, code_challenge_method: 'S256' }),
      base,
      { email, password: PASSWORD, access: 'read' },
    );
    const issued = await redeemCode(base, host.clientId, back.searchParams.get('code') ?? '', {
      code_verifier: verifier,
    });
    expect(issued.body.scope).toBe('mcp:read');
    const listed = await t.gql(LIST, {}, login);
    expect(listed.body.data.viewer.accessTokens).toEqual([expect.objectContaining({ readOnly: true })]);
    expect((await callTool(mcp, String(issued.body.access_token))).isError).toBeFalsy();
  });

  it('grants read-only access to a client that asks for no scope (none, or an empty one)', async () => {
    const host = await metadataHost();
    const { t, base } = await gatewayFor(host);
    const { email, token: login } = await t.account();
    for (const scope of [null, '']) {
      const { verifier, challenge } = pkce();
      const back = await new Browser().authorize(
        authorizeUrl(base, host.clientId, { scope, code_challenge: challenge, code_challenge_method: 'S256' }),
        base,
        { email, password: PASSWORD },
      );
      expect(back.searchParams.get('error')).toBeNull();
      const issued = await redeemCode(base, host.clientId, back.searchParams.get('code') ?? '', {
        code_verifier: verifier,
      });
      expect(issued).toMatchObject({ status: 200, body: { scope: 'mcp:read' } });
    }
    const listed = await t.gql(LIST, {}, login);
    expect(listed.body.data.viewer.accessTokens).toEqual([
      expect.objectContaining({ readOnly: true }),
      expect.objectContaining({ readOnly: true }),
    ]);
  });

  it('refuses a wrong password and a denial', async () => {
    const host = await metadataHost();
    const { t, base } = await gatewayFor(host);
    const { email } = await t.account();
    const browser = new Browser();
    const page = await browser.follow(
      authorizeUrl(base, host.clientId, { code_challenge: pkce().challenge, code_challenge_method: 'S256' }),
      base,
    );
    const action = new URL(/action="([^"]+)"/.exec(page.text)?.[1] ?? '', base).href;
    const bad = await browser.go(action, { method: 'POST', form: { email, password: 'wrong', decision: 'approve' } });
    expect(bad.response.status).toBe(401);
    expect(bad.text).toContain('Incorrect e-mail or password');
    const foreign = await browser.go(action, {
      method: 'POST',
      form: { email, password: PASSWORD, decision: 'approve' },
      origin: 'https://evil.example',
    });
    expect(foreign.response.status).toBe(403);
    const denied = await browser.go(action, { method: 'POST', form: { decision: 'deny' } });
    const back = await browser.follow(denied.location ?? '', base);
    const url = new URL(back.location ?? 'x:');
    expect(url.searchParams.get('error')).toBe('access_denied');
    expect(url.searchParams.get('iss')).toBe(base);
  });

  it('does not fetch a metadata document from a private address without the test allowance', async () => {
    const host = await metadataHost();
    const { base } = await serve({ OAUTH_CLIENT_METADATA_CA_FILE: host.caFile });
    for (const clientId of [host.clientId, host.clientId.replace('localhost', '127.0.0.1')]) {
      const page = await new Browser().go(
        authorizeUrl(base, clientId, { code_challenge: pkce().challenge, code_challenge_method: 'S256' }),
      );
      expect(page.response.status).toBe(400);
      expect(page.location).toBeNull();
      expect(page.text).toMatch(/client_id metadata document fetch failed: \S/);
    }
    expect(host.fetches()).toBe(0);
  });

  it('registers a client dynamically (the deprecated fallback) and completes the flow', async () => {
    const { t, base, mcp } = await serve({});
    const { email } = await t.account();
    const agent = new TestAgent();
    expect(await auth(agent, { serverUrl: mcp })).toBe('REDIRECT');
    expect(agent.clientInformation()?.client_id).toBeTruthy();
    const back = await new Browser().authorize(agent.authorizationUrl!.href, base, { email, password: PASSWORD });
    expect(
      await auth(agent, {
        serverUrl: mcp,
        authorizationCode: back.searchParams.get('code')!,
        iss: back.searchParams.get('iss')!,
      }),
    ).toBe('AUTHORIZED');
    expect((await callTool(mcp, agent.tokens()?.access_token ?? '')).isError).toBeFalsy();
  });

  it('refuses no registration past the cap: the oldest unused one makes room (test/mcp/oauth-registration-flood)', async () => {
    const { t, base } = await serve({ OAUTH_MAX_REGISTERED_CLIENTS: '1' });
    const register = async () => {
      const answer = await fetch(`${base}/oauth/register`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ redirect_uris: [REDIRECT_URI], token_endpoint_auth_method: 'none' }),
      });
      expect(answer.status).toBe(201);
      return ((await answer.json()) as { client_id: string }).client_id;
    };
    await register();
    const second = await register();
    const kept = await t.app.database.db
      .selectFrom('oauth_artifacts')
      .select('id')
      .where('model', '=', 'Client')
      .execute();
    expect(kept.map((row) => row.id)).toEqual([second]);
  });
});

describe('dynamic client registration, hostile input', () => {
  const registerAt = (base: string, body: Record<string, unknown>) =>
    fetch(`${base}/oauth/register`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });

  it('makes public clients by default; a client_secret_post client gets a secret once, kept as its digest', async () => {
    const { t, base } = await serve({});
    const plain = await registerAt(base, { redirect_uris: [REDIRECT_URI], client_name: 'Agent' });
    expect(plain.status).toBe(201);
    const registered = (await plain.json()) as Record<string, unknown>;
    expect(registered.token_endpoint_auth_method).toBe('none');
    expect(registered).not.toHaveProperty('client_secret');
    for (const method of ['client_secret_jwt', 'private_key_jwt']) {
      const refused = await registerAt(base, { redirect_uris: [REDIRECT_URI], token_endpoint_auth_method: method });
      expect(refused.status).toBe(400);
      expect(await refused.json()).toMatchObject({ error: 'invalid_client_metadata' });
    }
    const confidential = await registerAt(base, { ...CLAUDE, token_endpoint_auth_method: 'client_secret_basic' });
    expect(confidential.status).toBe(201);
    const { client_id: clientId, client_secret: secret } = (await confidential.json()) as Record<string, string>;
    expect(secret).toMatch(/^[A-Za-z0-9_-]{40,}$/);
    const rows = await t.app.database.db.selectFrom('oauth_artifacts').select(['id', 'payload']).execute();
    expect(JSON.stringify(rows)).not.toContain(secret);
    // The secret works by either method, a wrong one does not.
    const basic = (value: string) => `Basic ${Buffer.from(`${clientId}:${value}`).toString('base64')}`;
    const token = (authorization: string) =>
      fetch(`${base}/oauth/token`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded', authorization },
        body: new URLSearchParams({ grant_type: 'authorization_code', code: 'x', redirect_uri: CLAUDE_CALLBACK }),
      });
    const wrong = await token(basic(`${secret}x`));
    expect(wrong.status).toBe(401);
    expect(await wrong.json()).toMatchObject({ error: 'invalid_client' });
    // Authenticated: the code is the problem now.
    expect(await (await token(basic(secret!))).json()).toMatchObject({ error: 'invalid_grant' });
  });

  it('accepts what hosted platforms register with: refresh_token, client_secret_post, an RFC 7592 read', async () => {
    const { base } = await serve({});
    // ChatGPT's connectors and the SDKs' examples: a public client asking for refresh tokens.
    const chatgpt = await registerAt(base, CHATGPT);
    expect(chatgpt.status, await chatgpt.clone().text()).toBe(201);
    expect(await chatgpt.json()).toMatchObject({
      grant_types: ['authorization_code', 'refresh_token'],
      token_endpoint_auth_method: 'none',
    });
    // Grant types and response types not served are left out (RFC 7591 §3.2.1), never a reason to refuse.
    const greedy = await registerAt(base, {
      ...CHATGPT,
      grant_types: ['client_credentials', 'refresh_token', 'implicit', 'urn:ietf:params:oauth:grant-type:device_code'],
      response_types: ['code', 'token'],
    });
    expect(greedy.status, await greedy.clone().text()).toBe(201);
    expect(await greedy.json()).toMatchObject({
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
    });
    // Claude's hosted connector: a confidential client (client_secret_post) with its https callback.
    const claude = await registerAt(base, CLAUDE);
    expect(claude.status, await claude.clone().text()).toBe(201);
    const registered = (await claude.json()) as Record<string, string>;
    expect(registered).toMatchObject({
      token_endpoint_auth_method: 'client_secret_post',
      redirect_uris: [CLAUDE_CALLBACK],
    });
    expect(registered.client_secret).toBeTruthy();
    expect(registered.registration_client_uri).toBe(`${base}/oauth/register/${registered.client_id}`);
    expect(registered.registration_access_token).toBeTruthy();
    // RFC 7592 read: the registration as kept, without the secret (shown once).
    const read = await fetch(registered.registration_client_uri!, {
      headers: { authorization: `Bearer ${registered.registration_access_token}` },
    });
    expect(read.status).toBe(200);
    const kept = (await read.json()) as Record<string, unknown>;
    expect(kept).toMatchObject({ client_id: registered.client_id, redirect_uris: [CLAUDE_CALLBACK] });
    expect(kept).not.toHaveProperty('client_secret');
    const unauthorised = await fetch(registered.registration_client_uri!, {
      headers: { authorization: 'Bearer nope' },
    });
    expect(unauthorised.status).toBe(401);
  });

  it('accepts https, loopback http and native private-use redirect URIs only, at most 10 of at most 2000 characters', async () => {
    const { base } = await serve({});
    const refusedWith = async (body: Record<string, unknown>, error: string) => {
      const answer = await registerAt(base, body);
      expect(answer.status).toBe(400);
      expect(await answer.json()).toMatchObject({ error });
    };
    for (const uri of ['http://evil.example/cb', 'http://10.0.0.1/cb', 'javascript:alert(1)', 'data:text/html,x']) {
      await refusedWith({ redirect_uris: [REDIRECT_URI, uri] }, 'invalid_redirect_uri');
    }
    for (const uri of ['http://127.0.0.1:9999/cb', 'http://localhost/cb', 'http://[::1]:8080/cb']) {
      expect((await registerAt(base, { redirect_uris: [uri] })).status).toBe(201);
    }
    // A native app's private-use scheme (RFC 8252 §7.1), as desktop agents such as Cursor register.
    for (const uri of ['cursor://anysphere.cursor-mcp/oauth/callback', 'com.example.agent:/callback']) {
      const native = await registerAt(base, { redirect_uris: [uri], application_type: 'native' });
      expect(native.status, await native.clone().text()).toBe(201);
    }
    const many = Array.from({ length: 11 }, (_, i) => `https://agent.example/cb${i}`);
    await refusedWith({ redirect_uris: many }, 'invalid_redirect_uri');
    expect((await registerAt(base, { redirect_uris: many.slice(0, 10) })).status).toBe(201);
    await refusedWith({ redirect_uris: [`https://agent.example/${'x'.repeat(2000)}`] }, 'invalid_redirect_uri');
    await refusedWith({ redirect_uris: [REDIRECT_URI], client_name: 'n'.repeat(201) }, 'invalid_client_metadata');
    await refusedWith(
      { redirect_uris: [REDIRECT_URI], client_uri: `https://agent.example/${'x'.repeat(2000)}` },
      'invalid_client_metadata',
    );
    await refusedWith(
      { redirect_uris: [REDIRECT_URI], contacts: Array.from({ length: 11 }, (_, i) => `a${i}@agent.example`) },
      'invalid_client_metadata',
    );
  });

  it("lets a platform's shared backend register for many users; an unused registration goes after an hour", async () => {
    const { t, base } = await serve({ TRUST_PROXY: '1' });
    const from = (address: string) =>
      fetch(`${base}/oauth/register`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-forwarded-for': address },
        body: JSON.stringify(CLAUDE),
      });
    // Twenty users of one platform connecting at once, two registrations each, from one backend address.
    const answers = await Promise.all(Array.from({ length: 40 }, () => from('198.51.100.7')));
    expect(answers.map((answer) => answer.status)).toEqual(Array(40).fill(201));
    const expiries = await t.app.database.db
      .selectFrom('oauth_artifacts')
      .select('expires_at')
      .where('model', '=', 'Client')
      .execute();
    expect(expiries).toHaveLength(40);
    for (const { expires_at } of expiries) {
      const left = Date.parse(expires_at!) - Date.now();
      expect(left).toBeGreaterThan(3_500_000);
      expect(left).toBeLessThanOrEqual(3_600_000);
    }
  });

  it('answers 413 to a body over the limit at /oauth/register and /oauth/token, declared or chunked', async () => {
    const { base } = await serve({});
    const big = JSON.stringify({ redirect_uris: [REDIRECT_URI], padding: 'x'.repeat(60 * 1024) });
    const declared = await fetch(`${base}/oauth/register`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: big,
    });
    expect(declared.status).toBe(413);
    expect(await declared.json()).toMatchObject({
      error: 'invalid_request',
      error_description: expect.stringContaining('57344'),
    });
    const chunked = await fetch(`${base}/oauth/register`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: new Blob([big]).stream(),
      duplex: 'half',
    } as RequestInit);
    expect(chunked.status).toBe(413);
    expect(await chunked.json()).toMatchObject({ error: 'invalid_request' });
    const token = await fetch(`${base}/oauth/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ grant_type: 'authorization_code', code: 'x'.repeat(60 * 1024) }).toString(),
    });
    expect(token.status).toBe(413);
    expect(await token.json()).toMatchObject({ error: 'invalid_request' });
  });
});

/** Whether a string has a lone surrogate (half a character). */
const loneSurrogate = (text: string) =>
  /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/.test(text);

describe('token names from OAuth', () => {
  it('falls back to the client id host when the name is empty once cleaned, and cuts by code points', () => {
    const id = 'https://agent.example/client.json';
    expect(tokenNameFor('\u200b', id)).toBe('MCP: agent.example');
    expect(tokenNameFor(' \u2066\u0007 ', id)).toBe('MCP: agent.example');
    expect(tokenNameFor(undefined, id)).toBe('MCP: agent.example');
    expect(tokenNameFor('My\u200bAgent\n2', id)).toBe('MCP: My Agent 2');
    const emoji = tokenNameFor('\u{1F600}'.repeat(60), id);
    expect(emoji.length).toBeLessThanOrEqual(100);
    expect(loneSurrogate(emoji)).toBe(false);
    expect(emoji).not.toContain('\uFFFD');
    expect(emoji).toBe(`MCP: ${'\u{1F600}'.repeat(47)}`);
    // "MCP: " and 94 ASCII characters, then an emoji that would straddle the 100th unit: left out whole.
    expect(tokenNameFor(`${'a'.repeat(94)}\u{1F600}`, id)).toBe(`MCP: ${'a'.repeat(94)}`);
    // A lone surrogate in the name is no half character in the token's name.
    expect(tokenNameFor('Agent\uD800', id)).toBe('MCP: Agent');
    expect(tokenNameFor('x'.repeat(200), id)).toHaveLength(100);
  });
});

describe('where OAuth can be served (an https issuer, or http on loopback)', () => {
  it('knows an https issuer, or an http one on a loopback host, and nothing else', () => {
    const local = { MCP_OAUTH: true, PUBLIC_BASE_URL: undefined };
    expect(oauthIssuer(local, 'localhost:3000')).toBe('http://localhost:3000');
    expect(oauthIssuer(local, '127.1.2.3:8080')).toBe('http://127.1.2.3:8080');
    expect(oauthIssuer(local, '[::1]:3000')).toBe('http://[::1]:3000');
    for (const host of ['gateway.internal', '10.0.0.1:3000', 'localhost.evil.example', '128.0.0.1', undefined]) {
      expect(oauthIssuer(local, host)).toBeNull();
    }
    expect(oauthIssuer({ MCP_OAUTH: true, PUBLIC_BASE_URL: 'https://gw.example/prefix' }, 'x')).toBe(
      'https://gw.example',
    );
    expect(oauthIssuer({ MCP_OAUTH: true, PUBLIC_BASE_URL: 'http://127.0.0.1:4000' }, 'x')).toBe(
      'http://127.0.0.1:4000',
    );
    expect(oauthIssuer({ MCP_OAUTH: true, PUBLIC_BASE_URL: 'http://gw.example' }, 'localhost')).toBeNull();
    expect(oauthIssuer({ MCP_OAUTH: false }, 'localhost:3000')).toBeNull();
    expect(oauthIssuer({ MCP_OAUTH: false, PUBLIC_BASE_URL: 'https://gw.example' }, 'x')).toBeNull();

    const challenge = (config: Parameters<typeof mcpBearerChallenge>[0], url: string) =>
      mcpBearerChallenge(config, new Request(url), 'missing');
    expect(challenge(local, 'http://localhost:3000/mcp')).toBe(
      `Bearer realm="campaign-gateway", resource_metadata="http://localhost:3000${METADATA_PATH}"`,
    );
    expect(challenge(local, 'http://gateway.internal/mcp')).toBe('Bearer realm="campaign-gateway"');
    expect(challenge({ MCP_OAUTH: false }, 'http://localhost:3000/mcp')).toBe('Bearer realm="campaign-gateway"');
  });

  it('serves a Host-derived loopback issuer to loopback connections only', () => {
    const local = { MCP_OAUTH: true, PUBLIC_BASE_URL: undefined };
    // A remote client naming `Host: localhost` gets no authorisation server.
    expect(oauthIssuerFor(local, 'localhost:4000', '203.0.113.5')).toBeNull();
    expect(oauthIssuerFor(local, 'localhost:4000', '2001:db8::5')).toBeNull();
    expect(oauthIssuerFor(local, 'localhost:4000', undefined)).toBeNull();
    for (const address of ['127.0.0.1', '::1', '::ffff:127.0.0.1']) {
      expect(oauthIssuerFor(local, 'localhost:4000', address)).toBe('http://localhost:4000');
    }
    // With PUBLIC_BASE_URL the connection does not matter: its origin is the issuer.
    expect(oauthIssuerFor({ MCP_OAUTH: true, PUBLIC_BASE_URL: 'https://gw.example' }, 'x', '203.0.113.5')).toBe(
      'https://gw.example',
    );
  });

  it('answers 404 on a non-loopback http origin without PUBLIC_BASE_URL, names no metadata there, logs no error', async () => {
    const log = logCapture();
    const { base } = await serve({ LOG_LEVEL: 'info' }, { logStream: log.stream });
    for (const path of [METADATA_PATH, '/.well-known/oauth-authorization-server', '/oauth/authorize?client_id=x']) {
      const answer = await rawRequest(base, path, { host: 'gateway.internal' });
      expect(answer.status).toBe(404);
      expect(JSON.parse(answer.body)).toEqual({
        error: 'not_found',
        error_description: expect.stringContaining('needs an https PUBLIC_BASE_URL'),
      });
    }
    const unauthenticated = await rawRequest(base, '/mcp', { host: 'gateway.internal' }, 'POST');
    expect(unauthenticated.status).toBe(401);
    expect(unauthenticated.headers['www-authenticate']).toBe('Bearer realm="campaign-gateway"');
    // On a loopback host it is served.
    const port = new URL(base).port;
    const local = await rawRequest(base, METADATA_PATH, { host: `localhost:${port}` });
    expect(local.status).toBe(200);
    expect(JSON.parse(local.body)).toMatchObject({ authorization_servers: [`http://localhost:${port}`] });
    expect(log.lines.filter((line) => line.level >= 50)).toEqual([]);
    expect(log.lines.filter((line) => line.msg.includes('origin without an authorisation server'))).toHaveLength(3);
  });

  it('with an http PUBLIC_BASE_URL: one warning at start-up, 404s, and no resource_metadata', async () => {
    const log = logCapture();
    const { base, mcp } = await serve(
      { LOG_LEVEL: 'info', PUBLIC_BASE_URL: 'http://gateway.example' },
      { logStream: log.stream },
    );
    const warnings = log.lines.filter((line) => line.level === 40 && line.msg.includes('OAuth for hosted agents'));
    expect(warnings).toEqual([
      expect.objectContaining({ msg: expect.stringContaining('off until PUBLIC_BASE_URL is https') }),
    ]);
    expect((await fetch(`${base}${METADATA_PATH}`)).status).toBe(404);
    expect((await fetch(`${base}/oauth/register`, { method: 'POST' })).status).toBe(404);
    const unauthenticated = await fetch(mcp, { method: 'POST' });
    expect(unauthenticated.status).toBe(401);
    expect(unauthenticated.headers.get('www-authenticate')).toBe('Bearer realm="campaign-gateway"');
    expect(log.lines.filter((line) => line.level >= 50)).toEqual([]);
  });

  it('with an https PUBLIC_BASE_URL: the metadata and the challenge name it, whatever the Host', async () => {
    const log = logCapture();
    const { base, mcp } = await serve(
      { LOG_LEVEL: 'info', PUBLIC_BASE_URL: 'https://gateway.example' },
      { logStream: log.stream },
    );
    expect(log.lines.filter((line) => line.level >= 40)).toEqual([]);
    const metadata = await rawRequest(base, METADATA_PATH, { host: 'gateway.internal' });
    expect(metadata.status).toBe(200);
    expect(metadata.headers['cache-control']).toBe('max-age=3600');
    expect(JSON.parse(metadata.body)).toMatchObject({
      resource: 'https://gateway.example/mcp',
      authorization_servers: ['https://gateway.example'],
    });
    const unauthenticated = await fetch(mcp, { method: 'POST' });
    expect(unauthenticated.headers.get('www-authenticate')).toContain(
      `resource_metadata="https://gateway.example${METADATA_PATH}"`,
    );
  });

  it('with MCP_OAUTH=false: no OAuth paths, and the challenge names no metadata', async () => {
    const { base, mcp } = await serve({ MCP_OAUTH: 'false' });
    expect((await fetch(`${base}${METADATA_PATH}`)).status).toBe(404);
    const unauthenticated = await fetch(mcp, { method: 'POST' });
    expect(unauthenticated.status).toBe(401);
    expect(unauthenticated.headers.get('www-authenticate')).toBe('Bearer realm="campaign-gateway"');
  });
});

describe('the consent form', () => {
  it("posts to the interaction's own path, whatever the request line", async () => {
    const host = await metadataHost();
    const { t, base } = await gatewayFor(host);
    const browser = new Browser();
    const page = await browser.follow(
      authorizeUrl(base, host.clientId, { code_challenge: pkce().challenge, code_challenge_method: 'S256' }),
      base,
    );
    const action = /action="([^"]+)"/.exec(page.text)?.[1] ?? '';
    expect(action).toMatch(/^\/oauth\/interaction\/[A-Za-z0-9_-]+$/);
    // The listener hands the door only request lines under /oauth/; dot segments are still the request's to choose.
    const dotted = await rawRequest(base, `/oauth/x/..${action.slice('/oauth'.length)}`, {
      cookie: browser.cookieHeader(),
    });
    expect(dotted.status).toBe(200);
    expect(/action="([^"]+)"/.exec(dotted.body)?.[1]).toBe(action);
    // The door itself, given a request line that would make a protocol-relative action of the raw path.
    const bare = createServer((req, res) => void t.app.oauth.handle(req, res));
    cleanups.push(() => new Promise<void>((resolve) => bare.close(() => resolve())));
    const { port } = await listen(bare, 0, '127.0.0.1');
    const shown = await rawRequest(`http://127.0.0.1:${port}`, `//evil.example${action}`, {
      host: new URL(base).host,
      cookie: browser.cookieHeader(),
      connection: 'close',
    });
    expect(shown.status).toBe(200);
    expect(/action="([^"]+)"/.exec(shown.body)?.[1]).toBe(action);
  });
});

describe('client ID metadata documents', () => {
  it('refuses a document over 5 KB, with a description', async () => {
    const host = await metadataHost({ padding: 'x'.repeat(6000) });
    const { base } = await gatewayFor(host);
    const page = await new Browser().go(
      authorizeUrl(base, host.clientId, { code_challenge: pkce().challenge, code_challenge_method: 'S256' }),
    );
    expect(page.response.status).toBe(400);
    expect(page.location).toBeNull();
    expect(page.text).toContain('client_id metadata document fetch failed');
    // Why, in words (issue 53).
    expect(page.text).toContain('larger than 5120 bytes');
    const fetchIt = clientMetadataFetch({ allowPrivate: true, caFile: host.caFile });
    await expect(fetchIt(host.clientId)).rejects.toThrow(/larger than 5120 bytes/);
  });

  it('refuses a document whose Content-Length is over 5 KB, and one that stalls past the time limit', async () => {
    const declared = await metadataHost({}, { stall: true, contentLength: 6000 });
    const fetchDeclared = clientMetadataFetch({ allowPrivate: true, caFile: declared.caFile, timeoutMs: 5000 });
    await expect(fetchDeclared(declared.clientId)).rejects.toThrow(/larger than 5120 bytes/);
    const stalled = await metadataHost({}, { stall: true });
    const fetchStalled = clientMetadataFetch({ allowPrivate: true, caFile: stalled.caFile, timeoutMs: 200 });
    const started = Date.now();
    const refused = fetchStalled(stalled.clientId);
    await expect(refused).rejects.toBeInstanceOf(ClientMetadataRefused);
    await expect(refused).rejects.toThrow(/did not arrive within 200 ms/);
    expect(Date.now() - started).toBeLessThan(2000);
  });

  it('fetches a failing document once per request, and not again for a while; says why, to the client and in the log', async () => {
    for (const status of [404, 500]) {
      const host = await metadataHost({}, { status });
      const log = logCapture();
      const { base } = await gatewayFor(host, { LOG_LEVEL: 'info' }, { logStream: log.stream });
      const url = authorizeUrl(base, host.clientId, {
        code_challenge: pkce().challenge,
        code_challenge_method: 'S256',
      });
      const page = await new Browser().go(url);
      expect(page.response.status).toBe(400);
      expect(page.text).toContain('client_id metadata document fetch failed');
      expect(page.text).toContain(`answered HTTP ${status}`);
      expect(host.fetches()).toBe(1);
      const again = await new Browser().go(url);
      expect(again.response.status).toBe(400);
      expect(again.text).toContain('client_id metadata document fetch failed');
      expect(again.text).toContain(`answered HTTP ${status}`);
      expect(host.fetches()).toBe(1);
      const logged = log.lines.filter((line) => line.msg === 'client ID metadata document refused');
      expect(logged).toHaveLength(1);
      expect(logged[0]).toMatchObject({
        level: 30,
        clientId: host.clientId,
        reason: expect.stringContaining(String(status)),
      });
    }
    // A document with a plain-http redirect URI on a public name, and one whose client_id is not its URL.
    for (const extra of [{ redirect_uris: ['http://evil.example/cb'] }, { client_id: 'https://other.example/c' }]) {
      const host = await metadataHost(extra);
      const { base } = await gatewayFor(host);
      const url = authorizeUrl(base, host.clientId, {
        code_challenge: pkce().challenge,
        code_challenge_method: 'S256',
      });
      expect((await new Browser().go(url)).response.status).toBe(400);
      expect((await new Browser().go(url)).response.status).toBe(400);
      expect(host.fetches()).toBe(1);
    }
  });

  it('a slow document costs one time limit per request, not two', async () => {
    const host = await metadataHost({}, { stall: true });
    const { base } = await gatewayFor(host);
    const started = Date.now();
    const page = await new Browser().go(
      authorizeUrl(base, host.clientId, { code_challenge: pkce().challenge, code_challenge_method: 'S256' }),
    );
    expect(page.response.status).toBe(400);
    expect(Date.now() - started).toBeLessThan(4000);
    expect(host.fetches()).toBe(1);
  });

  it('keeps failures in a bounded cache for a while', () => {
    let now = 0;
    const failures = new FailedFetches(60, 3, () => now);
    failures.add('a', 'why');
    expect(failures.retryAfter('a')).toBe(60);
    expect(failures.reasonOf('a')).toBe('why');
    now = 30_500;
    expect(failures.retryAfter('a')).toBe(30);
    for (const id of ['b', 'c', 'd']) failures.add(id);
    expect(failures.retryAfter('a')).toBeNull();
    expect(failures.reasonOf('a')).toBeUndefined();
    expect(failures.retryAfter('d')).toBe(60);
    now = 91_000;
    expect(failures.retryAfter('b')).toBeNull();
  });

  it('keeps a fetched document: a second authorisation does not fetch it again', async () => {
    const host = await metadataHost();
    const { t, base } = await gatewayFor(host);
    await codeFor(t, base, host.clientId, pkce().challenge);
    await codeFor(t, base, host.clientId, pkce().challenge);
    expect(host.fetches()).toBe(1);
  });
});

describe('a code used twice, racing its first use', () => {
  async function setup() {
    const t = await startApp({}, [], { worker: false });
    cleanups.push(() => t.close());
    const db = t.app.database.db;
    const { id: accountId } = await t.account();
    const adapter = oauthArtifactAdapter(db);
    const tokens = createTokenIssuer('test-secret-test-secret-test-secret-0123', 60);
    const grant = async (grantId: string) => {
      await adapter('Grant').upsert(grantId, { jti: grantId, accountId, clientId: 'https://agent.example/c' }, 600);
      await adapter('AuthorizationCode').upsert(`code-${grantId}`, { jti: `code-${grantId}`, grantId, accountId }, 60);
    };
    const mint = () =>
      createAccessToken(db, tokens, accountId, { name: 'MCP: agent', readOnly: false, expiresAt: null }, 'mcp');
    return { t, db, accountId, adapter, tokens, grant, mint };
  }

  it('a redemption that loses the conditional UPDATE revokes the token the winner got', async () => {
    const { db, accountId, adapter, grant, mint } = await setup();
    await grant('g1');
    await adapter('AuthorizationCode').consume('code-g1');
    const { accessToken } = await mint();
    expect(await recordIssuedToken(db, { grantId: 'g1', accountId, tokenId: accessToken.tokenId })).toBe(true);
    await expect(adapter('AuthorizationCode').consume('code-g1')).rejects.toBeInstanceOf(errors.InvalidGrant);
    expect(await listAccessTokens(db, accountId)).toEqual([]);
    expect(await adapter('Grant').find('g1')).toBeUndefined();
  });

  it('a replay before the token is noted revokes it all the same: the redemption answers invalid_grant', async () => {
    const { t, db, accountId, adapter, tokens, grant } = await setup();
    const middleware = mintNamedTokens({
      db,
      tokens,
      logger: t.app.logger,
      accessTokenDays: 30,
      accessTokenMinutes: 60,
      refreshTokenDays: 30,
    });
    const tokenContext = (grantId: string) => ({
      oidc: {
        route: 'token',
        entities: { AccessToken: { accountId, grantId, scope: 'mcp:read mcp:write' } },
        client: { clientName: 'Agent', clientId: 'https://agent.example/c' },
      },
      status: 200,
      body: { access_token: 'opaque', token_type: 'Bearer' } as Record<string, unknown>,
    });
    // The provider consumed the code and made its answer; a replay revokes the grant before the token is noted.
    await grant('g2');
    const raced = tokenContext('g2');
    await middleware(raced as never, async () => {
      await adapter('AuthorizationCode').consume('code-g2');
      await adapter('AuthorizationCode').revokeByGrantId('g2');
    });
    expect(raced.status).toBe(400);
    expect(raced.body).toMatchObject({ error: 'invalid_grant' });
    expect(await listAccessTokens(db, accountId)).toEqual([]);

    // Without a race the token is issued, and a later replay revokes it.
    await grant('g3');
    const calm = tokenContext('g3');
    await middleware(calm as never, () => adapter('AuthorizationCode').consume('code-g3'));
    expect(calm.status).toBe(200);
    expect(calm.body.access_token).toMatch(/^cgat_/);
    expect(await listAccessTokens(db, accountId)).toHaveLength(1);
    await adapter('AuthorizationCode').revokeByGrantId('g3');
    expect(await listAccessTokens(db, accountId)).toEqual([]);
  });
});

describe('the cap on named access tokens', () => {
  it('counts only tokens that have not expired (expired ones are deleted as a new one is made)', async () => {
    const t = await startApp({}, [], { worker: false });
    cleanups.push(() => t.close());
    const db = t.app.database.db;
    const { id: accountId } = await t.account();
    const tokens = createTokenIssuer('test-secret-test-secret-test-secret-0123', 60);
    const insert = (count: number, expiresAt: string | null) =>
      db
        .insertInto('access_tokens')
        .values(
          Array.from({ length: count }, (_, i) => ({
            token_id: `tok_${randomBytes(8).toString('hex')}`,
            account_id: accountId,
            name: `old ${i}`,
            token_hash: randomBytes(16).toString('hex'),
            token_hint: '****abcd',
            read_only: 0,
            created_at: new Date(Date.now() - 86_400_000).toISOString(),
            expires_at: expiresAt,
            resource: 'mcp' as const,
          })),
        )
        .execute();
    const create = () => createAccessToken(db, tokens, accountId, { name: 'new', readOnly: false, expiresAt: null });
    await insert(50, new Date(Date.now() - 1000).toISOString());
    await create();
    expect(await listAccessTokens(db, accountId)).toEqual([expect.objectContaining({ name: 'new' })]);
    await insert(49, new Date(Date.now() + 86_400_000).toISOString());
    await expect(create()).rejects.toMatchObject({ code: 'BAD_USER_INPUT' });
  });
});

describe('hosted agents stay connected: refresh tokens, confidential clients, step-up', () => {
  const registerAt = (base: string, body: Record<string, unknown>) =>
    fetch(`${base}/oauth/register`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });

  /** Runs the SDK's auth() through the consent page; `access` is what the user grants. */
  async function connect(user: { email: string }, base: string, mcp: URL, agent: TestAgent, access = 'write') {
    const { email } = user;
    expect(await auth(agent, { serverUrl: mcp })).toBe('REDIRECT');
    const back = await new Browser().authorize(agent.authorizationUrl!.href, base, {
      email,
      password: PASSWORD,
      access,
    });
    const code = back.searchParams.get('code');
    expect(code, back.href).toBeTruthy();
    expect(await auth(agent, { serverUrl: mcp, authorizationCode: code!, iss: back.searchParams.get('iss')! })).toBe(
      'AUTHORIZED',
    );
    return agent.tokens()!;
  }

  /** The refresh tokens used so far, as if used longer ago than a retry of their refresh would be. */
  const usedLongAgo = (t: TestApp) =>
    t.app.database.db
      .updateTable('oauth_artifacts')
      .set({ consumed_at: new Date(Date.now() - (REFRESH_RETRY_SECONDS + 1) * 1000).toISOString() })
      .where('model', '=', 'RefreshToken')
      .where('consumed_at', 'is not', null)
      .execute();

  const expireAccessTokens = (t: TestApp) =>
    t.app.database.db
      .updateTable('access_tokens')
      .set({ expires_at: new Date(Date.now() - 1000).toISOString() })
      .execute();

  it('a public client (as ChatGPT registers) refreshes after its token expires; a reused refresh token ends it all', async () => {
    const log = logCapture();
    const { t, base, mcp } = await serve({ LOG_LEVEL: 'info' }, { logStream: log.stream });
    const user = await t.account();
    const login = user.token;
    const agent = new TestAgent(undefined, CHATGPT);
    const first = await connect(user, base, mcp, agent);
    expect(first.access_token).toMatch(/^cgat_/);
    expect(first.refresh_token).toBeTruthy();
    // Short-lived once a refresh token exists.
    expect(first.expires_in).toBe(3600);
    expect((await callTool(mcp, first.access_token)).isError).toBeFalsy();

    await expireAccessTokens(t);
    await expect(callTool(mcp, first.access_token)).rejects.toThrow();
    // The SDK refreshes by itself when it holds a refresh token.
    expect(await auth(agent, { serverUrl: mcp })).toBe('AUTHORIZED');
    const second = agent.tokens()!;
    expect(second.access_token).not.toBe(first.access_token);
    expect(second.refresh_token).not.toBe(first.refresh_token);
    expect((await callTool(mcp, second.access_token)).isError).toBeFalsy();

    // Rotated on every use: the access token refreshed away stops working at once.
    const third = (await refresh(base, second.refresh_token!, agent.clientInformation()!.client_id)) as {
      status: number;
      body: Record<string, string>;
    };
    expect(third.status).toBe(200);
    await expect(callTool(mcp, second.access_token)).rejects.toThrow();
    expect((await callTool(mcp, third.body.access_token!)).isError).toBeFalsy();
    // Still one named token of the account, named after the client.
    const listed = await t.gql(LIST, {}, login);
    expect(listed.body.data.viewer.accessTokens).toEqual([expect.objectContaining({ name: 'MCP: ChatGPT' })]);

    // A refresh token used twice (stolen, say) revokes its whole family: the latest refresh and access tokens too —
    // once it was used longer ago than a retry of that refresh would be (REFRESH_RETRY_SECONDS).
    await usedLongAgo(t);
    const reused = await refresh(base, first.refresh_token!, agent.clientInformation()!.client_id);
    expect(reused).toMatchObject({ status: 400, body: { error: 'invalid_grant' } });
    const latest = await refresh(base, third.body.refresh_token!, agent.clientInformation()!.client_id);
    expect(latest).toMatchObject({ status: 400, body: { error: 'invalid_grant' } });
    await expect(callTool(mcp, third.body.access_token!)).rejects.toThrow();
    expect((await t.gql(LIST, {}, login)).body.data.viewer.accessTokens).toEqual([]);
    // Said once, at warn, with the client: the connection ended because a token was presented a second time.
    const revoked = log.lines.filter((line) => line.msg.startsWith('OAuth grant revoked'));
    expect(revoked).toEqual([
      expect.objectContaining({
        level: 40,
        clientId: agent.clientInformation()!.client_id,
        grantType: 'refresh_token',
      }),
    ]);
  });

  it('concurrent refreshes with one refresh token (a retry on a timeout): one wins and its tokens keep working', async () => {
    const { t, base, mcp } = await serve({});
    const user = await t.account();
    const agent = new TestAgent(undefined, CHATGPT);
    let tokens = await connect(user, base, mcp, agent);
    const clientId = agent.clientInformation()!.client_id;
    for (let round = 0; round < 4; round++) {
      const form = { grant_type: 'refresh_token', refresh_token: tokens.refresh_token!, client_id: clientId };
      const answers = await Promise.all([redeem(base, form), redeem(base, form), redeem(base, form)]);
      const won = answers.filter((answer) => answer.status === 200);
      expect(won, JSON.stringify(answers)).toHaveLength(1);
      for (const lost of answers.filter((answer) => answer.status !== 200)) {
        expect(lost).toMatchObject({
          status: 400,
          body: { error: 'invalid_grant', error_description: expect.stringContaining('used moments ago') },
        });
      }
      const winner = won[0]!.body as { access_token: string; refresh_token: string };
      expect((await callTool(mcp, winner.access_token)).isError).toBeFalsy();
      // A retry after the race, with the same token, is refused the same way and revokes nothing.
      expect(await redeem(base, form)).toMatchObject({ status: 400, body: { error: 'invalid_grant' } });
      expect((await callTool(mcp, winner.access_token)).isError).toBeFalsy();
      tokens = { ...tokens, access_token: winner.access_token, refresh_token: winner.refresh_token };
    }
    // The winner's refresh token goes on working.
    const next = await refresh(base, tokens.refresh_token!, clientId);
    expect(next.status).toBe(200);
  });

  it('RFC 7009: revoking a refresh token or an access token ends the grant; only its own client can', async () => {
    const { t, base, mcp } = await serve({});
    const user = await t.account();
    const revoke = async (form: Record<string, string>) => {
      const answer = await fetch(`${base}/oauth/revoke`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams(form).toString(),
      });
      return { status: answer.status, body: await answer.text() };
    };
    // Advertised in the authorisation server's metadata.
    const metadata = (await (await fetch(`${base}/.well-known/oauth-authorization-server`)).json()) as Record<
      string,
      unknown
    >;
    expect(metadata.revocation_endpoint).toBe(`${base}/oauth/revoke`);

    // A refresh token revoked by its client: the refresh token and its access token stop working.
    const agent = new TestAgent(undefined, CHATGPT);
    const tokens = await connect(user, base, mcp, agent);
    const clientId = agent.clientInformation()!.client_id;
    // Another client presenting it: 200, and nothing happens (RFC 7009 §2.2: it learns nothing).
    const other = (await (await registerAt(base, CHATGPT)).json()) as { client_id: string };
    for (const token of [tokens.refresh_token!, tokens.access_token]) {
      expect(await revoke({ token, client_id: other.client_id })).toEqual({ status: 200, body: '' });
    }
    expect((await callTool(mcp, tokens.access_token)).isError).toBeFalsy();
    expect(
      await revoke({ token: tokens.refresh_token!, client_id: clientId, token_type_hint: 'refresh_token' }),
    ).toEqual({ status: 200, body: '' });
    await expect(callTool(mcp, tokens.access_token)).rejects.toThrow();
    const refreshed = await refresh(base, tokens.refresh_token!, clientId);
    expect(refreshed).toMatchObject({ status: 400, body: { error: 'invalid_grant' } });
    expect((await t.gql(LIST, {}, user.token)).body.data.viewer.accessTokens).toEqual([]);

    // An access token revoked by its client: it stops working, and the refresh token of its grant too.
    const again = new TestAgent(undefined, CHATGPT);
    const second = await connect(user, base, mcp, again);
    const secondClient = again.clientInformation()!.client_id;
    expect((await callTool(mcp, second.access_token)).isError).toBeFalsy();
    expect(await revoke({ token: second.access_token, client_id: secondClient })).toEqual({ status: 200, body: '' });
    await expect(callTool(mcp, second.access_token)).rejects.toThrow();
    const after = await refresh(base, second.refresh_token!, secondClient);
    expect(after).toMatchObject({ status: 400, body: { error: 'invalid_grant' } });

    // A token that is not one (or is revoked already): 200, as RFC 7009 says; a named token the user made on their own
    // page is not the client's to revoke.
    expect(await revoke({ token: 'not-a-token', client_id: secondClient })).toEqual({ status: 200, body: '' });
    const made = await t.gql('mutation { accessTokenCreate(input: { name: "mine" }) { token } }', {}, user.token);
    const own = made.body.data.accessTokenCreate.token as string;
    expect(await revoke({ token: own, client_id: secondClient })).toEqual({ status: 200, body: '' });
    expect((await t.gql(LIST, {}, user.token)).body.data.viewer.accessTokens).toEqual([
      expect.objectContaining({ name: 'mine' }),
    ]);
    // Other methods: 405 with Allow.
    const get = await fetch(`${base}/oauth/revoke`);
    expect(get.status).toBe(405);
    expect(get.headers.get('allow')).toBe('POST, OPTIONS');
  });

  it('a confidential client (as Claude registers, client_secret_post) connects and refreshes through the SDK', async () => {
    const { t, base, mcp } = await serve({});
    const user = await t.account();
    const agent = new TestAgent(undefined, CLAUDE);
    const first = await connect(user, base, mcp, agent);
    expect(agent.clientInformation()).toMatchObject({ client_secret: expect.any(String) });
    expect((await callTool(mcp, first.access_token)).isError).toBeFalsy();
    expect(await auth(agent, { serverUrl: mcp })).toBe('AUTHORIZED');
    expect(agent.tokens()!.access_token).not.toBe(first.access_token);
    // Without its secret, the client cannot refresh.
    const { client_id: clientId } = agent.clientInformation()!;
    const anonymous = await refresh(base, agent.tokens()!.refresh_token!, clientId);
    expect(anonymous.status).toBe(401);
    expect(anonymous.body).toMatchObject({ error: 'invalid_client' });
  });

  it('a refresh token is bound to its client and its scope', async () => {
    const { t, base, mcp } = await serve({});
    const user = await t.account();
    const agent = new TestAgent(undefined, CHATGPT);
    const tokens = await connect(user, base, mcp, agent, 'read');
    const other = (await (await registerAt(base, CHATGPT)).json()) as { client_id: string };
    const stolen = await refresh(base, tokens.refresh_token!, other.client_id);
    expect(stolen).toMatchObject({ status: 400, body: { error: 'invalid_grant' } });
    const wider = await redeem(base, {
      grant_type: 'refresh_token',
      refresh_token: tokens.refresh_token!,
      client_id: agent.clientInformation()!.client_id,
      scope: 'mcp:read mcp:write',
    });
    expect(wider).toMatchObject({ status: 400, body: { error: 'invalid_scope' } });
    const same = await refresh(base, tokens.refresh_token!, agent.clientInformation()!.client_id);
    expect(same).toMatchObject({ status: 200, body: { scope: 'mcp:read' } });
  });

  it('revoking the named token ends its refresh token', async () => {
    const { t, base, mcp } = await serve({});
    const user = await t.account();
    const login = user.token;
    const agent = new TestAgent(undefined, CHATGPT);
    const tokens = await connect(user, base, mcp, agent);
    const listed = await t.gql(LIST, {}, login);
    await t.gql(REVOKE, { id: listed.body.data.viewer.accessTokens[0].tokenId }, login);
    const refreshed = await refresh(base, tokens.refresh_token!, agent.clientInformation()!.client_id);
    expect(refreshed).toMatchObject({ status: 400, body: { error: 'invalid_grant' } });
    expect(String(refreshed.body.error_description)).toContain('revoked');
  });

  it('keeps an expired token an agent can refresh when the account makes room for a new one', async () => {
    const { t, base, mcp } = await serve({});
    const user = await t.account();
    const agent = new TestAgent(undefined, CHATGPT);
    const tokens = await connect(user, base, mcp, agent);
    await expireAccessTokens(t);
    // Another approval makes a token: expired ones are deleted then, but not one a refresh token belongs to.
    await connect(user, base, mcp, new TestAgent(undefined, { ...CHATGPT, client_name: 'Other' }));
    const refreshed = await refresh(base, tokens.refresh_token!, agent.clientInformation()!.client_id);
    expect(refreshed.status, JSON.stringify(refreshed.body)).toBe(200);
  });

  it('a client without the refresh_token grant gets a long-lived token and no refresh token', async () => {
    const { t, base, mcp } = await serve({});
    const user = await t.account();
    const tokens = await connect(user, base, mcp, new TestAgent());
    expect(tokens.refresh_token).toBeUndefined();
    expect(tokens.expires_in).toBe(30 * 86_400);
  });

  it('keeps a registered client 90 days once a token was issued to it', async () => {
    const { t, base, mcp } = await serve({});
    const user = await t.account();
    const agent = new TestAgent(undefined, CHATGPT);
    await connect(user, base, mcp, agent);
    const row = await t.app.database.db
      .selectFrom('oauth_artifacts')
      .select('expires_at')
      .where('model', '=', 'Client')
      .where('id', '=', agent.clientInformation()!.client_id)
      .executeTakeFirstOrThrow();
    expect(Date.parse(row.expires_at!) - Date.now()).toBeGreaterThan(89 * 86_400_000);
  });

  it('a client ID metadata document asking for refresh tokens (and grants not served) gets a refresh token', async () => {
    const host = await metadataHost({
      grant_types: ['authorization_code', 'refresh_token', 'client_credentials'],
      response_types: ['code', 'token'],
    });
    const { t, base, mcp } = await gatewayFor(host);
    const user = await t.account();
    const agent = new TestAgent(host.clientId, {
      grant_types: ['authorization_code', 'refresh_token'],
    });
    const tokens = await connect(user, base, mcp, agent);
    expect(tokens.refresh_token).toBeTruthy();
    expect(await auth(agent, { serverUrl: mcp })).toBe('AUTHORIZED');
    expect(agent.tokens()!.access_token).not.toBe(tokens.access_token);
  });

  it('answers 401 invalid_client for an unknown or deleted client at the token endpoint', async () => {
    const { t, base } = await serve({});
    const unknown = await refresh(base, 'x', 'nobody');
    expect(unknown).toMatchObject({ status: 401, body: { error: 'invalid_client' } });
    const registered = (await (await registerAt(base, CHATGPT)).json()) as { client_id: string };
    await t.app.database.db.deleteFrom('oauth_artifacts').where('model', '=', 'Client').execute();
    const deleted = await refresh(base, 'x', registered.client_id);
    expect(deleted).toMatchObject({ status: 401, body: { error: 'invalid_client' } });
  });

  it('refuses an unknown scope at /authorize with invalid_scope, before any consent', async () => {
    const { base } = await serve({});
    const { client_id: clientId } = (await (await registerAt(base, CHATGPT)).json()) as { client_id: string };
    const step = await new Browser().go(
      authorizeUrl(base, clientId, {
        scope: 'mcp:read admin',
        code_challenge: pkce().challenge,
        code_challenge_method: 'S256',
      }),
    );
    const back = new URL(step.location ?? 'http://none/');
    expect(back.origin + back.pathname).toBe(REDIRECT_URI);
    expect(back.searchParams.get('error')).toBe('invalid_scope');
    expect(back.searchParams.get('error_description')).toContain('admin');
  });

  it('step-up: a read-only token calling a write tool gets 403 insufficient_scope, and the consent page grants it', async () => {
    const { t, base, mcp } = await serve({});
    const user = await t.account();
    const agent = new TestAgent(undefined, CHATGPT);
    const readOnly = await connect(user, base, mcp, agent, 'read');
    expect(readOnly.scope).toBe('mcp:read');

    const raw = await fetch(mcp, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${readOnly.access_token}`,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-protocol-version': '2025-11-25',
      },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 7,
        method: 'tools/call',
        params: { name: 'campaign_create', arguments: {} },
      }),
    });
    expect(raw.status).toBe(403);
    const challenge = raw.headers.get('www-authenticate') ?? '';
    expect(challenge).toContain('error="insufficient_scope"');
    expect(challenge).toContain('scope="mcp:read mcp:write"');
    expect(challenge).toContain(`resource_metadata="${base}/.well-known/oauth-protected-resource/mcp"`);
    const body = (await raw.json()) as { id: unknown; error: { message: string } };
    expect(body.id).toBe(7);
    expect(body.error.message).toContain('mcp:write');

    // The SDK's transport answers the challenge by sending its user to authorise the wider scope.
    agent.authorizationUrl = undefined;
    const client = new Client({ name: 'step-up', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(mcp, { authProvider: agent }));
    await expect(client.callTool({ name: 'campaign_create', arguments: {} })).rejects.toThrow();
    await client.close();
    const wider = agent.authorizationUrl as URL | undefined;
    expect(wider?.searchParams.get('scope')?.split(' ')).toEqual(expect.arrayContaining(['mcp:read', 'mcp:write']));
    const back = await new Browser().authorize(wider!.href, base, {
      email: user.email,
      password: PASSWORD,
      access: 'write',
    });
    expect(await auth(agent, { serverUrl: mcp, authorizationCode: back.searchParams.get('code')!, iss: base })).toBe(
      'AUTHORIZED',
    );
    expect(agent.tokens()!.scope).toBe('mcp:read mcp:write');

    // The step-up replaced the read-only connection: its access token and its refresh token no longer work, and
    // the account lists one token for the agent.
    expect((await callTool(mcp, agent.tokens()!.access_token)).isError).toBeFalsy();
    await expect(callTool(mcp, readOnly.access_token)).rejects.toThrow();
    const refreshed = await refresh(base, readOnly.refresh_token!, agent.clientInformation()!.client_id);
    expect(refreshed).toMatchObject({ status: 400, body: { error: 'invalid_grant' } });
    const listed = await t.gql(LIST, {}, user.token);
    expect(listed.body.data.viewer.accessTokens).toEqual([
      expect.objectContaining({ name: 'MCP: ChatGPT', readOnly: false }),
    ]);
  });

  it('step-up with the 1.x SDK: it refreshes its read-only token instead, is refused again and stops (docs/mcp-oauth.md)', async () => {
    const { t, base, mcp } = await serve({});
    const user = await t.account();
    const agent = new TestAgent(undefined, CHATGPT);
    const readOnly = await connect(user, base, mcp, agent, 'read');
    expect(readOnly.scope).toBe('mcp:read');
    agent.authorizationUrl = undefined;
    // The same provider object: the 1.x SDK's OAuthClientProvider has the same methods.
    const client = new LegacyClient({ name: 'step-up-1x', version: '1.32.2' });
    await client.connect(new LegacyTransport(mcp, { authProvider: agent as unknown as LegacyOAuthClientProvider }));
    // A read tool works with the read-only token; the write tool is refused, and the SDK does not ask its user again.
    expect((await client.callTool({ name: 'campaign_list', arguments: {} })).isError).toBeFalsy();
    await expect(client.callTool({ name: 'campaign_create', arguments: {} })).rejects.toThrow(
      /403 after trying upscoping/,
    );
    expect(agent.authorizationUrl).toBeUndefined();
    // Its token is still read-only: nothing was created, and the application must start the authorisation again.
    expect(agent.tokens()!.scope).toBe('mcp:read');
    await client.close();
    expect(await t.app.database.db.selectFrom('campaigns').select('camp_id').execute()).toEqual([]);
  });

  it('a second full-access connection of the same client (another device) leaves the first alone', async () => {
    const { t, base, mcp } = await serve({});
    const user = await t.account();
    const device = new TestAgent(undefined, CHATGPT);
    const first = await connect(user, base, mcp, device);
    // The same registered client, from another device: it starts with the client's registration, no tokens.
    const other = new TestAgent(undefined, CHATGPT);
    await other.saveClientInformation(device.clientInformation()!);
    const second = await connect(user, base, mcp, other);
    expect(other.clientInformation()!.client_id).toBe(device.clientInformation()!.client_id);
    expect((await callTool(mcp, first.access_token)).isError).toBeFalsy();
    expect((await callTool(mcp, second.access_token)).isError).toBeFalsy();
    expect((await t.gql(LIST, {}, user.token)).body.data.viewer.accessTokens).toHaveLength(2);
  });
});
