// Campaign mutations (docs/decisions.md §5). Each resolver hands validated input to the domain.
import {
  type CampaignAction,
  createCampaign,
  deleteCampaign,
  transitionCampaign,
  updateCampaign,
  upsertCampaign,
} from '../../../domain/campaigns.js';
import { campIdField } from '../../../domain/campaigns.schema.js';
import { builder, viewerOf } from '../builder.js';
import { CampaignRef } from './campaign.js';
import {
  CampaignCreateInput,
  CampaignDataInput,
  CampaignUpdateInput,
  CampaignUpsertInput,
  CreateCampaignInput,
  UpdateCampaignInput,
} from './campaign-inputs.js';
import type { Campaign } from '../../../domain/campaigns.js';
import type { Context } from '../context.js';
import { type Deleted, payloadType, replacedBy, typeStem } from '../payloads.js';
import { scopedKey } from '../global-ids.js';

builder.mutationFields((t) => {
  const campIdArg = () =>
    t.arg.string({ required: true, validate: campIdField, description: 'The campaign: its campId.' });
  const transition = (action: CampaignAction, description: string) =>
    t.field({
      type: CampaignRef,
      description,
      deprecationReason: replacedBy(`campaign${action.charAt(0).toUpperCase()}${action.slice(1)}`),
      args: { campId: campIdArg() },
      resolve: (_root, args, context) => transitionCampaign(context.db, viewerOf(context).id, args.campId, action),
    });
  return {
    createCampaign: t.field({
      type: CampaignRef,
      deprecationReason: replacedBy('campaignCreate'),
      description: 'Creates a campaign (status active). A campId already in use is CONFLICT.',
      args: { input: t.arg({ type: CreateCampaignInput, required: true, description: 'The new campaign.' }) },
      resolve: (_root, args, context) => createCampaign(context.db, viewerOf(context).id, args.input),
    }),
    updateCampaign: t.field({
      type: CampaignRef,
      deprecationReason: replacedBy('campaignUpdate'),
      description: 'Changes only the given fields. A completed campaign cannot change (CONFLICT).',
      args: {
        campId: campIdArg(),
        patch: t.arg({ type: UpdateCampaignInput, required: true, description: 'The fields to change.' }),
      },
      resolve: (_root, args, context) => updateCampaign(context.db, viewerOf(context).id, args.campId, args.patch),
    }),
    upsertCampaign: t.field({
      type: CampaignRef,
      deprecationReason: replacedBy('campaignUpsert'),
      description: 'Creates the campaign or replaces all of its fields (omitted optional fields reset to defaults).',
      args: {
        campId: campIdArg(),
        data: t.arg({ type: CampaignDataInput, required: true, description: 'Every field of the campaign.' }),
      },
      resolve: (_root, args, context) => upsertCampaign(context.db, viewerOf(context).id, args.campId, args.data),
    }),
    deleteCampaign: t.field({
      type: CampaignRef,
      deprecationReason: replacedBy('campaignDelete'),
      description: 'Deletes the campaign and everything that belongs to it; returns it as it was.',
      args: { campId: campIdArg() },
      resolve: (_root, args, context) => deleteCampaign(context.db, viewerOf(context).id, args.campId),
    }),
    pauseCampaign: transition('pause', 'active → paused (a paused campaign is returned as it is).'),
    resumeCampaign: transition('resume', 'paused → active (an active campaign is returned as it is).'),
    completeCampaign: transition(
      'complete',
      'active or paused → completed (terminal; a completed one is returned as it is).',
    ),
  };
});

// The campaign mutations of the convention (docs/graphql.md#mutations); the ones above are their deprecated aliases.
const campaignPayload = (mutation: string, what: string, deleted?: Deleted<Campaign>) =>
  payloadType(mutation, 'campaign', CampaignRef, what, deleted);

/** `<mutation>(input: { campId })` for the mutations that only name a campaign. */
function campIdInput(mutation: string, what: string) {
  return builder.inputType(`${typeStem(mutation)}Input`, {
    description: `The campaign to ${what}.`,
    fields: (t) => ({
      campId: t.string({ required: true, validate: campIdField, description: 'The campaign: its campId.' }),
    }),
  });
}

builder.mutationFields((t) => {
  const byCampId = (
    mutation: string,
    verb: string,
    description: string,
    payload: ReturnType<typeof campaignPayload>,
    run: (context: Context, accountId: string, campId: string) => Promise<Campaign>,
  ) =>
    t.field({
      type: payload,
      description,
      args: {
        input: t.arg({ type: campIdInput(mutation, verb), required: true, description: `The campaign to ${verb}.` }),
      },
      resolve: (_root, args, context) => run(context, viewerOf(context).id, args.input.campId),
    });
  const transition = (mutation: string, action: CampaignAction, description: string) =>
    byCampId(
      mutation,
      action,
      description,
      campaignPayload(mutation, 'The campaign, as it is now.'),
      (context, accountId, campId) => transitionCampaign(context.db, accountId, campId, action),
    );
  return {
    campaignCreate: t.field({
      type: campaignPayload('campaignCreate', 'The new campaign.'),
      description: 'Creates a campaign (status ACTIVE). A campId already in use is CONFLICT.',
      args: { input: t.arg({ type: CampaignCreateInput, required: true, description: 'The new campaign.' }) },
      resolve: (_root, args, context) => createCampaign(context.db, viewerOf(context).id, args.input),
    }),
    campaignUpdate: t.field({
      type: campaignPayload('campaignUpdate', 'The campaign as it is now.'),
      description: 'Changes only the given fields. A completed campaign cannot change (CONFLICT).',
      args: {
        input: t.arg({
          type: CampaignUpdateInput,
          required: true,
          description: 'The campaign and the fields to change.',
        }),
      },
      resolve: (_root, { input: { campId, ...patch } }, context) =>
        updateCampaign(context.db, viewerOf(context).id, campId, patch),
    }),
    campaignUpsert: t.field({
      type: campaignPayload('campaignUpsert', 'The campaign as it is now.'),
      description:
        'Creates the campaign, or replaces every one of its fields (omitted optional fields reset to their defaults).',
      args: {
        input: t.arg({ type: CampaignUpsertInput, required: true, description: 'The campId and every field.' }),
      },
      resolve: (_root, { input: { campId, status, ...data } }, context) =>
        upsertCampaign(context.db, viewerOf(context).id, campId, data, { status }),
    }),
    campaignDelete: byCampId(
      'campaignDelete',
      'delete',
      'Deletes the campaign and everything that belongs to it.',
      campaignPayload('campaignDelete', 'The campaign, as it was.', {
        typename: 'Campaign',
        nodeKey: (campaign, context) => scopedKey(viewerOf(context).id, campaign.campId),
      }),
      (context, accountId, campId) => deleteCampaign(context.db, accountId, campId),
    ),
    campaignPause: transition(
      'campaignPause',
      'pause',
      'ACTIVE → PAUSED: no new calls until it is resumed. A paused campaign is returned as it is.',
    ),
    campaignResume: transition('campaignResume', 'resume', 'PAUSED → ACTIVE. An active campaign is returned as it is.'),
    campaignComplete: transition(
      'campaignComplete',
      'complete',
      'ACTIVE or PAUSED → COMPLETED, for good. A completed campaign is returned as it is.',
    ),
  };
});
