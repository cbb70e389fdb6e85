// Refusals in an agent's words (issue 53, item 3; docs/mcp.md "Mistakes, all at once"): what a pattern wants is said
// in words, never as a regular expression, and a refusal names the agent's tools, not the GraphQL or REST doors.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { describe, expect, it } from 'vitest';
import { loopbackGateways, mcpCampaignInput } from '../helpers/gateway.js';

const gateway = loopbackGateways();

async function agent() {
  const { t, url } = await gateway();
  const { token } = await t.account();
  const client = new Client({ name: 'tool-words-test', version: '1.0.0' });
  await client.connect(
    new StreamableHTTPClientTransport(url, { requestInit: { headers: { authorization: `Bearer ${token}` } } }),
  );
  return client;
}

/** The tool error's own text (the JSON of its errors). */
const textOf = (answer: Awaited<ReturnType<Client['callTool']>>) =>
  (answer.content as Array<{ text: string }>).map((part) => part.text).join('\n');

describe('refusals in words', () => {
  it('a language, a campId and a voice: what is wanted, in words, naming the tool that lists voices', async () => {
    const client = await agent();
    const answer = await client.callTool({
      name: 'campaign_create',
      arguments: { input: mcpCampaignInput({ campId: 'not an id!', language: 'english', voiceId: 'nobody' }) },
    });
    expect(answer.isError).toBe(true);
    const text = textOf(answer);
    expect(text).toMatch(/BCP 47 language tag such as \\"en-US\\"/);
    expect(text).toMatch(/1 to 64 letters, digits, '_' or '-'/);
    expect(text).not.toMatch(/should match pattern|\^\[|\{1,64\}\$/);
    const voice = await client.callTool({
      name: 'campaign_create',
      arguments: { input: mcpCampaignInput({ voiceId: 'nobody' }) },
    });
    expect(voice.isError).toBe(true);
    expect(textOf(voice)).toMatch(
      /unknown voice; the voice catalogue lists the valid voiceIds \(voice_list lists them\)/,
    );
    expect(textOf(voice)).not.toMatch(/GraphQL|REST|get_supported_voices/);
    await client.close();
  });
});
