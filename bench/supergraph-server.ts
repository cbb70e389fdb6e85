// The supergraph target of `npm run bench` (issue 45): Hive Gateway (@graphql-hive/gateway-runtime, on node:http) in
// front of our server's federation subgraph (/subgraph), the supergraph composed from our subgraph's SDL alone, the
// caller's Authorization forwarded. Our server runs as `npm start` runs it, in a child process on the same core (the
// bench pins this process; the child inherits it); the CPU the bench measures is this process's: what the gateway adds
// per request, the subgraph's own work being our GraphQL door's row.
import { type ChildProcess, spawn } from 'node:child_process';
import { openSync, readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createGatewayRuntime } from '@graphql-hive/gateway-runtime';
import { composeServices } from '@theguild/federation-composition';
import { parse } from 'graphql';

const ROOT = join(import.meta.dirname, '../..');
/** `npm start`'s flags (package.json), for our server. */
const START_FLAGS = ['--heap-growing-percent=100', '--max-semi-space-size=16'];

async function startSubgraph(): Promise<{ child: ChildProcess; base: string }> {
  const log = join(tmpdir(), `supergraph-subgraph-${process.pid}.log`);
  const child = spawn(process.execPath, [...START_FLAGS, join(ROOT, 'dist/src/main.js')], {
    cwd: ROOT,
    env: { ...process.env, PORT: '0' },
    stdio: ['ignore', openSync(log, 'w'), 'inherit'],
  });
  for (let i = 0; i < 400; i++) {
    const found = /listening on (http:\/\/[^\s"]+)/.exec(readFileSync(log, 'utf8'));
    if (found?.[1]) return { child, base: found[1] };
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error('our server did not start');
}

const subgraph = await startSubgraph();
const composed = composeServices([
  // The committed SDL (what `npm run schema` printed; a test checks it is the code's), so that this process does not
  // build our schema and its memory is the gateway's alone.
  {
    name: 'campaigns',
    typeDefs: parse(readFileSync(join(ROOT, 'schema/subgraph.graphql'), 'utf8')),
    url: `${subgraph.base}/subgraph`,
  },
]);
if (composed.errors?.length || !composed.supergraphSdl) {
  throw new Error(`composition failed: ${composed.errors?.map((error) => error.message).join('; ')}`);
}
const gateway = createGatewayRuntime({
  supergraph: composed.supergraphSdl,
  logging: false,
  propagateHeaders: {
    fromClientToSubgraphs: ({ request }) => ({ authorization: request.headers.get('authorization') }),
  },
});
const server = createServer(gateway);
server.listen(0, '127.0.0.1', () => {
  const address = server.address();
  console.log(`listening on http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`);
});

const stop = () => {
  subgraph.child.kill('SIGTERM');
  server.close();
  subgraph.child.once('exit', () => process.exit(0));
  setTimeout(() => process.exit(0), 3000).unref();
};
process.once('SIGTERM', stop);
process.once('SIGINT', stop);
