// The legacy REST door's accounts and authentication, as a FastAPI client sees them (docs/decisions.md §4, §10):
// sign-up, the OAuth2 password-flow login, and the 401s every bearer-protected path answers.
import { createHash } from 'node:crypto';
import jwt from 'jsonwebtoken';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type Reply, startApp, type TestApp } from '../helpers/app.js';

const JWT_SECRET = 'test-secret-test-secret-test-secret-0123';
const PASSWORD = 'correct horse battery';
const FORM = { 'content-type': 'application/x-www-form-urlencoded' };

function expectBearerChallenge(reply: Reply, detail: string) {
  expect(reply.status, reply.text).toBe(401);
  expect(reply.body).toEqual({ detail });
  expect(reply.headers.get('www-authenticate')).toBe('Bearer');
  expect(reply.headers.get('content-type')).toContain('application/json');
}

describe('REST sign-up', () => {
  let t: TestApp;
  beforeEach(async () => {
    t = await startApp();
  });
  afterEach(async () => {
    await t.close();
  });

  it('creates an account and shows its API key once, with the e-mail lower-cased', async () => {
    const reply = await t.rest('POST', '/signup', { body: { email: 'Alice@Example.COM', password: PASSWORD } });

    expect(reply.status, reply.text).toBe(200);
    expect(reply.headers.get('content-type')).toContain('application/json');
    expect(Object.keys(reply.body).sort()).toEqual(['apiKey', 'email', 'id']);
    expect(reply.body.id).toMatch(/^acc_[A-Za-z0-9_-]+$/);
    expect(reply.body.email).toBe('alice@example.com');
    expect(reply.body.apiKey).toMatch(/^ck_[A-Za-z0-9_-]{43}$/);
  });

  it('gives every account its own id and API key', async () => {
    const first = await t.rest('POST', '/signup', { body: { email: 'one@example.com', password: PASSWORD } });
    const second = await t.rest('POST', '/signup', { body: { email: 'two@example.com', password: PASSWORD } });

    expect(first.status, first.text).toBe(200);
    expect(second.status, second.text).toBe(200);
    expect(second.body.id).not.toBe(first.body.id);
    expect(second.body.apiKey).not.toBe(first.body.apiKey);
  });

  it('refuses a second account for the same e-mail in another case with 409', async () => {
    const first = await t.rest('POST', '/signup', { body: { email: 'bob@example.com', password: PASSWORD } });
    expect(first.status, first.text).toBe(200);

    const again = await t.rest('POST', '/signup', { body: { email: 'BOB@Example.com', password: 'another password' } });

    expect(again.status, again.text).toBe(409);
    expect(again.body).toEqual({ detail: 'An account with this email already exists' });
  });

  it('rejects a password shorter than 8 characters with a pydantic string_too_short entry', async () => {
    const reply = await t.rest('POST', '/signup', { body: { email: 'carol@example.com', password: 'short' } });

    expect(reply.status, reply.text).toBe(422);
    expect(reply.body).toEqual({
      detail: [
        {
          type: 'string_too_short',
          loc: ['body', 'password'],
          msg: 'String should have at least 8 characters',
          // Unlike FastAPI, secrets are never echoed: "****" alone, whatever was sent.
          input: '****',
          ctx: { min_length: 8 },
        },
      ],
    });
  });

  it('accepts a password of exactly 8 and of exactly 128 characters', async () => {
    const eight = await t.rest('POST', '/signup', { body: { email: 'eight@example.com', password: '12345678' } });
    const long = await t.rest('POST', '/signup', { body: { email: 'long@example.com', password: 'p'.repeat(128) } });

    expect(eight.status, eight.text).toBe(200);
    expect(long.status, long.text).toBe(200);
  });

  it('rejects a password longer than 128 characters with string_too_long', async () => {
    const password = 'p'.repeat(129);
    const reply = await t.rest('POST', '/signup', { body: { email: 'dave@example.com', password } });

    expect(reply.status, reply.text).toBe(422);
    expect(reply.body).toEqual({
      detail: [
        {
          type: 'string_too_long',
          loc: ['body', 'password'],
          msg: 'String should have at most 128 characters',
          input: '****',
          ctx: { max_length: 128 },
        },
      ],
    });
  });

  it('rejects an e-mail that is not one with a value_error on ["body","email"]', async () => {
    const reply = await t.rest('POST', '/signup', { body: { email: 'not-an-email', password: PASSWORD } });

    expect(reply.status, reply.text).toBe(422);
    expect(reply.body.detail).toHaveLength(1);
    const [entry] = reply.body.detail;
    expect(entry).toMatchObject({ type: 'value_error', loc: ['body', 'email'], input: 'not-an-email' });
    expect(entry.msg).toMatch(/valid email address/);
  });

  it('reports every problem at once, in field order', async () => {
    const reply = await t.rest('POST', '/signup', { body: { email: 'nope', password: 'short' } });

    expect(reply.status, reply.text).toBe(422);
    expect(reply.body.detail.map((e: any) => [e.type, e.loc])).toEqual([
      ['value_error', ['body', 'email']],
      ['string_too_short', ['body', 'password']],
    ]);
  });

  it('reports a missing field as type missing with the whole body as input, as pydantic does', async () => {
    const reply = await t.rest('POST', '/signup', { body: { email: 'erin@example.com' } });

    expect(reply.status, reply.text).toBe(422);
    expect(reply.body).toEqual({
      detail: [
        { type: 'missing', loc: ['body', 'password'], msg: 'Field required', input: { email: 'erin@example.com' } },
      ],
    });
  });

  it('answers a request with no body at all with 422 missing at ["body"]', async () => {
    const reply = await t.rest('POST', '/signup');

    expect(reply.status, reply.text).toBe(422);
    expect(reply.body).toEqual({ detail: [{ type: 'missing', loc: ['body'], msg: 'Field required', input: null }] });
  });

  it('answers broken JSON with 422 json_invalid at ["body", <position>]', async () => {
    const reply = await t.rest('POST', '/signup', {
      raw: '{bad json}',
      headers: { 'content-type': 'application/json' },
    });

    expect(reply.status, reply.text).toBe(422);
    expect(reply.body.detail).toHaveLength(1);
    const [entry] = reply.body.detail;
    expect(entry).toMatchObject({ type: 'json_invalid', loc: ['body', 1], msg: 'JSON decode error', input: {} });
    expect(typeof entry.ctx.error).toBe('string');
  });

  it('answers truncated JSON with json_invalid and a numeric position', async () => {
    const reply = await t.rest('POST', '/signup', {
      raw: '{"email": "frank@example.com", "password": ',
      headers: { 'content-type': 'application/json' },
    });

    expect(reply.status, reply.text).toBe(422);
    const [entry] = reply.body.detail;
    expect(entry.type).toBe('json_invalid');
    expect(entry.loc).toHaveLength(2);
    expect(entry.loc[0]).toBe('body');
    expect(typeof entry.loc[1]).toBe('number');
  });

  it('does not create the account when validation fails', async () => {
    await t.rest('POST', '/signup', { body: { email: 'grace@example.com', password: 'short' } });

    const rows = await t.app.database.db.selectFrom('accounts').select('id').execute();
    expect(rows).toEqual([]);
  });
});

