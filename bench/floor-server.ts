// The floor of `npm run bench` (issue 21): the stack this gateway is built on — graphql-yoga + Pothos + graphql-jit,
// nothing of ours — serving the same document as our GraphQL target (`campaigns(first: 50)` with every scalar, the
// same connection shape and field names) over the same rows. No auth, no limits, no logging.
//   FLOOR=prepared  one resolver returning the rows of one prepared better-sqlite3 statement (the default)
//   FLOOR=kysely    the resolver builds its query with Kysely on every call, through our database module
//                   (src/db/database.ts: statements cached by SQL text, rows read as arrays)
import { createServer } from 'node:http';
import SchemaBuilder from '@pothos/core';
import { useGraphQlJit } from '@envelop/graphql-jit';
import SQLite from 'better-sqlite3';
import { createYoga } from 'graphql-yoga';
import { JSONObjectResolver } from 'graphql-scalars';
import { openDatabase } from '../src/db/database.js';

const path = process.env.BENCH_DB ?? '';
const accountId = process.env.BENCH_ACCOUNT ?? '';
const floor = process.env.FLOOR ?? 'prepared';

type Row = Record<string, unknown>;

const COLUMNS = `camp_id, title, voice, language, script, purpose, knowledge_base, calendar, first_line, flow_name,
  system_prompt, tone, max_call_timeout, inactive_call_timeout, post_call_analysis, post_call_analysis_schema,
  time_zone, is_freeflow, public, sample_sid, description, status, created_at, updated_at`;

const load: () => Promise<Row[]> | Row[] = (() => {
  if (floor === 'kysely') {
    const { db } = openDatabase(`sqlite:${path}`);
    return () =>
      db
        .selectFrom('campaigns')
        .selectAll()
        .where('account_id', '=', accountId)
        .orderBy('created_at', 'desc')
        .orderBy('camp_id', 'desc')
        .limit(51)
        .execute() as Promise<Row[]>;
  }
  const sqlite = new SQLite(path, { readonly: true });
  const statement = sqlite.prepare(
    `select ${COLUMNS} from campaigns where account_id = ? order by created_at desc, camp_id desc limit 51`,
  );
  return () => statement.all(accountId) as Row[];
})();

const builder = new SchemaBuilder<{ Scalars: { JSONObject: { Input: object; Output: object } } }>(
  // No plugins; the options other plugins' types add (scopeAuth, …) do not apply here.
  {} as never,
);
builder.addScalarType('JSONObject', JSONObjectResolver);

const text = (column: string) => (row: Row) => row[column] as string;
const Campaign = builder.objectRef<Row>('Campaign').implement({
  fields: (t) => ({
    id: t.id({ resolve: (row) => Buffer.from(`Campaign:${accountId}:${String(row.camp_id)}`).toString('base64') }),
    campId: t.string({ resolve: text('camp_id') }),
    title: t.string({ resolve: text('title') }),
    voiceId: t.string({ resolve: text('voice') }),
    language: t.string({ resolve: text('language') }),
    script: t.string({ resolve: text('script') }),
    purpose: t.string({ resolve: text('purpose') }),
    knowledgeBase: t.string({ resolve: text('knowledge_base') }),
    calendar: t.string({ resolve: text('calendar') }),
    firstLine: t.string({ resolve: text('first_line') }),
    flowName: t.string({ resolve: text('flow_name') }),
    systemPrompt: t.string({ resolve: text('system_prompt') }),
    tone: t.string({ resolve: text('tone') }),
    maxCallTimeout: t.int({ resolve: (row) => row.max_call_timeout as number }),
    inactiveCallTimeout: t.int({ resolve: (row) => row.inactive_call_timeout as number }),
    postCallAnalysis: t.boolean({ resolve: (row) => Boolean(row.post_call_analysis) }),
    postCallAnalysisSchema: t.field({
      type: 'JSONObject',
      resolve: (row) => JSON.parse(row.post_call_analysis_schema as string) as object,
    }),
    timeZone: t.string({ resolve: text('time_zone') }),
    isFreeflow: t.boolean({ resolve: (row) => Boolean(row.is_freeflow) }),
    public: t.boolean({ resolve: (row) => Boolean(row.public) }),
    sampleSid: t.string({ nullable: true, resolve: (row) => row.sample_sid as string | null }),
    description: t.string({ nullable: true, resolve: (row) => row.description as string | null }),
    status: t.string({ resolve: (row) => (row.status as string).toUpperCase() }),
    creationDate: t.string({ resolve: text('created_at') }),
    updatedAt: t.string({ resolve: text('updated_at') }),
  }),
});
const Edge = builder.objectRef<Row>('CampaignEdge').implement({
  fields: (t) => ({ node: t.field({ type: Campaign, resolve: (row) => row }) }),
});
const Connection = builder.objectRef<Row[]>('CampaignConnection').implement({
  fields: (t) => ({ edges: t.field({ type: [Edge], resolve: (rows) => rows }) }),
});
builder.queryType({
  fields: (t) => ({
    campaigns: t.field({
      type: Connection,
      args: { first: t.arg.int() },
      resolve: async (_root, args) => (await load()).slice(0, args.first ?? 20),
    }),
  }),
});

const yoga = createYoga({ schema: builder.toSchema(), logging: false, plugins: [useGraphQlJit()] });
const server = createServer(yoga);
server.listen(0, '127.0.0.1', () => {
  const address = server.address();
  console.log(`listening on http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`);
});
// SIGTERM ends the process through exit, so that a `--cpu-prof` run (BENCH_NODE_FLAGS) writes its profile.
process.on('SIGTERM', () => process.exit(0));
