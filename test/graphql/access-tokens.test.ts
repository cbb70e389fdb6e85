// Named access tokens (docs/security.md): created, listed and revoked through GraphQL and the CLI, shown once and
// stored hashed, usable as a bearer token on every door, read-only when asked, refused from the very next request
// once revoked or expired, also by a second instance on the same database.
import { READ_ONLY_MESSAGE } from '../../src/graphql/server/read-only-tokens.js';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { runCli } from '../../src/cli.js';
import { hashApiKey } from '../../src/security/api-keys.js';
import { startApp, TEST_DATABASE_URL, type TestApp } from '../helpers/app.js';
import { tempSqliteFile } from '../helpers/temp-database.js';
import { createLegacyCampaign } from '../helpers/campaigns.js';
import { closeAll, subscribe } from '../events/sse.js';

const CREATE = /* GraphQL */ `
  mutation Create($input: AccessTokenCreateInput!) {
    accessTokenCreate(input: $input) {
      token
      accessToken {
        id
        tokenId
        name
        hint
        readOnly
        createdAt
        expiresAt
      }
    }
  }
`;

const LIST = /* GraphQL */ `
  query Tokens {
    viewer {
      accessTokens {
        tokenId
        name
        hint
        readOnly
        expiresAt
      }
    }
  }
`;

const REVOKE = /* GraphQL */ `
  mutation Revoke($tokenId: String!) {
    accessTokenRevoke(input: { tokenId: $tokenId }) {
      deletedId
      accessToken {
        tokenId
      }
    }
  }
`;

const CAMPAIGN_CREATE = /* GraphQL */ `
  mutation {
    campaignCreate(
      input: {
        campId: "agent-1"
        title: "By an agent"
        voiceId: "en-US-aria"
        language: "en-US"
        script: "Hello"
        purpose: "Test"
        knowledgeBase: "kb"
        calendar: "cal-1"
        firstLine: "Hi"
        tone: "friendly"
        postCallAnalysisSchema: {}
      }
    ) {
      campaign {
        campId
      }
    }
  }
`;

let t: TestApp;
let session: { token: string; id: string; email: string };

beforeEach(async () => {
  // On disk (SQLite): a second instance and the CLI open the same database.
  t = await startApp(TEST_DATABASE_URL ? {} : { DATABASE_URL: `sqlite:${tempSqliteFile('access-tokens')}` });
  session = await t.account();
});
afterEach(async () => {
  vi.useRealTimers();
  await closeAll();
  await t.close();
});

async function create(input: Record<string, unknown>, token = session.token) {
  const reply = await t.gql(CREATE, { input }, token);
  expect(reply.body.errors, reply.text).toBeUndefined();
  return reply.body.data.accessTokenCreate as { token: string; accessToken: Record<string, any> };
}

