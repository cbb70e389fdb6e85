// The operation metrics count MCP's tool calls too (docs/observability.md "Metrics"): each tool runs its GraphQL
// document through envelop's execute, noted under the MCP door with the document's operation name and type.
import { describe, expect, it } from 'vitest';
import { closeMcpDoorsAfterEach, mcpDoor, toolAnswer } from '../helpers/mcp-client.js';

closeMcpDoorsAfterEach();

describe('operation metrics at the MCP door', () => {
  it('a tool call counts under door="mcp" with its operation', async () => {
    const { t, client } = await mcpDoor();
    expect('data' in (await toolAnswer(client, 'campaign_list', {}))).toBe(true);
    expect('data' in (await toolAnswer(client, 'campaign_list', {}))).toBe(true);
    const text = (await t.request('GET', '/metrics')).text;
    const lines = text
      .split('\n')
      .filter((line) => line.startsWith('gateway_graphql_operation_duration_seconds_count{door="mcp"'));
    expect(lines.length, text.slice(0, 2000)).toBeGreaterThanOrEqual(1);
    const queries = lines.filter((line) => line.includes('operation_type="query"'));
    expect(queries.reduce((sum, line) => sum + Number(line.split(' ').at(-1)), 0)).toBeGreaterThanOrEqual(2);
  });
});
