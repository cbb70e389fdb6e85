// The token an agent gets is one of the account's named access tokens (docs/mcp-oauth.md "The token"): after the
// provider's token endpoint has checked the code, the PKCE verifier, the redirect URI and the resource, the access
// token it made (never stored: src/domain/oauth-artifacts.ts) is swapped for a new named access token of the account,
// named after the client, read-only unless mcp:write was granted, expiring after OAUTH_ACCESS_TOKEN_DAYS. It is listed
// with the account's other tokens, is a credential at /mcp only (the resource it was issued for), and revoking it ends it.
import type { Kysely } from 'kysely';
import type { KoaContextWithOIDC } from 'oidc-provider';
import { DomainError } from '../core/errors.js';
import type { Logger } from '../core/logger.js';
import type { Database } from '../db/types.js';
import { accessTokenNameField, createAccessToken, MAX_ACCESS_TOKENS } from '../domain/access-tokens.js';
import { recordIssuedToken } from '../domain/oauth-artifacts.js';
import type { TokenIssuer } from '../security/tokens.js';

/** The longest token name (in UTF-16 code units, as accessTokenNameField counts). */
const MAX_NAME_LENGTH = 100;

/**
 * A client-supplied string as a token name's part: control and format characters (zero-width spaces, bidi controls…)
 * and line separators become spaces, lone surrogates are dropped, runs of white space become one space.
 */
const cleaned = (text: string | undefined): string =>
  (text ?? '')
    .replace(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g, '')
    .replace(/[\p{Cc}\p{Cf}\p{Zl}\p{Zp}]/gu, ' ')
    .replace(/\s+/gu, ' ')
    .trim();

/**
 * What a token issued through OAuth is called: "MCP: " and the client's name — or, when nothing is left of it once
 * cleaned, its id's host (or its id) — at most 100 UTF-16 code units, cut between code points (never half an emoji).
 */
export function tokenNameFor(clientName: string | undefined, clientId: string): string {
  const shown = cleaned(clientName) || cleaned(URL.parse(clientId)?.host) || cleaned(clientId) || 'agent';
  let name = '';
  for (const codePoint of `MCP: ${shown}`) {
    if (name.length + codePoint.length > MAX_NAME_LENGTH) break;
    name += codePoint;
  }
  return accessTokenNameField.parse(name);
}

export interface TokenMinting {
  db: Kysely<Database>;
  tokens: TokenIssuer;
  logger: Logger;
  accessTokenDays: number;
}

/** Koa middleware of the provider: runs after the token endpoint and replaces the access token in its answer. */
export function mintNamedTokens({ db, tokens, logger, accessTokenDays }: TokenMinting) {
  return async (ctx: KoaContextWithOIDC, next: () => Promise<void>): Promise<void> => {
    await next();
    if (ctx.oidc?.route !== 'token' || ctx.status !== 200) return;
    const issued = ctx.oidc.entities.AccessToken;
    const client = ctx.oidc.client;
    const body = ctx.body as Record<string, unknown> | undefined;
    if (!issued?.accountId || !client || !body || typeof body.access_token !== 'string') {
      // Nothing but an access token from a code is ever issued here; anything else goes out without a token.
      ctx.status = 400;
      ctx.body = { error: 'invalid_grant', error_description: 'no access token can be issued' };
      return;
    }
    const scopes = new Set((issued.scope ?? '').split(' ').filter(Boolean));
    const readOnly = !scopes.has('mcp:write');
    try {
      const { token, accessToken } = await createAccessToken(
        db,
        tokens,
        issued.accountId,
        {
          name: tokenNameFor(client.clientName, client.clientId),
          readOnly,
          expiresAt: new Date(Date.now() + accessTokenDays * 86_400_000),
        },
        'mcp',
      );
      const recorded =
        !issued.grantId ||
        (await recordIssuedToken(db, {
          grantId: issued.grantId,
          accountId: issued.accountId,
          tokenId: accessToken.tokenId,
        }));
      if (!recorded) {
        // The code was replayed while this redemption was under way: the token just made is revoked already.
        ctx.status = 400;
        ctx.body = { error: 'invalid_grant', error_description: 'the authorization code was used twice' };
        logger.warn({ accountId: issued.accountId }, 'OAuth code replayed during its redemption: nothing issued');
        return;
      }
      logger.info(
        { accountId: issued.accountId, tokenId: accessToken.tokenId, readOnly },
        'named access token issued through OAuth',
      );
      ctx.body = {
        ...body,
        access_token: token,
        token_type: 'Bearer',
        expires_in: accessTokenDays * 86_400,
        scope: readOnly ? 'mcp:read' : 'mcp:read mcp:write',
      };
    } catch (error) {
      if (error instanceof DomainError && error.code === 'BAD_USER_INPUT') {
        ctx.status = 400;
        ctx.body = {
          error: 'invalid_grant',
          error_description: `the account has ${MAX_ACCESS_TOKENS} access tokens already; revoke one first`,
        };
        return;
      }
      throw error;
    }
  };
}
