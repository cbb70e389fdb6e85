// The MCP door speaks two protocol revisions to the same server (docs/mcp.md "Transport and state"): 2026-07-28, which
// is stateless (no `initialize`, the version and client in each request's `_meta`, `Mcp-Method`/`Mcp-Name` headers
// checked against the body, a `tools/list` that may be cached for `ttlMs`), driven here by the official SDK 2.x client
// pinned to it and by requests written to that revision; and 2025-11-25, driven by the SDK 1.x client. Plus the
// transport's rules both share: the Origin check, cursors the lists never handed out, declared capabilities.
import { Client as ModernClient, StreamableHTTPClientTransport as ModernTransport } from '@modelcontextprotocol/client';
import { request } from 'node:http';
import { describe, expect, it } from 'vitest';
import { MCP_OPERATIONS } from '../../src/mcp/operations.js';
import { loopbackGateways, mcpCampaignInput } from '../helpers/gateway.js';
import { legacyMcpClient } from '../helpers/mcp-client.js';

const MODERN = '2026-07-28';

const gateway = loopbackGateways();

async function serve(env: Record<string, string> = {}) {
  const { t, url } = await gateway(env);
  const session = await t.account();
  // Every tool listed (docs/mcp.md "Toolsets": without a choice, the default areas only).
  return { t, token: session.token, url: new URL('?toolsets=all', url) };
}

interface Exchange {
  method: string;
  requestHeaders: Record<string, string>;
  body: Record<string, any>;
  status: number;
  answer: Record<string, any>;
}

/** A fetch that records each JSON-RPC exchange (the client's wire), for the assertions about the revision. */
function recordingFetch(log: Exchange[]) {
  return async (input: string | URL | Request, init?: RequestInit) => {
    const response = await fetch(input, init);
    const body = typeof init?.body === 'string' ? (JSON.parse(init.body) as Record<string, any>) : {};
    const text = await response.clone().text();
    log.push({
      method: String(body.method),
      requestHeaders: Object.fromEntries(new Headers(init?.headers).entries()),
      body,
      status: response.status,
      answer: text.startsWith('{') ? (JSON.parse(text) as Record<string, any>) : {},
    });
    return response;
  };
}

async function modernClient(url: URL, token: string, log: Exchange[] = []) {
  const client = new ModernClient(
    { name: 'modern-agent', version: '2.4.0' },
    { versionNegotiation: { mode: { pin: MODERN } } },
  );
  await client.connect(
    new ModernTransport(url, {
      requestInit: { headers: { authorization: `Bearer ${token}` } },
      fetch: recordingFetch(log),
    }),
  );
  return client;
}

const legacyClient = (url: URL, token: string) => legacyMcpClient(url, token);

