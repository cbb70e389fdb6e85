// Acceptance (issue 35): the example frontend examples/live-dashboard, built with Vite and served from a port of its
// own, signs in to the gateway with the demo account in a real browser (Debian's Chromium, driven by playwright-core),
// follows the account's campaigns with ONE `@live` query (urql → graphql-sse, GraphQL over SSE) and shows, within a
// second and without a reload, a title written through the legacy REST door, a status changed through GraphQL, and
// the call count and spend of a call completed by a signed call-status callback. Every request the page makes stays
// on 127.0.0.1. The screenshot goes to test/browser/output/.
import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { extname, join, normalize } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { type Browser, type Locator, type Page } from 'playwright-core';
import { build } from 'vite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEMO_EMAIL, DEMO_PASSWORD } from '../../src/demo.js';
import { listen } from '../../src/http/server.js';
import type { TestApp } from '../helpers/app.js';
import { CHROMIUM, CHROMIUM_MISSING, demoGateway, launchChromium } from '../helpers/browser.js';
import { sign } from '../helpers/telephony.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const EXAMPLE = join(ROOT, 'examples/live-dashboard');
const OUTPUT = fileURLToPath(new URL('./output/', import.meta.url));
/** The demo's telephony auth token (src/demo.ts): what the provider signs its callbacks with. */
const DEMO_TELEPHONY_AUTH_TOKEN = 'demo-telephony-auth-token';
/** How long a change may take to show on the page, from the answer to the write that made it. */
const LIVE_WITHIN_MS = 1000;
const CAMP = 'webinar-invites';

let testApp: TestApp | undefined;
let gateway: Server | undefined;
let pages: Server | undefined;
let browser: Browser | undefined;
let built = '';
let api = '';
let site = '';
let demoApiKey = '';

/** Serves the files of `dir` (index.html at /) on a loopback port. */
async function serveStatic(dir: string): Promise<{ server: Server; url: string }> {
  const types: Record<string, string> = {
    '.html': 'text/html; charset=utf-8',
    '.js': 'text/javascript; charset=utf-8',
    '.css': 'text/css; charset=utf-8',
    '.svg': 'image/svg+xml',
  };
  const server = createServer((req, res) => {
    const path = new URL(req.url ?? '/', 'http://x').pathname;
    const file = normalize(join(dir, path === '/' ? 'index.html' : decodeURIComponent(path)));
    if (!file.startsWith(dir) || !existsSync(file) || req.method !== 'GET') {
      res.writeHead(404).end();
      return;
    }
    res.writeHead(200, { 'content-type': types[extname(file)] ?? 'application/octet-stream' });
    res.end(readFileSync(file));
  });
  const { port } = await listen(server, 0, '127.0.0.1');
  return { server, url: `http://127.0.0.1:${port}` };
}

async function closeServer(server: Server | undefined): Promise<void> {
  if (!server) return;
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
}

/** Every request went to a loopback server of this test (or never left the page). */
function expectAllLocal(urls: string[]): void {
  expect(urls.length).toBeGreaterThan(0);
  const external = urls.filter(
    (url) => !url.startsWith('http://127.0.0.1:') && !url.startsWith('data:') && !url.startsWith('blob:'),
  );
  expect(external, 'requests that left 127.0.0.1').toEqual([]);
}

/** Waits until `locator` shows `text`, at most LIVE_WITHIN_MS from `since`; answers how long it took. */
async function shownWithin(locator: Locator, text: string, since: number): Promise<number> {
  const left = LIVE_WITHIN_MS - (performance.now() - since);
  await expect.poll(() => locator.innerText(), { timeout: Math.max(left, 1), interval: 20 }).toBe(text);
  const took = performance.now() - since;
  expect(took).toBeLessThan(LIVE_WITHIN_MS);
  return took;
}

async function json(response: Response): Promise<any> {
  const text = await response.text();
  expect(response.status, text).toBe(200);
  return JSON.parse(text);
}

