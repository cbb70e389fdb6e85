// Who is calling (src/authentication.ts), through its own doors with an in-memory account store behind the account
// caches, on PostgreSQL's terms (no account-change version, so a credential read before may be taken provisionally
// and must then be confirmed): the bearer header, the answer for each kind of token, and what confirm() decides.
import { describe, expect, it } from 'vitest';
import {
  AUTH_FAILURE_MESSAGES,
  type AuthServices,
  authenticateRequest,
  bearerToken,
  requestAuth,
} from '../../src/authentication.js';
import { pendingCredentialCheck, runWithRequestId } from '../../src/core/request-context.js';
import { createAccountCache } from '../../src/domain/account-cache.js';
import type { AccessTokenCredential } from '../../src/domain/access-tokens.js';
import type { Account } from '../../src/domain/accounts.js';
import { hashApiKey } from '../../src/security/api-keys.js';
import { createTokenIssuer } from '../../src/security/tokens.js';

const SECRET = 'a-secret-of-at-least-thirty-two-chars!';
const LATER = '2999-01-01T00:00:00.000Z';

/** The services, an account acc_1 with a session token, and a read-only named access token tok_1 of it. */
function setUp() {
  const tokens = createTokenIssuer(SECRET, 3600);
  const accounts = new Map<string, Account>();
  const credentials = new Map<string, AccessTokenCredential>();
  let reads = 0;
  const read =
    <T>(store: Map<string, T>) =>
    async (id: string): Promise<T | null> => {
      reads += 1;
      const value = store.get(id);
      return value === undefined ? null : structuredClone(value);
    };
  const unknownVersion = { version: () => null }; // as on PostgreSQL
  const services: AuthServices = {
    tokens,
    accounts: createAccountCache(read(accounts), unknownVersion),
    accessTokens: createAccountCache(read(credentials), unknownVersion),
  };
  const account: Account = {
    id: 'acc_1',
    email: 'a@example.com',
    apiKeyHint: '****abcd',
    createdAt: '2026-01-01T00:00:00.000Z',
    tokenVersion: 2,
  };
  accounts.set(account.id, account);
  const session = tokens.issue(account.id, account.tokenVersion).token;
  const named = tokens.mintAccessToken(account.id, 'tok_1');
  const credential: AccessTokenCredential = {
    tokenId: 'tok_1',
    name: 'agent',
    hint: `****${named.slice(-4)}`,
    readOnly: true,
    createdAt: '2026-01-01T00:00:00.000Z',
    expiresAt: LATER,
    resource: null,
    account,
    tokenHash: hashApiKey(named),
  };
  credentials.set('tok_1', credential);
  return { services, tokens, accounts, credentials, account, credential, session, named, reads: () => reads };
}

const bearer = (token: string) => `Bearer ${token}`;

describe('bearerToken', () => {
  it.each([
    ['Bearer abc.def', 'abc.def'],
    ['bearer abc', 'abc'],
    ['BEARER   abc', 'abc'],
    ['Bearer\tabc  ', 'abc'],
  ])('reads %j', (header, token) => {
    expect(bearerToken(header)).toBe(token);
  });

  it.each([null, '', 'Bearer', 'Bearer ', 'Basic abc', 'Bearer abc def', 'xBearer abc', ' Bearer abc', 'Bearerabc'])(
    'finds no token in %j',
    (header) => {
      expect(bearerToken(header)).toBeUndefined();
    },
  );
});

