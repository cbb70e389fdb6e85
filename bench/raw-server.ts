// The raw baseline of `npm run bench`: node:http and one prepared better-sqlite3 statement returning the account's
// campaigns (the same 50 rows our doors return) as JSON — all columns at /campaigns, the five of a list entry at
// /campaign-list. No framework, no auth, no validation.
import { createServer } from 'node:http';
import SQLite from 'better-sqlite3';

const path = process.env.BENCH_DB ?? '';
const accountId = process.env.BENCH_ACCOUNT ?? '';
const db = new SQLite(path, { readonly: true });
db.pragma('journal_mode = WAL');
const statement = db.prepare(
  'select * from campaigns where account_id = ? order by created_at desc, camp_id desc limit 1000',
);

// The same list with only the five columns a legacy list entry shows: the like-for-like baseline of get_campaigns.
const entries = db.prepare(
  'select camp_id, title, status, description, created_at from campaigns where account_id = ? ' +
    'order by created_at desc, camp_id desc limit 1000',
);

const server = createServer((request, response) => {
  const rows =
    request.url === '/campaigns'
      ? statement.all(accountId)
      : request.url === '/campaign-list'
        ? entries.all(accountId)
        : null;
  if (!rows) {
    response.writeHead(404).end();
    return;
  }
  response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(rows));
});
server.listen(0, '127.0.0.1', () => {
  const address = server.address();
  console.log(`listening on http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`);
});
// SIGTERM ends the process through exit, so that a `--cpu-prof` run (BENCH_NODE_FLAGS) writes its profile.
process.on('SIGTERM', () => process.exit(0));
