// Acceptance (docs/mcp-oauth.md): a hosted agent gets a named access token of the account through OAuth, with the MCP
// SDK's client-side auth() against a real server: its client ID metadata document is served over https (a test
// certificate the gateway is told to trust), the user approves on the login and consent page, and the token calls a
// tool on /mcp, is listed among the account's tokens, and stops working once revoked. Then the refusals: a wrong
// redirect URI, a replayed code, a missing or wrong PKCE verifier, another resource, a metadata document on a private
// address without the test allowance; and dynamic client registration as the fallback.
import { createHash, randomBytes } from 'node:crypto';
import { auth, Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { afterEach, describe, expect, it } from 'vitest';
import { createHttpServer, type HttpServer, listen } from '../../src/http/server.js';
import { startApp, type TestApp } from '../helpers/app.js';
import { Browser, type MetadataHost, REDIRECT_URI, serveClientMetadata, TestAgent } from '../helpers/oauth-agent.js';

const PASSWORD = 'correct horse battery';

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function serve(env: Record<string, string>) {
  const t = await startApp(env, [], { worker: false });
  const http: HttpServer = createHttpServer(t.app);
  cleanups.push(async () => {
    http.server.closeAllConnections();
    await new Promise<void>((resolve) => http.server.close(() => resolve()));
    await t.close();
  });
  const { port } = await listen(http.server, 0, '127.0.0.1');
  const base = `http://127.0.0.1:${port}`;
  return { t, base, mcp: new URL(`${base}/mcp`) };
}

async function metadataHost(extra: Record<string, unknown> = {}): Promise<MetadataHost> {
  const host = await serveClientMetadata(extra);
  cleanups.push(() => host.close());
  return host;
}

/** A gateway that trusts the metadata host's certificate and may fetch from loopback (tests only). */
async function gatewayFor(host: MetadataHost, env: Record<string, string> = {}) {
  return serve({ OAUTH_ALLOW_PRIVATE_CLIENT_METADATA: 'true', OAUTH_CLIENT_METADATA_CA_FILE: host.caFile, ...env });
}

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

const LIST = 'query { viewer { accessTokens { tokenId name readOnly mcpOnly expiresAt } } }';
const REVOKE = 'mutation ($id: String!) { accessTokenRevoke(input: { tokenId: $id }) { deletedId } }';

/** PKCE by hand, for the refusals the SDK would never send. */
function pkce() {
  const verifier = randomBytes(32).toString('base64url');
  return { verifier, challenge: createHash('sha256').update(verifier).digest('base64url') };
}

function authorizeUrl(base: string, clientId: string, params: Record<string, string> = {}) {
  const url = new URL(`${base}/oauth/authorize`);
  const defaults = {
    response_type: 'code',
    client_id: clientId,
    redirect_uri: REDIRECT_URI,
    scope: 'mcp:read mcp:write',
    resource: `${base}/mcp`,
    state: 'st',
  };
  for (const [key, value] of Object.entries({ ...defaults, ...params })) url.searchParams.set(key, value);
  return url.href;
}

async function redeem(base: string, form: Record<string, string>) {
  const response = await fetch(`${base}/oauth/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams(form).toString(),
  });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

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
    const metadata = await (await fetch(`${base}/.well-known/oauth-protected-resource/mcp`)).json();
    expect(metadata).toMatchObject({ resource: `${base}/mcp`, authorization_servers: [base] });
    const server = await (await fetch(`${base}/.well-known/oauth-authorization-server`)).json();
    expect(server).toMatchObject({
      issuer: base,
      client_id_metadata_document_supported: true,
      authorization_response_iss_parameter_supported: true,
      code_challenge_methods_supported: ['S256'],
    });

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

    const redeemWith = (code: string, extra: Record<string, string>) =>
      redeem(base, {
        grant_type: 'authorization_code',
        code,
        client_id: host.clientId,
        redirect_uri: REDIRECT_URI,
        ...extra,
      });
    const { verifier, challenge } = pkce();
    const missing = await codeFor(t, base, host.clientId, challenge);
    expect(await redeemWith(missing, {})).toMatchObject({ status: 400, body: { error: 'invalid_grant' } });
    const wrongVerifier = await codeFor(t, base, host.clientId, challenge);
    expect(await redeemWith(wrongVerifier, { code_verifier: pkce().verifier })).toMatchObject({
      status: 400,
      body: { error: 'invalid_grant' },
    });
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
    const issued = await redeem(base, {
      grant_type: 'authorization_code',
      code: back.searchParams.get('code') ?? '',
      client_id: host.clientId,
      redirect_uri: REDIRECT_URI,
      code_verifier: verifier,
    });
    expect(issued.body.scope).toBe('mcp:read');
    const listed = await t.gql(LIST, {}, login);
    expect(listed.body.data.viewer.accessTokens).toEqual([expect.objectContaining({ readOnly: true })]);
    expect((await callTool(mcp, String(issued.body.access_token))).isError).toBeFalsy();
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

  it('refuses registrations past the cap', async () => {
    const { base } = await serve({ OAUTH_MAX_REGISTERED_CLIENTS: '1' });
    const register = () =>
      fetch(`${base}/oauth/register`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ redirect_uris: [REDIRECT_URI], token_endpoint_auth_method: 'none' }),
      });
    expect((await register()).status).toBe(201);
    const refused = await register();
    expect(refused.status).toBe(400);
    expect(await refused.json()).toMatchObject({ error: 'invalid_client_metadata' });
  });
});
