// Bodies refused for their size or their count of keys (issue 52, "bodies"): refused on their bytes, before they are
// decoded, copied or handed on — by the prepared lane itself (not decoded, encoded into a new request and read again
// by yoga), by yoga's parser, the REST and MCP doors — and a budget's 429 is answered after the body was read to its
// end but kept nowhere, on a connection the client goes on using. Over node:http, as a client meets them.
import { Agent, request as httpRequest } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { postParams } from '../../src/graphql/lane/lane-request.js';
import { createHttpServer, type HttpServer, listen } from '../../src/http/server.js';
import { MAX_JSON_VALUES } from '../../src/validation/json-limits.js';
import { startApp, type TestApp } from '../helpers/app.js';

let t: TestApp;
let http: HttpServer;
let port: number;
let token: string;
/** One socket, kept alive: every answer must leave it usable for the next request. */
const agent = new Agent({ keepAlive: true, maxSockets: 1 });

beforeAll(async () => {
  t = await startApp({ LARGE_BODY_MIB_PER_MINUTE: '1' }, [], { worker: false });
  http = createHttpServer(t.app);
  ({ port } = await listen(http.server, 0, '127.0.0.1'));
  token = (await t.account()).token;
});

afterAll(async () => {
  agent.destroy();
  http.server.closeAllConnections();
  await new Promise<void>((resolve) => http.server.close(() => resolve()));
  await t.close();
});

interface Reply {
  status: number;
  body: string;
  reusedSocket: boolean;
}

function post(path: string, body: string, headers: Record<string, string> = {}): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      {
        host: '127.0.0.1',
        port,
        method: 'POST',
        path,
        agent,
        headers: { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(body)), ...headers },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () =>
          resolve({
            status: res.statusCode ?? 0,
            body: Buffer.concat(chunks).toString(),
            reusedSocket: req.reusedSocket,
          }),
        );
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

const manyKeys = (count: number) =>
  `{"query":"query { __typename }","variables":{${Array.from({ length: count }, (_, i) => `"k${i}":${i}`).join(',')}}}`;

describe('a body of too many keys', () => {
  it('the prepared lane refuses it on its bytes, as yoga would, without handing it on', async () => {
    const refused = await postParams(new Request('http://x/graphql', { method: 'POST', body: manyKeys(60_000) }));
    expect('refused' in refused && refused.refused.message).toMatch(
      new RegExp(`more than ${MAX_JSON_VALUES} object keys and list items in all`),
    );
    // Within the count: read as before.
    const read = await postParams(new Request('http://x/graphql', { method: 'POST', body: manyKeys(10) }));
    expect('params' in read && read.params?.variables).toMatchObject({ k9: 9 });
  });

  it('over the socket: 400 BAD_USER_INPUT on /graphql (the lane and yoga agree: shadow mode), 422 on REST, and the socket goes on', async () => {
    const graphql = await post('/graphql', manyKeys(60_000), { authorization: `Bearer ${token}` });
    expect(graphql.status, graphql.body).toBe(400);
    expect(JSON.parse(graphql.body).errors[0]).toMatchObject({ extensions: { code: 'BAD_USER_INPUT' } });
    // Another account: the 0.9 MB body spent most of the first one's MiB of large bodies.
    const rest = await post('/api/v3/update_campaign', manyKeys(20_000), {
      authorization: `Bearer ${(await t.account()).token}`,
    });
    expect(rest.status, rest.body).toBe(422);
    expect(JSON.parse(rest.body).detail[0].msg).toMatch(/object keys and list items/);
    const after = await post('/graphql', '{"query":"{ __typename }"}', { authorization: `Bearer ${token}` });
    expect(after).toMatchObject({ status: 200, reusedSocket: true });
  });
});

describe('past the budget of large bodies', () => {
  it('429 after the body was read to its end: the client reads the answer, and its socket serves the next request', async () => {
    const other = await t.account();
    const big = JSON.stringify({ query: '{ __typename }', variables: { pad: 'x'.repeat(300_000) } });
    const auth = { authorization: `Bearer ${other.token}` };
    for (let i = 0; i < 3; i++) expect((await post('/graphql', big, auth)).status).toBe(200);
    const refused = await post('/graphql', big, auth);
    expect(refused.status, refused.body).toBe(429);
    expect(JSON.parse(refused.body).errors[0].extensions.code).toBe('RATE_LIMITED');
    expect(refused.reusedSocket).toBe(true);
    const rest = await post('/api/v3/update_campaign', JSON.stringify({ campId: 'x', pad: 'y'.repeat(100_000) }), auth);
    expect(rest.status, rest.body).toBe(429);
    expect(JSON.parse(rest.body).detail).toMatch(/large request bodies/);
    const small = await post('/graphql', '{"query":"{ __typename }"}', auth);
    expect(small).toMatchObject({ status: 200, reusedSocket: true });
  });
});
