// Legacy sign-up and the OAuth2 password-flow token endpoint (docs/decisions.md §4).
import { z } from 'zod';
import { emailField, passwordField } from '../../domain/accounts.schema.js';
import { documentInput, type JsonSchema } from '../../validation/input-json-schema.js';
import { signUpResponse, tokenResponse } from '../responses/accounts.js';
import { lowerCase } from '../responses/common.js';
import { defineRoute } from '../route.js';
import { graphql } from '../typed-documents.js';

const signUpBody = z.object({ email: emailField, password: passwordField });

/** OAuth2PasswordRequestForm: `username` is the e-mail. Bodies may say `email` instead. */
const loginBody = documentInput(
  z.preprocess(
    (body) =>
      body && typeof body === 'object' && !('username' in body) && 'email' in body
        ? { ...body, username: body.email }
        : body,
    z.object({
      username: z.string().max(254).describe('The e-mail (a body may name it `email` instead)'),
      password: z.string().max(128),
      grant_type: z
        .string()
        .regex(/^password$/)
        .optional(),
    }),
  ),
  // `email` is read, as username, only when `username` is absent: then it is required, and checked as username is.
  // Two shapes, so that a client generator types each: a body with username, and one with email but no username.
  (json) => {
    const { properties, required, type } = json;
    const { username, ...common } = properties as Record<string, JsonSchema>;
    const email = { ...username, description: 'The e-mail, read when `username` is absent' };
    const others = ((required ?? []) as string[]).filter((name) => name !== 'username');
    for (const key of ['properties', 'required', 'type']) delete json[key];
    json.anyOf = [
      { type, properties, required },
      { type, properties: { email, ...common }, required: ['email', ...others], not: { required: ['username'] } },
    ];
  },
);

export const accountRoutes = [
  defineRoute({
    method: 'POST',
    path: '/signup',
    summary: 'Create an account; the API key is shown only here',
    tag: 'accounts',
    auth: false,
    errors: { 403: 'Sign-up is closed (ALLOW_SIGNUP=false)', 409: 'The e-mail has an account already' },
    document: graphql(`
      mutation LegacySignUp($input: AccountSignUpInput!) {
        accountSignUp(input: $input) {
          apiKey
          account {
            accountId
            email
          }
        }
      }
    `),
    body: signUpBody,
    response: signUpResponse,
    variables: ({ body }) => ({ input: body }),
    argLocs: { input: ['body'] },
    respond: ({ accountSignUp: { account, apiKey } }) => ({ id: account.accountId, email: account.email, apiKey }),
  }),
  defineRoute({
    method: 'POST',
    path: '/login',
    summary: 'OAuth2 password flow: exchange e-mail (username) and password for a bearer token',
    tag: 'accounts',
    auth: false,
    errors: { 401: 'Incorrect username or password (with WWW-Authenticate: Bearer)' },
    form: true,
    document: graphql(`
      mutation LegacyLogin($input: AccountLoginInput!) {
        accountLogin(input: $input) {
          accessToken
          tokenType
          expiresIn
        }
      }
    `),
    body: loginBody,
    response: tokenResponse,
    variables: ({ body }) => ({ input: { email: body.username, password: body.password } }),
    argLocs: { 'input.email': ['body', 'username'], input: ['body'] },
    respond: ({ accountLogin }) => ({
      access_token: accountLogin.accessToken,
      token_type: lowerCase(accountLogin.tokenType),
      expires_in: accountLogin.expiresIn,
    }),
  }),
];
