// Acceptance: a developer in a real browser (Debian's Chromium, driven by playwright-core) opens GraphiQL at
// /graphql, puts a demo token in the Headers tab, runs the default document's "Campaigns" operation and sees the demo
// campaigns in the result pane; and /api/v3/docs renders Swagger UI with the REST operations. Both pages must work
// offline: every request the browser makes stays on the local server. Screenshots go to test/browser/output/.
import { existsSync, mkdirSync } from 'node:fs';
import type { Server } from 'node:http';
import { fileURLToPath } from 'node:url';
import { type Browser, type BrowserContext, chromium, type Locator, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { DEMO_EMAIL, DEMO_PASSWORD, seedDemo } from '../../src/demo.js';
import { createHttpServer, listen } from '../../src/http/server.js';
import { startApp, type TestApp } from '../helpers/app.js';

const CHROMIUM = '/usr/bin/chromium';
const MISSING = `${CHROMIUM} is missing: the browser tests need Debian's chromium package (apt-get install chromium)`;
const OUTPUT = fileURLToPath(new URL('./output/', import.meta.url));
const DEMO_TITLES = ['Spring outreach', 'Renewal reminders', 'Winter satisfaction survey', 'Webinar invitations'];

let testApp: TestApp | undefined;
let server: Server | undefined;
let browser: Browser | undefined;
let base = '';
let token = '';

/** A fresh browser context that records every URL its pages (and their workers) request. */
async function openPage(): Promise<{ context: BrowserContext; page: Page; urls: string[]; problems: string[] }> {
  // Each test fails (rather than being skipped, as a failing beforeAll would leave them) when there is no browser.
  if (!existsSync(CHROMIUM)) throw new Error(MISSING);
  if (!browser) throw new Error('the browser did not start');
  // Tall enough for the whole Campaigns result to render: Monaco only draws the lines in view.
  const context = await browser.newContext({ viewport: { width: 1400, height: 2000 } });
  const urls: string[] = [];
  const problems: string[] = [];
  context.on('request', (request) => urls.push(request.url()));
  context.on('requestfailed', (request) =>
    problems.push(`request failed: ${request.url()} ${request.failure()?.errorText}`),
  );
  const page = await context.newPage();
  page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
  return { context, page, urls, problems };
}

/** What an element shows; Monaco draws spaces as no-break spaces. */
async function textOf(locator: Locator): Promise<string> {
  return (await locator.innerText()).replace(/\u00a0/g, ' ');
}

/** Every request went to the local server (or never left the page). */
function expectAllLocal(urls: string[]): void {
  expect(urls.length).toBeGreaterThan(0);
  const external = urls.filter(
    (url) => !url.startsWith('http://127.0.0.1:') && !url.startsWith('data:') && !url.startsWith('blob:'),
  );
  expect(external, 'requests that left 127.0.0.1').toEqual([]);
}

describe('browser: GraphiQL and Swagger UI', () => {
  beforeAll(async () => {
    mkdirSync(OUTPUT, { recursive: true });

    testApp = await startApp({}, [], { worker: false });
    const config = loadConfig({
      DATABASE_URL: testApp.databaseUrl,
      JWT_SECRET: 'test-secret-test-secret-test-secret-0123',
      SECRETS_KEY: Buffer.alloc(32, 7).toString('base64'),
      PASSWORD_HASH_COST: '10',
      LOG_LEVEL: 'silent',
    });
    await seedDemo(testApp.app.database.db, config);

    server = createHttpServer(testApp.app).server;
    const { port } = await listen(server, 0, '127.0.0.1');
    base = `http://127.0.0.1:${port}`;

    const login = await fetch(`${base}/api/v3/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ username: DEMO_EMAIL, password: DEMO_PASSWORD }),
    });
    const body = (await login.json()) as { access_token?: string };
    expect(login.status, JSON.stringify(body)).toBe(200);
    token = body.access_token ?? '';
    expect(token).not.toBe('');

    if (!existsSync(CHROMIUM)) return; // each test then fails with MISSING
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      headless: true,
      // Without the background-networking flags Chromium phones home, and this machine's closed network refuses it.
      args: [
        '--no-sandbox',
        '--disable-gpu',
        '--disable-quic',
        '--no-first-run',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
      ],
    });
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    if (server) {
      server.closeAllConnections();
      const closing = server;
      await new Promise<void>((resolve) => closing.close(() => resolve()));
    }
    await testApp?.close();
  }, 60_000);

  it('GraphiQL runs the default document’s Campaigns operation with a demo token and shows the campaigns', async () => {
    const { context, page, urls, problems } = await openPage();
    try {
      const response = await page.goto(`${base}/graphql`);
      expect(response?.status()).toBe(200);
      expect(response?.headers()['content-type']).toContain('text/html');

      // The operation editor opens with the default document: both of its operations.
      const operationEditor = page.locator('.graphiql-query-editor .view-lines');
      await expect.poll(() => textOf(operationEditor), { timeout: 20_000 }).toContain('query Campaigns');
      expect(await textOf(operationEditor)).toContain('mutation Login');

      // The token goes into the Headers tab, as the default document's comment tells a developer to do.
      await page.getByRole('button', { name: 'Headers', exact: true }).click();
      const headersEditor = page.locator('.graphiql-editor-tool .graphiql-editor:not(.hidden) .monaco-editor');
      await headersEditor.click();
      // insertText, not typing key by key: Monaco would auto-close the braces and quotes.
      const headers = JSON.stringify({ Authorization: `Bearer ${token}` });
      await page.keyboard.insertText(headers);
      // GraphiQL took it (it keeps the Headers tab's text under this key).
      await expect
        .poll(() => page.evaluate(() => localStorage.getItem('graphiql:headers')), { timeout: 5000 })
        .toBe(headers);

      // Two operations: the execute button asks which one to run.
      await page.getByRole('button', { name: /Execute query/ }).click();
      const choice = page.getByRole('menuitem', { name: 'Campaigns', exact: true });
      await choice.waitFor({ timeout: 5000 });
      expect(await page.getByRole('menuitem').allInnerTexts()).toEqual(['Login', 'Campaigns']);
      await page.screenshot({ path: `${OUTPUT}graphiql-choose-operation.png` });

      const sent = page.waitForRequest(
        (request) =>
          request.method() === 'POST' &&
          request.url() === `${base}/graphql` &&
          /Campaigns/.test(request.postData() ?? ''),
        { timeout: 10_000 },
      );
      await choice.click();
      const request = await sent;
      expect(request.headers().authorization).toBe(`Bearer ${token}`);
      expect(request.postDataJSON()).toMatchObject({ operationName: 'Campaigns' });

      // The result pane shows the demo account's campaigns.
      const result = page.locator('.graphiql-response');
      await expect.poll(() => textOf(result), { timeout: 15_000 }).toContain('"pageInfo"');
      const text = await textOf(result);
      expect(text).toContain('"campaigns"');
      expect(text).toContain(`"email": "${DEMO_EMAIL}"`);
      for (const title of DEMO_TITLES) expect(text).toContain(`"title": "${title}"`);
      expect(text).not.toContain('"errors"');
      await page.screenshot({ path: `${OUTPUT}graphiql-campaigns.png` });

      expectAllLocal(urls);
      expect(problems).toEqual([]);
    } finally {
      await context.close();
    }
  }, 60_000);

  it('Swagger UI at /api/v3/docs renders the REST operations', async () => {
    const { context, page, urls, problems } = await openPage();
    try {
      const response = await page.goto(`${base}/api/v3/docs`);
      expect(response?.status()).toBe(200);

      const paths = page.locator('.opblock .opblock-summary-path');
      await paths.first().waitFor({ timeout: 20_000 });
      const rendered = await paths.allInnerTexts();
      expect(rendered).toContain('/add_webhook_campaingn');
      expect(rendered).toContain('/update_campaign');
      expect(rendered).toContain('/login');
      expect(rendered).toContain('/get_campaigns');
      // Swagger UI shows no errors about the document it loaded.
      expect(await page.locator('.swagger-ui .errors-wrapper').count()).toBe(0);
      await page.screenshot({ path: `${OUTPUT}swagger-ui.png`, fullPage: true });

      expect(urls).toContain(`${base}/api/v3/openapi.json`);
      expectAllLocal(urls);
      expect(problems).toEqual([]);
    } finally {
      await context.close();
    }
  }, 60_000);
});
