// The social channel's webhook, without bearer token (docs/decisions.md §8): GET handshake, POST receiver.
import { z } from 'zod';
import { socialEnvelopeSchema } from '../../domain/social.schema.js';
import { socialHandshakeResponse, socialReceivedResponse } from '../responses/social.js';
import { defineRoute } from '../route.js';
import { graphql } from '../typed-documents.js';

const path = '/social_webhook/{apiKey}/{campId}';

export const socialRoutes = [
  defineRoute({
    method: 'GET',
    path,
    summary: 'Verification handshake: hub.mode=subscribe, hub.verify_token, hub.challenge → the challenge as text',
    tag: 'provider webhooks',
    errors: { 403: 'Verification failed: unknown key or campaign, or a wrong verify token' },
    auth: false,
    plainText: true,
    document: graphql(`
      query LegacySocialHandshake(
        $apiKey: String!
        $campId: String!
        $mode: String
        $token: String
        $challenge: String
      ) {
        verifySocialWebhook(apiKey: $apiKey, campId: $campId, mode: $mode, verifyToken: $token, challenge: $challenge)
      }
    `),
    query: z.object({
      'hub.mode': z.string().max(64).optional(),
      'hub.verify_token': z.string().max(512).optional(),
      'hub.challenge': z.string().max(512).optional(),
    }),
    response: socialHandshakeResponse,
    // The router matched the path's template: both parameters are there.
    variables: ({ path: params, query }) => ({
      apiKey: params.apiKey as string,
      campId: params.campId as string,
      mode: query['hub.mode'],
      token: query['hub.verify_token'],
      challenge: query['hub.challenge'],
    }),
    // A refusal names the parameter as sent, never the operation's variable (hub.verify_token is echoed masked).
    argLocs: {
      apiKey: ['path', 'apiKey'],
      campId: ['path', 'campId'],
      mode: ['query', 'hub.mode'],
      token: ['query', 'hub.verify_token'],
      challenge: ['query', 'hub.challenge'],
    },
    respond: ({ verifySocialWebhook }) => verifySocialWebhook,
  }),
  defineRoute({
    method: 'POST',
    path,
    summary: 'Inbound messages (signed with X-Hub-Signature-256 when an app secret is stored)',
    tag: 'provider webhooks',
    errors: { 403: 'Unknown API key, or a missing or wrong X-Hub-Signature-256' },
    auth: false,
    rawBody: true,
    document: graphql(`
      mutation LegacySocialMessages($apiKey: String!, $campId: String!, $rawBody: String!, $signature: String) {
        receiveSocialWebhook(apiKey: $apiKey, campId: $campId, rawBody: $rawBody, signature: $signature)
      }
    `),
    body: z.string(),
    // The exact bytes go to the resolver (the signature covers them), which parses and checks the envelope.
    documentedBody: socialEnvelopeSchema,
    response: socialReceivedResponse,
    variables: ({ body, path: params, headers }) => ({
      apiKey: params.apiKey as string,
      campId: params.campId as string,
      rawBody: body,
      signature: headers.get('x-hub-signature-256'),
    }),
    // Envelope problems are reported at their place in the body; the other variables by the parameter they came from.
    argLocs: {
      body: ['body'],
      rawBody: ['body'],
      apiKey: ['path', 'apiKey'],
      campId: ['path', 'campId'],
      signature: ['header', 'x-hub-signature-256'],
    },
    respond: ({ receiveSocialWebhook }) => ({ received: receiveSocialWebhook }),
  }),
];
