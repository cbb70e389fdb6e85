// Every tool answer fits MCP_ANSWER_MAX_KB (64 KiB) on the wire (issue 53), counted on the bytes the response
// carries — whatever the JSON-RPC id the client chose, on either protocol revision, as JSON or as an SSE event.
import { describe, expect, it } from 'vitest';
import { loopbackGateways, mcpCampaignInput } from '../helpers/gateway.js';

const MODERN = '2026-07-28';
const LEGACY = '2025-11-25';
const BUDGET = 64 * 1024;
const gateway = loopbackGateways();

async function post(url: URL, token: string, body: unknown, headers: Record<string, string>, accept: string) {
  const response = await fetch(url, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', accept, ...headers },
    body: JSON.stringify(body),
  });
  const bytes = Buffer.from(await response.arrayBuffer());
  return { status: response.status, type: response.headers.get('content-type') ?? '', bytes };
}

/** The JSON-RPC message in an answer: the body itself, or the data of its SSE event. */
function messageOf(bytes: Buffer): Record<string, any> {
  const text = bytes.toString('utf8');
  if (text.startsWith('{')) return JSON.parse(text) as Record<string, any>;
  const data = text
    .split('\n')
    .filter((line) => line.startsWith('data:'))
    .map((line) => line.slice(5).trim())
    .join('');
  return JSON.parse(data) as Record<string, any>;
}

const modernCall = (id: unknown, name: string, args: Record<string, unknown>) => ({
  jsonrpc: '2.0',
  id,
  method: 'tools/call',
  params: {
    name,
    arguments: args,
    _meta: {
      'io.modelcontextprotocol/protocolVersion': MODERN,
      'io.modelcontextprotocol/clientInfo': { name: 'wire-budget', version: '1' },
      'io.modelcontextprotocol/clientCapabilities': {},
    },
  },
});

describe('tool answers within the budget on the wire', () => {
  it('with ids up to 2 000 characters, on both revisions, as JSON and as SSE', async () => {
    const { t, url } = await gateway();
    const { token } = await t.account();
    const script = '😀'.repeat(20_000) + 'é'.repeat(10_000);
    const created = await post(
      url,
      token,
      modernCall(1, 'campaign_create', { input: mcpCampaignInput({ campId: 'long', script }) }),
      { 'mcp-protocol-version': MODERN, 'mcp-method': 'tools/call', 'mcp-name': 'campaign_create' },
      'application/json, text/event-stream',
    );
    expect(messageOf(created.bytes).result?.isError, created.bytes.toString().slice(0, 300)).toBeFalsy();

    const ids: unknown[] = [1, 'x'.repeat(2_000), '"\\'.repeat(1_000), 'é'.repeat(2_000)];
    const calls: Array<[string, Record<string, unknown>]> = [
      ['text_read', { id: 'long', field: 'SCRIPT', length: 50_000 }],
      ['text_read', { id: 'long', field: 'SCRIPT', offset: 40_000, length: 50_000 }],
      ['campaign_get', { campId: 'long' }],
    ];
    const sizes: number[] = [];
    for (const accept of ['application/json, text/event-stream', 'text/event-stream, application/json']) {
      for (const id of ids) {
        for (const [name, args] of calls) {
          const modern = await post(
            url,
            token,
            modernCall(id, name, args),
            { 'mcp-protocol-version': MODERN, 'mcp-method': 'tools/call', 'mcp-name': name },
            accept,
          );
          expect(modern.status).toBe(200);
          const message = messageOf(modern.bytes);
          expect(message.id).toEqual(id);
          expect(message.result?.isError, JSON.stringify(message).slice(0, 300)).toBeFalsy();
          expect(modern.bytes.length, `${MODERN} ${name} id ${String(id).length}`).toBeLessThanOrEqual(BUDGET);
          sizes.push(modern.bytes.length);

          // 2025-11-25: the stateless fallback (initialize, then each call with its version header).
          const legacyHeaders = { 'mcp-protocol-version': LEGACY };
          const legacy = await post(
            url,
            token,
            { jsonrpc: '2.0', id, method: 'tools/call', params: { name, arguments: args } },
            legacyHeaders,
            accept,
          );
          expect(legacy.status).toBe(200);
          const legacyMessage = messageOf(legacy.bytes);
          expect(legacyMessage.result?.isError, JSON.stringify(legacyMessage).slice(0, 300)).toBeFalsy();
          expect(legacy.bytes.length, `${LEGACY} ${name} id ${String(id).length}`).toBeLessThanOrEqual(BUDGET);
          sizes.push(legacy.bytes.length);
        }
      }
    }
    // The answers were at the budget, not far below it: the test measures what it means to.
    expect(Math.max(...sizes)).toBeGreaterThan(BUDGET - 2_048);
  });
});
