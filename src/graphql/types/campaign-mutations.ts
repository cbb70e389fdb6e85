// Campaign mutations (docs/decisions.md §5). Each resolver hands validated input to the domain.
import {
  type CampaignAction,
  createCampaign,
  deleteCampaign,
  transitionCampaign,
  updateCampaign,
  upsertCampaign,
} from '../../domain/campaigns.js';
import { campIdField } from '../../domain/campaigns.schema.js';
import { builder, viewerOf } from '../builder.js';
import { CampaignRef } from './campaign.js';
import { CampaignDataInput, CreateCampaignInput, UpdateCampaignInput } from './campaign-inputs.js';

builder.mutationFields((t) => {
  const campIdArg = () => t.arg.string({ required: true, validate: campIdField });
  const transition = (action: CampaignAction, description: string) =>
    t.field({
      type: CampaignRef,
      description,
      args: { campId: campIdArg() },
      resolve: (_root, args, context) => transitionCampaign(context.db, viewerOf(context).id, args.campId, action),
    });
  return {
    createCampaign: t.field({
      type: CampaignRef,
      description: 'Creates a campaign (status active). A campId already in use is CONFLICT.',
      args: { input: t.arg({ type: CreateCampaignInput, required: true }) },
      resolve: (_root, args, context) => createCampaign(context.db, viewerOf(context).id, args.input),
    }),
    updateCampaign: t.field({
      type: CampaignRef,
      description: 'Changes only the given fields. A completed campaign cannot change (CONFLICT).',
      args: { campId: campIdArg(), patch: t.arg({ type: UpdateCampaignInput, required: true }) },
      resolve: (_root, args, context) => updateCampaign(context.db, viewerOf(context).id, args.campId, args.patch),
    }),
    upsertCampaign: t.field({
      type: CampaignRef,
      description: 'Creates the campaign or replaces all of its fields (omitted optional fields reset to defaults).',
      args: { campId: campIdArg(), data: t.arg({ type: CampaignDataInput, required: true }) },
      resolve: (_root, args, context) => upsertCampaign(context.db, viewerOf(context).id, args.campId, args.data),
    }),
    deleteCampaign: t.field({
      type: CampaignRef,
      description: 'Deletes the campaign and everything that belongs to it; returns it as it was.',
      args: { campId: campIdArg() },
      resolve: (_root, args, context) => deleteCampaign(context.db, viewerOf(context).id, args.campId),
    }),
    pauseCampaign: transition('pause', 'active → paused.'),
    resumeCampaign: transition('resume', 'paused → active.'),
    completeCampaign: transition('complete', 'active or paused → completed (terminal).'),
  };
});
