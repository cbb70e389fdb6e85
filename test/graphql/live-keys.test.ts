// The keys that tie live queries to writes (src/db/written-rows.ts, src/graphql/live/live-keys.ts): what a write statement
// names, the keys a write touches, that every table is either mapped or known to be read by no query, and that the
// write side's keys are the global ids the read side gives for the same rows.
import {
  DummyDriver,
  Kysely,
  SqliteAdapter,
  SqliteIntrospector,
  SqliteQueryCompiler,
  sql,
  type RootOperationNode,
} from 'kysely';
import { encodeGlobalID } from '@pothos/plugin-relay';
import { afterEach, describe, expect, it } from 'vitest';
import type { Database } from '../../src/db/types.js';
import { MAX_ROWS_PER_STATEMENT, writtenRows } from '../../src/db/written-rows.js';
import { ALL, keysOfWrites, TABLES, UNREAD_TABLES } from '../../src/graphql/live/live-keys.js';
import { DIALECT, startApp, type TestApp } from '../helpers/app.js';
import { createLegacyCampaign } from '../helpers/campaigns.js';
import { connectTelephony, sendCallback } from '../helpers/telephony.js';

const db = new Kysely<Database>({
  dialect: {
    createAdapter: () => new SqliteAdapter(),
    createDriver: () => new DummyDriver(),
    createIntrospector: (kysely) => new SqliteIntrospector(kysely),
    createQueryCompiler: () => new SqliteQueryCompiler(),
  },
});

const tree = (query: { compile(): { query: RootOperationNode } }) => query.compile().query;

describe('written rows', () => {
  it("reads an insert's values, row by row", () => {
    const written = writtenRows(
      tree(
        db
          .insertInto('meetings')
          .values([
            { meeting_id: 'm1', account_id: 'a', camp_id: 'c' } as never,
            { meeting_id: 'm2', account_id: 'a', camp_id: 'd' } as never,
          ]),
      ),
    );
    expect(written).toEqual({
      table: 'meetings',
      kind: 'insert',
      rows: [
        { meeting_id: 'm1', account_id: 'a', camp_id: 'c' },
        { meeting_id: 'm2', account_id: 'a', camp_id: 'd' },
      ],
    });
  });

  it("reads the = and in conditions an update's or a delete's WHERE joins with AND", () => {
    expect(
      writtenRows(
        tree(
          db
            .updateTable('campaigns')
            .set({ title: 'x' })
            .where('account_id', '=', 'a')
            .where('camp_id', 'in', ['c1', 'c2'])
            .where('updated_at', '<', 'now'),
        ),
      ),
    ).toEqual({
      table: 'campaigns',
      kind: 'update',
      rows: [
        { account_id: 'a', camp_id: 'c1' },
        { account_id: 'a', camp_id: 'c2' },
      ],
    });
    expect(writtenRows(tree(db.deleteFrom('webhooks').where('webhook_id', '=', 'w')))).toEqual({
      table: 'webhooks',
      kind: 'delete',
      rows: [{ webhook_id: 'w' }],
    });
    // An OR names no row: the table with nothing known of its rows.
    expect(
      writtenRows(
        tree(db.deleteFrom('webhooks').where((eb) => eb.or([eb('webhook_id', '=', 'a'), eb('webhook_id', '=', 'b')]))),
      ),
    ).toEqual({ table: 'webhooks', kind: 'delete', rows: [{}] });
  });

  it('takes the rows RETURNING answered (none answered: none written), over what the statement pins down', () => {
    const update = tree(
      db
        .updateTable('webhook_deliveries')
        .set({ status: 'failed' })
        .where('account_id', '=', 'a')
        .where('delivery_id', '=', 'd1')
        .returning(['webhook_id']),
    );
    expect(writtenRows(update, [{ webhook_id: 'w1' }])).toEqual({
      table: 'webhook_deliveries',
      kind: 'update',
      rows: [{ account_id: 'a', delivery_id: 'd1', webhook_id: 'w1' }],
    });
    expect(writtenRows(update, [])).toEqual({ table: 'webhook_deliveries', kind: 'update', rows: [] });
  });

  it("trusts of an upsert's values only its conflict target, unless it returned the row", () => {
    const upsert = db
      .insertInto('call_logs')
      .values({ account_id: 'a', call_id: 'CA1', camp_id: 'from-the-url' } as never)
      .onConflict((oc) => oc.columns(['account_id', 'call_id']).doUpdateSet({ status: 'completed' } as never));
    expect(writtenRows(tree(upsert))).toEqual({
      table: 'call_logs',
      kind: 'insert',
      rows: [{ account_id: 'a', call_id: 'CA1' }],
    });
    expect(writtenRows(tree(upsert.returningAll()), [{ account_id: 'a', call_id: 'CA1', camp_id: 'stored' }])).toEqual({
      table: 'call_logs',
      kind: 'insert',
      rows: [{ account_id: 'a', call_id: 'CA1', camp_id: 'stored' }],
    });
  });

  it('sums up a statement of many rows by account, and knows nothing of raw SQL', () => {
    const many = Array.from({ length: MAX_ROWS_PER_STATEMENT + 1 }, (_, i) => `c${i}`);
    expect(
      writtenRows(tree(db.deleteFrom('campaigns').where('account_id', '=', 'a').where('camp_id', 'in', many))),
    ).toEqual({ table: 'campaigns', kind: 'delete', rows: [{ account_id: 'a' }] });
    expect(writtenRows(sql`delete from campaigns`.compile(db).query)).toEqual({ table: null, rows: [{}] });
  });
});

