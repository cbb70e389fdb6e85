// The token an agent gets is one of the account's named access tokens (docs/mcp-oauth.md "The token"): after the
// provider's token endpoint has checked the code, the PKCE verifier, the redirect URI and the resource, the access
// token it made (never stored: src/domain/oauth-artifacts.ts) is swapped for a new named access token of the account,
// named after the client, read-only unless mcp:write was granted, expiring after OAUTH_ACCESS_TOKEN_MINUTES when a
// refresh token comes with it (OAUTH_ACCESS_TOKEN_DAYS when the client asked for none). A refresh gives the same named
// token a new secret. It is listed with the account's other tokens, is a credential at /mcp only (the resource it was
// issued for), and revoking it ends it and its refresh token.
import type { Kysely } from 'kysely';
import type { KoaContextWithOIDC } from 'oidc-provider';
import { DomainError } from '../core/errors.js';
import type { Logger } from '../core/logger.js';
import type { Database } from '../db/types.js';
import {
  accessTokenNameField,
  createAccessToken,
  MAX_ACCESS_TOKENS,
  rotateAccessToken,
} from '../domain/access-tokens.js';
import {
  ISSUED_TOKEN_SECONDS,
  issuedTokenOf,
  keepRegisteredClient,
  recordIssuedToken,
  replaceReadOnlyConnections,
  revokeGrant,
} from '../domain/oauth-artifacts.js';
import type { TokenIssuer } from '../security/tokens.js';
import { plainText } from './plain-text.js';

/** The longest token name (in UTF-16 code units, as accessTokenNameField counts). */
const MAX_NAME_LENGTH = 100;

/**
 * What a token issued through OAuth is called: "MCP: " and the client's name — or, when nothing is left of it once
 * cleaned, its id's host (or its id) — at most 100 UTF-16 code units, cut between code points (never half an emoji).
 */
export function tokenNameFor(clientName: string | undefined, clientId: string): string {
  const shown = plainText(clientName) || plainText(URL.parse(clientId)?.host) || plainText(clientId) || 'agent';
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
  /** An access token's lifetime with a refresh token beside it, and without. */
  accessTokenMinutes: number;
  accessTokenDays: number;
  refreshTokenDays: number;
}

/** Koa middleware of the provider: runs after the token endpoint and replaces the access token in its answer. */
export function mintNamedTokens(minting: TokenMinting) {
  const { db, tokens, logger } = minting;
  return async (ctx: KoaContextWithOIDC, next: () => Promise<void>): Promise<void> => {
    await next();
    if (ctx.oidc?.route !== 'token' || ctx.status !== 200) return;
    const issued = ctx.oidc.entities.AccessToken;
    const client = ctx.oidc.client;
    const body = ctx.body as Record<string, unknown> | undefined;
    const refusal = (description: string) => {
      ctx.status = 400;
      ctx.body = { error: 'invalid_grant', error_description: description };
    };
    if (!issued?.accountId || !client || !body || typeof body.access_token !== 'string') {
      // Nothing but an access token from a code or a refresh token is ever issued here; anything else goes out
      // without a token.
      return refusal('no access token can be issued');
    }
    const scopes = new Set((issued.scope ?? '').split(' ').filter(Boolean));
    const readOnly = !scopes.has('mcp:write');
    const refreshable = typeof body.refresh_token === 'string';
    const seconds = refreshable ? minting.accessTokenMinutes * 60 : minting.accessTokenDays * 86_400;
    const expiresAt = new Date(Date.now() + seconds * 1000);
    const keepSeconds = refreshable ? minting.refreshTokenDays * 86_400 : ISSUED_TOKEN_SECONDS;
    let token: string;
    let tokenId: string;
    if (ctx.oidc.params?.grant_type === 'refresh_token') {
      // The refresh token belongs to the named token its code was redeemed for: the same token gets a new secret and
      // expiry (the old secret stops working). Revoked by its user, the refresh ends the whole grant instead.
      const note = issued.grantId ? await issuedTokenOf(db, issued.grantId, keepSeconds) : undefined;
      const rotated =
        note && note.accountId === issued.accountId
          ? await rotateAccessToken(db, tokens, note.accountId, note.tokenId, { readOnly, expiresAt })
          : null;
      if (!rotated) {
        if (issued.grantId) await revokeGrant(db, issued.grantId);
        logger.info({ accountId: issued.accountId }, 'OAuth refresh of a revoked access token: the grant is revoked');
        return refusal('the access token this refresh token belongs to was revoked; authorize again');
      }
      ({ token } = rotated);
      tokenId = rotated.accessToken.tokenId;
      // The grant lives on with its refresh tokens: OAUTH_REFRESH_TOKEN_DAYS from the last refresh.
      const grant = ctx.oidc.entities.Grant;
      if (grant) {
        grant.exp = Math.floor(Date.now() / 1000) + keepSeconds;
        await grant.save();
      }
    } else {
      try {
        const created = await createAccessToken(
          db,
          tokens,
          issued.accountId,
          { name: tokenNameFor(client.clientName, client.clientId), readOnly, expiresAt },
          'mcp',
        );
        ({ token } = created);
        tokenId = created.accessToken.tokenId;
      } catch (error) {
        if (error instanceof DomainError && error.code === 'BAD_USER_INPUT') {
          return refusal(`the account has ${MAX_ACCESS_TOKENS} access tokens already; revoke one first`);
        }
        throw error;
      }
      const recorded =
        !issued.grantId ||
        (await recordIssuedToken(
          db,
          { grantId: issued.grantId, accountId: issued.accountId, tokenId, clientId: client.clientId, readOnly },
          keepSeconds,
        ));
      if (!recorded) {
        // The code was replayed while this redemption was under way: the token just made is revoked already.
        logger.warn({ accountId: issued.accountId }, 'OAuth code replayed during its redemption: nothing issued');
        return refusal('the authorization code was used twice');
      }
    }
    // A step-up (full access where the client held read-only): the read-only connection it replaces is revoked.
    if (!readOnly && issued.grantId && ctx.oidc.params?.grant_type === 'authorization_code') {
      const replaced = await replaceReadOnlyConnections(db, {
        clientId: client.clientId,
        accountId: issued.accountId,
        grantId: issued.grantId,
      });
      if (replaced.length > 0) {
        logger.info(
          { accountId: issued.accountId, clientId: client.clientId, replaced: replaced.length },
          'OAuth step-up: the read-only connection of this client is revoked',
        );
      }
    }
    // A registered client that got a token is one in use: kept (an unused one goes after a day).
    await keepRegisteredClient(db, client.clientId);
    logger.info(
      { accountId: issued.accountId, tokenId, readOnly, grant: ctx.oidc.params?.grant_type },
      'named access token issued through OAuth',
    );
    ctx.body = {
      ...body,
      access_token: token,
      token_type: 'Bearer',
      expires_in: seconds,
      scope: readOnly ? 'mcp:read' : 'mcp:read mcp:write',
    };
  };
}
