// Account, the viewer, sign-up, login and API-key rotation (docs/decisions.md §4).

import type { Account } from '../../../domain/accounts.js';
import { z } from 'zod';
import { changePassword, login, rotateApiKey, signUp } from '../../../domain/accounts.js';
import { rateLimited } from '../../../core/errors.js';
import { loginSchema, passwordField, signUpSchema } from '../../../domain/accounts.schema.js';
import { builder, viewerOf } from '../builder.js';
import type { Context } from '../context.js';
import { replacedBy, typeStem } from '../payloads.js';
import { refuseNamedTokens } from '../named-token-limits.js';

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
      description: 'The current API key, masked: "****" and its last 4 characters.',
    }),
  }),
});

/** `{ account, apiKey }`: an API key, shown once (NewApiKey of the deprecated mutations, and the new payloads). */
const apiKeyType = (name: string, description: string) =>
  builder.objectRef<{ account: Account; apiKey: string }>(name).implement({
    description,
    fields: (t) => ({
      account: t.field({
        type: AccountRef,
        description: 'The account the key belongs to.',
        resolve: (result) => result.account,
      }),
      apiKey: t.exposeString('apiKey', {
        description: 'The API key (`ck_…`), shown only here; the provider callback URLs carry it (docs/rest-api.md).',
      }),
    }),
  });

const NewApiKey = apiKeyType('NewApiKey', 'An API key is shown once, here; only its hash is stored.');

interface IssuedToken {
  accessToken: string;
  tokenType: string;
  expiresIn: number;
}

/** The fields every answer with an access token has. */
const TOKEN = {
  accessToken: 'The access token (a JWT) to send as the bearer token.',
  expiresIn: 'Seconds until the token expires.',
};

/** What the deprecated `login` and `changePassword` answer (tokenType a String); their replacements answer payloads. */
const AuthToken = builder.objectRef<IssuedToken>('AuthToken').implement({
  description: 'Send as `Authorization: Bearer <accessToken>`.',
  fields: (t) => ({
    accessToken: t.exposeString('accessToken', { description: TOKEN.accessToken }),
    tokenType: t.exposeString('tokenType', { description: 'Always `bearer`.' }),
    expiresIn: t.exposeInt('expiresIn', { description: TOKEN.expiresIn }),
  }),
});

builder.queryField('viewer', (t) =>
  t.field({
    type: AccountRef,
    description: 'The signed-in account.',
    resolve: (_root, _args, context) => viewerOf(context),
  }),
);

// The work of each account mutation, shared by the mutation of the convention and its deprecated alias.

async function signUpWith(context: Context, input: { email: string; password: string }) {
  const account = await signUp(context.db, input, {
    allowSignup: context.config.ALLOW_SIGNUP,
    passwordCost: context.config.PASSWORD_HASH_COST,
  });
  // The address it signed up from is known to the e-mail: the e-mail's login slow-down never applies there.
  await context.limits.loginSucceeded(input.email, context.clientAddress);
  return account;
}

async function logInWith(
  context: Context,
  input: { email: string; password: string },
): Promise<IssuedToken & { account: Account }> {
  const wait = await context.limits.loginAttempt(input.email, context.clientAddress);
  if (wait !== null) throw rateLimited(`Too many failed login attempts; try again in ${wait} seconds`, wait);
  const token = await login(context.db, context.tokens, input.email, input.password, context.config.PASSWORD_HASH_COST);
  await context.limits.loginSucceeded(input.email, context.clientAddress);
  return token;
}

async function rotateKeyOf(context: Context) {
  refuseNamedTokens(context);
  const rotated = await rotateApiKey(context.db, viewerOf(context).id);
  context.streams.revoked(rotated.account.id);
  return rotated;
}

async function changePasswordWith(
  context: Context,
  input: { currentPassword: string; newPassword: string },
): Promise<IssuedToken & { account: Account }> {
  refuseNamedTokens(context);
  const account = viewerOf(context);
  const token = await changePassword(context.db, context.tokens, account.id, input, context.config.PASSWORD_HASH_COST);
  context.streams.revoked(account.id);
  return { ...token, account };
}

const DESCRIBE = {
  signUp: 'Creates an account (no token needed); its API key is shown here once. Then log in.',
  login:
    'Too many failures for one e-mail (LOGIN_MAX_FAILURES within LOGIN_FAILURE_WINDOW_SECONDS) lock it out: ' +
    'RATE_LIMITED, with extensions.retryAfter in seconds.',
  rotateApiKey:
    'Issues a new API key; the old one, every login token issued before and the live streams opened with them ' +
    'stop working at once (log in again for a new token). Named access tokens keep working.',
  changePassword:
    'Changes the password (the current one must be given: UNAUTHENTICATED otherwise). Every login token issued ' +
    'before, and the live streams opened with them, stop working at once; the answer is a new token. Named access ' +
    'tokens keep working.',
  email: 'A valid e-mail address, at most 254 characters; stored lower-cased, unique.',
  loginEmail: 'The e-mail the account signed up with (any case).',
  password: '8–128 characters.',
  currentPassword: 'The password as it is now.',
};

