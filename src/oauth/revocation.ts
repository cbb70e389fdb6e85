// RFC 7009 token revocation at /oauth/revoke (docs/mcp-oauth.md "Revocation"): a platform's "disconnect". The
// provider revokes the refresh tokens it issued (and with one, its whole grant: src/domain/oauth-artifacts.ts
// revokeGrant, the named access token included); the access tokens a client holds are ours, named access tokens
// (src/oauth/token-minting.ts), which the provider does not know: this middleware revokes one presented by the client
// it was issued to, with its grant. Whatever the token, the answer is 200 with an empty body (§2.2): a client learns
// nothing about tokens that are not its own.
import type { Kysely } from 'kysely';
import type { KoaContextWithOIDC } from 'oidc-provider';
import type { Logger } from '../core/logger.js';
import type { Database } from '../db/types.js';
import { accessTokenMatches, findAccessTokenCredential } from '../domain/access-tokens.js';
import { grantOfIssuedToken, revokeGrant } from '../domain/oauth-artifacts.js';
import { ACCESS_TOKEN_PREFIX, type TokenIssuer } from '../security/tokens.js';

export interface RevocationServices {
  db: Kysely<Database>;
  tokens: TokenIssuer;
  logger: Logger;
}

/** Koa middleware of the provider: after its revocation endpoint answered, a named access token is revoked too. */
export function revokeNamedAccessTokens({ db, tokens, logger }: RevocationServices) {
  return async (ctx: KoaContextWithOIDC, next: () => Promise<void>): Promise<void> => {
    await next();
    if (ctx.oidc?.route !== 'revocation' || ctx.status !== 200) return;
    const client = ctx.oidc.client;
    const token = ctx.oidc.params?.token;
    if (!client) return;
    if (ctx.oidc.entities.RefreshToken) {
      logger.info({ clientId: client.clientId }, 'OAuth refresh token revoked by its client: its grant is revoked');
      return;
    }
    if (typeof token !== 'string' || !token.startsWith(ACCESS_TOKEN_PREFIX)) return;
    const tokenId = tokens.verify(token)?.accessTokenId;
    if (!tokenId) return;
    const credential = await findAccessTokenCredential(db, tokenId);
    // The token as it is now (its current secret), whatever door it is for.
    if (!credential || !accessTokenMatches(credential, token, credential.resource)) return;
    const issued = await grantOfIssuedToken(db, tokenId);
    if (!issued || issued.clientId !== client.clientId) return;
    await revokeGrant(db, issued.grantId);
    logger.info(
      { clientId: client.clientId, accountId: credential.account.id, tokenId },
      'OAuth access token revoked by its client: its grant is revoked',
    );
  };
}
