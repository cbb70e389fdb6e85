// Hostile input at the OAuth door (docs/mcp-oauth.md "Hostile input"): a control character (NUL first: PostgreSQL
// answers an error for one) in any parameter — query, form, JSON registration, Basic credentials, the path, the
// consent form — is refused with 400 JSON before any database sees it, without echoing it and without an error log
// line, alike on both databases; a method a path does not serve is answered 405 JSON with Allow, on every path.
import { describe, expect, it } from 'vitest';
import { gatewayWithLogLines, loopbackGateways, rawHttp } from '../helpers/gateway.js';
import type { LogLine } from '../helpers/log-lines.js';
import { Browser, REDIRECT_URI } from '../helpers/oauth-agent.js';

const PASSWORD = 'correct horse battery';

const gateway = loopbackGateways();

const serve = () => gatewayWithLogLines(gateway);

/** Any method (fetch refuses TRACE), with a body if given. */
const send = rawHttp;

const FORM = { 'content-type': 'application/x-www-form-urlencoded' };
const JSON_TYPE = { 'content-type': 'application/json' };

async function register(
  base: string,
  metadata: Record<string, unknown> = {},
): Promise<{ client_id: string; registration_client_uri: string }> {
  const answer = await fetch(`${base}/oauth/register`, {
    method: 'POST',
    headers: JSON_TYPE,
    body: JSON.stringify({ redirect_uris: [REDIRECT_URI], token_endpoint_auth_method: 'none', ...metadata }),
  });
  expect(answer.status).toBe(201);
  return (await answer.json()) as { client_id: string; registration_client_uri: string };
}

/** An authorisation request of `clientId` for read-only access: its consent page's address. */
function authorizeUrl(base: string, clientId: string): string {
  const url = new URL(`${base}/oauth/authorize`);
  url.search = new URLSearchParams({
    response_type: 'code',
    client_id: clientId,
    redirect_uri: REDIRECT_URI,
    scope: 'mcp:read',
    code_challenge: 'c'.repeat(43),
    code_challenge_method: 'S256',
    resource: `${base}/mcp`,
  }).toString();
  return url.href;
}

/** No error line, no stack, no 500 in the access lines. */
function expectQuiet(lines: LogLine[]) {
  expect(lines.filter((line) => line.level >= 50)).toEqual([]);
  expect(lines.filter((line) => line.err?.stack)).toEqual([]);
  expect(lines.filter((line) => line.msg === 'request' && line.status === 500)).toEqual([]);
}

/** A 400 JSON refusal that does not echo the hostile value. */
function expectRefused(answer: { status: number; headers: Record<string, unknown>; body: string }, error: string) {
  expect(answer.status, answer.body).toBe(400);
  expect(String(answer.headers['content-type'])).toMatch(/^application\/json/);
  const body = JSON.parse(answer.body) as { error: string; error_description: string };
  expect(body.error).toBe(error);
  expect(body.error_description).not.toContain('evil');
  expect(body.error_description).not.toContain('\u0000');
}

