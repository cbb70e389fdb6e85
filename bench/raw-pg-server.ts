// The raw baseline of `npm run bench` on PostgreSQL: node:http and one prepared `pg` statement returning the
// account's campaigns as JSON — all columns at /campaigns, the five of a list entry at /campaign-list. A pool of 10
// connections, as our server uses. No framework, no auth, no validation.
import { createServer } from 'node:http';
import pg from 'pg';

const pool = new pg.Pool({ connectionString: process.env.BENCH_DB ?? '', max: 10 });
const accountId = process.env.BENCH_ACCOUNT ?? '';
const queries: Record<string, pg.QueryConfig> = {
  '/campaigns': {
    name: 'raw-campaigns',
    text: 'select * from campaigns where account_id = $1 order by created_at desc, camp_id desc limit 1000',
    values: [accountId],
  },
  '/campaign-list': {
    name: 'raw-campaign-list',
    text:
      'select camp_id, title, status, description, created_at from campaigns where account_id = $1 ' +
      'order by created_at desc, camp_id desc limit 1000',
    values: [accountId],
  },
};

const server = createServer((request, response) => {
  const query = queries[request.url ?? ''];
  if (!query) {
    response.writeHead(404).end();
    return;
  }
  pool.query(query).then(
    ({ rows }) => response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(rows)),
    () => response.writeHead(500).end(),
  );
});
server.listen(0, '127.0.0.1', () => {
  const address = server.address();
  console.log(`listening on http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`);
});
// SIGTERM ends the process through exit, so that a `--cpu-prof` run (BENCH_NODE_FLAGS) writes its profile.
process.on('SIGTERM', () => process.exit(0));
