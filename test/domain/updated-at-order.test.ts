// A campaign's updatedAt increases in commit order (issue 11): many concurrent changes of one campaign, through both
// doors, commit one after another, each with an updatedAt strictly greater than the one committed before it, so the
// stored campaign ends with the greatest updatedAt and a webhook consumer that keeps the event with the greatest
// updatedAt (last write wins) keeps the stored state.
//
// Commit order is read from the database itself: for the test, a trigger numbers every write of the campaign row as
// it happens. A write holds the row's lock until its transaction commits, so that numbering is the commit order.
// (The order in which the app hears of its commits is not: under load a transaction's COMMIT reply can reach Node
// after the next transaction on the row has already finished.)
import { type Kysely, sql } from 'kysely';
import { afterEach, expect, it } from 'vitest';
import type { Database } from '../../src/db/types.js';
import { DIALECT, startApp, type TestApp } from '../helpers/app.js';
import { campaignModelData } from '../helpers/campaigns.js';
import { type Receiver, startReceiver } from '../helpers/receiver.js';

const CAMP = 'race';
/** Concurrent requests per wave, and waves (each started before the previous one has finished). */
const PER_WAVE = 10;
const WAVES = 4;

let t: TestApp | undefined;
let receiver: Receiver | undefined;
let removeCommitLog: (() => Promise<void>) | undefined;

afterEach(async () => {
  // PostgreSQL test databases are handed to later tests (emptied of rows only): leave no trigger behind.
  await removeCommitLog?.();
  removeCommitLog = undefined;
  await t?.close();
  t = undefined;
  await receiver?.close();
  receiver = undefined;
});

interface CampaignData {
  title: string;
  updatedAt: string;
}

const COMMIT_LOG_SQL = {
  postgres: {
    create: [
      'create table test_commit_log (seq bigserial primary key, title text not null, updated_at text not null)',
      `create function test_commit_log() returns trigger language plpgsql as $$
         begin insert into test_commit_log (title, updated_at) values (new.title, new.updated_at); return null; end $$`,
      `create trigger test_commit_log after insert or update on campaigns
         for each row execute function test_commit_log()`,
    ],
    drop: [
      'drop trigger if exists test_commit_log on campaigns',
      'drop function if exists test_commit_log()',
      'drop table if exists test_commit_log',
    ],
  },
  sqlite: {
    create: [
      'create table test_commit_log (seq integer primary key autoincrement, title text not null, updated_at text not null)',
      ...['insert', 'update'].map(
        (what) => `create trigger test_commit_log_${what} after ${what} on campaigns begin
           insert into test_commit_log (title, updated_at) values (new.title, new.updated_at); end`,
      ),
    ],
    drop: [],
  },
};

/** Installs the commit log (see the top of the file); returns what reads it, in commit order. */
async function commitLog(db: Kysely<Database>): Promise<() => Promise<CampaignData[]>> {
  const statements = COMMIT_LOG_SQL[DIALECT];
  for (const statement of statements.create) await sql.raw(statement).execute(db);
  removeCommitLog = async () => {
    for (const statement of statements.drop) await sql.raw(statement).execute(db);
  };
  return async () => {
    const { rows } = await sql<{
      title: string;
      updated_at: string;
    }>`select title, updated_at from test_commit_log order by seq`.execute(db);
    return rows.map((row) => ({ title: row.title, updatedAt: row.updated_at }));
  };
}

/**
 * In commit order, every updatedAt is greater than the one before it; the answers (and `more`, e.g. the events a
 * webhook received) carry exactly the committed values; the stored campaign is the last committed change and has the
 * greatest updatedAt. Returns the stored campaign.
 */
async function expectCommitOrder(
  app: TestApp,
  token: string,
  committed: CampaignData[],
  answers: CampaignData[],
): Promise<CampaignData> {
  const backwards = committed.flatMap((data, i) =>
    i > 0 && Date.parse(data.updatedAt) <= Date.parse(committed[i - 1]!.updatedAt)
      ? [`${committed[i - 1]!.updatedAt} then ${data.updatedAt}`]
      : [],
  );
  expect(backwards).toEqual([]);
  const pairs = (list: CampaignData[]) => list.map((data) => `${data.title} ${data.updatedAt}`).sort();
  expect(pairs(answers)).toEqual(pairs(committed));

  const stored = await app.rest('GET', `/get_campaign?campId=${CAMP}`, { token });
  expect(stored.status, stored.text).toBe(200);
  const last = committed.at(-1)!;
  expect({ title: stored.body.title, updatedAt: stored.body.updatedAt }).toEqual(last);
  expect(Date.parse(stored.body.updatedAt)).toBe(Math.max(...answers.map((a) => Date.parse(a.updatedAt))));
  return last;
}

