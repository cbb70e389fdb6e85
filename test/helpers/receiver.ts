// A local webhook receiver for tests: records every request and answers as the test says.
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach } from 'vitest';
import { startApp, type StartOptions, type TestApp } from './app.js';

export interface Received {
  headers: IncomingHttpHeaders;
  body: string;
  json: any;
  at: number;
}

export interface Receiver {
  url: string;
  received: Received[];
  /** Decides each answer: a status code, or a promise of one (to hold the request open). */
  respond: (request: Received, index: number) => number | Promise<number>;
  /** Resolves once `count` requests have arrived; rejects after `timeoutMs`. */
  waitFor(count: number, timeoutMs?: number): Promise<Received[]>;
  close(): Promise<void>;
}

export async function startReceiver(respond: Receiver['respond'] = () => 200, path = '/hook'): Promise<Receiver> {
  const waiters = new Set<() => void>();
  const receiver: Receiver = {
    url: '',
    received: [],
    respond,
    waitFor(count, timeoutMs = 5000) {
      return new Promise((resolve, reject) => {
        const check = () => {
          if (receiver.received.length >= count) {
            waiters.delete(check);
            clearTimeout(timer);
            resolve(receiver.received.slice());
            return true;
          }
          return false;
        };
        const timer = setTimeout(() => {
          waiters.delete(check);
          reject(new Error(`expected ${count} requests, got ${receiver.received.length} within ${timeoutMs} ms`));
        }, timeoutMs);
        if (!check()) waiters.add(check);
      });
    },
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      let json: unknown = null;
      try {
        json = JSON.parse(body);
      } catch {
        // not JSON
      }
      const entry: Received = { headers: req.headers, body, json, at: Date.now() };
      const index = receiver.received.push(entry) - 1;
      for (const waiter of [...waiters]) waiter();
      void Promise.resolve(receiver.respond(entry, index)).then((status) => {
        if (!res.destroyed) res.writeHead(status, { 'content-type': 'text/plain' }).end('ok');
      });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  receiver.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}${path}`;
  return receiver;
}

/**
 * Registers the clean-up of a webhook test file (call once at its top): after each test, the app it started is closed,
 * then its receivers — the app first, so that its worker is not left attempting deliveries to a closed receiver.
 */
export function webhookTestBed(): {
  start(env: Record<string, string>, options: StartOptions): Promise<TestApp>;
  receiver(respond?: Receiver['respond']): Promise<Receiver>;
  /** The test closed the app itself (what it measures): the clean-up leaves it. */
  closedByTest(): void;
} {
  let app: TestApp | undefined;
  const receivers: Receiver[] = [];
  afterEach(async () => {
    await app?.close();
    app = undefined;
    for (const receiver of receivers.splice(0)) await receiver.close();
  });
  return {
    async start(env, options) {
      app = await startApp(env, [], options);
      return app;
    },
    async receiver(respond) {
      const receiver = await startReceiver(respond);
      receivers.push(receiver);
      return receiver;
    },
    closedByTest() {
      app = undefined;
    },
  };
}
