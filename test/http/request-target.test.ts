// The Host header and the request target, checked before routing (src/http/request-target.ts): a Host carrying a path
// would route a request to another door (`Host: h/metrics?` sent to /graphql reached /metrics), one a URL cannot hold
// was a 500 with a stack trace, and an absolute target names another host. Each is a 400 with a JSON detail, told at
// info; well-formed hosts (names, IPv4, bracketed IPv6, a trailing dot, a port) are served.
import { connect } from 'node:net';
import { describe, expect, it } from 'vitest';
import { requestTargetProblem } from '../../src/http/request-target.js';
import { gatewayWithLogLines, loopbackGateways, rawHttp } from '../helpers/gateway.js';

const gateway = loopbackGateways();

const serve = () => gatewayWithLogLines(gateway);

/** One GET by node:http with this Host and target (fetch would build both from the URL). */
const get = (port: number, host: string, target: string) => rawHttp(port, 'GET', target, { headers: { host } });

describe('requestTargetProblem', () => {
  it.each([
    'localhost',
    'localhost:4000',
    'gateway.example.com',
    'gateway.example.com.',
    '127.0.0.1:65535',
    '[::1]:4000',
    '[2001:db8::1]',
    'xn--bcher-kva.example',
    'my_app:4000',
    'project_api_1',
  ])('serves Host %j', (host) => {
    expect(requestTargetProblem(host, '/graphql')).toBeNull();
  });

  it.each([
    'a b',
    '127.0.0.1:4000/metrics?',
    '127.0.0.1:99999',
    '[::1',
    'a%00b',
    'a",error="x',
    'user@host',
    '',
    `${'a'.repeat(63)}.`.repeat(5),
  ])('refuses Host %j', (host) => {
    expect(requestTargetProblem(host, '/graphql')).toMatch(/Host header/);
  });

  it('refuses a target that is not a path', () => {
    expect(requestTargetProblem('localhost', 'http://evil.example/mcp')).toMatch(/origin-form/);
    expect(requestTargetProblem('localhost', '*')).toMatch(/origin-form/);
  });
});

describe('the listener', () => {
  it('answers 400 to a Host that would reroute or break the URL, and to an absolute target, told at info', async () => {
    const { port, lines } = await serve();
    expect((await get(port, `127.0.0.1:${port}`, '/healthz')).status).toBe(200);
    for (const host of [`127.0.0.1:${port}/metrics?`, 'a b', '127.0.0.1:99999', '[::1']) {
      const answer = await get(port, host, '/graphql');
      expect(answer.status, host).toBe(400);
      expect(JSON.parse(answer.body).detail).toMatch(/Host header/);
      expect(answer.body).not.toMatch(/at |TypeError/);
    }
    const absolute = await get(port, `127.0.0.1:${port}`, `http://evil.example/metrics`);
    expect(absolute.status).toBe(400);
    const refused = lines.filter((line) => /Bad Request/.test(line.msg));
    expect(refused).toHaveLength(5);
    for (const line of refused) {
      expect(line.level).toBe(30);
      expect(line.err).toBeUndefined();
    }
  });

  it('refuses a WebSocket upgrade with such a Host before the handshake', async () => {
    const { port } = await serve();
    const answer = await new Promise<string>((resolve, reject) => {
      const socket = connect(port, '127.0.0.1', () => {
        socket.write(
          'GET /graphql HTTP/1.1\r\nHost: 127.0.0.1/metrics?\r\nConnection: Upgrade\r\nUpgrade: websocket\r\n' +
            'Sec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n' +
            'Sec-WebSocket-Protocol: graphql-transport-ws\r\n\r\n',
        );
      });
      let text = '';
      socket.on('data', (chunk: Buffer) => (text += chunk.toString()));
      socket.on('end', () => resolve(text));
      socket.on('error', reject);
    });
    expect(answer).toMatch(/^HTTP\/1\.1 400 /);
  });
});
