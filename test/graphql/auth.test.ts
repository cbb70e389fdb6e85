// Accounts through the GraphQL door (docs/decisions.md §4, §10): signUp and login need no token, everything else
// needs a bearer token, and errors carry extensions.code (plus extensions.issues for bad input).
import jwt from 'jsonwebtoken';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { findAccountByApiKey } from '../../src/domain/accounts.js';
import { startApp, type TestApp } from '../helpers/app.js';

const JWT_SECRET = 'test-secret-test-secret-test-secret-0123';
const PASSWORD = 'correct horse battery';

const SIGN_UP = /* GraphQL */ `
  mutation SignUp($email: String!, $password: String!) {
    signUp(email: $email, password: $password) {
      apiKey
      account {
        id: accountId
        email
        apiKeyHint
        createdAt
      }
    }
  }
`;

const LOGIN = /* GraphQL */ `
  mutation Login($email: String!, $password: String!) {
    login(email: $email, password: $password) {
      accessToken
      tokenType
      expiresIn
    }
  }
`;

const VIEWER = /* GraphQL */ `
  query Viewer {
    viewer {
      id: accountId
      email
      apiKeyHint
      createdAt
    }
  }
`;

const ROTATE = /* GraphQL */ `
  mutation Rotate {
    rotateApiKey {
      apiKey
      account {
        id: accountId
        email
        apiKeyHint
        createdAt
      }
    }
  }
`;

