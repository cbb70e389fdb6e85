// Apps a test file starts and closes after each test (a module of its own: test/helpers/app.ts is also loaded by
// processes outside vitest, test/fixtures/young-garbage-run.ts).
import { afterEach } from 'vitest';
import { startApp, type TestApp } from './app.js';

/**
 * A `start(env)` for a test file's apps (no worker), each closed after its test: call once at the file's top level.
 */
export function appsClosedAfterEach(): (env?: Record<string, string>) => Promise<TestApp> {
  let apps: TestApp[] = [];
  afterEach(async () => {
    await Promise.all(apps.map((t) => t.close()));
    apps = [];
  });
  return async (env = {}) => {
    const t = await startApp(env, [], { worker: false });
    apps.push(t);
    return t;
  };
}
