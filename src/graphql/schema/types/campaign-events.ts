// Subscription.campaignEvents (docs/decisions.md §9): the events of one of your campaigns, live, over SSE on /graphql
// (`Accept: text/event-stream`). The same events, with the same ids, go to the campaign's webhooks.
import type { CampaignEvent } from '../../../domain/events.js';
import { requireCampaign } from '../../../domain/campaigns.js';
import { campIdField } from '../../../domain/campaigns.schema.js';
import { EVENT_TYPES } from '../../../domain/webhooks.schema.js';
import { builder, viewerOf } from '../builder.js';
import { EventTypeEnum } from './event-type.js';

const CampaignEventRef = builder.objectRef<CampaignEvent>('CampaignEvent').implement({
  description: 'Something that happened to a campaign; `data` is what a webhook receives in its body.',
  fields: (t) => ({
    id: t.exposeString('id', { description: 'The event id (evt_...), as in webhook bodies.' }),
    eventType: t.field({ type: EventTypeEnum, description: 'What happened.', resolve: (event) => event.type }),
    type: t.exposeString('type', {
      description: `One of ${EVENT_TYPES.join(', ')}.`,
      deprecationReason: 'Use eventType.',
    }),
    campId: t.exposeString('campId', { description: 'The campaign it happened to: its campId.' }),
    createdAt: t.field({
      type: 'DateTime',
      description: 'When it happened (`createdAt` in webhook bodies).',
      resolve: (event) => event.createdAt,
    }),
    data: t.field({
      type: 'JSON',
      description: 'The campaign, call log, message or meeting the event is about.',
      resolve: (event) => event.data,
    }),
  }),
});

builder.subscriptionType({
  description: 'Live events over SSE on /graphql (`Accept: text/event-stream`), with a bearer token.',
  authScopes: { authenticated: true },
});

builder.subscriptionField('campaignEvents', (t) =>
  t.field({
    type: CampaignEventRef,
    description:
      'Events of one of your campaigns as they happen (a campaign of another account is NOT_FOUND). The stream ' +
      'ends (`event: complete`) when the access token expires or is revoked, and when the server shuts down.',
    args: {
      campId: t.arg.string({ required: true, validate: campIdField, description: 'The campaign: its campId.' }),
    },
    subscribe: async (_root, args, context) => {
      const viewer = viewerOf(context);
      await requireCampaign(context.db, viewer.id, args.campId);
      return context.streams.bound(context.events.subscribe(viewer.id, args.campId), {
        accountId: viewer.id,
        tokenVersion: viewer.tokenVersion,
        expiresAt: context.tokenExpiresAt,
        ...(context.accessTokenId ? { accessTokenId: context.accessTokenId } : {}),
      });
    },
    resolve: (event) => event,
  }),
);
