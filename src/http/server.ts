// Serves the app's fetch handler over node:http, and shuts down without dropping accepted requests.
import { createServer, type Server } from 'node:http';
import { Server as NetServer } from 'node:net';
import { createServerAdapter } from '@whatwg-node/server';
import type { App } from '../app.js';

export interface HttpServer {
  server: Server;
  /**
   * Graceful shutdown: stops accepting connections, answers the requests already received (each with
   * `Connection: close`, so clients open no new ones here), waits for them and for idle keep-alive connections to
   * end, then closes the app (the delivery worker finishes its attempts; the database closes). Resolves false if
   * `timeoutMs` ran out first and connections had to be cut.
   */
  shutdown(timeoutMs: number): Promise<boolean>;
}

export function createHttpServer(app: App): HttpServer {
  const adapter = createServerAdapter((request: Request) => app.fetch(request));
  const server = createServer((req, res) => {
    if (app.draining) res.setHeader('connection', 'close');
    void adapter(req, res);
  });
  // Idle keep-alive connections end on their own this long after their last response.
  server.keepAliveTimeout = 5000;

  return {
    server,
    async shutdown(timeoutMs) {
      app.draining = true;
      const closed = new Promise<void>((resolve) => {
        // net.Server#close stops accepting and waits for every connection to end. http.Server#close would also
        // destroy the connections that look idle at this instant, racing a request a client is sending on one.
        NetServer.prototype.close.call(server, () => resolve());
      });
      const timer = new Promise<'timeout'>((resolve) => setTimeout(() => resolve('timeout'), timeoutMs).unref());
      const outcome = await Promise.race([closed.then(() => 'closed' as const), timer]);
      if (outcome === 'timeout') server.closeAllConnections();
      await app.close();
      return outcome === 'closed';
    },
  };
}

export function listen(server: Server, port: number, host: string): Promise<{ port: number }> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      const address = server.address();
      resolve({ port: typeof address === 'object' && address ? address.port : port });
    });
  });
}
