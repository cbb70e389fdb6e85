// Only the exact mask keeps a stored secret (src/domain/integrations.ts looksLikeMask): every value that looks like a
// mask but is not the one shown (only asterisks, the mask with an asterisk or a character more or fewer, with a
// zero-width or invisible character or a space in it, fullwidth asterisks) is refused naming the field, on every kind,
// over GraphQL and REST, and the stored secret stays as it was.
import { afterEach, describe, expect, it } from 'vitest';
import { readIntegrationSecrets } from '../../src/domain/integrations.js';
import { INTEGRATION_KINDS, type IntegrationKind } from '../../src/domain/integrations.schema.js';
import { createSecretBox } from '../../src/security/secrets.js';
import { startApp, type TestApp } from '../helpers/app.js';
import { AUTH_TOKEN, connectTelephony } from '../helpers/telephony.js';

let t: TestApp | undefined;
afterEach(async () => {
  await t?.close();
  t = undefined;
});

/** The box test apps seal secrets with (test/helpers/app.ts: SECRETS_KEY is 32 bytes of 7). */
const box = createSecretBox(Buffer.alloc(32, 7));

/** Values that look like the mask "****" + `last4` without being it. */
function nearMasks(last4: string): string[] {
  return [
    '********',
    '****',
    '*',
    `***${last4}`,
    `*****${last4}`,
    `****${last4.slice(1)}`,
    `****${last4}x`,
    `****${last4}\u200B`,
    `\u200B****${last4}`,
    `**\u200C**${last4}`,
    `****${last4}\u200D`,
    `****${last4}\u2060`,
    `**** ${last4}`,
    `\uFF0A\uFF0A\uFF0A\uFF0A${last4}`,
    `\u2217\u2217\u2217\u2217${last4}`,
  ];
}

/** Every string field is trimmed first (BOM and spaces at either end): these are the exact mask, and keep the secret. */
const trimmedToMask = (mask: string) => [`\uFEFF${mask}`, ` ${mask}`, `${mask}\t`];

function inputOf(kind: IntegrationKind): Record<string, string> {
  const input: Record<string, string> = {};
  for (const [name, field] of Object.entries(kind.fields)) {
    if (field.secret) input[name] = `secret-${kind.kind}-${name}-0123456789`;
    else if (field.closedSet) input[name] = Object.keys(field.closedSet.values)[0]!;
    else if (/phone/i.test(name)) input[name] = '+14155550100';
    else if (/url/i.test(name)) input[name] = 'https://example.com/x';
    else input[name] = `${name}-value`;
  }
  return input;
}

describe('a mask-like value that is not the exact mask', () => {
  for (const kind of INTEGRATION_KINDS) {
    it(`${kind.kind}: is refused over GraphQL (BAD_USER_INPUT naming the field); the exact mask keeps the secret`, async () => {
      t = await startApp({}, [], { worker: false });
      const { token, id } = await t.account();
      const original = inputOf(kind);
      const connect = `${kind.kind}Connect`;
      const mutation = `mutation ($input: ${connect[0]!.toUpperCase()}${connect.slice(1)}Input!) { ${connect}(input: $input) { integration { connected } } }`;
      expect((await t.gql(mutation, { input: original }, token)).body.errors).toBeUndefined();
      const secrets = Object.entries(kind.fields)
        .filter(([, field]) => field.secret)
        .map(([name]) => name);
      for (const name of secrets) {
        const mask = `****${original[name]!.slice(-4)}`;
        for (const value of nearMasks(original[name]!.slice(-4))) {
          const reply = await t.gql(mutation, { input: { ...original, [name]: value } }, token);
          const error = reply.body.errors?.[0];
          expect(error?.extensions?.code, `${JSON.stringify(value)}: ${reply.text}`).toBe('BAD_USER_INPUT');
          expect(error.extensions.issues[0].path).toEqual(['input', name]);
          expect(error.extensions.issues[0].message).toMatch(/send back exactly the mask .* or the real secret/);
          // Nothing of what was sent comes back.
          expect(reply.text).not.toContain(value);
        }
        // The exact mask keeps what is stored.
        for (const value of [mask, ...trimmedToMask(mask)]) {
          const kept = await t.gql(mutation, { input: { ...original, [name]: value } }, token);
          expect(kept.body.errors, kept.text).toBeUndefined();
        }
      }
      const stored = await readIntegrationSecrets(t.app.database.db, box, id, kind);
      for (const name of secrets) expect(stored?.[name]).toBe(original[name]);
    });
  }

  it('telephony over REST: 422 at ["body", field] for each, and the stored token stays', async () => {
    t = await startApp({}, [], { worker: false });
    const { token, id } = await t.account();
    await connectTelephony(t, token);
    const telephony = INTEGRATION_KINDS.find((kind) => kind.kind === 'telephony')!;
    for (const value of nearMasks(AUTH_TOKEN.slice(-4))) {
      const reply = await t.rest('POST', '/update_telephony', {
        token,
        body: { telephonyAccountSid: 'AC1', telephonyAuthToken: value, telephonyPhoneNumber: '+14155550100' },
      });
      expect(reply.status, `${JSON.stringify(value)}: ${reply.text}`).toBe(422);
      expect(reply.body.detail[0].loc).toEqual(['body', 'telephonyAuthToken']);
      expect(reply.body.detail[0].msg).toMatch(/send back exactly the mask/);
      expect(reply.body.detail[0].input ?? '****').toBe('****');
    }
    const stored = await readIntegrationSecrets(t.app.database.db, box, id, telephony);
    expect(stored?.telephonyAuthToken).toBe(AUTH_TOKEN);
  });

  it('a real secret that merely starts with asterisks is stored', async () => {
    t = await startApp({}, [], { worker: false });
    const { token, id } = await t.account();
    await connectTelephony(t, token);
    const reply = await t.rest('POST', '/update_telephony', {
      token,
      body: {
        telephonyAccountSid: 'AC1',
        telephonyAuthToken: '**a-new-real-token-0123',
        telephonyPhoneNumber: '+14155550100',
      },
    });
    expect(reply.status, reply.text).toBe(200);
    const telephony = INTEGRATION_KINDS.find((kind) => kind.kind === 'telephony')!;
    expect((await readIntegrationSecrets(t.app.database.db, box, id, telephony))?.telephonyAuthToken).toBe(
      '**a-new-real-token-0123',
    );
  });
});
