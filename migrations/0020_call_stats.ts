// Call statistics kept as calls are written (docs/dashboards.md): counters per campaign and UTC hour, per account and
// UTC hour, and per campaign over all time. The database keeps them, in triggers on call_logs, so that every write
// (callbacks, imports, a campaign's deletion) moves them in the same transaction as the call it counts: they are
// exact, and survive a restart as the call logs do. SQLite runs a trigger per row (it updates rows in place);
// PostgreSQL one per statement, over the rows it wrote. Spend is counted in millionths of the currency unit (integers: a
// sum that goes up and down leaves no rounding behind).
import { type CreateTableBuilder, type Kysely, PostgresIntrospector, sql } from 'kysely';

/** Each counter: its column, and its value for one call log row `r` (NEW or OLD, or the table itself in the backfill). */
const COUNTERS: ReadonlyArray<readonly [column: string, value: (r: string) => string]> = [
  ['calls', () => '1'],
  ['answered', (r) => `CASE WHEN ${r}.status IN ('in-progress', 'completed') THEN 1 ELSE 0 END`],
  ['completed', (r) => `CASE WHEN ${r}.status = 'completed' THEN 1 ELSE 0 END`],
  ['failed', (r) => `CASE WHEN ${r}.status = 'failed' THEN 1 ELSE 0 END`],
  ['no_answer', (r) => `CASE WHEN ${r}.status = 'no-answer' THEN 1 ELSE 0 END`],
  ['busy', (r) => `CASE WHEN ${r}.status = 'busy' THEN 1 ELSE 0 END`],
  ['canceled', (r) => `CASE WHEN ${r}.status = 'canceled' THEN 1 ELSE 0 END`],
  ['seconds', (r) => `COALESCE(${r}.duration_seconds, 0)`],
  ['timed', (r) => `CASE WHEN ${r}.duration_seconds IS NULL THEN 0 ELSE 1 END`],
  // A cost that is not a finite amount (NaN or Infinity stored before prices were capped) counts as unreported.
  [
    'spent_micros',
    (r) => `CASE WHEN ${r}.cost >= 0 AND ${r}.cost <= 1e12 THEN CAST(ROUND(${r}.cost * 1000000) AS BIGINT) ELSE 0 END`,
  ],
  ['costed', (r) => `CASE WHEN ${r}.cost >= 0 AND ${r}.cost <= 1e12 THEN 1 ELSE 0 END`],
];

/** The UTC hour of a call ('2026-12-03T11'): started_at is always an ISO 8601 UTC instant. */
const hourOf = (r: string) => `substr(${r}.started_at, 1, 13)`;

/** The three tables the triggers keep, and the key of each as read off a call log row. */
const TARGETS: ReadonlyArray<{
  table: string;
  keys: ReadonlyArray<readonly [column: string, value: (r: string) => string]>;
}> = [
  {
    table: 'call_stats_hours',
    keys: [
      ['account_id', (r) => `${r}.account_id`],
      ['camp_id', (r) => `${r}.camp_id`],
      ['hour', hourOf],
    ],
  },
  {
    table: 'account_call_stats_hours',
    keys: [
      ['account_id', (r) => `${r}.account_id`],
      ['hour', hourOf],
    ],
  },
  {
    table: 'campaign_call_totals',
    keys: [
      ['account_id', (r) => `${r}.account_id`],
      ['camp_id', (r) => `${r}.camp_id`],
    ],
  },
];

type Target = (typeof TARGETS)[number];

/** Adds `values` (one expression per counter) to the target's row of `r`, creating the row when it is missing. */
function addTo(target: Target, r: string, values: string[]): string {
  const columns = [...target.keys.map(([c]) => c), ...COUNTERS.map(([c]) => c)];
  const keyColumns = target.keys.map(([c]) => c).join(', ');
  return (
    `INSERT INTO ${target.table} (${columns.join(', ')}) ` +
    `VALUES (${[...target.keys.map(([, value]) => value(r)), ...values].join(', ')}) ` +
    `ON CONFLICT (${keyColumns}) DO UPDATE SET ` +
    COUNTERS.map(([c]) => `${c} = ${target.table}.${c} + excluded.${c}`).join(', ')
  );
}

