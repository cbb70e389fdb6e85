// The social channel: Campaign.socialMessages, and the provider's webhook (handshake and receiver) that the
// REST door runs at /api/v3/social_webhook/{apiKey}/{campId}.
import {
  getSocialMessagesByIds,
  pageSocialMessages,
  receiveSocialMessages,
  type SocialMessage,
  verifySocialSubscription,
} from '../../../domain/social.js';
import { builder, INTERNAL_ONLY, viewerOf } from '../builder.js';
import { LONG_TEXT_COST } from '../field-costs.js';
import { callbackAccepted } from '../callback-budget.js';
import { scopedNode } from '../global-ids.js';
import { keysetConnection } from '../pagination.js';
import { CampaignRef } from './campaign.js';

const SocialMessageRef = builder.loadableNode('SocialMessage', {
  description: 'An inbound message of the social channel.',
  // Message ids are the provider's, unique per account only (docs/graphql.md, "Global ids").
  ...scopedNode((message: SocialMessage) => message.messageId, getSocialMessagesByIds),
  fields: (t) => ({
    messageId: t.exposeString('messageId', { description: "The provider's message id." }),
    campId: t.exposeString('campaignId', { description: 'The campaign the message belongs to: its campId.' }),
    campaignId: t.exposeString('campaignId', {
      description: 'The campaign the message belongs to: its campId.',
      deprecationReason: 'Use campId.',
    }),
    sender: t.exposeString('sender', {
      description: "The sender's id on the social platform, as the provider gives it.",
    }),
    text: t.exposeString('text', {
      nullable: true,
      // Up to 64 KiB: it weighs more in a document's cost (../field-costs.ts).
      complexity: LONG_TEXT_COST,
      description: 'The message text; null when it had none.',
    }),
    receivedAt: t.field({
      type: 'DateTime',
      description: "When the message was sent, by the provider's timestamp (when it arrived if it gave none).",
      resolve: (message) => message.receivedAt,
    }),
    createdAt: t.field({
      type: 'DateTime',
      description: 'When this gateway stored it (the provider may deliver a message late, or again).',
      resolve: (message) => message.createdAt,
    }),
  }),
});

/** The one connection type of SocialMessage lists, wherever they appear. */
export const SocialMessageConnection = builder.connectionObject(
  {
    type: SocialMessageRef,
    name: 'SocialMessageConnection',
    description: 'A page of SocialMessage nodes, and where it stands.',
  },
  { name: 'SocialMessageEdge', description: 'One SocialMessage of a page, with its cursor.' },
);

builder.objectField(CampaignRef, 'socialMessages', (t) =>
  t.connection(
    {
      type: SocialMessageRef,
      description: 'Inbound social messages for this campaign, newest first.',
      resolve: (campaign, args, context) =>
        keysetConnection(
          'social-message',
          args,
          (message: SocialMessage) => [message.receivedAt, message.messageId],
          (page) => pageSocialMessages(context.db, viewerOf(context).id, campaign.campId, page),
        ),
    },
    SocialMessageConnection,
  ),
);

builder.queryField('verifySocialWebhook', (t) =>
  t.string({
    subGraphs: INTERNAL_ONLY,
    skipTypeScopes: true,
    description:
      "The social channel's verification handshake (GET /api/v3/social_webhook/{apiKey}/{campId} runs this): " +
      'returns `challenge` when the key, the campaign and the stored verify token match; FORBIDDEN otherwise.',
    args: {
      apiKey: t.arg.string({ required: true }),
      campId: t.arg.string({ required: true }),
      mode: t.arg.string(),
      verifyToken: t.arg.string(),
      challenge: t.arg.string(),
    },
    resolve: (_root, args, context) => verifySocialSubscription(context.db, context.secrets, args),
  }),
);

builder.mutationField('receiveSocialWebhook', (t) =>
  t.int({
    subGraphs: INTERNAL_ONLY,
    skipTypeScopes: true,
    description:
      'Inbound social messages (POST /api/v3/social_webhook/{apiKey}/{campId} runs this). `rawBody` is the body as ' +
      'received; with an app secret stored, `signature` must be its X-Hub-Signature-256. Returns how many messages ' +
      'were new (each message id is stored once).',
    args: {
      apiKey: t.arg.string({ required: true }),
      campId: t.arg.string({ required: true }),
      rawBody: t.arg.string({ required: true }),
      signature: t.arg.string(),
    },
    resolve: async (_root, args, context) =>
      (await receiveSocialMessages(context.db, context.secrets, args, callbackAccepted(context))).length,
  }),
);
