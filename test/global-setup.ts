// Once per `npm test` run. On PostgreSQL, a template database is migrated once; every test app then gets a database
// of its own copied from it (CREATE DATABASE … TEMPLATE, a file copy), so tests never see each other's catalogues.
// All of the run's databases are dropped at the end.
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';
import { openDatabase } from '../src/db/database.js';
import { migrateToLatest } from '../src/db/migrate.js';
import { dropDatabase, ensureDatabase } from './helpers/postgres-admin.js';

const RUN = (process.env.TEST_RUN_ID ??= randomBytes(4).toString('hex'));
export const templateName = (run: string) => `tmpl_${run}`;

function databaseUrl(base: string, name: string): string {
  const url = new URL(base);
  url.pathname = `/${name}`;
  return url.toString();
}

async function admin<T>(base: string, work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: base });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

/** Whether this run created TEST_DATABASE_URL's database (it is then dropped at the end). */
let createdBase = false;

/**
 * The secrets file a server writes when it is given neither JWT_SECRET nor SECRETS_KEY (src/core/config.ts): no test
 * may write it in the checkout — a secret one test generated there is read by every later test that relies on the
 * environment (a PostgreSQL start that must be refused for lack of secrets then is not). Checked when it was not
 * there before the run (a clean clone, CI).
 */
const CHECKOUT_SECRETS = join(import.meta.dirname, '..', 'data', 'secrets.json');
let secretsBefore = true;

export async function setup(): Promise<void> {
  secretsBefore = existsSync(CHECKOUT_SECRETS);
  const base = process.env.TEST_DATABASE_URL;
  if (!base) return;
  createdBase = await ensureDatabase(base);
  const template = templateName(RUN);
  await admin(base, (client) => client.query(`create database ${template}`));
  const { db, dialect, close } = openDatabase(databaseUrl(base, template));
  try {
    await migrateToLatest(db, dialect);
  } finally {
    await close();
  }
}

export async function teardown(): Promise<void> {
  if (!secretsBefore && existsSync(CHECKOUT_SECRETS)) {
    // vitest reports an error thrown here but exits 0: the exit code is set so that the run fails.
    console.error(
      `a test wrote ${CHECKOUT_SECRETS}: give the app it starts JWT_SECRET and SECRETS_KEY, or a SECRETS_FILE of its own`,
    );
    process.exitCode = 1;
  }
  const base = process.env.TEST_DATABASE_URL;
  if (!base) return;
  await admin(base, async (client) => {
    const { rows } = await client.query<{ name: string }>(
      'select datname as name from pg_database where datname like $1 or datname = $2',
      [`t\\_${RUN}\\_%`, templateName(RUN)],
    );
    for (const { name } of rows) await client.query(`drop database if exists ${name} with (force)`);
  });
  if (createdBase) await dropDatabase(base);
}
