// Prompts for the work agents do here and completions of their arguments (issue 53; docs/mcp.md "Prompts and
// completions"): listed with titles, filled in with checked arguments (every mistake, in words), and a campId completed
// from the caller's own campaigns only.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { describe, expect, it } from 'vitest';
import { loopbackGateways, mcpCampaignInput } from '../helpers/gateway.js';
import { legacyMcpClient } from '../helpers/mcp-client.js';

const gateway = loopbackGateways();

const agentOf = (url: URL, token: string) => legacyMcpClient(url, token, 'prompts-test');

const textOf = (prompt: Awaited<ReturnType<Client['getPrompt']>>) =>
  prompt.messages.map((message) => (message.content.type === 'text' ? message.content.text : '')).join('\n');

describe('prompts', () => {
  it('three prompts with titles and arguments, small on the wire; each filled in, naming the tools to use', async () => {
    const { t, url } = await gateway();
    const client = await agentOf(url, (await t.account()).token);
    const { prompts } = await client.listPrompts();
    expect(prompts.map((prompt) => prompt.name)).toEqual(['campaign_setup', 'calls_review', 'weekly_report']);
    for (const prompt of prompts) expect(prompt.title, prompt.name).toMatch(/^[A-Z][a-z]/);
    expect(JSON.stringify(prompts).length).toBeLessThan(4 * 1024);
    const setup = await client.getPrompt({
      name: 'campaign_setup',
      arguments: { goal: 'Confirm dental appointments', language: 'pt-BR' },
    });
    expect(textOf(setup)).toMatch(/Confirm dental appointments/);
    expect(textOf(setup)).toMatch(/voice_list with language "pt-BR"/);
    expect(textOf(setup)).toMatch(/campaign_create .*PAUSED/s);
    expect(textOf(setup)).toMatch(/ask me before campaign_resume/);
    const review = await client.getPrompt({ name: 'calls_review', arguments: { campId: 'spring' } });
    expect(textOf(review)).toMatch(/latest 20 calls of campaign "spring"/);
    expect(textOf(review)).toMatch(/text_read/);
    const report = await client.getPrompt({ name: 'weekly_report', arguments: {} });
    expect(textOf(report)).toMatch(/campaign_list .*campaign_metrics/s);
    await client.close();
  });

  it('arguments refused all at once, in words: a missing goal, a bad campId, a count out of range, an unknown one', async () => {
    const { t, url } = await gateway();
    const client = await agentOf(url, (await t.account()).token);
    await expect(client.getPrompt({ name: 'campaign_setup', arguments: { language: 'english' } })).rejects.toThrow(
      /goal: required; language: a language tag such as "en-US"|language: a language tag such as "en-US".*goal: required/,
    );
    await expect(
      client.getPrompt({ name: 'calls_review', arguments: { campId: 'not an id', count: '500', color: 'red' } }),
    ).rejects.toThrow(
      /color: calls_review takes no such argument.*campId: a campId is 1 to 64.*count: a whole number from 1 to 100/,
    );
    await expect(client.getPrompt({ name: 'nothing', arguments: {} })).rejects.toThrow(
      /unknown prompt "nothing"; the prompts are campaign_setup, calls_review, weekly_report/,
    );
    await expect(client.getPrompt({ name: 'campaign_setup', arguments: { goal: 'x'.repeat(501) } })).rejects.toThrow(
      /goal: it has more than 500 characters/,
    );
    await client.close();
  });
});

describe('completions', () => {
  it("a campId from the caller's own campaigns only; a language from the common tags", async () => {
    const { t, url } = await gateway();
    const mine = await agentOf(url, (await t.account()).token);
    const theirs = await agentOf(url, (await t.account()).token);
    for (const campId of ['spring', 'sprint', 'autumn']) {
      const created = await mine.callTool({
        name: 'campaign_create',
        arguments: { input: mcpCampaignInput({ campId }) },
      });
      expect(created.isError, JSON.stringify(created.content)).toBeFalsy();
    }
    await theirs.callTool({ name: 'campaign_create', arguments: { input: mcpCampaignInput({ campId: 'spree' }) } });
    const complete = (client: Client, name: string, argument: string, value: string) =>
      client.complete({ ref: { type: 'ref/prompt', name }, argument: { name: argument, value } });
    const spr = await complete(mine, 'calls_review', 'campId', 'spr');
    expect([...spr.completion.values].sort()).toEqual(['spring', 'sprint']);
    expect((await complete(theirs, 'weekly_report', 'campId', '')).completion.values).toEqual(['spree']);
    expect((await complete(mine, 'campaign_setup', 'language', 'pt')).completion.values).toEqual(['pt-BR', 'pt-PT']);
    // An argument that is not completed (free text), or another prompt's: nothing.
    expect((await complete(mine, 'campaign_setup', 'goal', 'Con')).completion.values).toEqual([]);
    expect((await complete(mine, 'nothing', 'campId', '')).completion.values).toEqual([]);
    await mine.close();
    await theirs.close();
  });
});