builder.mutationFields((t) => ({
  signUp: t.field({
    type: NewApiKey,
    skipTypeScopes: true,
    deprecationReason: replacedBy('accountSignUp'),
    description: DESCRIBE.signUp,
    args: {
      email: t.arg.string({ required: true, description: DESCRIBE.email }),
      password: t.arg.string({ required: true, description: DESCRIBE.password }),
    },
    validate: signUpSchema,
    resolve: (_root, args, context) => signUpWith(context, args),
  }),
  login: t.field({
    type: AuthToken,
    skipTypeScopes: true,
    deprecationReason: replacedBy('accountLogin'),
    args: {
      email: t.arg.string({ required: true, description: DESCRIBE.loginEmail }),
      password: t.arg.string({ required: true, description: 'Its password.' }),
    },
    validate: loginSchema,
    description: DESCRIBE.login,
    resolve: (_root, args, context) => logInWith(context, args),
  }),
  rotateApiKey: t.field({
    type: NewApiKey,
    deprecationReason: replacedBy('accountApiKeyRotate'),
    description: DESCRIBE.rotateApiKey,
    resolve: (_root, _args, context) => rotateKeyOf(context),
  }),
  changePassword: t.field({
    type: AuthToken,
    deprecationReason: replacedBy('accountPasswordChange'),
    description: DESCRIBE.changePassword,
    args: {
      currentPassword: t.arg.string({
        required: true,
        validate: z.string().max(128),
        description: DESCRIBE.currentPassword,
      }),
      newPassword: t.arg.string({ required: true, validate: passwordField, description: DESCRIBE.password }),
    },
    resolve: (_root, args, context) => changePasswordWith(context, args),
  }),
}));

// The account mutations of the convention (docs/graphql.md#mutations): `input:` and a payload; the ones above are
// their deprecated aliases. A token's type is the TokenType enum here.

const TokenTypeEnum = builder.enumType('TokenType', {
  description: 'How an access token is sent.',
  values: { BEARER: { value: 'bearer', description: 'As `Authorization: Bearer <accessToken>`.' } },
});

/** `<Mutation>Payload { accessToken, tokenType, expiresIn, account }`: a new access token, and whose it is. */
const tokenPayload = (mutation: string) =>
  builder.objectRef<IssuedToken & { account: Account }>(`${typeStem(mutation)}Payload`).implement({
    description: `What \`${mutation}\` answers: a new access token; send it as \`Authorization: Bearer <accessToken>\`.`,
    fields: (t) => ({
      accessToken: t.exposeString('accessToken', { description: TOKEN.accessToken }),
      tokenType: t.field({
        type: TokenTypeEnum,
        description: 'How to send it: BEARER.',
        resolve: () => 'bearer' as const,
      }),
      expiresIn: t.exposeInt('expiresIn', { description: TOKEN.expiresIn }),
      account: t.field({
        type: AccountRef,
        description: 'The account the token is for (what `viewer` answers with it).',
        resolve: (issued) => issued.account,
      }),
    }),
  });

/** `<Mutation>Payload { account, apiKey }`: an API key, shown once. */
const keyPayload = (mutation: string) =>
  apiKeyType(
    `${typeStem(mutation)}Payload`,
    `What \`${mutation}\` answers: the account and its API key, shown here once.`,
  );

const AccountSignUpInput = builder
  .inputType('AccountSignUpInput', {
    description: 'The e-mail and password of the new account.',
    fields: (t) => ({
      email: t.string({ required: true, description: DESCRIBE.email }),
      password: t.string({ required: true, description: DESCRIBE.password }),
    }),
  })
  .validate(signUpSchema);

const AccountLoginInput = builder
  .inputType('AccountLoginInput', {
    description: 'The e-mail and password of an account.',
    fields: (t) => ({
      email: t.string({ required: true, description: DESCRIBE.loginEmail }),
      password: t.string({ required: true, description: 'Its password.' }),
    }),
  })
  .validate(loginSchema);

const AccountPasswordChangeInput = builder.inputType('AccountPasswordChangeInput', {
  description: 'The password as it is now, and the new one.',
  fields: (t) => ({
    currentPassword: t.string({
      required: true,
      validate: z.string().max(128),
      description: DESCRIBE.currentPassword,
    }),
    newPassword: t.string({ required: true, validate: passwordField, description: DESCRIBE.password }),
  }),
});

builder.mutationFields((t) => ({
  accountSignUp: t.field({
    type: keyPayload('accountSignUp'),
    skipTypeScopes: true,
    description: DESCRIBE.signUp,
    args: { input: t.arg({ type: AccountSignUpInput, required: true, description: 'The new account.' }) },
    resolve: (_root, { input }, context) => signUpWith(context, input),
  }),
  accountLogin: t.field({
    type: tokenPayload('accountLogin'),
    skipTypeScopes: true,
    description: `Issues an access token. ${DESCRIBE.login}`,
    args: { input: t.arg({ type: AccountLoginInput, required: true, description: 'Who logs in.' }) },
    resolve: (_root, { input }, context) => logInWith(context, input),
  }),
  accountApiKeyRotate: t.field({
    type: keyPayload('accountApiKeyRotate'),
    description: DESCRIBE.rotateApiKey,
    resolve: (_root, _args, context) => rotateKeyOf(context),
  }),
  accountPasswordChange: t.field({
    type: tokenPayload('accountPasswordChange'),
    description: DESCRIBE.changePassword,
    args: {
      input: t.arg({ type: AccountPasswordChangeInput, required: true, description: 'The old and new passwords.' }),
    },
    resolve: (_root, { input }, context) => changePasswordWith(context, input),
  }),
}));
