// Serves the app's fetch handler over node:http.
import { createServer, type Server } from 'node:http';
import { createServerAdapter } from '@whatwg-node/server';
import type { App } from '../app.js';

export function createHttpServer(app: App): Server {
  return createServer(createServerAdapter((request: Request) => app.fetch(request)));
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
