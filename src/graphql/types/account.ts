// Account, the viewer, sign-up, login and API-key rotation (docs/decisions.md §4).

import type { Account } from '../../domain/accounts.js';
import { z } from 'zod';
import { changePassword, login, rotateApiKey, signUp } from '../../domain/accounts.js';
import { rateLimited } from '../../domain/errors.js';
import { loginSchema, passwordField, signUpSchema } from '../../domain/accounts.schema.js';
import { builder, viewerOf } from '../builder.js';

export const AccountRef = builder.loadableNode('Account', {
  description: 'A tenant: everything else belongs to exactly one account.',
  id: { resolve: (account: Account) => account.id },
  // Only the caller's own account can be refetched; any other account id is null.
  load: async (ids: string[], context) => ids.map((id) => (context.viewer?.id === id ? context.viewer : null)),
  fields: (t) => ({
    accountId: t.exposeString('id', { description: 'The account id as the REST door shows it (`acc_…`).' }),
    email: t.exposeString('email', { description: 'The e-mail you sign in with, lower-cased.' }),
    createdAt: t.field({
      type: 'DateTime',
      description: 'When the account was created.',
      resolve: (account) => account.createdAt,
    }),
    apiKeyHint: t.exposeString('apiKeyHint', {
      description: 'The last 4 characters of the current API key.',
    }),
  }),
});

const NewApiKey = builder.objectRef<{ account: Account; apiKey: string }>('NewApiKey').implement({
  description: 'An API key is shown once, here; only its hash is stored.',
  fields: (t) => ({
    account: t.field({
      type: AccountRef,
      description: 'The account the key belongs to.',
      resolve: (result) => result.account,
    }),
    apiKey: t.exposeString('apiKey', {
      description: 'The API key (`ck_…`), shown only here; the provider callback URLs carry it (README).',
    }),
  }),
});

const AuthToken = builder
  .objectRef<{ accessToken: string; tokenType: string; expiresIn: number }>('AuthToken')
  .implement({
    description: 'Send as `Authorization: Bearer <accessToken>`.',
    fields: (t) => ({
      accessToken: t.exposeString('accessToken', {
        description: 'The access token (a JWT) to send as the bearer token.',
      }),
      tokenType: t.exposeString('tokenType', { description: 'Always `bearer`.' }),
      expiresIn: t.exposeInt('expiresIn', { description: 'Seconds until the token expires.' }),
    }),
  });

builder.queryField('viewer', (t) =>
  t.field({
    type: AccountRef,
    description: 'The signed-in account.',
    resolve: (_root, _args, context) => viewerOf(context),
  }),
);

builder.mutationFields((t) => ({
  signUp: t.field({
    type: NewApiKey,
    skipTypeScopes: true,
    description: 'Creates an account (no token needed); its API key is shown here once. Then `login`.',
    args: {
      email: t.arg.string({
        required: true,
        description: 'A valid e-mail address, at most 254 characters; stored lower-cased, unique.',
      }),
      password: t.arg.string({ required: true, description: '8–128 characters.' }),
    },
    validate: signUpSchema,
    resolve: (_root, args, context) =>
      signUp(context.db, args, {
        allowSignup: context.config.ALLOW_SIGNUP,
        passwordCost: context.config.PASSWORD_HASH_COST,
      }),
  }),
  login: t.field({
    type: AuthToken,
    skipTypeScopes: true,
    args: {
      email: t.arg.string({ required: true, description: 'The e-mail the account signed up with (any case).' }),
      password: t.arg.string({ required: true, description: 'Its password.' }),
    },
    validate: loginSchema,
    description:
      'Too many failures for one e-mail (LOGIN_MAX_FAILURES within LOGIN_FAILURE_WINDOW_SECONDS) lock it out: ' +
      'RATE_LIMITED, with extensions.retryAfter in seconds.',
    resolve: async (_root, args, context) => {
      const wait = await context.limits.loginAttempt(args.email, context.clientAddress);
      if (wait !== null) throw rateLimited(`Too many failed login attempts; try again in ${wait} seconds`, wait);
      const token = await login(
        context.db,
        context.tokens,
        args.email,
        args.password,
        context.config.PASSWORD_HASH_COST,
      );
      await context.limits.loginSucceeded(args.email, context.clientAddress);
      return token;
    },
  }),
  rotateApiKey: t.field({
    type: NewApiKey,
    description:
      'Issues a new API key; the old one, every access token issued before and the live streams opened with them ' +
      'stop working at once (log in again for a new token).',
    resolve: async (_root, _args, context) => {
      const rotated = await rotateApiKey(context.db, viewerOf(context).id);
      context.streams.revoked(rotated.account.id);
      return rotated;
    },
  }),
  changePassword: t.field({
    type: AuthToken,
    description:
      'Changes the password (the current one must be given: UNAUTHENTICATED otherwise). Every access token issued ' +
      'before, and the live streams opened with them, stop working at once; the answer is a new token.',
    args: {
      currentPassword: t.arg.string({
        required: true,
        validate: z.string().max(128),
        description: 'The password as it is now.',
      }),
      newPassword: t.arg.string({ required: true, validate: passwordField, description: '8–128 characters.' }),
    },
    resolve: async (_root, args, context) => {
      const accountId = viewerOf(context).id;
      const token = await changePassword(
        context.db,
        context.tokens,
        accountId,
        args,
        context.config.PASSWORD_HASH_COST,
      );
      context.streams.revoked(accountId);
      return token;
    },
  }),
}));