describe('keys of writes', () => {
  const gid = encodeGlobalID;
  const account = gid('Account', 'a');

  it('gives the node, its owners, and the lists it is in', () => {
    const keys = keysOfWrites([{ table: 'call_logs', rows: [{ account_id: 'a', call_id: 'CA1', camp_id: 'c' }] }]);
    expect([...keys].sort()).toEqual(
      [
        gid('CallLog', 'a:CA1'),
        gid('Campaign', 'a:c'),
        `${account}/CallLog`,
        `${gid('Campaign', 'a:c')}/CallLog`,
      ].sort(),
    );
  });

  it("a deleted row's cascades: the rows that go with it give their keys too", () => {
    const keys = keysOfWrites([{ table: 'campaigns', kind: 'delete', rows: [{ account_id: 'a', camp_id: 'c' }] }]);
    expect(keys).toContain(`${gid('Campaign', 'a:c')}/CallLog`);
    expect(keys).toContain(`${account}/CallLog`);
    expect(keys).toContain(`${account}/Meeting`);
    expect(keys).toContain(`${gid('Campaign', 'a:c')}/Webhook`);
    // An update's do not.
    expect(
      keysOfWrites([{ table: 'campaigns', kind: 'update', rows: [{ account_id: 'a', camp_id: 'c' }] }]),
    ).not.toContain(`${account}/CallLog`);
  });

  it("falls back to any of the type in the account, or anywhere, when the row is not named; raw SQL is everyone's", () => {
    expect([...keysOfWrites([{ table: 'campaigns', rows: [{ account_id: 'a' }] }])].sort()).toEqual(
      [`any:${account}:Campaign`, `${account}/Campaign`].sort(),
    );
    expect([...keysOfWrites([{ table: 'webhook_deliveries', rows: [{}] }])]).toEqual(['any:WebhookDelivery']);
    expect([...keysOfWrites([{ table: null, rows: [{}] }])]).toEqual([ALL]);
    expect([...keysOfWrites([{ table: 'events', rows: [{ account_id: 'a' }] }])]).toEqual([]);
  });
});