describe('control characters in OAuth parameters', () => {
  it('NUL in client_id at /oauth/token and /oauth/authorize: 400 invalid_request JSON, nothing logged as an error', async () => {
    const { base, port, lines } = await serve();
    const { client_id: clientId } = await register(base);
    const token = await send(port, 'POST', '/oauth/token', {
      headers: FORM,
      body: new URLSearchParams({
        grant_type: 'authorization_code',
        code: 'abc',
        client_id: `evil\u0000${clientId}`,
        redirect_uri: REDIRECT_URI,
        code_verifier: 'v'.repeat(43),
      }).toString(),
    });
    expectRefused(token, 'invalid_request');
    expect(JSON.parse(token.body).error_description).toContain('client_id');
    const authorize = await send(
      port,
      'GET',
      `/oauth/authorize?response_type=code&client_id=evil%00&redirect_uri=${encodeURIComponent(REDIRECT_URI)}`,
    );
    expectRefused(authorize, 'invalid_request');
    expect(JSON.parse(authorize.body).error_description).toContain('client_id');
    expect(lines.some((line) => line.msg === 'OAuth request refused: a control character')).toBe(true);
    expectQuiet(lines);
  });

  it('refuses any control character in any parameter, wherever it comes', async () => {
    const { base, port, lines } = await serve();
    const { client_id: clientId, registration_client_uri: registrationUri } = await register(base);
    const authorizeParams = {
      response_type: 'code',
      client_id: clientId,
      redirect_uri: REDIRECT_URI,
      state: 'st',
      scope: 'mcp:read',
      code_challenge: 'c'.repeat(43),
      code_challenge_method: 'S256',
      resource: `${base}/mcp`,
    };
    for (const [name, hostile] of [
      ['client_id', `${clientId}\u0000`],
      ['redirect_uri', `${REDIRECT_URI}\u0000evil`],
      ['state', 'evil\u0000'],
      ['scope', 'mcp:read\nevil'],
      ['code_challenge', `${'c'.repeat(42)}\u007f`],
      ['resource', `${base}/mcp\u0085`],
    ] as const) {
      const query = new URLSearchParams({ ...authorizeParams, [name]: hostile });
      const answer = await send(port, 'GET', `/oauth/authorize?${query}`);
      expectRefused(answer, 'invalid_request');
      expect(JSON.parse(answer.body).error_description).toContain(name);
    }
    const grants: Array<Record<string, string>> = [
      { grant_type: 'authorization_code', code: 'evil\u0000', client_id: clientId, redirect_uri: REDIRECT_URI },
      { grant_type: 'authorization_code', code: 'abc', client_id: clientId, code_verifier: 'evil\u0000' },
      { grant_type: 'refresh_token', refresh_token: 'evil\u0000', client_id: clientId },
      { grant_type: 'refresh_token\u0000', refresh_token: 'abc', client_id: clientId },
      { grant_type: 'refresh_token', refresh_token: 'abc', client_id: clientId, scope: 'mcp:read\u0000' },
    ];
    for (const form of grants) {
      expectRefused(
        await send(port, 'POST', '/oauth/token', { headers: FORM, body: new URLSearchParams(form).toString() }),
        'invalid_request',
      );
    }
    // A parameter name with a NUL, and a raw (not percent-encoded) NUL byte in a form body.
    expectRefused(
      await send(port, 'POST', '/oauth/token', { headers: FORM, body: `grant_type=refresh_token&ev%00il=1` }),
      'invalid_request',
    );
    expectRefused(
      await send(port, 'POST', '/oauth/token', { headers: FORM, body: `grant_type=refresh_token&code=a\u0000b` }),
      'invalid_request',
    );
    // HTTP Basic client credentials (form-encoded inside base64: RFC 6749 §2.3.1).
    const basic = Buffer.from(`${encodeURIComponent(`${clientId}\u0000`)}:secret`).toString('base64');
    expectRefused(
      await send(port, 'POST', '/oauth/token', {
        headers: { ...FORM, authorization: `Basic ${basic}` },
        body: 'grant_type=refresh_token&refresh_token=abc',
      }),
      'invalid_request',
    );
    // Registration: client metadata, nested or not, and a member name.
    for (const metadata of [
      { redirect_uris: [`${REDIRECT_URI}\u0000`] },
      { redirect_uris: [REDIRECT_URI], client_name: 'evil\u0000' },
      { redirect_uris: [REDIRECT_URI], contacts: ['a@example.com', 'evil\u0007'] },
      { redirect_uris: [REDIRECT_URI], 'ev\u0000il': 'x' },
    ]) {
      expectRefused(
        await send(port, 'POST', '/oauth/register', { headers: JSON_TYPE, body: JSON.stringify(metadata) }),
        'invalid_client_metadata',
      );
    }
    // The registration client URI, with a NUL in its client id.
    expectRefused(
      await send(port, 'GET', `${new URL(registrationUri).pathname}%00`, { headers: { authorization: 'Bearer x' } }),
      'invalid_request',
    );
    expectQuiet(lines);
  });

  it('shows a client name holding bidi, zero-width and other format characters as plain, isolated text', async () => {
    const { base, lines } = await serve();
    // U+202E makes "Claude" followed by reversed text read as another name; U+2066/U+2069 isolate; U+200B is invisible.
    const { client_id: clientId } = await register(base, {
      client_name: 'Evil\u202E edualC\u2066 x\u2069\u200B\u2028agent',
    });
    const page = await new Browser().follow(authorizeUrl(base, clientId), base);
    expect(page.response.status).toBe(200);
    expect(page.text).not.toMatch(/[\p{Cf}\u2028\u2029]/u);
    expect(page.text).toContain('<bdi class="client">Evil edualC x agent</bdi>');
    expect(page.text).toContain('<title>Allow Evil edualC x agent to use your campaigns?</title>');
    // Where the user is sent back: the redirect URI's origin, isolated too.
    expect(page.text).toContain(`<code><bdi>${new URL(REDIRECT_URI).origin}</bdi></code>`);
    expectQuiet(lines);
  });

  it('refuses a control character in the consent form before the sign-in reads the database', async () => {
    const { t, base, lines } = await serve();
    const { email } = await t.account();
    const { client_id: clientId } = await register(base);
    const browser = new Browser();
    const page = await browser.follow(authorizeUrl(base, clientId), base);
    expect(page.response.status).toBe(200);
    const action = new URL(/action="([^"]+)"/.exec(page.text)![1]!.replace(/&amp;/g, '&'), base).href;
    const posted = await browser.go(action, {
      method: 'POST',
      form: { email: `${email}\u0000`, password: PASSWORD, access: 'read', decision: 'approve' },
    });
    expect(posted.response.status).toBe(400);
    expect(JSON.parse(posted.text)).toMatchObject({ error: 'invalid_request' });
    expect(posted.text).not.toContain(email);
    // The same page still signs in with the e-mail as it is.
    const approved = await browser.go(action, {
      method: 'POST',
      form: { email, password: PASSWORD, access: 'read', decision: 'approve' },
    });
    expect(approved.location).toBeTruthy();
    expectQuiet(lines);
  });
});

