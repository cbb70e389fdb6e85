// What the client tests share (frontend.test.ts, live-clients.test.ts): a gateway on a loopback port with an account
// and one campaign, the URLs a client is given, the clients a test opened (closed before the gateway after each test),
// a wait for what a client receives, and the check that a documentation page's code is the set-ups' code.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, expect } from 'vitest';
import type { TestApp } from '../helpers/app.js';
import { createLegacyCampaign } from '../helpers/campaigns.js';
import { loopbackGateways } from '../helpers/gateway.js';

const ROOT = join(import.meta.dirname, '../..');

export interface ServedClients {
  t: TestApp;
  /** http://127.0.0.1:<port>/graphql */
  httpUrl: string;
  /** ws://127.0.0.1:<port>/graphql */
  wsUrl: string;
  /** The account's login token. */
  token: string;
  /** Closes a client (or its subscription) after the test, before the gateway goes. */
  dispose(close: () => unknown): void;
}

/** Call at the top of a test file: before each test, a fresh gateway with an account and the campaign `campId`. */
export function servedClients(campId: string, title?: string): ServedClients {
  const open = loopbackGateways();
  const closers: Array<() => unknown> = [];
  // Filled in before each test (the URLs, the app and the token are each test's own).
  const served: ServedClients = {
    t: undefined as unknown as TestApp,
    httpUrl: '',
    wsUrl: '',
    token: '',
    dispose: (close) => void closers.push(close),
  };
  beforeEach(async () => {
    const { t, port } = await open();
    const { token } = await t.account();
    await createLegacyCampaign(t, token, campId, title === undefined ? {} : { title });
    Object.assign(served, {
      t,
      token,
      httpUrl: `http://127.0.0.1:${port}/graphql`,
      wsUrl: `ws://127.0.0.1:${port}/graphql`,
    });
  });
  // After hooks run last-registered first: the clients close before loopbackGateways closes the gateway.
  afterEach(async () => {
    for (const close of closers.splice(0)) await close();
  });
  return served;
}

/** Waits (polling every 10 ms) until `check` holds: what a client receives comes over its own connection. */
export async function until(check: () => boolean, what: string, ms = 5000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/** The ```ts blocks of a documentation page are, in order, the code of these set-up files (test/client/setups/). */
export function expectDocsCodeIsSetups(page: string, setups: string[]): void {
  const text = readFileSync(join(ROOT, page), 'utf8');
  const blocks = [...text.matchAll(/```ts\n([\s\S]*?)```/g)].map((m) => m[1]!.trim());
  expect(blocks.length).toBe(setups.length);
  const files = setups.map((name) => readFileSync(join(import.meta.dirname, `setups/${name}.ts`), 'utf8'));
  for (const [index, block] of blocks.entries()) expect(files[index]).toContain(block);
}
