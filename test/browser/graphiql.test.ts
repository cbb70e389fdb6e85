// Acceptance: a developer in a real browser (Debian's Chromium, driven by playwright-core) opens GraphiQL at
// /graphql, runs the default document's "Login", then its "Campaigns" (the token from Login goes with it, nothing is
// pasted) and sees the demo campaigns in the result pane, then its "LiveCampaigns" (@live) and sees a change made
// meanwhile; and /api/v3/docs renders Swagger UI with the REST operations,
// whose Authorize dialog signs in with the demo account's e-mail and password (docs/rest-api.md "Try it in Swagger UI") or takes
// a pasted token, and then "Try it out" lists the demo campaigns. Both pages must work
// offline: every request the browser makes stays on the local server. Screenshots go to test/browser/output/.
import { existsSync, mkdirSync } from 'node:fs';
import type { Server } from 'node:http';
import { fileURLToPath } from 'node:url';
import { type Browser, type BrowserContext, type Locator, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEMO_EMAIL, DEMO_PASSWORD } from '../../src/demo.js';
import type { TestApp } from '../helpers/app.js';
import { CHROMIUM, CHROMIUM_MISSING, demoGateway, launchChromium } from '../helpers/browser.js';

const OUTPUT = fileURLToPath(new URL('./output/', import.meta.url));
const DEMO_TITLES = ['Spring outreach', 'Renewal reminders', 'Winter satisfaction survey', 'Webinar invitations'];

let testApp: TestApp | undefined;
let server: Server | undefined;
let browser: Browser | undefined;
let base = '';

