// Apps for the tests of @live queries: each test's apps (and the SSE streams it opened) are closed after it.
import { afterEach } from 'vitest';
import { closeAll } from '../events/sse.js';
import { startApp, type TestApp } from './app.js';

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