async function restUpdate(app: TestApp, token: string, title: string): Promise<CampaignData> {
  const reply = await app.rest('POST', '/update_campaign', {
    token,
    body: { campId: CAMP, campaignModelData: campaignModelData({ title }) },
  });
  expect(reply.status, reply.text).toBe(200);
  return { title: reply.body.title, updatedAt: reply.body.updatedAt };
}

async function graphqlUpdate(app: TestApp, token: string, title: string): Promise<CampaignData> {
  const reply = await app.gql(
    'mutation ($c: String!, $t: String!) { updateCampaign(campId: $c, patch: { title: $t }) { title updatedAt } }',
    { c: CAMP, t: title },
    token,
  );
  expect(reply.body.errors, reply.text).toBeUndefined();
  return reply.body.data.updateCampaign as CampaignData;
}

it('concurrent updates of one campaign (REST update_campaign, GraphQL updateCampaign) commit with increasing updatedAt', async () => {
  t = await startApp({ ALLOW_PRIVATE_WEBHOOK_TARGETS: 'true' }, [], { worker: { pollMs: 50 } });
  const app = t;
  receiver = await startReceiver();
  const { token } = await app.account();
  await restUpdate(app, token, 'start');
  const hook = await app.gql(
    'mutation ($url: String!) { createWebhook(input: { url: $url, events: ["campaign.updated"] }) { webhookId } }',
    { url: receiver.url },
    token,
  );
  expect(hook.body.errors, hook.text).toBeUndefined();
  const attached = await app.gql(
    'mutation ($w: String!, $c: String!) { attachWebhook(webhookId: $w, campId: $c) { webhookId } }',
    { w: hook.body.data.createWebhook.webhookId, c: CAMP },
    token,
  );
  expect(attached.body.errors, attached.text).toBeUndefined();
  const readCommits = await commitLog(app.app.database.db);

  // Waves that overlap: each starts while the previous one is still in flight.
  const waves: Array<Promise<CampaignData[]>> = [];
  for (let wave = 0; wave < WAVES; wave++) {
    waves.push(
      Promise.all(
        Array.from({ length: PER_WAVE }, (_, i) =>
          (i % 2 === 0 ? restUpdate : graphqlUpdate)(app, token, `w${wave}-${i}`),
        ),
      ),
    );
    await new Promise((resolve) => setTimeout(resolve, 2));
  }
  const answers = (await Promise.all(waves)).flat();
  const committed = await readCommits();
  expect(committed).toHaveLength(answers.length);
  const last = await expectCommitOrder(app, token, committed, answers);

  // The events carry the row's updatedAt, and a webhook consumer keeping the one with the greatest updatedAt (in
  // whatever order they arrive) keeps the stored state.
  const received = (await receiver.waitFor(answers.length)).map((r) => r.json.data as CampaignData);
  expect(received.map((data) => `${data.title} ${data.updatedAt}`).sort()).toEqual(
    committed.map((data) => `${data.title} ${data.updatedAt}`).sort(),
  );
  const kept = received.reduce((best, data) => (Date.parse(data.updatedAt) > Date.parse(best.updatedAt) ? data : best));
  expect(kept.title).toBe(last.title);
});

it('concurrent REST update_campaign of a campId that does not exist yet: one creates it, the others update it in turn', async () => {
  t = await startApp({}, [], { worker: false });
  const app = t;
  const { token } = await app.account();
  const readCommits = await commitLog(app.app.database.db);
  const answers = await Promise.all(Array.from({ length: 20 }, (_, i) => restUpdate(app, token, `n${i}`)));
  const committed = await readCommits();
  expect(committed).toHaveLength(answers.length);
  await expectCommitOrder(app, token, committed, answers);
  const list = await app.rest('GET', '/get_campaigns', { token });
  expect(list.body.map((campaign: { campaignId: string }) => campaign.campaignId)).toEqual([CAMP]);
});