/** A fresh browser context that records every URL its pages (and their workers) request. */
async function openPage(): Promise<{ context: BrowserContext; page: Page; urls: string[]; problems: string[] }> {
  // Each test fails (rather than being skipped, as a failing beforeAll would leave them) when there is no browser.
  if (!existsSync(CHROMIUM)) throw new Error(CHROMIUM_MISSING);
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

    ({ testApp, server, base } = await demoGateway());

    browser = (await launchChromium()) ?? undefined; // without it each test fails with CHROMIUM_MISSING
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

  it('GraphiQL on a first visit: open, run Login, run Campaigns, see the demo campaigns (nothing pasted)', async () => {
    const { context, page, urls, problems } = await openPage();
    try {
      const response = await page.goto(`${base}/graphql`);
      expect(response?.status()).toBe(200);
      expect(response?.headers()['content-type']).toContain('text/html');

      // The operation editor opens with the default document: both of its operations.
      const operationEditor = page.locator('.graphiql-query-editor .view-lines');
      await expect.poll(() => textOf(operationEditor), { timeout: 20_000 }).toContain('query Campaigns');
      expect(await textOf(operationEditor)).toContain('mutation Login');

      // Run "Login": two operations, so the execute button asks which one to run.
      const execute = page.getByRole('button', { name: /Execute query/ });
      await execute.click();
      await page.getByRole('menuitem', { name: 'Login', exact: true }).waitFor({ timeout: 5000 });
      expect(await page.getByRole('menuitem').allInnerTexts()).toEqual(['Login', 'Campaigns', 'LiveCampaigns']);
      const loggedIn = page.waitForResponse(
        (response) => response.url() === `${base}/graphql` && /Login/.test(response.request().postData() ?? ''),
        { timeout: 10_000 },
      );
      await page.getByRole('menuitem', { name: 'Login', exact: true }).click();
      const issued = ((await (await loggedIn).json()) as { data: { accountLogin: { accessToken: string } } }).data
        .accountLogin.accessToken;
      expect(issued).toMatch(/^ey/);
      const result = page.locator('.graphiql-response');
      await expect.poll(() => textOf(result), { timeout: 15_000 }).toContain('"accessToken"');
      await page.screenshot({ path: `${OUTPUT}graphiql-login.png` });

      // Then "Campaigns", with nothing pasted anywhere: the token from Login goes with it.
      await execute.click();
      const choice = page.getByRole('menuitem', { name: 'Campaigns', exact: true });
      await choice.waitFor({ timeout: 5000 });

      const sent = page.waitForRequest(
        (request) =>
          request.method() === 'POST' &&
          request.url() === `${base}/graphql` &&
          /Campaigns/.test(request.postData() ?? ''),
        { timeout: 10_000 },
      );
      await choice.click();
      const request = await sent;
      expect(request.headers().authorization).toBe(`Bearer ${issued}`);
      expect(request.postDataJSON()).toMatchObject({ operationName: 'Campaigns' });

      // The result pane shows the demo account's campaigns.
      await expect.poll(() => textOf(result), { timeout: 15_000 }).toContain('"pageInfo"');
      const text = await textOf(result);
      expect(text).toContain('"campaigns"');
      expect(text).toContain(`"email": "${DEMO_EMAIL}"`);
      for (const title of DEMO_TITLES) expect(text).toContain(`"title": "${title}"`);
      expect(text).not.toContain('"errors"');
      await page.screenshot({ path: `${OUTPUT}graphiql-campaigns.png` });

      // "LiveCampaigns" (@live): GraphiQL keeps it open (GET, text/event-stream), and the pane follows a change made
      // meanwhile (through another client).
      await execute.click();
      const live = page.getByRole('menuitem', { name: 'LiveCampaigns', exact: true });
      await live.waitFor({ timeout: 5000 });
      const stream = page.waitForRequest(
        (request) => request.method() === 'GET' && /operationName=LiveCampaigns/.test(request.url()),
        { timeout: 10_000 },
      );
      await live.click();
      expect((await stream).headers().accept).toContain('text/event-stream');
      await expect.poll(() => textOf(result), { timeout: 15_000 }).toContain('"metrics"');
      expect(await textOf(result)).not.toContain('Spring outreach, live');
      const listed = await testApp!.gql<{ campaigns: { edges: Array<{ node: { campId: string; title: string } }> } }>(
        '{ campaigns(first: 10) { edges { node { campId title } } } }',
        {},
        issued,
      );
      const spring = listed.body.data!.campaigns.edges.find((edge) => edge.node.title === 'Spring outreach')!.node;
      const renamed = await testApp!.gql(
        'mutation ($c: String!) { campaignUpdate(input: { campId: $c, title: "Spring outreach, live" }) { campaign { id } } }',
        { c: spring.campId },
        issued,
      );
      expect(renamed.body.errors, renamed.text).toBeUndefined();
      await expect.poll(() => textOf(result), { timeout: 5000 }).toContain('"title": "Spring outreach, live"');
      await page.screenshot({ path: `${OUTPUT}graphiql-live.png` });
      // Stop it (the run button has become a stop button), so that the page leaves no stream open.
      await page.getByRole('button', { name: /Stop/ }).click();
      await execute.waitFor({ timeout: 5000 });

      // The explorer plugin (yoga's GraphiQL ships it): its sidebar button opens a tree of the schema's fields.
      await page.getByRole('button', { name: /GraphiQL Explorer/ }).click();
      const explorer = page.locator('.graphiql-explorer-root, .docExplorerWrap');
      await expect.poll(() => explorer.count(), { timeout: 10_000 }).toBeGreaterThan(0);
      await expect.poll(() => textOf(explorer.first()), { timeout: 10_000 }).toContain('campaigns');
      await page.screenshot({ path: `${OUTPUT}graphiql-explorer.png` });

      expectAllLocal(urls);
      // The live query's stream, stopped by the stop button, ends as an aborted request: that one is expected.
      expect(problems.filter((problem) => !/operationName=LiveCampaigns.*ERR_ABORTED/.test(problem))).toEqual([]);
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

  it("Swagger UI: Authorize with the demo account's e-mail and password (no client fields), then Try it out", async () => {
    const { context, page, urls, problems } = await openPage();
    try {
      await page.goto(`${base}/api/v3/docs`);
      const sent: Array<string | undefined> = [];
      page.on('request', (request) => {
        if (request.url().includes('/api/v3/get_campaigns')) sent.push(request.headers().authorization);
      });
      await page.locator('.auth-wrapper .btn.authorize').click();
      const signIn = page.locator('.auth-container').filter({ hasText: 'OAuth2PasswordBearer' });
      await signIn.locator('#oauth_username').waitFor({ timeout: 20_000 });
      // What a newcomer sees: an e-mail and a password, none of the OAuth2 client fields or the note about scopes.
      // They are in the page (Swagger UI renders them), only hidden: a selector that matched nothing would prove nothing.
      for (const hidden of ['#client_id_password', '#client_secret_password', '#password_type', '.scope-def']) {
        expect(await page.locator(hidden).count(), hidden).toBeGreaterThan(0);
        expect(await page.locator(hidden).isVisible(), hidden).toBe(false);
      }
      expect(await signIn.innerText()).toContain('demo@example.com / demo-password');
      await page.screenshot({ path: `${OUTPUT}swagger-ui-authorize.png` });

      await signIn.locator('#oauth_username').fill(DEMO_EMAIL);
      await signIn.locator('#oauth_password').fill(DEMO_PASSWORD);
      await signIn.locator('.btn.authorize').click();
      await signIn.locator('h6', { hasText: 'Authorized' }).waitFor({ timeout: 10_000 });
      // Signed in, Swagger UI lists what it sent: still no client fields (they are in the page, hidden).
      const clientFields = await page.locator('label[for^="client_"], label[for="password_type"]').all();
      expect(clientFields.length).toBeGreaterThan(0);
      for (const field of clientFields) expect(await field.isVisible()).toBe(false);
      await signIn.locator('.btn-done').click();

      // "Try it out" on GET /get_campaigns sends the token and shows the demo campaigns.
      const operation = page.locator('#operations-campaigns-getGetCampaigns');
      const execute = async () => {
        await operation.locator('.execute').click();
        const status = operation.locator('.live-responses-table .response .response-col_status');
        await expect.poll(() => status.innerText(), { timeout: 10_000 }).toBe('200');
        return operation.locator('.live-responses-table .response .response-col_description').innerText();
      };
      await operation.locator('.opblock-summary').click();
      await operation.locator('.try-out__btn').click();
      const listed = await execute();
      for (const title of DEMO_TITLES) expect(listed).toContain(title);
      expect(sent.at(-1)).toMatch(/^Bearer ey/);

      // A token one already has (a named access token, or a login's from curl) is pasted into HTTPBearer instead.
      const login = await fetch(`${base}/api/v3/login`, {
        method: 'POST',
        body: new URLSearchParams({ username: DEMO_EMAIL, password: DEMO_PASSWORD }),
      });
      const { access_token: pasted } = (await login.json()) as { access_token: string };
      await page.locator('.auth-wrapper .btn.authorize').click();
      await signIn.locator('.btn.authorize').click(); // Logout
      const paste = page.locator('.auth-container').filter({ hasText: 'HTTPBearer' });
      await paste.locator('#auth-bearer-value').fill(pasted);
      await paste.locator('.btn.authorize').click();
      await paste.locator('.btn-done').click();
      expect(await execute()).toContain(DEMO_TITLES[0]);
      expect(sent.at(-1)).toBe(`Bearer ${pasted}`);

      expectAllLocal(urls);
      expect(problems).toEqual([]);
    } finally {
      await context.close();
    }
  }, 60_000);
});