describe('methods an OAuth path does not serve', () => {
  it('answers 405 JSON with Allow on every path, the registration client URI included', async () => {
    const { base, port, lines } = await serve();
    const { registration_client_uri: registrationUri } = await register(base);
    const clientPath = new URL(registrationUri).pathname;
    const paths: Array<[string, string]> = [
      ['/oauth/token', 'POST, OPTIONS'],
      ['/oauth/authorize', 'GET, HEAD, OPTIONS'],
      ['/oauth/authorize/some-uid', 'GET, HEAD, OPTIONS'],
      ['/oauth/register', 'POST, OPTIONS'],
      [clientPath, 'GET, HEAD, OPTIONS'],
      ['/oauth/jwks', 'GET, HEAD, OPTIONS'],
      ['/oauth/interaction/some-uid', 'GET, HEAD, POST, OPTIONS'],
      ['/.well-known/oauth-authorization-server', 'GET, HEAD, OPTIONS'],
      ['/.well-known/openid-configuration', 'GET, HEAD, OPTIONS'],
      ['/.well-known/oauth-protected-resource', 'GET, HEAD, OPTIONS'],
      ['/.well-known/oauth-protected-resource/mcp', 'GET, HEAD, OPTIONS'],
    ];
    // Node's parser knows a fixed set of methods (it answers 400 to others itself): these are ones no path serves.
    for (const [path, allow] of paths) {
      for (const method of ['TRACE', 'PROPFIND', 'PUT', 'DELETE', 'PATCH', 'PURGE', 'MKCOL']) {
        const answer = await send(port, method, path);
        expect(answer.status, `${method} ${path}`).toBe(405);
        expect(answer.headers.allow, `${method} ${path}`).toBe(allow);
        expect(String(answer.headers['content-type'])).toMatch(/^application\/json/);
        expect(JSON.parse(answer.body)).toMatchObject({ error: 'invalid_request' });
      }
      // OPTIONS without a preflight names the methods too.
      const options = await send(port, 'OPTIONS', path);
      expect(options.status, `OPTIONS ${path}`).toBe(204);
      if (!path.startsWith('/.well-known/oauth-protected-resource')) expect(options.headers.allow).toBe(allow);
    }
    // A path the authorisation server does not have: 404 JSON whatever the method.
    for (const method of ['GET', 'TRACE', 'PUT']) {
      const answer = await send(port, method, '/oauth/nothing-here');
      expect(answer.status).toBe(404);
      expect(JSON.parse(answer.body)).toMatchObject({ error: 'not_found' });
    }
    expectQuiet(lines);
  });
});