describe('named access tokens', () => {
  it('are shown once, stored only as a digest, and work as a bearer token on GraphQL and REST', async () => {
    const { token, accessToken } = await create({ name: 'my agent' });
    expect(token).toMatch(/^cgat_/);
    expect(accessToken).toMatchObject({ name: 'my agent', readOnly: false, expiresAt: null });
    expect(accessToken.hint).toBe(`****${token.slice(-4)}`);

    const stored = await t.app.database.db.selectFrom('access_tokens').selectAll().execute();
    expect(stored).toHaveLength(1);
    expect(JSON.stringify(stored)).not.toContain(token);
    expect(stored[0]?.token_hash).toBe(hashApiKey(token));

    const viewer = await t.gql('{ viewer { accountId } }', {}, token);
    expect(viewer.body.data.viewer.accountId).toBe(session.id);
    const rest = await t.rest('GET', '/get_campaigns', { token });
    expect(rest.status).toBe(200);
    const write = await t.gql(CAMPAIGN_CREATE, {}, token);
    expect(write.body.data.campaignCreate.campaign.campId).toBe('agent-1');

    const listed = await t.gql(LIST, {}, token);
    expect(listed.body.data.viewer.accessTokens).toEqual([
      expect.objectContaining({ tokenId: accessToken.tokenId, hint: accessToken.hint }),
    ]);
    expect(listed.text).not.toContain(token);
  });

  it('a revoked token is refused from the very next request, on another instance of the same database too', async () => {
    const { token, accessToken } = await create({ name: 'to revoke' });
    const other = await startApp({}, [], { databaseUrl: t.databaseUrl });
    try {
      // Both instances have served it (and may keep it in their credential cache).
      expect((await t.gql('{ viewer { accountId } }', {}, token)).body.data.viewer.accountId).toBe(session.id);
      expect((await other.gql('{ viewer { accountId } }', {}, token)).body.data.viewer.accountId).toBe(session.id);

      const revoked = await t.gql(REVOKE, { tokenId: accessToken.tokenId }, session.token);
      expect(revoked.body.data.accessTokenRevoke).toEqual({
        deletedId: accessToken.id,
        accessToken: { tokenId: accessToken.tokenId },
      });

      for (const app of [t, other]) {
        const refused = await app.gql('{ viewer { accountId } }', {}, token);
        expect(refused.body.errors?.[0]?.extensions.code).toBe('UNAUTHENTICATED');
        const rest = await app.rest('GET', '/get_campaigns', { token });
        expect(rest.status).toBe(401);
        expect(rest.body).toEqual({ detail: 'Could not validate credentials' });
      }
      // Revoking again, or another account's token: not found.
      const again = await t.gql(REVOKE, { tokenId: accessToken.tokenId }, session.token);
      expect(again.body.errors?.[0]?.extensions.code).toBe('NOT_FOUND');
    } finally {
      await other.close();
    }
  });

  it('a live stream opened with a token outlives an API-key rotation and ends when the token is revoked', async () => {
    await createLegacyCampaign(t, session.token, 'spring');
    const { token, accessToken } = await create({ name: 'watcher' });
    const stream = await subscribe(t.app, 'spring', token);
    expect(stream.status).toBe(200);
    await t.gql('mutation { accountApiKeyRotate { apiKey } }', {}, session.token);
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(stream.ended).toBe(false);
    const login = await t.rest('POST', '/login', {
      body: { username: session.email, password: 'correct horse battery' },
    });
    await t.gql(REVOKE, { tokenId: accessToken.tokenId }, login.body.access_token);
    await vi.waitFor(() => expect(stream.ended).toBe(true), { timeout: 2000 });
  });

  it('a live stream ends when its token is revoked on another instance (checked periodically)', async () => {
    await createLegacyCampaign(t, session.token, 'spring');
    const { token, accessToken } = await create({ name: 'watcher' });
    vi.useFakeTimers({ toFake: ['setInterval'], shouldAdvanceTime: true });
    const stream = await subscribe(t.app, 'spring', token);
    // Deleted behind this instance's back: only the periodic check can tell.
    await t.app.database.db.deleteFrom('access_tokens').where('token_id', '=', accessToken.tokenId).execute();
    expect(stream.ended).toBe(false);
    await vi.advanceTimersByTimeAsync(10_000);
    await vi.waitFor(() => expect(stream.ended).toBe(true), { timeout: 2000 });
  });

  it('a named token cannot manage credentials: no new token, no revocation, no API-key rotation, no password change', async () => {
    const { token, accessToken } = await create({
      name: 'agent',
      expiresAt: new Date(Date.now() + 3_600_000).toISOString(),
    });
    const attempts = [
      [CREATE, { input: { name: 'forever' } }],
      [REVOKE, { tokenId: accessToken.tokenId }],
      ['mutation { accountApiKeyRotate { apiKey } }', {}],
      ['mutation { rotateApiKey { apiKey } }', {}],
      [
        'mutation { accountPasswordChange(input: { currentPassword: "correct horse battery", newPassword: "another long one" }) { accessToken } }',
        {},
      ],
    ] as const;
    for (const [query, variables] of attempts) {
      const reply = await t.gql(query, variables, token);
      expect(reply.body.errors?.[0]?.extensions.code, query).toBe('FORBIDDEN');
      expect(reply.body.errors?.[0]?.message).toMatch(/^Named access tokens cannot manage credentials/);
    }
    expect(await t.app.database.db.selectFrom('access_tokens').select('token_id').execute()).toHaveLength(1);
    // The login token still can.
    expect((await t.gql(REVOKE, { tokenId: accessToken.tokenId }, session.token)).body.errors).toBeUndefined();
  });

  it('a read-only token reads webhook secrets masked (the response cache keeps its answers apart)', async () => {
    const reader = (await create({ name: 'reader', readOnly: true })).token;
    const created = await t.gql(
      'mutation { webhookCreate(input: { url: "https://hooks.example.com/in" }) { webhook { secret } } }',
      {},
      session.token,
    );
    const secret = created.body.data.webhookCreate.webhook.secret as string;
    expect(secret).toMatch(/^whsec_/);
    const full = await t.gql('{ webhooks { secret } }', {}, session.token);
    expect(full.body.data.webhooks[0].secret).toBe(secret);
    const masked = await t.gql('{ webhooks { secret } }', {}, reader);
    expect(masked.body.data.webhooks[0].secret).toBe(`****${secret.slice(-4)}`);
    const rest = await t.rest('GET', '/get_webhooks', { token: reader });
    expect(rest.text).not.toContain(secret);
  });

  it('another account cannot see, revoke or refetch a token', async () => {
    const { accessToken } = await create({ name: 'mine' });
    const stranger = await t.account();
    const list = await t.gql(LIST, {}, stranger.token);
    expect(list.body.data.viewer.accessTokens).toEqual([]);
    const revoke = await t.gql(REVOKE, { tokenId: accessToken.tokenId }, stranger.token);
    expect(revoke.body.errors?.[0]?.extensions.code).toBe('NOT_FOUND');
    const node = await t.gql('query ($id: ID!) { node(id: $id) { id } }', { id: accessToken.id }, stranger.token);
    expect(node.body.data.node).toBeNull();
  });

  it('a read-only token reads but every mutation is FORBIDDEN (GraphQL and REST), and nothing is written', async () => {
    const { token, accessToken } = await create({ name: 'reader', readOnly: true });
    expect(accessToken.readOnly).toBe(true);
    expect((await t.gql('{ campaigns { edges { cursor } } }', {}, token)).body.data.campaigns.edges).toEqual([]);
    const write = await t.gql(CAMPAIGN_CREATE, {}, token);
    expect(write.body.errors).toEqual([
      expect.objectContaining({
        message: READ_ONLY_MESSAGE,
        extensions: expect.objectContaining({ code: 'FORBIDDEN' }),
      }),
    ]);
    // It cannot mint itself a writable token either.
    const mint = await t.gql(CREATE, { input: { name: 'escalate' } }, token);
    expect(mint.body.errors?.[0]?.extensions.code).toBe('FORBIDDEN');
    const rest = await t.rest('POST', '/create_webhook', { token, body: { url: 'https://example.com/hook' } });
    expect(rest.status).toBe(403);
    expect(rest.body).toEqual({ detail: READ_ONLY_MESSAGE });
    expect(await t.app.database.db.selectFrom('campaigns').selectAll().execute()).toEqual([]);
    expect(await t.app.database.db.selectFrom('webhooks').selectAll().execute()).toEqual([]);
  });

  it('keeps working after a password change and an API-key rotation; stops when it expires', async () => {
    const { token } = await create({ name: 'long-lived' });
    const rotated = await t.gql('mutation { accountApiKeyRotate { apiKey } }', {}, session.token);
    expect(rotated.body.errors).toBeUndefined();
    expect((await t.gql('{ viewer { accountId } }', {}, token)).body.data.viewer.accountId).toBe(session.id);

    const soon = new Date(Date.now() + 60_000);
    const login = await t.rest('POST', '/login', {
      body: { username: session.email, password: 'correct horse battery' },
    });
    const expiring = await create({ name: 'short', expiresAt: soon.toISOString() }, login.body.access_token);
    expect(expiring.accessToken.expiresAt).toBe(soon.toISOString());
    expect((await t.gql('{ viewer { accountId } }', {}, expiring.token)).body.data).toBeTruthy();
    vi.useFakeTimers({ now: Date.now() + 61_000, toFake: ['Date'] });
    try {
      const refused = await t.gql('{ viewer { accountId } }', {}, expiring.token);
      expect(refused.body.errors?.[0]?.extensions.code).toBe('UNAUTHENTICATED');
    } finally {
      vi.useRealTimers();
    }
  });

  it('refuses a bad name or expiry with BAD_USER_INPUT issues, a forged or altered token with 401', async () => {
    const bad = await t.gql(
      CREATE,
      { input: { name: '  ', expiresAt: new Date(Date.now() - 1000).toISOString() } },
      session.token,
    );
    expect(bad.body.errors?.[0]?.extensions.code).toBe('BAD_USER_INPUT');
    expect(bad.body.errors?.[0]?.extensions.issues.map((issue: { path: string[] }) => issue.path.join('.'))).toEqual([
      'input.name',
      'input.expiresAt',
    ]);
    const { token } = await create({ name: 'real' });
    const altered = `${token.slice(0, -30)}${token.slice(-30).replace(/[a-z]/, 'Q')}`;
    const forged = token.replace(session.id, 'acc_someoneelse000000000');
    for (const candidate of [altered, forged, 'cgat_nonsense']) {
      const reply = await t.rest('GET', '/get_campaigns', { token: candidate });
      expect(reply.status, candidate).toBe(401);
    }
  });

  it('the CLI creates, lists and revokes tokens; mistakes are one line', async () => {
    const out: string[] = [];
    const err: string[] = [];
    vi.spyOn(console, 'log').mockImplementation((...args: unknown[]) => void out.push(args.join(' ')));
    vi.spyOn(console, 'error').mockImplementation((...args: unknown[]) => void err.push(args.join(' ')));
    vi.stubEnv('DATABASE_URL', t.databaseUrl);
    vi.stubEnv('JWT_SECRET', 'test-secret-test-secret-test-secret-0123');
    vi.stubEnv('SECRETS_KEY', Buffer.alloc(32, 7).toString('base64'));
    try {
      const cli = (...argv: string[]) => runCli(argv);
      expect(await cli('token:create', '--email', session.email, '--name', 'ci job', '--read-only')).toBe(0);
      const token = /token \(shown once\): (\S+)/.exec(out.join('\n'))?.[1] ?? '';
      expect(token).toMatch(/^cgat_/);
      const tokenId = /created (tok_\S+)/.exec(out.join('\n'))?.[1] ?? '';
      expect(out.join('\n')).toContain('read-only, does not expire');

      // The token the CLI printed works on the server, read-only.
      expect((await t.gql('{ viewer { accountId } }', {}, token)).body.data.viewer.accountId).toBe(session.id);
      expect((await t.gql(CAMPAIGN_CREATE, {}, token)).body.errors?.[0]?.extensions.code).toBe('FORBIDDEN');

      out.length = 0;
      expect(await cli('token:list', '--email', session.email)).toBe(0);
      expect(out.join('\n')).toContain(tokenId);
      expect(out.join('\n')).not.toContain(token);

      expect(await cli('token:revoke', '--email', session.email, '--id', tokenId)).toBe(0);
      expect((await t.rest('GET', '/get_campaigns', { token })).status).toBe(401);

      expect(await cli('token:revoke', '--email', session.email, '--id', tokenId)).toBe(1);
      expect(await cli('token:list', '--email', 'nobody@example.com')).toBe(1);
      expect(err).toEqual([`Access token ${tokenId} not found`, 'no account with the e-mail nobody@example.com']);
      expect(await cli('token:create', '--email', session.email)).toBe(2);
      expect(await cli('token:create', '--email', session.email, '--name', 'x', '--expires-in-days', 'soon')).toBe(2);
    } finally {
      vi.unstubAllEnvs();
      vi.restoreAllMocks();
    }
  });
});
