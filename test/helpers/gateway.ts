// Gateways served on a loopback port, for tests that speak HTTP to them (an MCP client, raw node:http requests):
// `loopbackGateways()` at the top of a test file gives the function that opens one, and closes every one it opened
// after each test.
import { type IncomingHttpHeaders, request as httpRequest } from 'node:http';
import { afterEach } from 'vitest';
import { createHttpServer, type HttpServer, listen } from '../../src/http/server.js';
import { startApp, type StartOptions, type TestApp } from './app.js';
import { type LogLine, logCapture } from './log-lines.js';

export interface LoopbackGateway {
  t: TestApp;
  http: HttpServer;
  port: number;
  /** `http://127.0.0.1:<port>` */
  base: string;
  /** The MCP door's URL. */
  url: URL;
}

export function loopbackGateways(): (env?: Record<string, string>, options?: StartOptions) => Promise<LoopbackGateway> {
  const running: Array<{ t: TestApp; http: HttpServer }> = [];
  afterEach(async () => {
    for (const { t, http } of running.splice(0)) {
      http.server.closeAllConnections();
      await new Promise<void>((resolve) => http.server.close(() => resolve()));
      await t.close();
    }
  });
  return async (env = {}, options = {}) => {
    const t = await startApp(env, [], { worker: false, ...options });
    const http = createHttpServer(t.app);
    running.push({ t, http });
    const { port } = await listen(http.server, 0, '127.0.0.1');
    const base = `http://127.0.0.1:${port}`;
    return { t, http, port, base, url: new URL(`${base}/mcp`) };
  };
}

/** A gateway opened by `open` (a loopbackGateways() function) that logs at info, with the log lines it wrote. */
export async function gatewayWithLogLines(
  open: ReturnType<typeof loopbackGateways>,
  env: Record<string, string> = {},
): Promise<LoopbackGateway & { lines: LogLine[] }> {
  const log = logCapture();
  const gateway = await open({ LOG_LEVEL: 'info', ...env }, { logStream: log.stream });
  return { ...gateway, lines: log.lines };
}

/**
 * One request over node:http to 127.0.0.1:`port`, for what fetch will not send (TRACE, a Host header of its own, a
 * raw request target); the answer's status, headers and body as text.
 */
export function rawHttp(
  port: number | string,
  method: string,
  path: string,
  init: { body?: string; headers?: Record<string, string> } = {},
): Promise<{ status: number; headers: IncomingHttpHeaders; body: string }> {
  return new Promise((resolve, reject) => {
    const request = httpRequest({ host: '127.0.0.1', port, path, method, headers: init.headers }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () =>
        resolve({
          status: response.statusCode ?? 0,
          headers: response.headers,
          body: Buffer.concat(chunks).toString('utf8'),
        }),
      );
      response.on('error', reject);
    });
    request.on('error', reject);
    request.end(init.body);
  });
}

/** A valid `<kind>_connect` input for every integration kind (secrets that show masked in answers). */
export const MCP_INTEGRATION_INPUTS: Record<string, Record<string, string>> = {
  telephony: {
    telephonyAccountSid: 'AC123',
    telephonyAuthToken: 'auth-token-secret',
    telephonyPhoneNumber: '+15550001111',
    voiceProvider: 'TELEPHONY',
  },
  board: { apiKey: 'board-key-secret', boardId: 'b-1' },
  calendar: { apiKey: 'calendar-key-secret', schedulingUrl: 'https://cal.example.com/me' },
  erp: { apiKey: 'erp-key-secret', erpUrl: 'https://erp.example.com', secret: 'erp-secret-value' },
  social: { accessToken: 'social-token-secret', pageId: 'p-1', verifyToken: 'verify-secret' },
  chat: { botToken: 'bot-token-secret', channelId: 'c-1' },
};

/** A valid `campaign_create` input (the MCP tools' spelling), with overrides. */
export function mcpCampaignInput(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    campId: 'spring',
    title: 'Spring outreach',
    voiceId: 'en-US-aria',
    language: 'en-US',
    script: 'Hello, this is Aria.',
    purpose: 'Confirm appointments',
    knowledgeBase: 'https://example.com/kb',
    calendar: 'cal-1',
    firstLine: 'Hi!',
    tone: 'friendly',
    postCallAnalysisSchema: { type: 'object' },
    ...overrides,
  };
}
