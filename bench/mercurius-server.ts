// What a speed-minded user would pick instead of our stack (issue 34): fastify + mercurius with graphql-jit (`jit: 1`:
// a query is compiled after its first request), serving the same document as the floor (bench/floor-server.ts) —
// `campaigns(first:)` → `edges { node { …every scalar… } }`, the same field names, nullability and global ids — over
// the same rows, read by one prepared better-sqlite3 statement. No auth, no limits, no logging.
// MERCURIUS_SAME_WORK=1 (issue 55, for information): the same server doing the per-request work ours does as a
// fastify user would add it — the bearer JWT verified on every request (jsonwebtoken, HS256, JWT_SECRET), a per-account
// rate limit (rate-limiter-flexible in memory), one pino access line per request (fastify's logger, info).
import { createSecretKey } from 'node:crypto';
import SQLite from 'better-sqlite3';
import Fastify from 'fastify';
import { JSONObjectResolver } from 'graphql-scalars';
import jwt from 'jsonwebtoken';
import mercurius from 'mercurius';
import { RateLimiterMemory } from 'rate-limiter-flexible';

const path = process.env.BENCH_DB ?? '';
const accountId = process.env.BENCH_ACCOUNT ?? '';

type Row = Record<string, unknown>;

const sqlite = new SQLite(path, { readonly: true });
const statement = sqlite.prepare(
  `select camp_id, title, voice, language, script, purpose, knowledge_base, calendar, first_line, flow_name,
     system_prompt, tone, max_call_timeout, inactive_call_timeout, post_call_analysis, post_call_analysis_schema,
     time_zone, is_freeflow, public, sample_sid, description, status, created_at, updated_at
   from campaigns where account_id = ? order by created_at desc, camp_id desc limit 51`,
);

// The floor's schema as Pothos prints it (fields non-null unless marked nullable there).
const schema = `
  scalar JSONObject
  type Campaign {
    id: ID!
    campId: String!
    title: String!
    voiceId: String!
    language: String!
    script: String!
    purpose: String!
    knowledgeBase: String!
    calendar: String!
    firstLine: String!
    flowName: String!
    systemPrompt: String!
    tone: String!
    maxCallTimeout: Int!
    inactiveCallTimeout: Int!
    postCallAnalysis: Boolean!
    postCallAnalysisSchema: JSONObject!
    timeZone: String!
    isFreeflow: Boolean!
    public: Boolean!
    sampleSid: String
    description: String
    status: String!
    creationDate: String!
    updatedAt: String!
  }
  type CampaignEdge { node: Campaign! }
  type CampaignConnection { edges: [CampaignEdge!]! }
  type Query { campaigns(first: Int): CampaignConnection! }
`;

const text = (column: string) => (row: Row) => row[column] as string;
const resolvers = {
  JSONObject: JSONObjectResolver,
  Query: {
    campaigns: (_root: unknown, args: { first?: number | null }) =>
      (statement.all(accountId) as Row[]).slice(0, args.first ?? 20),
  },
  CampaignConnection: { edges: (rows: Row[]) => rows },
  CampaignEdge: { node: (row: Row) => row },
  Campaign: {
    id: (row: Row) => Buffer.from(`Campaign:${accountId}:${String(row.camp_id)}`).toString('base64'),
    campId: text('camp_id'),
    title: text('title'),
    voiceId: text('voice'),
    language: text('language'),
    script: text('script'),
    purpose: text('purpose'),
    knowledgeBase: text('knowledge_base'),
    calendar: text('calendar'),
    firstLine: text('first_line'),
    flowName: text('flow_name'),
    systemPrompt: text('system_prompt'),
    tone: text('tone'),
    maxCallTimeout: (row: Row) => row.max_call_timeout as number,
    inactiveCallTimeout: (row: Row) => row.inactive_call_timeout as number,
    postCallAnalysis: (row: Row) => Boolean(row.post_call_analysis),
    postCallAnalysisSchema: (row: Row) => JSON.parse(row.post_call_analysis_schema as string) as object,
    timeZone: text('time_zone'),
    isFreeflow: (row: Row) => Boolean(row.is_freeflow),
    public: (row: Row) => Boolean(row.public),
    sampleSid: (row: Row) => row.sample_sid as string | null,
    description: (row: Row) => row.description as string | null,
    status: (row: Row) => (row.status as string).toUpperCase(),
    creationDate: text('created_at'),
    updatedAt: text('updated_at'),
  },
};

const sameWork = process.env.MERCURIUS_SAME_WORK === '1';
const app = Fastify({ logger: sameWork ? { level: 'info' } : false, disableRequestLogging: true });
if (sameWork) {
  const key = createSecretKey(Buffer.from(process.env.JWT_SECRET ?? '', 'utf8'));
  const limiter = new RateLimiterMemory({ points: 1_000_000, duration: 60 });
  app.addHook('onRequest', async (request, reply) => {
    const token = /^Bearer (.+)$/.exec(request.headers.authorization ?? '')?.[1];
    let subject: string | undefined;
    try {
      const payload = token ? jwt.verify(token, key, { algorithms: ['HS256'] }) : null;
      subject = typeof payload === 'object' && payload !== null ? payload.sub : undefined;
    } catch {
      subject = undefined;
    }
    if (!subject) return reply.code(401).send({ errors: [{ message: 'unauthenticated' }] });
    try {
      await limiter.consume(subject);
    } catch {
      return reply.code(429).send({ errors: [{ message: 'rate limited' }] });
    }
    return undefined;
  });
  app.addHook('onResponse', async (request, reply) => {
    request.log.info(
      {
        method: request.method,
        path: request.routeOptions.url,
        status: reply.statusCode,
        client: request.ip,
        ms: Math.round(reply.elapsedTime * 10) / 10,
      },
      'request',
    );
  });
}
await app.register(mercurius, { schema, resolvers, jit: 1 });
const address = await app.listen({ port: 0, host: '127.0.0.1' });
console.log(`listening on ${address}`);
// SIGTERM ends the process through exit, so that a `--cpu-prof` run (BENCH_NODE_FLAGS) writes its profile.
process.on('SIGTERM', () => process.exit(0));
