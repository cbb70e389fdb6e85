// Acceptance (docs/mcp-oauth.md): the login and consent page works in a real browser (Debian's Chromium, driven by
// playwright-core). An agent (the MCP SDK's auth()) sends the user to the gateway; the user signs in and approves in
// Chromium; the browser is sent back to the agent's redirect URI with a code and iss, which the agent redeems for a
// named access token. The agent's redirect URI is answered by the test itself: nothing leaves the machine.
import { existsSync, mkdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { auth } from '@modelcontextprotocol/client';
import { chromium } from 'playwright-core';
import { afterAll, describe, expect, it } from 'vitest';
import { createHttpServer, listen } from '../../src/http/server.js';
import { startApp } from '../helpers/app.js';
import { REDIRECT_URI, serveClientMetadata, TestAgent } from '../helpers/oauth-agent.js';

const CHROMIUM = '/usr/bin/chromium';
const OUTPUT = fileURLToPath(new URL('./output/', import.meta.url));
const cleanups: Array<() => Promise<void>> = [];
afterAll(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
}, 60_000);

describe('browser: the MCP OAuth login and consent page', () => {
  it('signs in and approves in Chromium; the agent gets a named access token', async () => {
    if (!existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} is missing (apt-get install chromium)`);
    mkdirSync(OUTPUT, { recursive: true });
    const host = await serveClientMetadata();
    cleanups.push(() => host.close());
    const t = await startApp(
      { OAUTH_ALLOW_PRIVATE_CLIENT_METADATA: 'true', OAUTH_CLIENT_METADATA_CA_FILE: host.caFile },
      [],
      { worker: false },
    );
    const server = createHttpServer(t.app).server;
    cleanups.push(async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await t.close();
    });
    const { port } = await listen(server, 0, '127.0.0.1');
    const base = `http://127.0.0.1:${port}`;
    const mcp = new URL(`${base}/mcp`);
    const { email } = await t.account();

    const agent = new TestAgent(host.clientId);
    expect(await auth(agent, { serverUrl: mcp })).toBe('REDIRECT');

    const browser = await chromium.launch({
      executablePath: CHROMIUM,
      headless: true,
      args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update'],
    });
    cleanups.push(() => browser.close());
    const page = await browser.newPage();
    let callback: URL | undefined;
    await page.route(`${REDIRECT_URI}**`, async (route) => {
      callback = new URL(route.request().url());
      await route.fulfill({ status: 200, contentType: 'text/html', body: '<p>Back at the agent.</p>' });
    });
    await page.goto(agent.authorizationUrl!.href);
    await expect.poll(() => page.locator('h1').innerText()).toContain('Test <Agent>');
    await page.getByLabel('E-mail of your account').fill(email);
    await page.getByLabel('Password').fill('correct horse battery');
    await page.screenshot({ path: `${OUTPUT}mcp-oauth-consent.png` });
    await page.getByRole('button', { name: 'Approve' }).click();
    await expect.poll(() => callback?.href, { timeout: 10_000 }).toBeTruthy();
    expect(callback?.searchParams.get('iss')).toBe(base);

    const code = callback?.searchParams.get('code') ?? '';
    expect(await auth(agent, { serverUrl: mcp, authorizationCode: code, iss: base })).toBe('AUTHORIZED');
    expect(agent.tokens()?.access_token).toMatch(/^cgat_/);
  }, 60_000);
});
