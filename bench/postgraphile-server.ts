// An optional target of `npm run bench` on PostgreSQL (issue 21 item 5: peak memory against PostGraphile on the same
// rows): PostGraphile 4 as a library on node:http, over the bench's database, with its production settings (no query
// log, no schema watching). PostGraphile is not a dependency of this project: install it in a folder of its own
// (`npm install --prefix /tmp/postgraphile postgraphile@4`) and name that folder in BENCH_POSTGRAPHILE.
import { createServer, type RequestListener } from 'node:http';
import { createRequire } from 'node:module';
import { join } from 'node:path';

const folder = process.env.BENCH_POSTGRAPHILE ?? '';
const { postgraphile } = createRequire(join(folder, 'package.json'))('postgraphile') as {
  postgraphile: (database: string, schema: string, options: Record<string, unknown>) => RequestListener;
};
const handler = postgraphile(process.env.BENCH_DB ?? '', 'public', {
  graphqlRoute: '/graphql',
  disableQueryLog: true,
  watchPg: false,
  retryOnInitFail: false,
  setofFunctionsContainNulls: false,
  dynamicJson: true,
});
const server = createServer(handler);
server.listen(0, '127.0.0.1', () => {
  const address = server.address();
  console.log(`listening on http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`);
});
// SIGTERM ends the process through exit, so that a `--cpu-prof` run (BENCH_NODE_FLAGS) writes its profile.
process.on('SIGTERM', () => process.exit(0));