describe('REST sign-up when ALLOW_SIGNUP=false', () => {
  it('refuses with 403 and creates nothing', async () => {
    const t = await startApp({ ALLOW_SIGNUP: 'false' });
    try {
      const reply = await t.rest('POST', '/signup', { body: { email: 'closed@example.com', password: PASSWORD } });

      expect(reply.status, reply.text).toBe(403);
      expect(reply.body).toEqual({ detail: 'Sign-up is disabled' });
      const rows = await t.app.database.db.selectFrom('accounts').select('id').execute();
      expect(rows).toEqual([]);
    } finally {
      await t.close();
    }
  });
});

describe('Stored credentials', () => {
  let t: TestApp;
  beforeEach(async () => {
    t = await startApp();
  });
  afterEach(async () => {
    await t.close();
  });

  it('keeps only an scrypt hash of the password and a SHA-256 of the API key', async () => {
    const signup = await t.rest('POST', '/signup', { body: { email: 'heidi@example.com', password: PASSWORD } });
    expect(signup.status, signup.text).toBe(200);

    const row = await t.app.database.db
      .selectFrom('accounts')
      .selectAll()
      .where('id', '=', signup.body.id)
      .executeTakeFirstOrThrow();
    expect(row.email).toBe('heidi@example.com');
    expect(row.password_hash.startsWith('scrypt$')).toBe(true);
    expect(row.password_hash).not.toContain(PASSWORD);
    expect(row.api_key_hash).not.toBe(signup.body.apiKey);
    expect(row.api_key_hash).not.toContain(signup.body.apiKey);
    expect(row.api_key_hash).toBe(createHash('sha256').update(signup.body.apiKey).digest('hex'));
    expect(row.api_key_hint).toBe(`****${signup.body.apiKey.slice(-4)}`);
  });

  it('salts each password, so two accounts with the same password store different hashes', async () => {
    const a = await t.rest('POST', '/signup', { body: { email: 'ivan@example.com', password: PASSWORD } });
    const b = await t.rest('POST', '/signup', { body: { email: 'judy@example.com', password: PASSWORD } });

    const rows = await t.app.database.db
      .selectFrom('accounts')
      .select(['id', 'password_hash'])
      .where('id', 'in', [a.body.id, b.body.id])
      .execute();
    expect(rows).toHaveLength(2);
    expect(rows[0]?.password_hash).not.toBe(rows[1]?.password_hash);
  });
});