describe('keys on both sides', () => {
  let t: TestApp | undefined;
  afterEach(async () => {
    await t?.close();
    t = undefined;
  });

  it.runIf(DIALECT === 'sqlite')("declares every ON DELETE CASCADE of the database (but the account's)", async () => {
    t = await startApp({}, [], { worker: false });
    const tables = (await t.app.database.db.introspection.getTables()).map((table) => table.name);
    const found: string[] = [];
    for (const child of tables) {
      const keys = await sql<{ table: string; from: string; on_delete: string }>`
        select "table", "from", on_delete from pragma_foreign_key_list(${child})`.execute(t.app.database.db);
      const parents = new Map<string, string[]>();
      for (const key of keys.rows) {
        if (key.on_delete !== 'CASCADE' || key.table === 'accounts') continue;
        parents.set(key.table, [...(parents.get(key.table) ?? []), key.from]);
      }
      for (const [parent, columns] of parents) found.push(`${parent} -> ${child} (${columns.sort().join(', ')})`);
    }
    const declared = Object.entries(TABLES).flatMap(([parent, spec]) =>
      Object.keys(spec.cascades ?? {}).map((child) => `${parent} -> ${child}`),
    );
    expect(found.map((edge) => edge.replace(/ \(.*/, '')).sort()).toEqual(declared.sort());
    // Each declared cascade names columns the child really shares with its parent.
    for (const [parent, spec] of Object.entries(TABLES)) {
      for (const [child, columns] of Object.entries(spec.cascades ?? {})) {
        const edge = found.find((line) => line.startsWith(`${parent} -> ${child} `))!;
        for (const column of columns.filter((c) => c !== 'account_id')) expect(edge).toContain(column);
      }
    }
  });

  it('maps every table, or names it as read by no query', async () => {
    t = await startApp({}, [], { worker: false });
    const tables = (await t.app.database.db.introspection.getTables())
      .map((table) => table.name)
      .filter((name) => !name.startsWith('kysely_'));
    const known = new Set([...Object.keys(TABLES), ...UNREAD_TABLES]);
    expect(tables.filter((name) => !known.has(name))).toEqual([]);
  });

  it('gives, for each row written, the global id the read side gives the same object', async () => {
    t = await startApp({}, [], { worker: false });
    const { token, apiKey, id: accountId } = await t.account();
    await createLegacyCampaign(t, token, 'alpha');
    await connectTelephony(t, token);
    await sendCallback(t, apiKey, 'alpha', { CallSid: 'CA1', CallStatus: 'completed' });
    const webhook = await t.gql(
      'mutation { webhookCreate(input: { url: "https://example.com/h" }) { webhook { id } } }',
      {},
      token,
    );
    const accessToken = await t.gql(
      'mutation { accessTokenCreate(input: { name: "k" }) { accessToken { id } } }',
      {},
      token,
    );
    const read = await t.gql(
      '{ viewer { id } campaign(campId: "alpha") { id callLogs(first: 1) { edges { node { id } } } } }',
      {},
      token,
    );
    expect(read.body.errors, read.text).toBeUndefined();
    const rows = async (table: keyof typeof TABLES) =>
      t!.app.database.db
        .selectFrom(table as 'campaigns')
        .selectAll()
        .execute() as Promise<Array<Record<string, unknown>>>;
    const keysOf = async (table: keyof typeof TABLES) => keysOfWrites([{ table, rows: await rows(table) }]);
    expect(await keysOf('accounts')).toContain(read.body.data.viewer.id);
    expect(read.body.data.viewer.id).toBe(encodeGlobalID('Account', accountId));
    expect(await keysOf('campaigns')).toContain(read.body.data.campaign.id);
    expect(await keysOf('call_logs')).toContain(read.body.data.campaign.callLogs.edges[0].node.id);
    expect(await keysOf('webhooks')).toContain(webhook.body.data.webhookCreate.webhook.id);
    expect(await keysOf('access_tokens')).toContain(accessToken.body.data.accessTokenCreate.accessToken.id);
  });
});
