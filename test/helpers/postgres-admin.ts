// The database TEST_DATABASE_URL names, made ready for a run (docs/operations.md "Running on PostgreSQL"): created when it does not
// exist (through the server's `postgres` database), and a server that cannot be reached is one line saying what to do
// instead of a stack beside "No test files found".
import pg from 'pg';

const quoted = (name: string) => `"${name.replaceAll('"', '""')}"`;

function maintenanceUrl(url: string): string {
  const maintenance = new URL(url);
  maintenance.pathname = '/postgres';
  return maintenance.toString();
}

const masked = (url: string) => {
  const shown = new URL(url);
  if (shown.password) shown.password = '****';
  return shown.toString();
};

async function run(url: string, statement: string): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(statement);
  } finally {
    await client.end();
  }
}

/** Makes sure the database of `url` exists; true when it had to be created. */
export async function ensureDatabase(url: string): Promise<boolean> {
  try {
    await run(url, 'select 1');
    return false;
  } catch (error) {
    const code = (error as { code?: string }).code;
    if (code === '3D000') {
      const name = decodeURIComponent(new URL(url).pathname.slice(1));
      await run(maintenanceUrl(url), `create database ${quoted(name)}`);
      return true;
    }
    throw new Error(
      `TEST_DATABASE_URL=${masked(url)}: ${error instanceof Error ? error.message : String(error)}. Start ` +
        'PostgreSQL (docs/operations.md "Running on PostgreSQL") or fix the URL; the role needs CREATEDB.',
    );
  }
}

export async function dropDatabase(url: string): Promise<void> {
  const name = decodeURIComponent(new URL(url).pathname.slice(1));
  await run(maintenanceUrl(url), `drop database if exists ${quoted(name)} with (force)`);
}
