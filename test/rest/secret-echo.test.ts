// No refusal echoes a secret, not even its last four characters (src/security/redact.ts): a REST 422 shows every field
// declared secret (SECRET_FIELD_NAMES: passwords and every integration's secret fields) as "****" alone, in its own
// issue and inside a parent's echoed input, and a GraphQL coercion error that would quote one says "****".
import { afterEach, describe, expect, it } from 'vitest';
import { INTEGRATION_KINDS } from '../../src/domain/integrations.schema.js';
import { SECRET_FIELD_NAMES } from '../../src/domain/secrets.schema.js';
import { startApp, type TestApp } from '../helpers/app.js';

let t: TestApp | undefined;
afterEach(async () => {
  await t?.close();
  t = undefined;
});

/** A secret whose tail is easy to look for in an answer. */
const TAIL = 'QZXW';
const secretOf = (length: number) => `${'s'.repeat(length - TAIL.length)}${TAIL}`;

describe('REST 422s', () => {
  it('a password too long, too short, or beside a missing field: "****", never its last four', async () => {
    t = await startApp({}, [], { worker: false });
    const long = await t.rest('POST', '/signup', { body: { email: 'a@example.com', password: secretOf(129) } });
    expect(long.status, long.text).toBe(422);
    expect(long.body.detail[0]).toMatchObject({ loc: ['body', 'password'], input: '****' });
    expect(long.text).not.toContain(TAIL);
    const short = await t.rest('POST', '/signup', { body: { email: 'a@example.com', password: `a${TAIL}` } });
    expect(short.status).toBe(422);
    expect(short.text).not.toContain(TAIL);
    // A missing e-mail echoes the whole body, as pydantic does: the password in it is "****".
    const missing = await t.rest('POST', '/signup', { body: { password: secretOf(20) } });
    expect(missing.status, missing.text).toBe(422);
    expect(missing.body.detail[0].input).toEqual({ password: '****' });
    expect(missing.text).not.toContain(TAIL);
    // The login form too.
    const form = await t.rest('POST', '/login', {
      raw: `password=${secretOf(20)}`,
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    expect(form.status, form.text).toBe(422);
    expect(form.text).not.toContain(TAIL);
  });

  for (const kind of INTEGRATION_KINDS) {
    const add = kind.rest.add;
    if (!add) continue;
    it(`${kind.kind}: every secret field, too long or beside a missing field, is "****"`, async () => {
      t = await startApp({}, [], { worker: false });
      const { token } = await t.account();
      const secrets = Object.entries(kind.fields)
        .filter(([, field]) => field.secret)
        .map(([name]) => name);
      expect(secrets.every((name) => SECRET_FIELD_NAMES.has(name))).toBe(true);
      for (const name of secrets) {
        // Only the secret: every other required field is missing, and its issue echoes the body.
        const beside = await t.rest('POST', add, { token, body: { [name]: secretOf(40) } });
        expect(beside.status, beside.text).toBe(422);
        expect(beside.text).not.toContain(TAIL);
        const long = await t.rest('POST', add, { token, body: { [name]: secretOf(5000) } });
        expect(long.status).toBe(422);
        expect(long.text).not.toContain(TAIL);
        const own = (long.body.detail as Array<{ loc: string[]; input: unknown }>).find(
          (issue) => issue.loc.at(-1) === name,
        );
        expect(own?.input, long.text).toBe('****');
      }
    });
  }
});

describe('GraphQL', () => {
  it('a coercion error that would quote a secret variable says "****"', async () => {
    t = await startApp({}, [], { worker: false });
    const { token } = await t.account();
    const reply = await t.gql(
      'mutation ($input: TelephonyConnectInput!) { telephonyConnect(input: $input) { integration { connected } } }',
      { input: { telephonyAuthToken: secretOf(30), telephonyPhoneNumber: 5 } },
      token,
    );
    expect(reply.body.errors?.length, reply.text).toBeGreaterThan(0);
    expect(reply.text).not.toContain(TAIL);
    const changed = await t.gql(
      'mutation ($input: AccountPasswordChangeInput!) { accountPasswordChange(input: $input) { accessToken } }',
      { input: { currentPassword: secretOf(20), newPassword: 7 } },
      token,
    );
    expect(changed.body.errors?.length, changed.text).toBeGreaterThan(0);
    expect(changed.text).not.toContain(TAIL);
  });
});
