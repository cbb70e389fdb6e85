// What the node:http listener writes for each door's answers (bench/archive.md, "One adapter"): every answer the doors
// make themselves is a body of known length, sent with Content-Length in one piece — not a stream sent chunked, as
// Node's built-in Response made REST answers before (a web ReadableStream read through promises, about a third of a
// REST list request's CPU).
import { request as httpRequest } from 'node:http';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createHttpServer, type HttpServer, listen } from '../../src/http/server.js';
import type { Plugin } from 'graphql-yoga';
import { startApp, type TestApp } from '../helpers/app.js';
import { createLegacyCampaign } from '../helpers/campaigns.js';
import { eventually } from '../helpers/eventually.js';
import { logCapture } from '../helpers/log-lines.js';

let t: TestApp;
let http: HttpServer;
let port: number;
const { stream, lines } = logCapture();

/** Holds every GraphQL execution 300 ms: long enough for a client to give up first. */
const slowExecution: Plugin = {
  onExecute: () => new Promise<void>((resolve) => setTimeout(resolve, 300)),
};

beforeEach(async () => {
  lines.length = 0;
  t = await startApp({ LOG_LEVEL: 'info' }, [slowExecution], { worker: false, logStream: stream });
  http = createHttpServer(t.app);
  ({ port } = await listen(http.server, 0, '127.0.0.1'));
});

afterEach(async () => {
  http.server.closeAllConnections();
  await new Promise<void>((resolve) => http.server.close(() => resolve()));
  await t.close();
});

interface RawReply {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: Buffer;
}

/** One request over a socket, its headers as they came on the wire. */
function send(method: string, path: string, headers: Record<string, string> = {}, body?: string): Promise<RawReply> {
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: '127.0.0.1', port, method, path, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

function expectOnePiece(reply: RawReply): void {
  expect(reply.headers['transfer-encoding']).toBeUndefined();
  expect(Number(reply.headers['content-length'])).toBe(reply.body.byteLength);
}

describe('answers on the wire', () => {
  it('REST lists, REST errors, GraphQL results and refusals carry Content-Length and are not chunked', async () => {
    const { token } = await t.account();
    const auth = { authorization: `Bearer ${token}` };
    await createLegacyCampaign(t, token, 'wire-1', { title: 'On the wire' });

    const list = await send('GET', '/api/v3/get_campaigns', auth);
    expect(list.status).toBe(200);
    expect(list.headers['content-type']).toMatch(/^application\/json/);
    expect(JSON.parse(list.body.toString())).toEqual([expect.objectContaining({ campaignId: 'wire-1' })]);
    expectOnePiece(list);

    const missing = await send('GET', '/api/v3/get_campaign?campId=nope', auth);
    expect(missing.status).toBe(404);
    expect(JSON.parse(missing.body.toString())).toEqual({ detail: expect.any(String) });
    expectOnePiece(missing);

    const unauthenticated = await send('GET', '/api/v3/get_campaigns');
    expect(unauthenticated.status).toBe(401);
    expect(unauthenticated.headers['www-authenticate']).toBe('Bearer');
    expectOnePiece(unauthenticated);

    const graphql = await send(
      'POST',
      '/graphql',
      { ...auth, 'content-type': 'application/json' },
      JSON.stringify({ query: '{ campaigns(first: 5) { edges { node { campId title } } } }' }),
    );
    expect(graphql.status).toBe(200);
    expect(JSON.parse(graphql.body.toString())).toEqual({
      data: { campaigns: { edges: [{ node: { campId: 'wire-1', title: 'On the wire' } }] } },
    });
    expect(graphql.headers['x-request-id']).toEqual(expect.any(String));
    expectOnePiece(graphql);

    const tooLarge = await send(
      'POST',
      '/api/v3/update_campaign',
      { ...auth, 'content-type': 'application/json', 'content-length': String(2 * 1024 * 1024) },
      '',
    );
    expect(tooLarge.status).toBe(413);
    expectOnePiece(tooLarge);
  });

  it('a request whose client left before the answer was ready is logged with status 499, not as answered', async () => {
    const { token } = await t.account();
    lines.length = 0;
    await new Promise<void>((resolve) => {
      const req = httpRequest({
        host: '127.0.0.1',
        port,
        method: 'POST',
        path: '/graphql',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      });
      req.on('error', () => resolve());
      req.end(JSON.stringify({ query: '{ campaigns(first: 1) { edges { cursor } } }' }));
      setTimeout(() => {
        req.destroy();
        resolve();
      }, 50);
    });
    const access = await eventually(async () => {
      const line = lines.find((entry) => entry.msg === 'request' && entry.path === '/graphql');
      if (!line) throw new Error('no access line yet');
      return line;
    });
    expect(access).toMatchObject({ method: 'POST', status: 499 });
    // A client that waits gets its answer, logged as it went out.
    lines.length = 0;
    const answered = await send(
      'POST',
      '/graphql',
      { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      JSON.stringify({ query: '{ campaigns(first: 1) { edges { cursor } } }' }),
    );
    expect(answered.status).toBe(200);
    expect(lines.find((entry) => entry.msg === 'request' && entry.path === '/graphql')).toMatchObject({ status: 200 });
  });
});
