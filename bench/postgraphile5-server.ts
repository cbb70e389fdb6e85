// An optional target of `npm run bench` on PostgreSQL (issue 43: "PostGraphile 5 on the same rows as a target"):
// PostGraphile 5 (Grafast, the planning executor) with its Amber preset, served by grafserv on node:http, over the
// bench's database, with the production settings (no explain, no schema watching, no GraphiQL). PostGraphile is not a
// dependency of this project: install it in a folder of its own (`npm install --prefix /tmp/postgraphile5
// postgraphile@5`) and name that folder in BENCH_POSTGRAPHILE5.
import { createServer } from 'node:http';
import { createRequire } from 'node:module';
import { join } from 'node:path';

const folder = process.env.BENCH_POSTGRAPHILE5 ?? '';
const load = createRequire(join(folder, 'package.json'));

interface Serv {
  addTo(server: ReturnType<typeof createServer>): Promise<void>;
}
const { postgraphile } = load('postgraphile') as {
  postgraphile: (preset: object) => { createServ: (grafserv: unknown) => Serv };
};
const { PostGraphileAmberPreset } = load('postgraphile/presets/amber') as { PostGraphileAmberPreset: object };
const { makePgService } = load('postgraphile/adaptors/pg') as {
  makePgService: (options: { connectionString: string; schemas: string[] }) => object;
};
const { grafserv } = load('postgraphile/grafserv/node') as { grafserv: unknown };

const pgl = postgraphile({
  extends: [PostGraphileAmberPreset],
  pgServices: [makePgService({ connectionString: process.env.BENCH_DB ?? '', schemas: ['public'] })],
  grafserv: { watch: false, graphiql: false, graphqlPath: '/graphql' },
  grafast: { explain: false },
  // Every column may be ordered and filtered by, as PostGraphile 4 allows by default (the bench's query orders by
  // created_at and camp_id, and filters by account_id).
  schema: { pgIgnoreIndexes: true },
});
const server = createServer();
await pgl.createServ(grafserv).addTo(server);
server.listen(0, '127.0.0.1', () => {
  const address = server.address();
  console.log(`listening on http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`);
});
// SIGTERM ends the process through exit, so that a `--cpu-prof` run (BENCH_NODE_FLAGS) writes its profile.
process.on('SIGTERM', () => process.exit(0));
