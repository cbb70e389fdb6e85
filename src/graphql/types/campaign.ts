// The Campaign type, its metrics and voice, and the campaign queries.
import { z } from 'zod';
import { type CampaignMetrics, loadCampaignMetrics } from '../../domain/campaign-metrics.js';
import {
  type Campaign,
  getCampaign,
  getCampaignsByIds,
  listCampaignSummaries,
  listCampaigns,
  pageCampaigns,
} from '../../domain/campaigns.js';
import { campIdField } from '../../domain/campaigns.schema.js';
import { scopedNode } from '../global-ids.js';
import { builder, INTERNAL_ONLY, viewerOf } from '../builder.js';
import { keysetConnection, MAX_PAGE_SIZE } from '../pagination.js';
import { asksOnly } from '../selection.js';
import { VoiceRef } from './voice.js';

export const CampaignStatusEnum = builder.enumType('CampaignStatus', {
  description: 'active ⇄ paused → completed (terminal).',
  values: {
    ACTIVE: { value: 'active' },
    PAUSED: { value: 'paused' },
    COMPLETED: { value: 'completed' },
  } as const,
});

const CampaignMetricsRef = builder.objectRef<CampaignMetrics>('CampaignMetrics').implement({
  description: 'Derived from the campaign’s call logs.',
  fields: (t) => ({
    totalCallTime: t.exposeInt('totalCallTime', { description: 'Seconds.' }),
    totalNumCall: t.exposeInt('totalNumCall'),
    totalSpent: t.exposeFloat('totalSpent'),
    averageCallCost: t.exposeFloat('averageCallCost'),
  }),
});

/** The Campaign fields a CampaignSummary can answer. */
const SUMMARY_FIELDS: ReadonlySet<string> = new Set([
  '__typename',
  'id',
  'campId',
  'title',
  'status',
  'creationDate',
  'createdAt',
  'description',
]);

export const CampaignRef = builder.loadableNode('Campaign', {
  description: 'A calling campaign of your account.',
  // Unique across accounts (docs/graphql.md, "Global ids"); every campaign a caller sees is its own.
  ...scopedNode((campaign: Campaign) => campaign.campId, getCampaignsByIds),
  fields: (t) => ({
    campId: t.exposeString('campId'),
    title: t.exposeString('title'),
    voiceId: t.exposeString('voice', { description: 'The voice as the legacy API names it.' }),
    voice: t.field({ type: VoiceRef, resolve: (campaign) => campaign.voice }),
    language: t.exposeString('language'),
    script: t.exposeString('script'),
    purpose: t.exposeString('purpose'),
    knowledgeBase: t.exposeString('knowledgeBase'),
    calendar: t.exposeString('calendar'),
    firstLine: t.exposeString('firstLine'),
    flowName: t.exposeString('flowName'),
    systemPrompt: t.exposeString('systemPrompt'),
    tone: t.exposeString('tone'),
    maxCallTimeout: t.exposeInt('maxCallTimeout', { description: 'Minutes.' }),
    inactiveCallTimeout: t.exposeInt('inactiveCallTimeout', { description: 'Seconds.' }),
    postCallAnalysis: t.exposeBoolean('postCallAnalysis'),
    postCallAnalysisSchema: t.field({
      type: 'JSONObject',
      resolve: (campaign) => campaign.postCallAnalysisSchema,
    }),
    timeZone: t.exposeString('timeZone'),
    isFreeflow: t.exposeBoolean('isFreeflow'),
    public: t.exposeBoolean('public'),
    sampleSid: t.exposeString('sampleSid'),
    description: t.exposeString('description'),
    status: t.field({ type: CampaignStatusEnum, resolve: (campaign) => campaign.status }),
    createdAt: t.field({
      type: 'DateTime',
      description: 'When the campaign was created.',
      resolve: (campaign) => campaign.createdAt,
    }),
    creationDate: t.field({
      type: 'DateTime',
      deprecationReason: 'Use createdAt.',
      resolve: (campaign) => campaign.createdAt,
    }),
    updatedAt: t.field({ type: 'DateTime', resolve: (campaign) => campaign.updatedAt }),
    metrics: t.loadable({
      type: CampaignMetricsRef,
      load: (campIds: string[], context) => loadCampaignMetrics(context.db, viewerOf(context).id, campIds),
      resolve: (campaign) => campaign.campId,
    }),
  }),
});

/** The one connection type of Campaign lists, wherever they appear. */
export const CampaignConnection = builder.connectionObject(
  {
    type: CampaignRef,
    name: 'CampaignConnection',
    description: 'A page of Campaign nodes, and where it stands.',
  },
  { name: 'CampaignEdge', description: 'One Campaign of a page, with its cursor.' },
);

builder.queryFields((t) => ({
  campaign: t.field({
    type: CampaignRef,
    nullable: true,
    description: 'One of your campaigns, or null.',
    args: { campId: t.arg.string({ required: true, validate: campIdField }) },
    resolve: (_root, args, context) => getCampaign(context.db, viewerOf(context).id, args.campId),
  }),
  campaignList: t.field({
    type: [CampaignRef],
    subGraphs: INTERNAL_ONLY,
    description: 'Offset paging, newest first (what the legacy REST door uses); prefer `campaigns` for cursor paging.',
    args: {
      limit: t.arg.int({ required: true, defaultValue: 100, validate: z.int().min(1).max(1000) }),
      offset: t.arg.int({ required: true, defaultValue: 0, validate: z.int().min(0) }),
      status: t.arg({ type: CampaignStatusEnum }),
    },
    resolve: (_root, args, context, info) =>
      // A selection of list-entry fields only (as the REST door's get_campaigns asks) reads 5 columns instead of 25;
      // those objects are only ever asked for those fields (asksOnly checks the whole selection, fragments included).
      asksOnly(info, SUMMARY_FIELDS)
        ? (listCampaignSummaries(context.db, viewerOf(context).id, args) as Promise<Campaign[]>)
        : listCampaigns(context.db, viewerOf(context).id, args),
  }),
  campaigns: t.connection(
    {
      type: CampaignRef,
      description: `Your campaigns, newest first; at most ${MAX_PAGE_SIZE} per page.`,
      args: {
        status: t.arg({ type: CampaignStatusEnum }),
        search: t.arg.string({
          description: 'Case-insensitive substring of the title, description or campId.',
          validate: z.string().max(200).nullish(),
        }),
      },
      resolve: (_root, args, context) =>
        keysetConnection(
          args,
          (campaign: Campaign) => [campaign.createdAt, campaign.campId],
          (page) => pageCampaigns(context.db, viewerOf(context).id, args, page),
        ),
    },
    CampaignConnection,
  ),
}));
