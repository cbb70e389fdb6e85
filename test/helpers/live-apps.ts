// Apps for the tests of @live queries: each test's apps (and the SSE streams it opened) are closed after it.
import { afterEach } from 'vitest';
import { closeAll } from '../events/sse.js';
import { startApp, TEST_DATABASE_URL, type TestApp } from './app.js';
import { tempSqliteFile } from './temp-database.js';

/** Registers the clean-up (call once at the top of a test file); returns how to start an app without the worker. */
export function liveTestApps(): (env?: Record<string, string>, databaseUrl?: string) => Promise<TestApp> {
  const apps: TestApp[] = [];
  afterEach(async () => {
    await closeAll();
    for (const t of apps.splice(0).reverse()) await t.close();
  });
  return async (env = {}, databaseUrl) => {
    const t = await startApp(env, [], { worker: false, ...(databaseUrl ? { databaseUrl } : {}) });
    apps.push(t);
    return t;
  };
}

/** Two instances on one database (a PostgreSQL one, or a temporary SQLite file), started by `start` (liveTestApps'). */
export async function twoInstances(
  start: ReturnType<typeof liveTestApps>,
  env: Record<string, string> = {},
): Promise<[TestApp, TestApp]> {
  const first = TEST_DATABASE_URL
    ? await start(env)
    : await start({ ...env, DATABASE_URL: `sqlite:${tempSqliteFile('live-queries')}` });
  return [first, await start(env, first.databaseUrl)];
}