describe('REST login (OAuth2 password flow)', () => {
  let t: TestApp;
  let account: { id: string; email: string };
  beforeEach(async () => {
    t = await startApp();
    const signup = await t.rest('POST', '/signup', { body: { email: 'Kim+calls@Example.com', password: PASSWORD } });
    expect(signup.status, signup.text).toBe(200);
    account = { id: signup.body.id, email: signup.body.email };
  });
  afterEach(async () => {
    await t.close();
  });

  function expectToken(reply: Reply<any>) {
    expect(reply.status, reply.text).toBe(200);
    expect(Object.keys(reply.body).sort()).toEqual(['access_token', 'expires_in', 'token_type']);
    expect(reply.body.token_type).toBe('bearer');
    expect(reply.body.expires_in).toBe(3600);
    const claims = jwt.verify(reply.body.access_token, JWT_SECRET, { algorithms: ['HS256'] }) as jwt.JwtPayload;
    expect(claims.sub).toBe(account.id);
    expect((claims.exp ?? 0) - (claims.iat ?? 0)).toBe(3600);
  }

  it('exchanges a form-encoded username and password for a bearer token', async () => {
    const raw = new URLSearchParams({ username: account.email, password: PASSWORD, grant_type: 'password' }).toString();
    const reply = await t.rest('POST', '/login', { raw, headers: FORM });

    expectToken(reply);
  });

  it('accepts the form without grant_type and with the e-mail in another case', async () => {
    const raw = new URLSearchParams({ username: 'KIM+CALLS@EXAMPLE.COM', password: PASSWORD }).toString();
    const reply = await t.rest('POST', '/login', { raw, headers: FORM });

    expectToken(reply);
  });

  it('accepts the literal form body a FastAPI client sends', async () => {
    const reply = await t.rest('POST', '/login', {
      raw: `username=${encodeURIComponent(account.email)}&password=correct+horse+battery&grant_type=password`,
      headers: FORM,
    });

    expectToken(reply);
  });

  it('accepts a JSON body with username', async () => {
    const reply = await t.rest('POST', '/login', { body: { username: account.email, password: PASSWORD } });

    expectToken(reply);
  });

  it('accepts a JSON body with email instead of username', async () => {
    const reply = await t.rest('POST', '/login', { body: { email: account.email, password: PASSWORD } });

    expectToken(reply);
  });

  it('issues a token that opens the bearer-protected paths', async () => {
    const login = await t.rest('POST', '/login', { body: { username: account.email, password: PASSWORD } });

    const campaigns = await t.rest('GET', '/get_campaigns', { token: login.body.access_token });
    expect(campaigns.status, campaigns.text).toBe(200);
    expect(campaigns.body).toEqual([]);
  });

  it('answers a wrong password with 401 "Incorrect username or password" and a Bearer challenge', async () => {
    const raw = new URLSearchParams({ username: account.email, password: 'wrong password' }).toString();
    const reply = await t.rest('POST', '/login', { raw, headers: FORM });

    expectBearerChallenge(reply, 'Incorrect username or password');
  });

  it('answers an unknown e-mail exactly as a wrong password', async () => {
    const raw = new URLSearchParams({ username: 'nobody@example.com', password: PASSWORD }).toString();
    const reply = await t.rest('POST', '/login', { raw, headers: FORM });

    expectBearerChallenge(reply, 'Incorrect username or password');
  });

  it('answers a wrong password in a JSON body with the same 401', async () => {
    const reply = await t.rest('POST', '/login', { body: { email: account.email, password: 'wrong password' } });

    expectBearerChallenge(reply, 'Incorrect username or password');
  });

  it('answers a form without username with 422 missing at ["body","username"], input null as FastAPI does', async () => {
    const reply = await t.rest('POST', '/login', { raw: 'password=whatever-secret', headers: FORM });

    expect(reply.status, reply.text).toBe(422);
    expect(reply.body).toEqual({
      detail: [{ type: 'missing', loc: ['body', 'username'], msg: 'Field required', input: null }],
    });
  });

  it('answers a JSON body without username or email with 422 at ["body","username"]', async () => {
    const reply = await t.rest('POST', '/login', { body: { password: PASSWORD } });

    expect(reply.status, reply.text).toBe(422);
    expect(reply.body.detail).toHaveLength(1);
    expect(reply.body.detail[0]).toMatchObject({ type: 'missing', loc: ['body', 'username'], msg: 'Field required' });
  });

  it('answers an empty login form with each form field missing, input null, as FastAPI does', async () => {
    const reply = await t.rest('POST', '/login', { raw: '', headers: FORM });

    expect(reply.status, reply.text).toBe(422);
    expect(reply.body).toEqual({
      detail: [
        { type: 'missing', loc: ['body', 'username'], msg: 'Field required', input: null },
        { type: 'missing', loc: ['body', 'password'], msg: 'Field required', input: null },
      ],
    });
  });

  it('rejects a grant_type other than "password" with string_pattern_mismatch', async () => {
    const raw = new URLSearchParams({
      username: account.email,
      password: PASSWORD,
      grant_type: 'client_credentials',
    }).toString();
    const reply = await t.rest('POST', '/login', { raw, headers: FORM });

    expect(reply.status, reply.text).toBe(422);
    expect(reply.body).toEqual({
      detail: [
        {
          type: 'string_pattern_mismatch',
          loc: ['body', 'grant_type'],
          msg: "String should match pattern '^password$'",
          input: 'client_credentials',
          ctx: { pattern: '^password$' },
        },
      ],
    });
  });
});