/** One raw POST to /mcp. */
async function post(url: URL, token: string, body: unknown, headers: Record<string, string> = {}) {
  const response = await fetch(url, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${token}`,
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      ...headers,
    },
    body: JSON.stringify(body),
  });
  const text = await response.text();
  return { status: response.status, headers: response.headers, json: JSON.parse(text) as Record<string, any> };
}

/** One POST by node:http, whose Host header can be anything (fetch sets it from the URL). */
function rawPost(url: URL, body: string, headers: Record<string, string>) {
  return new Promise<{ status: number; text: string }>((resolve, reject) => {
    const sent = request(
      url,
      {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
      },
      (response) => {
        let text = '';
        response.on('data', (chunk: Buffer) => (text += chunk.toString()));
        response.on('end', () => resolve({ status: response.statusCode ?? 0, text }));
      },
    );
    sent.on('error', reject);
    sent.end(body);
  });
}

/** A request of revision 2026-07-28: its version, client and capabilities in `_meta`, its method and name in headers. */
const modernRequest = (method: string, params: Record<string, unknown> = {}, id = 1) => ({
  jsonrpc: '2.0',
  id,
  method,
  params: {
    ...params,
    _meta: {
      'io.modelcontextprotocol/protocolVersion': MODERN,
      'io.modelcontextprotocol/clientInfo': { name: 'hand-written', version: '1' },
      'io.modelcontextprotocol/clientCapabilities': {},
    },
  },
});
const modernHeaders = (method: string, name?: string) => ({
  'mcp-protocol-version': MODERN,
  'mcp-method': method,
  ...(name ? { 'mcp-name': name } : {}),
});

describe('the MCP door, revision 2026-07-28 and 2025-11-25 side by side', () => {
  it('a 2026-07-28 client and a 2025-11-25 client list the same tools and run them against one server', async () => {
    const { url, token } = await serve();
    const log: Exchange[] = [];
    const modern = await modernClient(url, token, log);
    const legacy = await legacyClient(url, token);

    const modernTools = (await modern.listTools()).tools;
    const legacyTools = (await legacy.listTools()).tools;
    expect(modernTools.map((tool) => tool.name)).toEqual(legacyTools.map((tool) => tool.name));
    expect(modernTools).toHaveLength(MCP_OPERATIONS.length + 2);

    const created = await modern.callTool({
      name: 'campaign_create',
      arguments: {
        input: mcpCampaignInput({ campId: 'era', title: 'Two revisions' }),
      },
    });
    expect(created.isError, JSON.stringify(created.content)).toBeFalsy();
    const read = await legacy.callTool({ name: 'campaign_get', arguments: { campId: 'era' } });
    expect((read.structuredContent as any).campaign.title).toBe('Two revisions');

    // On the wire: no initialize, no session; every request says its revision in `_meta` and its method in a header.
    expect(log.map((exchange) => exchange.method)).not.toContain('initialize');
    for (const exchange of log) {
      expect(exchange.requestHeaders['mcp-session-id']).toBeUndefined();
      expect(exchange.body.params?._meta?.['io.modelcontextprotocol/protocolVersion']).toBe(MODERN);
      expect(exchange.requestHeaders['mcp-method']).toBe(exchange.method);
      expect(exchange.status).toBe(200);
    }
    const call = log.find((exchange) => exchange.method === 'tools/call');
    expect(call?.requestHeaders['mcp-name']).toBe('campaign_create');
    // tools/list may be kept for ttlMs: it changes only when the gateway does.
    const list = log.find((exchange) => exchange.method === 'tools/list');
    expect(list?.answer.result).toMatchObject({ ttlMs: 300_000, cacheScope: 'private' });
    await modern.close();
    await legacy.close();
  });

  it('a request written to 2026-07-28: headers checked against the body, unknown revisions and methods refused', async () => {
    const { url, token } = await serve();
    const discover = await post(url, token, modernRequest('server/discover'), modernHeaders('server/discover'));
    expect(discover.status).toBe(200);
    expect(discover.json.result.supportedVersions).toContain(MODERN);
    expect(discover.json.result.capabilities).toMatchObject({ tools: {}, resources: {} });

    const listed = await post(url, token, modernRequest('tools/list'), modernHeaders('tools/list'));
    expect(listed.status).toBe(200);
    expect(listed.json.result.tools.length).toBe(MCP_OPERATIONS.length + 2);
    expect(listed.json.result).toMatchObject({ ttlMs: 300_000, cacheScope: 'private' });

    // Two answers of the same list are the same bytes: a client's cache stays valid until the tools change.
    const again = await post(url, token, modernRequest('tools/list'), modernHeaders('tools/list'));
    expect(JSON.stringify(again.json.result.tools)).toBe(JSON.stringify(listed.json.result.tools));

    // The routing headers must say what the body says.
    const mismatch = await post(url, token, modernRequest('tools/list'), modernHeaders('resources/list'));
    expect(mismatch.status).toBe(400);
    expect(mismatch.json.error.code).toBe(-32020);
    const nameMismatch = await post(
      url,
      token,
      modernRequest('tools/call', { name: 'voice_list', arguments: {} }),
      modernHeaders('tools/call', 'campaign_list'),
    );
    expect(nameMismatch.status).toBe(400);
    expect(nameMismatch.json.error.code).toBe(-32020);

    const called = await post(
      url,
      token,
      modernRequest('tools/call', { name: 'voice_list', arguments: {} }),
      modernHeaders('tools/call', 'voice_list'),
    );
    expect(called.status).toBe(200);
    expect(called.json.result.structuredContent.voices.length).toBeGreaterThan(0);

    // A revision the server does not speak names the ones it does.
    const future = modernRequest('tools/list');
    future.params._meta['io.modelcontextprotocol/protocolVersion'] = '2099-01-01';
    const unsupported = await post(url, token, future, {
      ...modernHeaders('tools/list'),
      'mcp-protocol-version': '2099-01-01',
    });
    expect(unsupported.json.error.code).toBe(-32022);
    expect(JSON.stringify(unsupported.json.error.data)).toContain(MODERN);

    // A method this server does not serve (prompts/list is served now: src/mcp/prompts.ts).
    const unknown = await post(url, token, modernRequest('logging/setLevel'), modernHeaders('logging/setLevel'));
    expect(unknown.json.error.code).toBe(-32601);
    const prompts = await post(url, token, modernRequest('prompts/list'), modernHeaders('prompts/list'));
    expect(prompts.json.result.prompts.length).toBeGreaterThan(0);
  });

  it('lists refuse a cursor they never handed out; resource templates are listed (three)', async () => {
    const { url, token } = await serve();
    for (const client of [await modernClient(url, token), await legacyClient(url, token)]) {
      await expect(client.listTools({ cursor: 'bogus' })).rejects.toMatchObject({ code: -32602 });
      await expect(client.listResources({ cursor: 'bogus' })).rejects.toMatchObject({ code: -32602 });
      expect((await client.listResourceTemplates()).resourceTemplates).toHaveLength(3);
      expect((await client.listResources()).resources.map((resource) => resource.uri)).toEqual([
        'campaign-gateway://schema.graphql',
      ]);
      await client.close();
    }
  });

  it('an Origin that is not allowed is refused with 403; the gateway’s own and configured ones are served', async () => {
    const { url, token } = await serve({ MCP_ALLOWED_ORIGINS: 'http://localhost:6274' });
    const body = modernRequest('tools/list');
    const headers = modernHeaders('tools/list');
    const evil = await post(url, token, body, { ...headers, origin: 'http://evil.example' });
    expect(evil.status).toBe(403);
    expect(evil.json.error.message).toMatch(/Origin/);
    // Refused before the credential is even looked at.
    expect((await post(url, 'not-a-token', body, { ...headers, origin: 'http://evil.example' })).status).toBe(403);
    expect((await post(url, token, body, { ...headers, origin: url.origin })).status).toBe(200);
    expect((await post(url, token, body, { ...headers, origin: 'http://localhost:6274' })).status).toBe(200);
    expect((await post(url, token, body, headers)).status).toBe(200);
  });

  it('a rebinding page controls Host and Origin alike: its own origin is not trusted, only a loopback one', async () => {
    const { url, token } = await serve();
    const body = JSON.stringify(modernRequest('tools/list'));
    const rebound = await rawPost(url, body, {
      host: 'attacker.example',
      origin: 'http://attacker.example',
      authorization: `Bearer ${token}`,
      ...modernHeaders('tools/list'),
    });
    expect(rebound.status).toBe(403);
    // With PUBLIC_BASE_URL, its origin is the gateway's own, whatever the Host.
    const configured = await serve({ PUBLIC_BASE_URL: 'https://gateway.example' });
    const own = await rawPost(configured.url, body, {
      host: 'gateway.example',
      origin: 'https://gateway.example',
      authorization: `Bearer ${configured.token}`,
      ...modernHeaders('tools/list'),
    });
    expect(own.status).toBe(200);
    const loopback = await rawPost(configured.url, body, {
      origin: configured.url.origin,
      authorization: `Bearer ${configured.token}`,
      ...modernHeaders('tools/list'),
    });
    expect(loopback.status).toBe(403);
  });

  it('an allowed browser origin gets CORS: a preflight before any credential, then the answer and its challenge', async () => {
    const { url, token } = await serve({ MCP_ALLOWED_ORIGINS: 'http://localhost:6274' });
    const preflight = await fetch(url, {
      method: 'OPTIONS',
      headers: {
        origin: 'http://localhost:6274',
        'access-control-request-method': 'POST',
        'access-control-request-headers': 'authorization, content-type, mcp-protocol-version, mcp-method',
      },
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get('access-control-allow-origin')).toBe('http://localhost:6274');
    expect(preflight.headers.get('access-control-allow-methods')).toBe('POST');
    expect(preflight.headers.get('access-control-allow-headers')).toContain('mcp-method');
    const refused = await fetch(url, { method: 'OPTIONS', headers: { origin: 'http://evil.example' } });
    expect(refused.status).toBe(403);
    expect(refused.headers.get('access-control-allow-origin')).toBeNull();

    const headers = { ...modernHeaders('tools/list'), origin: 'http://localhost:6274' };
    const answered = await post(url, token, modernRequest('tools/list'), headers);
    expect(answered.status).toBe(200);
    expect(answered.headers.get('access-control-allow-origin')).toBe('http://localhost:6274');
    const challenged = await post(url, 'not-a-token', modernRequest('tools/list'), headers);
    expect(challenged.status).toBe(401);
    expect(challenged.headers.get('access-control-allow-origin')).toBe('http://localhost:6274');
    expect(challenged.headers.get('access-control-expose-headers')).toContain('www-authenticate');
    // A refusal before the door (the 1 MiB body limit) is readable to it too.
    const tooLarge = await post(url, token, { ...modernRequest('tools/list'), pad: 'x'.repeat(1_100_000) }, headers);
    expect(tooLarge.status).toBe(413);
    expect(tooLarge.headers.get('access-control-allow-origin')).toBe('http://localhost:6274');
    expect(tooLarge.json.error.data).toEqual({ code: 'PAYLOAD_TOO_LARGE' });
  });

  it('MCP_ALLOWED_ORIGINS takes origins only', async () => {
    await expect(serve({ MCP_ALLOWED_ORIGINS: 'http://localhost:6274/path' })).rejects.toThrow(/not an origin/);
  });
});

describe('spec edges (issue 42)', () => {
  const EVERY_REVISION = ['2026-07-28', '2025-11-25', '2025-06-18', '2025-03-26', '2024-11-05', '2024-10-07'];

  it('server/discover and -32022 list every revision served, the 2025 family included', async () => {
    const { url, token } = await serve();
    const discover = await post(url, token, modernRequest('server/discover'), modernHeaders('server/discover'));
    expect(discover.json.result.supportedVersions).toEqual(EVERY_REVISION);
    const future = modernRequest('tools/list', {}, 9);
    future.params._meta['io.modelcontextprotocol/protocolVersion'] = '2099-01-01';
    const unsupported = await post(url, token, future, {
      ...modernHeaders('tools/list'),
      'mcp-protocol-version': '2099-01-01',
    });
    expect(unsupported.json.error.code).toBe(-32022);
    expect(unsupported.json.error.data.supported).toEqual(EVERY_REVISION);
    expect(unsupported.json.id).toBe(9);
    // A 2025-11-25 client is served all the same (the list is honest).
    const legacy = await legacyClient(url, token);
    expect((await legacy.listTools()).tools.length).toBe(MCP_OPERATIONS.length + 2);
    await legacy.close();
  });

  it('a cursor that is not a string is an invalid parameter (-32602), on both revisions', async () => {
    const { url, token } = await serve();
    for (const cursor of [5, { a: 1 }, ['x'], true]) {
      const modern = await post(url, token, modernRequest('tools/list', { cursor }, 3), modernHeaders('tools/list'));
      expect(modern.json.error?.code, JSON.stringify(modern.json)).toBe(-32602);
      expect(modern.json.id).toBe(3);
      const legacy = await post(
        url,
        token,
        { jsonrpc: '2.0', id: 4, method: 'resources/list', params: { cursor } },
        { 'mcp-protocol-version': '2025-11-25' },
      );
      expect(legacy.json.error?.code, JSON.stringify(legacy.json)).toBe(-32602);
    }
  });

  it('a 429 carries the id of the request it refuses', async () => {
    const { url, token } = await serve({ RATE_LIMIT_PER_MINUTE: '2' });
    const answers = [];
    for (let id = 1; id <= 4; id += 1) {
      answers.push(await post(url, token, modernRequest('tools/list', {}, id), modernHeaders('tools/list')));
    }
    const limited = answers.find((answer) => answer.status === 429);
    expect(limited, JSON.stringify(answers.map((a) => a.status))).toBeDefined();
    expect(limited!.json.id).toBe(answers.indexOf(limited!) + 1);
  });
});