describe('authentication()', () => {
  it('without a token: missing; with one that does not verify: invalid', async () => {
    const { services } = setUp();
    expect(await authenticateRequest(services, null)).toStrictEqual({ viewer: null, authFailure: 'missing' });
    expect(await authenticateRequest(services, 'Basic abc')).toStrictEqual({ viewer: null, authFailure: 'missing' });
    expect(await authenticateRequest(services, bearer('not.a.token'))).toStrictEqual({
      viewer: null,
      authFailure: 'invalid',
    });
    expect(AUTH_FAILURE_MESSAGES).toEqual({ missing: 'Not authenticated', invalid: 'Could not validate credentials' });
  });

  it("a login token of the account's current version: the account, until the token expires", async () => {
    const { services, tokens, account, session } = setUp();
    const auth = requestAuth(services, bearer(session));
    expect(auth.claims).toEqual(tokens.verify(session));
    const answer = await auth.authentication();
    expect(answer).toStrictEqual({ viewer: account, authFailure: null, tokenExpiresAt: auth.claims?.expiresAt });
    expect(await auth.authentication()).toBe(answer); // worked out once per request
  });

  it('a login token of another version, or of an account that is gone: invalid', async () => {
    const { services, tokens, accounts, account } = setUp();
    const older = tokens.issue(account.id, account.tokenVersion - 1).token;
    expect(await authenticateRequest(services, bearer(older))).toStrictEqual({ viewer: null, authFailure: 'invalid' });
    const unknown = tokens.issue('acc_2', 0).token;
    expect(await authenticateRequest(services, bearer(unknown))).toStrictEqual({
      viewer: null,
      authFailure: 'invalid',
    });
    accounts.delete(account.id);
    const current = tokens.issue(account.id, account.tokenVersion).token;
    expect(await authenticateRequest(services, bearer(current))).toStrictEqual({
      viewer: null,
      authFailure: 'invalid',
    });
  });

  it('a named access token: its account, read-only as the token is, until the token expires', async () => {
    const { services, account, named } = setUp();
    expect(await authenticateRequest(services, bearer(named))).toStrictEqual({
      viewer: account,
      authFailure: null,
      readOnly: true,
      accessTokenId: 'tok_1',
      tokenExpiresAt: Date.parse(LATER),
    });
  });

  it('a named access token bound to /mcp is a credential there only (provisionally too), invalid on other doors', async () => {
    const { services, credentials, credential, account, named } = setUp();
    credentials.set('tok_1', { ...credential, resource: 'mcp' });
    expect(await authenticateRequest(services, bearer(named))).toStrictEqual({ viewer: null, authFailure: 'invalid' });
    expect(await requestAuth(services, bearer(named), 'mcp').authentication()).toMatchObject({ viewer: account });
    // Known to the cache now: taken provisionally at /mcp, refused elsewhere without a read.
    await runWithRequestId('r-mcp', async () => {
      expect(await requestAuth(services, bearer(named), 'mcp').provisional()).toMatchObject({ viewer: account });
    });
    await runWithRequestId('r-graphql', async () => {
      const elsewhere = await requestAuth(services, bearer(named)).provisional();
      expect(elsewhere).toStrictEqual({ viewer: null, authFailure: 'invalid' });
    });
    // A token made by hand (no resource) is good on every door, /mcp included.
    credentials.set('tok_1', { ...credential, resource: null });
    expect(await requestAuth(services, bearer(named), 'mcp').authentication()).toMatchObject({ viewer: account });
  });

  it('a named access token that does not expire has no expiry', async () => {
    const { services, credentials, credential, account, named } = setUp();
    credentials.set('tok_1', { ...credential, expiresAt: null, readOnly: false });
    expect(await authenticateRequest(services, bearer(named))).toStrictEqual({
      viewer: account,
      authFailure: null,
      readOnly: false,
      accessTokenId: 'tok_1',
    });
  });

  it('a named access token that is revoked, expired, of another digest or stored for another account: invalid', async () => {
    const { services, tokens, credentials, credential, named } = setUp();
    const invalid = { viewer: null, authFailure: 'invalid' };
    credentials.delete('tok_1');
    expect(await authenticateRequest(services, bearer(named))).toStrictEqual(invalid);
    credentials.set('tok_1', { ...credential, expiresAt: '2000-01-01T00:00:00.000Z' });
    expect(await authenticateRequest(services, bearer(named))).toStrictEqual(invalid);
    credentials.set('tok_1', { ...credential, tokenHash: hashApiKey(tokens.mintAccessToken('acc_1', 'tok_1')) });
    expect(await authenticateRequest(services, bearer(named))).toStrictEqual(invalid);
    // A token of acc_2 naming tok_1, whose row (of acc_1) carries this very token's digest.
    const other = tokens.mintAccessToken('acc_2', 'tok_1');
    credentials.set('tok_1', { ...credential, tokenHash: hashApiKey(other) });
    expect(await authenticateRequest(services, bearer(other))).toStrictEqual(invalid);
  });
});

