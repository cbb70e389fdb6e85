// Named access tokens (docs/security.md): `viewer.accessTokens`, `accessTokenCreate`, `accessTokenRevoke`.
import { z } from 'zod';
import {
  type AccessToken,
  accessTokenCreateSchema,
  createAccessToken,
  getAccessTokensByIds,
  listAccessTokens,
  MAX_ACCESS_TOKEN_DAYS,
  MAX_ACCESS_TOKENS,
  revokeAccessToken,
} from '../../../domain/access-tokens.js';
import { builder, viewerOf } from '../builder.js';
import { refuseNamedTokens } from '../named-token-limits.js';
import { scopedKey, scopedNode } from '../global-ids.js';
import { payloadType, typeStem } from '../payloads.js';
import { AccountRef } from './account.js';

const tokenIdField = z.string().min(1).max(64);

export const AccessTokenRef = builder.loadableNode('AccessToken', {
  description:
    'A named, long-lived bearer token of the account (for agents and scripts): send it as ' +
    '`Authorization: Bearer <token>` on every door. The token itself is shown once, when it is created.',
  ...scopedNode<AccessToken>(
    (token) => token.tokenId,
    (db, accountId, ids) => getAccessTokensByIds(db, accountId, ids),
  ),
  sort: (token) => token.tokenId,
  fields: (t) => ({
    tokenId: t.exposeString('tokenId', { description: 'The token id (`tok_…`): what accessTokenRevoke takes.' }),
    name: t.exposeString('name', { description: 'What it is for, as its creator named it.' }),
    hint: t.exposeString('hint', { description: 'The token, masked: "****" and its last 4 characters.' }),
    readOnly: t.exposeBoolean('readOnly', { description: 'Whether it runs queries only (mutations are FORBIDDEN).' }),
    mcpOnly: t.boolean({
      description: 'Whether it was issued to an agent by OAuth for the MCP door, and is a credential there only.',
      resolve: (token) => token.resource === 'mcp',
    }),
    createdAt: t.field({ type: 'DateTime', description: 'When it was created.', resolve: (token) => token.createdAt }),
    expiresAt: t.field({
      type: 'DateTime',
      nullable: true,
      description: 'When it stops working; null: never (until revoked).',
      resolve: (token) => token.expiresAt,
    }),
  }),
});

builder.objectField(AccountRef, 'accessTokens', (t) =>
  t.field({
    type: [AccessTokenRef],
    description: `The account's named access tokens, newest first (at most ${MAX_ACCESS_TOKENS}).`,
    resolve: (account, _args, context) => listAccessTokens(context.db, account.id),
  }),
);

const AccessTokenCreateInput = builder
  .inputType('AccessTokenCreateInput', {
    description: 'A new named access token.',
    fields: (t) => ({
      name: t.string({ required: true, description: 'What it is for: 1–100 characters.' }),
      readOnly: t.boolean({
        defaultValue: false,
        description: 'true: it runs queries only (mutations are FORBIDDEN). false when omitted.',
      }),
      expiresAt: t.field({
        type: 'DateTime',
        description: `When it stops working: in the future, at most ${MAX_ACCESS_TOKEN_DAYS} days ahead; omitted or null: never.`,
      }),
    }),
  })
  .validate(accessTokenCreateSchema);

const AccessTokenRevokeInput = builder.inputType('AccessTokenRevokeInput', {
  description: 'The token to revoke.',
  fields: (t) => ({
    tokenId: t.string({ required: true, validate: tokenIdField, description: 'Its tokenId (`tok_…`).' }),
  }),
});

const AccessTokenCreatePayload = builder
  .objectRef<{ accessToken: AccessToken; token: string }>(`${typeStem('accessTokenCreate')}Payload`)
  .implement({
    description: 'What `accessTokenCreate` answers: the token, shown here once, and what is kept of it.',
    fields: (t) => ({
      token: t.exposeString('token', {
        description: 'The token (`cgat_…`), shown only here: send it as `Authorization: Bearer <token>`.',
      }),
      accessToken: t.field({
        type: AccessTokenRef,
        description: 'The token as accessTokens lists it.',
        resolve: (created) => created.accessToken,
      }),
    }),
  });

builder.mutationFields((t) => ({
  accessTokenCreate: t.field({
    type: AccessTokenCreatePayload,
    description:
      `Creates a named access token for an agent or a script (at most ${MAX_ACCESS_TOKENS} per account). It keeps ` +
      'working after a password change or an API-key rotation, until it expires or is revoked. Needs a login token: ' +
      'a named token cannot create or revoke tokens (FORBIDDEN).',
    args: { input: t.arg({ type: AccessTokenCreateInput, required: true, description: 'The new token.' }) },
    resolve: (_root, { input }, context) => {
      refuseNamedTokens(context);
      return createAccessToken(context.db, context.tokens, viewerOf(context).id, {
        name: input.name,
        readOnly: input.readOnly ?? false,
        expiresAt: input.expiresAt ?? null,
      });
    },
  }),
  accessTokenRevoke: t.field({
    type: payloadType(
      'accessTokenRevoke',
      'accessToken',
      AccessTokenRef,
      'The token as it was; it no longer works, on any instance, from the next request on.',
      {
        typename: 'AccessToken',
        nodeKey: (token: AccessToken, context) => scopedKey(viewerOf(context).id, token.tokenId),
      },
    ),
    description:
      'Revokes a named access token: the next request that sends it is refused (401). Needs a login token (FORBIDDEN ' +
      'with a named one).',
    args: { input: t.arg({ type: AccessTokenRevokeInput, required: true, description: 'Which token.' }) },
    resolve: async (_root, { input }, context) => {
      refuseNamedTokens(context);
      const revoked = await revokeAccessToken(context.db, viewerOf(context).id, input.tokenId);
      context.streams.accessTokenRevoked(revoked.tokenId);
      return revoked;
    },
  }),
}));