describe.each([
  ['GET /get_campaigns', 'GET', '/get_campaigns'],
  ['GET /get_supported_voices', 'GET', '/get_supported_voices'],
])('Bearer authentication on %s', (_name, method, path) => {
  let t: TestApp;
  let account: { id: string; token: string };
  beforeEach(async () => {
    t = await startApp();
    account = await t.account();
  });
  afterEach(async () => {
    await t.close();
  });

  it('lets a valid token through', async () => {
    const reply = await t.rest(method, path, { token: account.token });

    expect(reply.status, reply.text).toBe(200);
    expect(Array.isArray(reply.body)).toBe(true);
  });

  it('accepts the scheme in any case, as FastAPI does', async () => {
    const reply = await t.rest(method, path, { headers: { authorization: `bearer ${account.token}` } });

    expect(reply.status, reply.text).toBe(200);
  });

  it('answers no Authorization header with 401 "Not authenticated"', async () => {
    expectBearerChallenge(await t.rest(method, path), 'Not authenticated');
  });

  it('answers a Basic Authorization header with 401 "Not authenticated"', async () => {
    const reply = await t.rest(method, path, { headers: { authorization: 'Basic dXNlcjpwYXNz' } });

    expectBearerChallenge(reply, 'Not authenticated');
  });

  it('answers "Bearer" without a token with 401 "Not authenticated"', async () => {
    const reply = await t.rest(method, path, { headers: { authorization: 'Bearer' } });

    expectBearerChallenge(reply, 'Not authenticated');
  });

  it('answers a garbage token with 401 "Could not validate credentials"', async () => {
    const reply = await t.rest(method, path, { token: 'not-a-jwt' });

    expectBearerChallenge(reply, 'Could not validate credentials');
  });

  it('answers a token signed with another secret with 401 "Could not validate credentials"', async () => {
    const forged = jwt.sign({}, 'some-other-secret-some-other-secret-0000', { subject: account.id, expiresIn: 3600 });
    const reply = await t.rest(method, path, { token: forged });

    expectBearerChallenge(reply, 'Could not validate credentials');
  });

  it('answers an unsigned (alg "none") token with 401 "Could not validate credentials"', async () => {
    const unsigned = jwt.sign({}, null, { algorithm: 'none', subject: account.id, expiresIn: 3600 });
    const reply = await t.rest(method, path, { token: unsigned });

    expectBearerChallenge(reply, 'Could not validate credentials');
  });

  it('answers an expired token with 401 "Could not validate credentials"', async () => {
    const expired = jwt.sign({}, JWT_SECRET, { subject: account.id, expiresIn: -10 });
    const reply = await t.rest(method, path, { token: expired });

    expectBearerChallenge(reply, 'Could not validate credentials');
  });

  it('answers a token for an account that does not exist with 401 "Could not validate credentials"', async () => {
    const ghost = jwt.sign({}, JWT_SECRET, { subject: 'acc_doesnotexist00000000', expiresIn: 3600 });
    const reply = await t.rest(method, path, { token: ghost });

    expectBearerChallenge(reply, 'Could not validate credentials');
  });

  it('answers a well-signed token without a subject with 401 "Could not validate credentials"', async () => {
    const anonymous = jwt.sign({}, JWT_SECRET, { expiresIn: 3600 });
    const reply = await t.rest(method, path, { token: anonymous });

    expectBearerChallenge(reply, 'Could not validate credentials');
  });

  it('stops accepting a token once its account is gone', async () => {
    await t.app.database.db.deleteFrom('accounts').where('id', '=', account.id).execute();
    const reply = await t.rest(method, path, { token: account.token });

    expectBearerChallenge(reply, 'Could not validate credentials');
  });
});

describe('Authentication comes before validation, as in FastAPI', () => {
  let t: TestApp;
  beforeEach(async () => {
    t = await startApp();
  });
  afterEach(async () => {
    await t.close();
  });

  it('answers a bad token on POST /update_campaign with an invalid body with 401, not 422', async () => {
    const reply = await t.rest('POST', '/update_campaign', { body: { campId: 42, nonsense: true }, token: 'garbage' });

    expectBearerChallenge(reply, 'Could not validate credentials');
  });

  it('answers no token on POST /update_campaign with broken JSON with 401, not 422', async () => {
    const reply = await t.rest('POST', '/update_campaign', {
      raw: '{"campId": ',
      headers: { 'content-type': 'application/json' },
    });

    expectBearerChallenge(reply, 'Not authenticated');
  });

  it('validates the body once the token is good', async () => {
    const { token } = await t.account();
    const reply = await t.rest('POST', '/update_campaign', { body: {}, token });

    expect(reply.status, reply.text).toBe(422);
    expect(reply.body.detail.map((e: any) => e.loc)).toEqual(
      expect.arrayContaining([
        ['body', 'campId'],
        ['body', 'campaignModelData'],
      ]),
    );
  });
});
