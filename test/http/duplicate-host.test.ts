// Headers a request may carry once (src/http/duplicate-headers.ts): two Host headers, two Authorization headers, or
// two framing headers (Content-Length, Transfer-Encoding) are answered 400 with a JSON detail before any door, told at
// info; Node would have kept the first and dropped the rest while a proxy in front may have acted on another. Raw
// requests over node:net, since no HTTP client sends these.
import { connect } from 'node:net';
import { describe, expect, it } from 'vitest';
import { duplicateHeaderProblem } from '../../src/http/duplicate-headers.js';
import { gatewayWithLogLines, loopbackGateways } from '../helpers/gateway.js';

const gateway = loopbackGateways();

async function serve() {
  const { port, t, lines } = await gatewayWithLogLines(gateway);
  return { port, t, logs: () => lines.map((line) => JSON.stringify(line)).join('\n') };
}

/** Sends `head` (CRLF-joined lines) and `body` as they are; the status and body of the answer. */
function raw(port: number, lines: string[], body = ''): Promise<{ status: number; body: string; text: string }> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    let text = '';
    socket.on('data', (chunk: Buffer) => (text += chunk.toString()));
    socket.on('error', reject);
    socket.on('close', () => {
      const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(text)?.[1] ?? 0);
      const head = text.slice(0, text.indexOf('\r\n\r\n'));
      const rest = text.slice(head.length + 4);
      resolve({ status, body: /^transfer-encoding: chunked/im.test(head) ? unchunked(rest) : rest, text });
    });
    socket.write(`${[...lines, 'Connection: close'].join('\r\n')}\r\n\r\n${body}`);
    // Answers end with the connection (Connection: close); a server that waits for more is told no more is coming.
    setTimeout(() => socket.end(), 2000).unref();
  });
}

/** A chunked body's data. */
function unchunked(text: string): string {
  let data = '';
  for (let at = 0; ;) {
    const end = text.indexOf('\r\n', at);
    const size = parseInt(text.slice(at, end), 16);
    if (!(size > 0)) return data;
    data += text.slice(end + 2, end + 2 + size);
    at = end + 2 + size + 2;
  }
}

describe('duplicateHeaderProblem', () => {
  it('names the header that repeats, in any case; other repeated headers are fine', () => {
    expect(duplicateHeaderProblem(['Host', 'a', 'Accept', 'x', 'HOST', 'b'])).toMatch(/more than one Host header/);
    expect(duplicateHeaderProblem(['authorization', 'Bearer a', 'Authorization', 'Bearer b'])).toMatch(/Authorization/);
    expect(
      duplicateHeaderProblem(['Host', 'a', 'Accept', 'x', 'Accept', 'y', 'Cookie', 'a', 'Cookie', 'b']),
    ).toBeNull();
    expect(duplicateHeaderProblem([])).toBeNull();
  });
});

describe('the listener', () => {
  it('answers 400 JSON to two Host headers, the same or different, and serves the next request', async () => {
    const { port, logs } = await serve();
    const once = await raw(port, ['GET /healthz HTTP/1.1', `Host: 127.0.0.1:${port}`]);
    expect(once.status, once.text).toBe(200);
    for (const second of [`Host: 127.0.0.1:${port}`, 'Host: evil.example', 'host: evil.example']) {
      const twice = await raw(port, ['GET /healthz HTTP/1.1', `Host: 127.0.0.1:${port}`, second]);
      expect(twice.status, twice.text).toBe(400);
      expect(twice.text).toMatch(/content-type: application\/json/i);
      expect(JSON.parse(twice.body)).toEqual({ detail: 'Bad Request: the request has more than one Host header' });
    }
    // On every door: GraphQL and REST too.
    const graphql = await raw(
      port,
      ['POST /graphql HTTP/1.1', 'Host: a', 'Host: b', 'Content-Type: application/json', 'Content-Length: 26'],
      '{"query":"{ __typename }"}',
    );
    expect(graphql.status, graphql.text).toBe(400);
    expect((await raw(port, ['GET /api/v3/get_supported_voices HTTP/1.1', 'Host: a', 'Host: b'])).status).toBe(400);
    expect(logs()).toMatch(/more than one Host header/);
    expect(logs()).not.toMatch(/"level":50/);
    expect((await raw(port, ['GET /healthz HTTP/1.1', `Host: 127.0.0.1:${port}`])).status).toBe(200);
  });

  it('answers 400 to two Authorization headers, and to repeated or conflicting framing headers', async () => {
    const { port, t } = await serve();
    const { token } = await t.account();
    const body = '{"query":"{ viewer { email } }"}';
    const post = (headers: string[]) =>
      raw(port, ['POST /graphql HTTP/1.1', 'Host: a', 'Content-Type: application/json', ...headers], body);
    const fine = await post([`Authorization: Bearer ${token}`, `Content-Length: ${body.length}`]);
    expect(fine.status, fine.text).toBe(200);
    const twoTokens = await post([
      `Authorization: Bearer ${token}`,
      'Authorization: Bearer other',
      `Content-Length: ${body.length}`,
    ]);
    expect(twoTokens.status, twoTokens.text).toBe(400);
    expect(JSON.parse(twoTokens.body).detail).toMatch(/more than one Authorization header/);
    expect(twoTokens.text).not.toContain(token);
    for (const framing of [
      [`Content-Length: ${body.length}`, `Content-Length: ${body.length}`],
      [`Content-Length: ${body.length}`, 'Content-Length: 5'],
      [`Content-Length: ${body.length}`, 'Transfer-Encoding: chunked'],
      ['Transfer-Encoding: chunked', 'Transfer-Encoding: chunked'],
    ]) {
      const answer = await post(framing);
      expect(answer.status, `${framing.join(' / ')}: ${answer.text}`).toBe(400);
    }
  });

  it('refuses a WebSocket upgrade with two Host headers', async () => {
    const { port } = await serve();
    const answer = await raw(port, [
      'GET /graphql HTTP/1.1',
      'Host: a',
      'Host: b',
      'Upgrade: websocket',
      'Sec-WebSocket-Version: 13',
      'Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==',
      'Sec-WebSocket-Protocol: graphql-transport-ws',
    ]);
    expect(answer.status, answer.text).toBe(400);
  });
});