/** Takes the row `r` out of the target's counters (the row exists unless a deletion is removing it too). */
function takeFrom(target: Target, r: string): string {
  return (
    `UPDATE ${target.table} SET ` +
    COUNTERS.map(([c, value]) => `${c} = ${c} - (${value(r)})`).join(', ') +
    ` WHERE ${target.keys.map(([c, value]) => `${c} = ${value(r)}`).join(' AND ')}`
  );
}

/** The counters of a transition table's rows (`new_rows` counted up, `old_rows` down), summed per key of the target. */
function summed(target: Target, tables: ReadonlyArray<'new_rows' | 'old_rows'>): string {
  const keyColumns = target.keys.map(([c]) => c);
  const parts = tables.map((table) => {
    const r = table === 'new_rows' ? 'n' : 'o';
    const sign = table === 'new_rows' ? '' : '-';
    const keys = target.keys.map(([c, value]) => `${value(r)} AS ${c}`);
    const values = COUNTERS.map(([c, value]) => `${sign}(${value(r)}) AS ${c}`);
    return `SELECT ${[...keys, ...values].join(', ')} FROM ${table} ${r}`;
  });
  return (
    `SELECT ${keyColumns.join(', ')}, ${COUNTERS.map(([c]) => `SUM(${c}) AS ${c}`).join(', ')} ` +
    `FROM (${parts.join(' UNION ALL ')}) d GROUP BY ${keyColumns.join(', ')}`
  );
}

/** Adds a statement's rows to the target (an update: its new rows less its old), skipping keys that did not move. */
function addAll(target: Target, tables: ReadonlyArray<'new_rows' | 'old_rows'>): string {
  const keyColumns = target.keys.map(([c]) => c).join(', ');
  const moved = COUNTERS.map(([c]) => `${c} <> 0`).join(' OR ');
  return (
    `INSERT INTO ${target.table} (${keyColumns}, ${COUNTERS.map(([c]) => c).join(', ')}) ` +
    `SELECT * FROM (${summed(target, tables)}) s WHERE ${moved} ` +
    `ON CONFLICT (${keyColumns}) DO UPDATE SET ` +
    COUNTERS.map(([c]) => `${c} = ${target.table}.${c} + excluded.${c}`).join(', ')
  );
}

/** Takes a statement's deleted rows out of the target's rows that still exist (a campaign's deletion removes its own). */
function takeAll(target: Target): string {
  return (
    `UPDATE ${target.table} t SET ` +
    COUNTERS.map(([c]) => `${c} = t.${c} + s.${c}`).join(', ') +
    ` FROM (${summed(target, ['old_rows'])}) s WHERE ` +
    target.keys.map(([c]) => `t.${c} = s.${c}`).join(' AND ')
  );
}

const plus = (r: string) => COUNTERS.map(([, value]) => value(r));
const difference = () => COUNTERS.map(([, value]) => `(${value('NEW')}) - (${value('OLD')})`);

/** An update that keeps the call's campaign and hour changes its counters in place (every callback does). */
const SAME_PLACE = `OLD.account_id = NEW.account_id AND OLD.camp_id = NEW.camp_id AND ${hourOf('OLD')} = ${hourOf('NEW')}`;
/** Only these columns move a counter; an update of the texts (the call's outcome) does not fire. */
const COUNTED_COLUMNS = ['status', 'duration_seconds', 'cost', 'started_at', 'camp_id', 'account_id'];
const COUNTED_CHANGE = COUNTED_COLUMNS.map((c) => `OLD.${c} IS DISTINCT FROM NEW.${c}`).join(' OR ');

function counterColumns(builder: CreateTableBuilder<any, any>): CreateTableBuilder<any, any> {
  let table = builder;
  for (const [column] of COUNTERS) {
    table = table.addColumn(column, 'bigint', (c) => c.notNull().defaultTo(0));
  }
  return table;
}

