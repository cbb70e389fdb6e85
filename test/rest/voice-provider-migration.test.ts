// The telephony integration's voiceProvider is the closed set VoiceProvider (docs/graphql.md, "One vocabulary").
// The demo seed of before stored "default"; migration 0012 rewrites such rows to TELEPHONY, so GET /get_telephony
// keeps answering a string its OpenAPI schema allows, and GraphQL shows the enum value (null before the migration).
import { afterEach, beforeEach, expect, it } from 'vitest';
import { up } from '../../migrations/0012_voice_provider.js';
import { startApp, type TestApp } from '../helpers/app.js';

let t: TestApp;
let token: string;
beforeEach(async () => {
  t = await startApp();
  ({ token } = await t.account());
  const connected = await t.rest('POST', '/update_telephony', {
    body: { telephonyAccountSid: 'AC1', telephonyAuthToken: 'secret-token-1234', telephonyPhoneNumber: '+14155550100' },
    token,
  });
  expect(connected.status, connected.text).toBe(200);
});
afterEach(() => t.close());

/** What the demo seed of before left in the row: a voiceProvider no door accepts. */
async function storeOldSeedValue() {
  const db = t.app.database.db;
  const row = await db
    .selectFrom('integrations')
    .select('fields')
    .where('kind', '=', 'telephony')
    .executeTakeFirstOrThrow();
  const fields = { ...(JSON.parse(row.fields) as Record<string, unknown>), voiceProvider: 'default' };
  await db
    .updateTable('integrations')
    .set({ fields: JSON.stringify(fields) })
    .where('kind', '=', 'telephony')
    .execute();
}

const provider = async () =>
  (await t.gql('{ viewer { integrations { telephony { connected voiceProvider } } } }', {}, token)).body.data.viewer
    .integrations.telephony;

it('a stored value outside the set shows as null in GraphQL until migration 0012 makes it TELEPHONY', async () => {
  expect(await provider()).toEqual({ connected: true, voiceProvider: 'TELEPHONY' });
  await storeOldSeedValue();
  expect(await provider()).toEqual({ connected: true, voiceProvider: null });

  await up(t.app.database.db);
  expect(await provider()).toEqual({ connected: true, voiceProvider: 'TELEPHONY' });
  // The REST answer is validated against the OpenAPI document by the test helper (a string, never null).
  const legacy = await t.rest('GET', '/get_telephony', { token });
  expect(legacy.status, legacy.text).toBe(200);
  expect(legacy.body.voiceProvider).toBe('TELEPHONY');
  // Running it again changes nothing.
  await up(t.app.database.db);
  expect((await t.rest('GET', '/get_telephony', { token })).body).toEqual(legacy.body);
});
