// A gateway on a loopback port and the official SDK 2.x client (revision 2026-07-28) connected to its MCP door with an
// account's token, for tests that call tools; `toolAnswer` reads a call's answer, success or tool error, as one value.
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { Client as LegacyClient } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as LegacyTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { loopbackGateways } from './gateway.js';

let gateway: ReturnType<typeof loopbackGateways> | undefined;

/** Registers the clean-up of every door `mcpDoor` opens (call once at the top of a test file). */
export function closeMcpDoorsAfterEach(): void {
  gateway = loopbackGateways();
}

/** A gateway (no worker: deliveries wait), an account, and a client of its MCP door with the account's token. */
export async function mcpDoor() {
  if (!gateway) throw new Error('call closeMcpDoorsAfterEach() at the top of the test file');
  const { t, url } = await gateway();
  const session = await t.account();
  const client = new Client(
    { name: 'retries-test', version: '1.0.0' },
    { versionNegotiation: { mode: { pin: '2026-07-28' } } },
  );
  // Every tool listed (the default toolsets list some: docs/mcp.md "Toolsets"): the SDK checks an answer against the
  // output schema it listed.
  await client.connect(
    new StreamableHTTPClientTransport(new URL('?toolsets=all', url), {
      requestInit: { headers: { authorization: `Bearer ${session.token}` } },
    }),
  );
  return { t, token: session.token, apiKey: session.apiKey, client, url: new URL('?toolsets=all', url) };
}

/** A tool's answer: its structured content, or `{ error: <code> }` for a tool error (with the message beside it). */
export type ToolAnswer = { data: Record<string, any> } | { error: string; message: string };

export async function toolAnswer(client: Client, name: string, args: Record<string, unknown>): Promise<ToolAnswer> {
  const result = await client.callTool({ name, arguments: args });
  if (!result.isError) return { data: result.structuredContent as Record<string, any> };
  const content = result.content as Array<{ type: string; text: string }>;
  const [error] = JSON.parse(content[0]?.text ?? '{}').errors as Array<{ code: string; message: string }>;
  return { error: error?.code ?? 'UNKNOWN', message: error?.message ?? '' };
}

/** The official SDK 1.x client (the 2025-11-25 revision, after its `initialize`) connected to `url` with `token`. */
export async function legacyMcpClient(url: URL, token: string, name = 'legacy-agent'): Promise<LegacyClient> {
  const client = new LegacyClient({ name, version: '1.32.2' });
  await client.connect(new LegacyTransport(url, { requestInit: { headers: { authorization: `Bearer ${token}` } } }));
  return client;
}