describe('provisional() and confirm()', () => {
  /** A first request that reads the credential (the caches keep what it read), then a new request's RequestAuth. */
  async function readBefore(setup: ReturnType<typeof setUp>, token: string) {
    await requestAuth(setup.services, bearer(token)).authentication();
    return requestAuth(setup.services, bearer(token));
  }
  const inRequest = <T>(work: () => Promise<T>) => runWithRequestId('req', work);

  it('outside a request (nothing to carry the check) the account is read, nothing taken', async () => {
    const setup = setUp();
    const auth = await readBefore(setup, setup.session);
    const reads = setup.reads();
    const answer = await auth.provisional();
    expect(setup.reads()).toBe(reads + 1);
    expect(auth.taken).toBe(false);
    expect(await auth.authentication()).toBe(answer);
    expect(await auth.confirm()).toBeNull();
  });

  it('a login token read before: answered without a read, its check noted, the same answer when asked again', () =>
    inRequest(async () => {
      const setup = setUp();
      const auth = await readBefore(setup, setup.session);
      expect(auth.taken).toBe(false);
      const reads = setup.reads();
      const answer = await auth.provisional();
      expect(setup.reads()).toBe(reads);
      expect(answer).toStrictEqual({
        viewer: setup.account,
        authFailure: null,
        tokenExpiresAt: auth.claims?.expiresAt,
      });
      expect(auth.taken).toBe(true);
      expect(await auth.provisional()).toBe(answer);
      expect(pendingCredentialCheck()).toStrictEqual({ accountId: 'acc_1', tokenVersion: 2 });
    }));

  it("a named access token read before: answered without a read, its check naming the token's id and digest", () =>
    inRequest(async () => {
      const setup = setUp();
      const auth = await readBefore(setup, setup.named);
      const reads = setup.reads();
      expect(await auth.provisional()).toStrictEqual({
        viewer: setup.account,
        authFailure: null,
        readOnly: true,
        accessTokenId: 'tok_1',
        tokenExpiresAt: Date.parse(LATER),
      });
      expect(setup.reads()).toBe(reads);
      expect(auth.taken).toBe(true);
      expect(pendingCredentialCheck()).toStrictEqual({
        accountId: 'acc_1',
        tokenVersion: 2,
        accessToken: { tokenId: 'tok_1', tokenHash: setup.credential.tokenHash },
      });
    }));

  it('nothing is taken for a credential not read before, or one that no longer fits the token', () =>
    inRequest(async () => {
      const setup = setUp();
      const first = requestAuth(setup.services, bearer(setup.session));
      await first.provisional(); // the first request of this token: read
      expect(first.taken).toBe(false);
      expect(setup.reads()).toBe(1);
      // An older login token of the same account: the account read before is of another version.
      const older = setup.tokens.issue('acc_1', 1).token;
      const auth = requestAuth(setup.services, bearer(older));
      expect(await auth.provisional()).toStrictEqual({ viewer: null, authFailure: 'invalid' });
      expect(auth.taken).toBe(false);
      expect(setup.reads()).toBe(2);
      // A named access token past its expiry since it was read.
      const named = await readBefore(setup, setup.named);
      setup.credentials.set('tok_1', { ...setup.credential, expiresAt: '2000-01-01T00:00:00.000Z' });
      await setup.services.accessTokens.find('tok_1'); // what was read last is now the expired row
      const reads = setup.reads();
      expect(await named.provisional()).toStrictEqual({ viewer: null, authFailure: 'invalid' });
      expect(named.taken).toBe(false);
      expect(setup.reads()).toBe(reads + 1);
    }));

  it('once the account has been read for the request, that answer is given (nothing taken)', () =>
    inRequest(async () => {
      const setup = setUp();
      const auth = await readBefore(setup, setup.session);
      const answer = await auth.authentication();
      expect(await auth.provisional()).toBe(answer);
      expect(auth.taken).toBe(false);
      expect(pendingCredentialCheck()).toBeUndefined();
      expect(await auth.confirm()).toBeNull();
    }));

  it('confirm(): a statement found the credential standing, so nothing is read', () =>
    inRequest(async () => {
      const setup = setUp();
      const auth = await readBefore(setup, setup.session);
      await auth.provisional();
      pendingCredentialCheck()!.outcome = true; // what a hot read carrying the check does
      const reads = setup.reads();
      expect(await auth.confirm()).toBeNull();
      expect(setup.reads()).toBe(reads);
    }));

  it('confirm(): a statement found it refuted, so the caller is the account as read now, even an unchanged one', () =>
    inRequest(async () => {
      const setup = setUp();
      const auth = await readBefore(setup, setup.named);
      const taken = await auth.provisional();
      pendingCredentialCheck()!.outcome = false;
      const now = await auth.confirm();
      expect(now).toStrictEqual(taken);
      expect(now).not.toBe(taken);
    }));

  it('confirm(): nothing checked it and the account read now is the same, so the answer stands (and is settled)', () =>
    inRequest(async () => {
      const setup = setUp();
      for (const token of [setup.session, setup.named]) {
        const auth = await readBefore(setup, token);
        await auth.provisional();
        const check = pendingCredentialCheck()!;
        const reads = setup.reads();
        expect(await auth.confirm()).toBeNull();
        expect(setup.reads()).toBe(reads + 1);
        expect(check.outcome).toBe(true);
        expect(pendingCredentialCheck()).toBeUndefined();
      }
    }));

  describe('confirm(): nothing checked it, and the account read now differs', () => {
    /** A named access token taken provisionally, the stored row then changed by `change`; what confirm() answers. */
    const confirmAfter = (change: (setup: ReturnType<typeof setUp>) => void, token: 'named' | 'session' = 'named') =>
      inRequest(async () => {
        const setup = setUp();
        const auth = await readBefore(setup, setup[token]);
        const taken = await auth.provisional();
        expect(auth.taken).toBe(true);
        change(setup);
        const now = await auth.confirm();
        expect(now).not.toBeNull();
        expect(now).not.toStrictEqual(taken);
        expect(await auth.confirm()).toBe(now);
        expect(pendingCredentialCheck()).toBeUndefined(); // settled: refuted
        return now;
      });

    it("the account's key was rotated (which does not revoke a named token): the account as it is now", async () => {
      const now = await confirmAfter((setup) =>
        setup.credentials.set('tok_1', { ...setup.credential, account: { ...setup.account, tokenVersion: 3 } }),
      );
      expect(now?.viewer?.tokenVersion).toBe(3);
      expect(now?.accessTokenId).toBe('tok_1');
    });

    it('the token is no longer read-only', async () => {
      const now = await confirmAfter((setup) =>
        setup.credentials.set('tok_1', { ...setup.credential, readOnly: false }),
      );
      expect(now?.readOnly).toBe(false);
    });

    it('the token expires at another time', async () => {
      const expiresAt = '2998-01-01T00:00:00.000Z';
      const now = await confirmAfter((setup) => setup.credentials.set('tok_1', { ...setup.credential, expiresAt }));
      expect(now?.tokenExpiresAt).toBe(Date.parse(expiresAt));
    });

    it('the token was revoked, or the account is gone: invalid', async () => {
      const invalid = { viewer: null, authFailure: 'invalid' };
      expect(await confirmAfter((setup) => setup.credentials.delete('tok_1'))).toStrictEqual(invalid);
      expect(await confirmAfter((setup) => setup.accounts.delete('acc_1'), 'session')).toStrictEqual(invalid);
      const rotated = (setup: ReturnType<typeof setUp>) =>
        setup.accounts.set('acc_1', { ...setup.account, tokenVersion: 3 });
      expect(await confirmAfter(rotated, 'session')).toStrictEqual(invalid);
    });
  });
});