describe('GraphQL accounts', () => {
  let t: TestApp;
  beforeEach(async () => {
    t = await startApp();
  });
  afterEach(async () => {
    await t.close();
  });

  async function signUpAndLogin(email = 'alice@example.com') {
    const signUp = await t.gql(SIGN_UP, { email, password: PASSWORD });
    expect(signUp.body.errors).toBeUndefined();
    const login = await t.gql(LOGIN, { email, password: PASSWORD });
    expect(login.body.errors).toBeUndefined();
    return {
      account: signUp.body.data.signUp.account,
      apiKey: signUp.body.data.signUp.apiKey as string,
      token: login.body.data.login.accessToken as string,
    };
  }

  it('signs up without a token and shows the API key once', async () => {
    const reply = await t.gql(SIGN_UP, { email: 'Alice@Example.COM', password: PASSWORD });

    expect(reply.status, reply.text).toBe(200);
    expect(reply.body.errors).toBeUndefined();
    const { apiKey, account } = reply.body.data.signUp;
    expect(apiKey).toMatch(/^ck_[A-Za-z0-9_-]{43}$/);
    expect(account.id).toMatch(/^acc_/);
    expect(account.email).toBe('alice@example.com');
    expect(account.apiKeyHint).toBe(`****${apiKey.slice(-4)}`);
    expect(new Date(account.createdAt).toISOString()).toBe(account.createdAt);
    expect(Math.abs(Date.now() - Date.parse(account.createdAt))).toBeLessThan(60_000);
  });

  it('logs in without a token and returns a one-hour bearer token for the account', async () => {
    const signUp = await t.gql(SIGN_UP, { email: 'bob@example.com', password: PASSWORD });
    const reply = await t.gql(LOGIN, { email: 'BOB@example.com', password: PASSWORD });

    expect(reply.status, reply.text).toBe(200);
    expect(reply.body.errors).toBeUndefined();
    const { accessToken, tokenType, expiresIn } = reply.body.data.login;
    expect(tokenType).toBe('bearer');
    expect(expiresIn).toBe(3600);
    const claims = jwt.verify(accessToken, JWT_SECRET, { algorithms: ['HS256'] }) as jwt.JwtPayload;
    expect(claims.sub).toBe(signUp.body.data.signUp.account.id);
  });

  it('shows the signed-in account as viewer', async () => {
    const { account, apiKey, token } = await signUpAndLogin('carol@example.com');

    const reply = await t.gql(VIEWER, {}, token);

    expect(reply.status, reply.text).toBe(200);
    expect(reply.body).toEqual({
      data: {
        viewer: {
          id: account.id,
          email: 'carol@example.com',
          apiKeyHint: `****${apiKey.slice(-4)}`,
          createdAt: account.createdAt,
        },
      },
    });
  });

  it('answers viewer without a token with UNAUTHENTICATED "Not authenticated"', async () => {
    const reply = await t.gql(VIEWER);

    expect(reply.status, reply.text).toBe(200);
    // Queries run compiled (graphql-jit), whose resolver errors name the field by `path` only, without `locations`.
    expect(reply.body).toEqual({
      data: null,
      errors: [{ message: 'Not authenticated', path: ['viewer'], extensions: { code: 'UNAUTHENTICATED' } }],
    });
  });

  it('answers viewer with a garbage token with UNAUTHENTICATED "Could not validate credentials"', async () => {
    const reply = await t.gql(VIEWER, {}, 'not-a-jwt');

    expect(reply.body.data ?? null).toBeNull();
    expect(reply.body.errors?.[0]).toMatchObject({
      message: 'Could not validate credentials',
      extensions: { code: 'UNAUTHENTICATED' },
    });
  });

  it('answers viewer with an expired token with "Could not validate credentials"', async () => {
    const { account } = await signUpAndLogin('dave@example.com');
    const expired = jwt.sign({}, JWT_SECRET, { subject: account.id, expiresIn: -10 });

    const reply = await t.gql(VIEWER, {}, expired);

    expect(reply.body.errors?.[0]).toMatchObject({
      message: 'Could not validate credentials',
      extensions: { code: 'UNAUTHENTICATED' },
    });
  });

  it('answers viewer with a token signed by another secret with "Could not validate credentials"', async () => {
    const { account } = await signUpAndLogin('erin@example.com');
    const forged = jwt.sign({}, 'some-other-secret-some-other-secret-0000', { subject: account.id, expiresIn: 3600 });

    const reply = await t.gql(VIEWER, {}, forged);

    expect(reply.body.errors?.[0]).toMatchObject({
      message: 'Could not validate credentials',
      extensions: { code: 'UNAUTHENTICATED' },
    });
  });

  it('answers viewer with a token for an unknown account with "Could not validate credentials"', async () => {
    const ghost = jwt.sign({}, JWT_SECRET, { subject: 'acc_doesnotexist00000000', expiresIn: 3600 });

    const reply = await t.gql(VIEWER, {}, ghost);

    expect(reply.body.errors?.[0]).toMatchObject({
      message: 'Could not validate credentials',
      extensions: { code: 'UNAUTHENTICATED' },
    });
  });

  it('answers a Basic Authorization header with "Not authenticated"', async () => {
    const reply = await t.request('POST', '/graphql', {
      body: { query: VIEWER },
      headers: { authorization: 'Basic dXNlcjpwYXNz' },
    });

    expect(reply.body.errors?.[0]).toMatchObject({
      message: 'Not authenticated',
      extensions: { code: 'UNAUTHENTICATED' },
    });
  });

  it('answers login with a wrong password with UNAUTHENTICATED "Incorrect username or password"', async () => {
    await t.gql(SIGN_UP, { email: 'frank@example.com', password: PASSWORD });

    const reply = await t.gql(LOGIN, { email: 'frank@example.com', password: 'wrong password' });

    expect(reply.body.data ?? null).toBeNull();
    expect(reply.body.errors).toHaveLength(1);
    expect(reply.body.errors?.[0]).toMatchObject({
      message: 'Incorrect username or password',
      path: ['login'],
      extensions: { code: 'UNAUTHENTICATED' },
    });
  });

  it('answers login for an unknown e-mail exactly as a wrong password', async () => {
    const reply = await t.gql(LOGIN, { email: 'nobody@example.com', password: PASSWORD });

    expect(reply.body.errors?.[0]).toMatchObject({
      message: 'Incorrect username or password',
      extensions: { code: 'UNAUTHENTICATED' },
    });
  });

  it('answers a second signUp for the same e-mail in another case with CONFLICT', async () => {
    await t.gql(SIGN_UP, { email: 'grace@example.com', password: PASSWORD });

    const reply = await t.gql(SIGN_UP, { email: 'Grace@EXAMPLE.com', password: PASSWORD });

    expect(reply.body.data ?? null).toBeNull();
    expect(reply.body.errors).toHaveLength(1);
    expect(reply.body.errors?.[0]).toMatchObject({
      message: 'An account with this email already exists',
      path: ['signUp'],
      extensions: { code: 'CONFLICT' },
    });
  });

  it('answers signUp with a bad e-mail with BAD_USER_INPUT and an issue at ["email"]', async () => {
    const reply = await t.gql(SIGN_UP, { email: 'not-an-email', password: PASSWORD });

    expect(reply.body.data ?? null).toBeNull();
    expect(reply.body.errors).toHaveLength(1);
    const [error] = reply.body.errors ?? [];
    expect(error.path).toEqual(['signUp']);
    expect(error.extensions).toEqual({
      code: 'BAD_USER_INPUT',
      issues: [
        {
          path: ['email'],
          type: 'value_error',
          message: 'value is not a valid email address: The email address is not valid.',
        },
      ],
    });
  });

  it('answers signUp with a short password with BAD_USER_INPUT and an issue at ["password"]', async () => {
    const reply = await t.gql(SIGN_UP, { email: 'heidi@example.com', password: 'short' });

    expect(reply.body.data ?? null).toBeNull();
    const [error] = reply.body.errors ?? [];
    expect(error.extensions).toEqual({
      code: 'BAD_USER_INPUT',
      issues: [{ path: ['password'], type: 'string_too_short', message: 'String should have at least 8 characters' }],
    });
  });

  it('reports a bad e-mail and a short password together', async () => {
    const reply = await t.gql(SIGN_UP, { email: 'nope', password: 'short' });

    const [error] = reply.body.errors ?? [];
    expect(error.extensions.code).toBe('BAD_USER_INPUT');
    expect(error.extensions.issues.map((issue: any) => issue.path)).toEqual([['email'], ['password']]);
  });

  it('does not store an account when signUp input is bad', async () => {
    await t.gql(SIGN_UP, { email: 'ivan@example.com', password: 'short' });

    const rows = await t.app.database.db.selectFrom('accounts').select('id').execute();
    expect(rows).toEqual([]);
  });

  it('answers rotateApiKey without a token with UNAUTHENTICATED', async () => {
    const reply = await t.gql(ROTATE);

    expect(reply.body.data ?? null).toBeNull();
    expect(reply.body.errors?.[0]).toMatchObject({
      message: 'Not authenticated',
      extensions: { code: 'UNAUTHENTICATED' },
    });
  });

  it('rotates the API key: a new key is shown once, the hint follows it, and the old key stops working', async () => {
    const { account, apiKey: oldKey, token } = await signUpAndLogin('judy@example.com');
    const db = t.app.database.db;
    expect((await findAccountByApiKey(db, oldKey))?.id).toBe(account.id);

    const reply = await t.gql(ROTATE, {}, token);

    expect(reply.body.errors).toBeUndefined();
    const { apiKey: newKey, account: rotated } = reply.body.data.rotateApiKey;
    expect(newKey).toMatch(/^ck_[A-Za-z0-9_-]{43}$/);
    expect(newKey).not.toBe(oldKey);
    expect(rotated).toEqual({
      id: account.id,
      email: 'judy@example.com',
      apiKeyHint: `****${newKey.slice(-4)}`,
      createdAt: account.createdAt,
    });

    const fresh = await t.gql(LOGIN, { email: 'judy@example.com', password: PASSWORD });
    const viewer = await t.gql(VIEWER, {}, fresh.body.data.login.accessToken);
    expect(viewer.body.data.viewer.apiKeyHint).toBe(`****${newKey.slice(-4)}`);

    expect(await findAccountByApiKey(db, oldKey)).toBeNull();
    expect(await findAccountByApiKey(db, newKey)).toEqual({
      id: account.id,
      email: 'judy@example.com',
      apiKeyHint: `****${newKey.slice(-4)}`,
      createdAt: account.createdAt,
      tokenVersion: 1,
    });
  });

  it('revokes the bearer tokens issued before rotating the API key (test/graphql/token-revocation.test.ts)', async () => {
    const { token } = await signUpAndLogin('kim@example.com');
    await t.gql(ROTATE, {}, token);

    const viewer = await t.gql(VIEWER, {}, token);
    expect(viewer.body.errors?.[0]?.extensions?.code).toBe('UNAUTHENTICATED');
  });

  it('rotates only the caller’s key', async () => {
    const alice = await signUpAndLogin('alice@example.com');
    const bob = await signUpAndLogin('bob@example.com');

    await t.gql(ROTATE, {}, alice.token);

    const db = t.app.database.db;
    expect((await findAccountByApiKey(db, bob.apiKey))?.id).toBe(bob.account.id);
    const viewer = await t.gql(VIEWER, {}, bob.token);
    expect(viewer.body.data.viewer.apiKeyHint).toBe(`****${bob.apiKey.slice(-4)}`);
  });

  it('accepts the same bearer token on the REST door and the GraphQL door', async () => {
    const rest = await t.account('leo@example.com');

    const viewer = await t.gql(VIEWER, {}, rest.token);
    expect(viewer.body.errors).toBeUndefined();
    expect(viewer.body.data.viewer).toMatchObject({ id: rest.id, email: 'leo@example.com' });

    const { accessToken: gqlToken } = (await t.gql(LOGIN, { email: 'leo@example.com', password: PASSWORD })).body.data
      .login;
    const campaigns = await t.rest('GET', '/get_campaigns', { token: gqlToken });
    expect(campaigns.status, campaigns.text).toBe(200);
    expect(campaigns.body).toEqual([]);
  });

  it('stores only an scrypt hash of a GraphQL sign-up’s password and never the API key', async () => {
    const { account, apiKey } = await signUpAndLogin('mallory@example.com');

    const row = await t.app.database.db
      .selectFrom('accounts')
      .selectAll()
      .where('id', '=', account.id)
      .executeTakeFirstOrThrow();
    expect(row.password_hash.startsWith('scrypt$')).toBe(true);
    expect(row.password_hash).not.toContain(PASSWORD);
    expect(row.api_key_hash).not.toBe(apiKey);
    expect(row.api_key_hash).not.toContain(apiKey);
  });
});
