// What sign-up and login answer.
import { z } from 'zod';

export const signUpResponse = z
  .object({
    id: z.string().describe('The account’s id'),
    email: z.string().describe('The e-mail, lower-cased'),
    apiKey: z.string().describe('The account’s API key for the provider webhooks: shown only here'),
  })
  .meta({ id: 'SignUpResult' });

/** OAuth2's token response. */
export const tokenResponse = z
  .object({
    access_token: z.string().describe('Send it as `Authorization: Bearer <access_token>`'),
    token_type: z.literal('bearer'),
    expires_in: z.int().min(1).describe('Seconds until the token expires (TOKEN_TTL_SECONDS)'),
  })
  .meta({ id: 'Token' });