describe('browser: the live dashboard example', () => {
  beforeAll(async () => {
    mkdirSync(OUTPUT, { recursive: true });

    ({ testApp, server: gateway, base: api, demoApiKey } = await demoGateway());

    // The example built as its README builds it, with VITE_API_URL (from an env file) naming the gateway: the page
    // comes from another port than the API, as a frontend deployed on its own would.
    built = mkdtempSync(join(tmpdir(), 'live-dashboard-'));
    const envDir = join(built, 'env');
    mkdirSync(envDir);
    writeFileSync(join(envDir, '.env'), `VITE_API_URL=${api}\n`);
    await build({
      root: EXAMPLE,
      configFile: false,
      envDir,
      mode: 'production',
      logLevel: 'warn',
      build: { outDir: join(built, 'dist'), emptyOutDir: true },
    });
    const served = await serveStatic(join(built, 'dist'));
    pages = served.server;
    site = served.url;

    browser = (await launchChromium()) ?? undefined; // without it each test fails with CHROMIUM_MISSING
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await closeServer(pages);
    await closeServer(gateway);
    await testApp?.close();
    if (built) rmSync(built, { recursive: true, force: true });
  }, 60_000);

  it('signs in, then shows REST and GraphQL writes and a call-status callback within a second, without a reload', async ({
    annotate,
  }) => {
    if (!existsSync(CHROMIUM)) throw new Error(CHROMIUM_MISSING);
    if (!browser) throw new Error('the browser did not start');
    const context = await browser.newContext({ viewport: { width: 1100, height: 700 } });
    const urls: string[] = [];
    const problems: string[] = [];
    const posts: string[] = [];
    context.on('request', (request) => {
      urls.push(request.url());
      if (request.method() === 'POST') posts.push(request.postData() ?? '');
    });
    context.on('requestfailed', (request) =>
      problems.push(`request failed: ${request.url()} ${request.failure()?.errorText}`),
    );
    const page: Page = await context.newPage();
    page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
    try {
      const response = await page.goto(site);
      expect(response?.status()).toBe(200);

      // The login form, then the demo account's campaigns.
      await page.getByTestId('email').fill(DEMO_EMAIL);
      await page.getByTestId('password').fill(DEMO_PASSWORD);
      const liveRequest = page.waitForRequest(
        (request) => request.url() === `${api}/graphql` && /@live/.test(request.postData() ?? ''),
        { timeout: 10_000 },
      );
      await page.getByTestId('sign-in').click();
      const row = page.getByTestId(`campaign-${CAMP}`);
      await row.waitFor({ timeout: 10_000 }).catch(async (error: Error) => {
        const says = await page.locator('[data-testid="stream-state"], [data-testid="login-error"]').allInnerTexts();
        throw new Error(`${error.message}\nthe page says: ${JSON.stringify(says.filter(Boolean))}`);
      });

      // One @live query over GraphQL over SSE, with the token of the login as its bearer token.
      const sent = await liveRequest;
      expect(sent.method()).toBe('POST');
      expect(sent.headers().accept).toContain('text/event-stream');
      expect(sent.headers().authorization).toMatch(/^Bearer ey/);
      expect(sent.postDataJSON()).toMatchObject({ operationName: 'Dashboard' });

      // The table shows what the gateway holds.
      const token = sent.headers().authorization!.slice('Bearer '.length);
      const rest = (path: string, init: RequestInit = {}) =>
        fetch(`${api}/api/v3${path}`, {
          ...init,
          headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', ...init.headers },
        });
      const before = await json(await rest(`/get_campaign?campId=${CAMP}`));
      await expect.poll(() => page.getByTestId('campaigns').locator('tbody tr').count()).toBe(4);
      expect(await row.getByTestId('title').innerText()).toBe(before.title);
      expect(await row.getByTestId('status').innerText()).toBe('active');
      // The status is drawn in its own colour (index.html's .status-ACTIVE, .status-PAUSED).
      const colourOf = (locator: Locator) => locator.evaluate((element) => getComputedStyle(element).color);
      expect(await row.getByTestId('status').getAttribute('class')).toBe('status status-ACTIVE');
      expect(await colourOf(row.getByTestId('status'))).toBe('rgb(19, 115, 51)');
      expect(await row.getByTestId('calls').innerText()).toBe(String(before.totalNumCall));
      const spentBefore = await row.getByTestId('spent').innerText();
      expect(spentBefore).toBe(before.totalSpent.toFixed(2));
      // The chart of calls per day by outcome: two weeks, today last (the box carries each day's calls it drew).
      const chartBox = page.getByTestId('calls-chart');
      const drawnCalls = async () => JSON.parse((await chartBox.getAttribute('data-calls')) ?? '[]') as number[];
      await expect.poll(async () => (await drawnCalls()).length).toBe(14);
      const callsToday = (await drawnCalls()).at(-1)!;
      expect(await chartBox.locator('canvas').boundingBox()).toMatchObject({ width: expect.any(Number) });
      await page.screenshot({ path: `${OUTPUT}live-dashboard-signed-in.png` });
      // A mark in the page's window: still there at the end, so the page never reloaded.
      await page.evaluate(() => Object.assign(window, { sameDocument: true }));
      const streamed = urls.length;

      // (a) A title written through the legacy REST door (update_campaign replaces the campaign's fields)...
      const { campId, status, creationDate, updatedAt, ...fields } = before;
      const title = 'Webinar invitations (moved to May)';
      const updated = await rest('/update_campaign', {
        method: 'POST',
        body: JSON.stringify({ campId, campaignModelData: { ...fields, title } }),
      });
      const titleWritten = performance.now();
      expect((await json(updated)).title).toBe(title);
      const titleTook = await shownWithin(row.getByTestId('title'), title, titleWritten);
      expect([campId, status, typeof creationDate, typeof updatedAt]).toEqual([CAMP, 'active', 'string', 'string']);

      // ... and a status changed through GraphQL.
      const paused = await fetch(`${api}/graphql`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify({
          query: 'mutation ($campId: String!) { campaignPause(input: { campId: $campId }) { campaign { status } } }',
          variables: { campId: CAMP },
        }),
      });
      const statusWritten = performance.now();
      expect(await json(paused)).toEqual({ data: { campaignPause: { campaign: { status: 'PAUSED' } } } });
      const statusTook = await shownWithin(row.getByTestId('status'), 'paused', statusWritten);
      // The colour follows the status: a paused campaign is not drawn in the active green.
      expect(await row.getByTestId('status').getAttribute('class')).toBe('status status-PAUSED');
      expect(await colourOf(row.getByTestId('status'))).toBe('rgb(176, 96, 0)');

      // (b) The provider reports a completed call of the campaign: a signed call-status callback.
      const callback = `${api}/api/v3/telephony_webhook/${encodeURIComponent(demoApiKey)}/${CAMP}`;
      const params = {
        CallSid: 'CAlivedashboard000000000000000001',
        CallStatus: 'completed',
        From: '+14155550100',
        To: '+14155550123',
        Direction: 'outbound-api',
        CallDuration: '95',
        Price: '-2.50',
      };
      const reported = await fetch(callback, {
        method: 'POST',
        headers: {
          'content-type': 'application/x-www-form-urlencoded',
          'x-telephony-signature': sign(DEMO_TELEPHONY_AUTH_TOKEN, callback, params),
        },
        body: new URLSearchParams(params),
      });
      const callWritten = performance.now();
      expect(await json(reported)).toEqual({ received: true });
      const callsTook = await shownWithin(row.getByTestId('calls'), String(before.totalNumCall + 1), callWritten);
      const spentTook = await shownWithin(row.getByTestId('spent'), (before.totalSpent + 2.5).toFixed(2), callWritten);
      expect(await row.getByTestId('spent').innerText()).not.toBe(spentBefore);
      // The chart moved with the same answer: today's bar has one call more.
      const chartLeft = LIVE_WITHIN_MS - (performance.now() - callWritten);
      await expect
        .poll(async () => (await drawnCalls()).at(-1), { timeout: Math.max(chartLeft, 1), interval: 20 })
        .toBe(callsToday + 1);

      // The other campaigns are as they were, the page is the same document, and nothing was asked for again: the
      // changes came down the one stream (no polling, no second query).
      expect(await page.getByTestId('campaign-spring-outreach').getByTestId('status').innerText()).toBe('active');
      expect(await page.evaluate(() => (window as { sameDocument?: boolean }).sameDocument)).toBe(true);
      expect(urls.slice(streamed)).toEqual([]);
      expect(posts.filter((body) => body.includes('@live'))).toHaveLength(1);
      await page.screenshot({ path: `${OUTPUT}live-dashboard.png` });
      await annotate(
        `shown after the write's answer: REST title ${titleTook.toFixed(0)} ms, GraphQL status ${statusTook.toFixed(0)} ms, ` +
          `callback calls ${callsTook.toFixed(0)} ms, spent ${spentTook.toFixed(0)} ms`,
      );

      // Sorted by calls: the calls column reads largest first. Filtered to paused: the paused campaigns only.
      await page.getByTestId('sort').selectOption('CALLS');
      const callsColumn = async () =>
        (await page.getByTestId('campaigns').locator('tbody [data-testid="calls"]').allInnerTexts()).map(Number);
      await expect
        .poll(async () => {
          const calls = await callsColumn();
          return calls.length === 4 && calls.every((n, i) => i === 0 || calls[i - 1]! >= n);
        })
        .toBe(true);
      expect((await callsColumn())[0]).toBeGreaterThan(0);
      await page.getByTestId('status-filter').selectOption('PAUSED');
      const statuses = () => page.getByTestId('campaigns').locator('tbody [data-testid="status"]').allInnerTexts();
      await expect.poll(async () => (await statuses()).every((status) => status === 'paused')).toBe(true);
      const shown = await page
        .getByTestId('campaigns')
        .locator('tbody tr')
        .evaluateAll((trs) => trs.map((tr) => tr.dataset.campId));
      expect(shown).toContain(CAMP);
      expect(shown.length).toBeLessThan(4);

      expectAllLocal(urls);
      // The page ended its live query twice itself (a new order, then a new filter, each a new query): aborted by the
      // page, not failed.
      const aborted = `request failed: ${api}/graphql net::ERR_ABORTED`;
      expect(problems.filter((problem) => problem === aborted)).toHaveLength(2);
      expect(problems.filter((problem) => problem !== aborted)).toEqual([]);
    } finally {
      await context.close();
    }
  }, 60_000);
});

it('examples/live-dashboard/graphql-env.d.ts is what gql.tada generates from schema/schema.graphql (npm run schema)', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'tada-'));
  try {
    const output = join(dir, 'graphql-env.d.ts');
    await promisify(execFile)(
      process.execPath,
      [
        join(ROOT, 'node_modules/gql.tada/bin/cli.js'),
        'generate',
        'output',
        '--tsconfig',
        join(EXAMPLE, 'tsconfig.json'),
        '--output',
        output,
      ],
      { cwd: ROOT },
    );
    expect(readFileSync(output, 'utf8')).toBe(readFileSync(join(EXAMPLE, 'graphql-env.d.ts'), 'utf8'));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