export async function up(db: Kysely<any>): Promise<void> {
  const postgres = db.introspection instanceof PostgresIntrospector;
  // SQLite keeps each table in its key's order (one read per range); PostgreSQL reads them through the key's index.
  const clustered = postgres ? sql`` : sql`without rowid`;

  await counterColumns(
    db.schema
      .createTable('call_stats_hours')
      .addColumn('account_id', 'text', (c) => c.notNull())
      .addColumn('camp_id', 'text', (c) => c.notNull())
      .addColumn('hour', 'text', (c) => c.notNull()),
  )
    .addPrimaryKeyConstraint('call_stats_hours_pk', ['account_id', 'camp_id', 'hour'])
    .addForeignKeyConstraint(
      'call_stats_hours_campaign_fk',
      ['account_id', 'camp_id'],
      'campaigns',
      ['account_id', 'camp_id'],
      (fk) => fk.onDelete('cascade'),
    )
    .modifyEnd(clustered)
    .execute();

  await counterColumns(
    db.schema
      .createTable('account_call_stats_hours')
      .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
      .addColumn('hour', 'text', (c) => c.notNull()),
  )
    .addPrimaryKeyConstraint('account_call_stats_hours_pk', ['account_id', 'hour'])
    .modifyEnd(clustered)
    .execute();

  await counterColumns(
    db.schema
      .createTable('campaign_call_totals')
      .addColumn('account_id', 'text', (c) => c.notNull())
      .addColumn('camp_id', 'text', (c) => c.notNull()),
  )
    .addPrimaryKeyConstraint('campaign_call_totals_pk', ['account_id', 'camp_id'])
    .addForeignKeyConstraint(
      'campaign_call_totals_campaign_fk',
      ['account_id', 'camp_id'],
      'campaigns',
      ['account_id', 'camp_id'],
      (fk) => fk.onDelete('cascade'),
    )
    .execute();
  // Campaign lists sorted by calls or by spend walk these (keyset: the total, then the campId).
  await db.schema
    .createIndex('campaign_call_totals_calls')
    .on('campaign_call_totals')
    .columns(['account_id', 'calls', 'camp_id'])
    .execute();
  await db.schema
    .createIndex('campaign_call_totals_spent')
    .on('campaign_call_totals')
    .columns(['account_id', 'spent_micros', 'camp_id'])
    .execute();

  // The counters of the calls already written.
  const sums = COUNTERS.map(([column, value]) => `SUM(${value('call_logs')}) AS ${column}`).join(', ');
  const counterList = COUNTERS.map(([c]) => c).join(', ');
  for (const target of TARGETS) {
    const keys = target.keys.map(([, value]) => value('call_logs'));
    await sql
      .raw(
        `INSERT INTO ${target.table} (${target.keys.map(([c]) => c).join(', ')}, ${counterList}) ` +
          `SELECT ${keys.map((k, i) => `${k} AS ${target.keys[i]![0]}`).join(', ')}, ${sums} FROM call_logs GROUP BY ${keys.join(', ')}`,
      )
      .execute(db);
  }
  // Every campaign has its totals row (a list sorted by calls joins it), calls or not.
  await sql
    .raw(
      'INSERT INTO campaign_call_totals (account_id, camp_id) SELECT account_id, camp_id FROM campaigns c WHERE NOT EXISTS ' +
        '(SELECT 1 FROM campaign_call_totals t WHERE t.account_id = c.account_id AND t.camp_id = c.camp_id)',
    )
    .execute(db);

  const newCampaign =
    'INSERT INTO campaign_call_totals (account_id, camp_id) VALUES (NEW.account_id, NEW.camp_id) ON CONFLICT (account_id, camp_id) DO NOTHING';
  const inserted = TARGETS.map((t) => addTo(t, 'NEW', plus('NEW')));
  const deleted = TARGETS.map((t) => takeFrom(t, 'OLD'));
  const changedInPlace = TARGETS.map((t) => addTo(t, 'NEW', difference()));
  const block = (statements: string[]) => statements.map((s) => `  ${s};\n`).join('');

  if (postgres) {
    await sql
      .raw(
        `CREATE FUNCTION campaign_call_totals_start() RETURNS trigger LANGUAGE plpgsql AS $$\nBEGIN\n${block([newCampaign])}  RETURN NULL;\nEND\n$$`,
      )
      .execute(db);
    await sql
      .raw(
        'CREATE TRIGGER campaigns_call_totals AFTER INSERT ON campaigns FOR EACH ROW EXECUTE FUNCTION campaign_call_totals_start()',
      )
      .execute(db);
    // Once per statement, over the rows it wrote (transition tables): a row trigger would update one campaign's
    // totals row once per call in a bulk write, and each update of a row already updated in the same transaction
    // walks every version before it (quadratic).
    for (const [event, functionBody, referencing] of [
      ['INSERT', TARGETS.map((t) => addAll(t, ['new_rows'])), 'NEW TABLE AS new_rows'],
      [
        'UPDATE',
        TARGETS.map((t) => addAll(t, ['new_rows', 'old_rows'])),
        'OLD TABLE AS old_rows NEW TABLE AS new_rows',
      ],
      ['DELETE', TARGETS.map((t) => takeAll(t)), 'OLD TABLE AS old_rows'],
    ] as const) {
      const name = `call_stats_on_${event.toLowerCase()}`;
      await sql
        .raw(
          `CREATE FUNCTION ${name}() RETURNS trigger LANGUAGE plpgsql AS $$\nBEGIN\n${block([...functionBody])}  RETURN NULL;\nEND\n$$`,
        )
        .execute(db);
      await sql
        .raw(
          `CREATE TRIGGER call_logs_stats_${event.toLowerCase()} AFTER ${event} ON call_logs REFERENCING ${referencing} ` +
            `FOR EACH STATEMENT EXECUTE FUNCTION ${name}()`,
        )
        .execute(db);
    }
    return;
  }
  const trigger = (name: string, event: string, when: string | null, statements: string[]) =>
    sql.raw(`CREATE TRIGGER ${name} ${event}${when ? ` WHEN ${when}` : ''} BEGIN\n${block(statements)}END`).execute(db);
  await trigger('campaigns_call_totals', 'AFTER INSERT ON campaigns FOR EACH ROW', null, [newCampaign]);
  await trigger('call_logs_stats_insert', 'AFTER INSERT ON call_logs FOR EACH ROW', null, inserted);
  await trigger('call_logs_stats_delete', 'AFTER DELETE ON call_logs FOR EACH ROW', null, deleted);
  await trigger(
    'call_logs_stats_change',
    'AFTER UPDATE ON call_logs FOR EACH ROW',
    `(${COUNTED_CHANGE}) AND ${SAME_PLACE}`,
    changedInPlace,
  );
  await trigger('call_logs_stats_move', 'AFTER UPDATE ON call_logs FOR EACH ROW', `NOT (${SAME_PLACE})`, [
    ...deleted,
    ...inserted,
  ]);
}

export async function down(db: Kysely<any>): Promise<void> {
  const postgres = db.introspection instanceof PostgresIntrospector;
  if (postgres) {
    for (const event of ['insert', 'update', 'delete']) {
      await sql.raw(`DROP TRIGGER IF EXISTS call_logs_stats_${event} ON call_logs`).execute(db);
      await sql.raw(`DROP FUNCTION IF EXISTS call_stats_on_${event}()`).execute(db);
    }
    await sql.raw('DROP TRIGGER IF EXISTS campaigns_call_totals ON campaigns').execute(db);
    await sql.raw('DROP FUNCTION IF EXISTS campaign_call_totals_start()').execute(db);
  } else {
    for (const name of [
      'call_logs_stats_move',
      'call_logs_stats_change',
      'call_logs_stats_delete',
      'call_logs_stats_insert',
      'campaigns_call_totals',
    ]) {
      await sql.raw(`DROP TRIGGER IF EXISTS ${name}`).execute(db);
    }
  }
  await db.schema.dropTable('campaign_call_totals').execute();
  await db.schema.dropTable('account_call_stats_hours').execute();
  await db.schema.dropTable('call_stats_hours').execute();
}
