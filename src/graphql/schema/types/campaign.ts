// The Campaign type, its metrics and voice, and the campaign queries.
import type { ObjectFieldBuilder } from '@pothos/core';
import { z } from 'zod';
import { CAMPAIGN_FIELD_NAMES, CAMPAIGN_FIELDS, graphqlNameOf } from '../../../domain/campaigns.schema.js';
import { type CampaignMetrics, loadCampaignMetrics } from '../../../domain/campaign-metrics.js';
import type { GraphQLResolveInfo } from 'graphql';
import {
  type Campaign,
  CAMPAIGN_LONG_FIELDS,
  type CampaignOrderField,
  DEFAULT_CAMPAIGN_ORDER,
  type CampaignLongField,
  type CampaignTexts,
  getCampaign,
  getCampaignsByIds,
  listCampaignSummaries,
  listCampaigns,
  pageCampaigns,
  walkCampaigns,
} from '../../../domain/campaigns.js';
import { campIdField } from '../../../domain/campaigns.schema.js';
import { scopedNode } from '../global-ids.js';
import { builder, INTERNAL_ONLY, viewerOf } from '../builder.js';
import { LONG_TEXT_COST } from '../field-costs.js';
import type { Keyset } from '../../../db/keyset.js';
import { DEFAULT_PAGE_SIZE, keysetConnection, MAX_PAGE_SIZE, PLAIN_EDGE } from '../pagination.js';
import { CAMPAIGN_FILTER_COST, CampaignFilterInput, campaignFilters } from './campaign-filter.js';
import { asksFor, asksOnly } from '../selection.js';
import { VoiceRef } from './voice.js';
import { OrderDirectionEnum } from './order-direction.js';
import { CampaignStatusEnum } from './campaign-status.js';

export const CampaignStartStatusEnum = builder.enumType('CampaignStartStatus', {
  description: 'The status a campaign is created in.',
  values: {
    ACTIVE: { value: 'active', description: 'Calling from the start.' },
    PAUSED: { value: 'paused', description: 'Not calling until `campaignResume`: set it up first.' },
  } as const,
});

const CampaignMetricsRef = builder.objectRef<CampaignMetrics>('CampaignMetrics').implement({
  description: 'Derived from the campaign’s call logs.',
  fields: (t) => ({
    totalCallTime: t.exposeInt('totalCallTime', {
      description: 'Seconds of calls, summed over the calls that reported a duration.',
    }),
    totalNumCall: t.exposeInt('totalNumCall', {
      description: 'How many calls it has a log of, whatever their status.',
    }),
    totalSpent: t.exposeFloat('totalSpent', {
      description: "The calls' cost summed, over the calls that reported one (the provider's currency).",
    }),
    averageCallCost: t.exposeFloat('averageCallCost', {
      description: 'totalSpent over the number of calls that reported a cost; 0 when none did.',
    }),
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

/** The model fields of many thousand characters: they weigh more in a document's cost (../field-costs.ts). */
const LONG_TEXTS: ReadonlySet<string> = new Set(['script', 'systemPrompt']);

/** The long texts' GraphQL names, and the field each names. */
const LONG_TEXT_NAMES = CAMPAIGN_LONG_FIELDS.map((name) => graphqlNameOf(name) as string);
const LONG_TEXT_FIELDS = new Map<string, CampaignLongField>(
  CAMPAIGN_LONG_FIELDS.map((name) => [graphqlNameOf(name), name]),
);

/**
 * The long texts a list field's query asks for: only those are read. Its campaigns reach no other field (lists do not
 * fill the node loader), so one read without a text is never asked for it.
 */
function textsAsked(info: GraphQLResolveInfo): CampaignTexts {
  const asked = asksFor(info, LONG_TEXT_NAMES);
  return new Set([...asked].flatMap((name) => LONG_TEXT_FIELDS.get(name) ?? []));
}

type CampaignFields = ObjectFieldBuilder<typeof builder.$inferSchemaTypes, Campaign>;

/** The campaign's model fields, from their declarations (src/domain/campaigns.schema.ts), under their GraphQL names. */
function modelFields(t: CampaignFields) {
  return Object.fromEntries(
    CAMPAIGN_FIELD_NAMES.map((name) => {
      const { kind, description } = CAMPAIGN_FIELDS[name];
      const options = { description, plain: true, ...(LONG_TEXTS.has(name) ? { complexity: LONG_TEXT_COST } : {}) };
      switch (kind) {
        case 'text':
          return [graphqlNameOf(name), t.string({ ...options, resolve: (campaign) => campaign[name] as string })];
        case 'int':
          return [graphqlNameOf(name), t.int({ ...options, resolve: (campaign) => campaign[name] as number })];
        case 'bool':
          return [graphqlNameOf(name), t.boolean({ ...options, resolve: (campaign) => campaign[name] as boolean })];
        case 'json':
          return [
            graphqlNameOf(name),
            t.field({
              type: 'JSONObject',
              ...options,
              resolve: (campaign) => campaign[name] as Record<string, unknown>,
            }),
          ];
      }
    }),
  );
}

export const CampaignRef = builder.loadableNode('Campaign', {
  description: 'A calling campaign of your account.',
  // Its columns are read without a resolver call each (src/graphql/schema/plain-fields.ts).
  plainFields: true,
  // Unique across accounts (docs/graphql.md, "Global ids"); every campaign a caller sees is its own.
  ...scopedNode((campaign: Campaign) => campaign.campId, getCampaignsByIds, { plainId: true }),
  fields: (t) => ({
    campId: t.exposeString('campId', {
      description: 'The campaign key, unique within your account: 1–64 of [A-Za-z0-9_-].',
    }),
    ...modelFields(t),
    voice: t.field({
      type: VoiceRef,
      description: 'The voice of the calls, from the catalogue (the one voiceId names).',
      resolve: (campaign) => campaign.voice,
    }),
    status: t.field({
      type: CampaignStatusEnum,
      plain: true,
      description: 'Where the campaign stands: ACTIVE ⇄ PAUSED → COMPLETED.',
      resolve: (campaign) => campaign.status,
    }),
    createdAt: t.field({
      type: 'DateTime',
      plain: true,
      description: 'When the campaign was created.',
      resolve: (campaign) => campaign.createdAt,
    }),
    creationDate: t.field({
      type: 'DateTime',
      plain: true,
      description: 'When the campaign was created (as createdAt).',
      deprecationReason: 'Use createdAt.',
      resolve: (campaign) => campaign.createdAt,
    }),
    updatedAt: t.field({
      type: 'DateTime',
      plain: true,
      description: 'When the campaign last changed.',
      resolve: (campaign) => campaign.updatedAt,
    }),
    metrics: t.loadable({
      type: CampaignMetricsRef,
      description: "Totals over the campaign's call logs, as they are now.",
      load: (campIds: string[], context) => loadCampaignMetrics(context.db, viewerOf(context).id, campIds),
      resolve: (campaign) => campaign.campId,
    }),
  }),
});

const CampaignOrderFieldEnum = builder.enumType('CampaignOrderField', {
  description: 'What a list of campaigns can be sorted by; ties are broken by campId.',
  values: {
    CREATED_AT: { value: 'created', description: 'When the campaign was created.' },
    UPDATED_AT: { value: 'updated', description: 'When the campaign last changed.' },
    TITLE: { value: 'title', description: 'Its title, character by character (A before a).' },
    STATUS: { value: 'status', description: 'Its status, in alphabetical order of the stored word (active, completed, paused).' },
    CALLS: { value: 'calls', description: 'How many calls it has a log of (metrics.totalNumCall).' },
    SPEND: { value: 'spend', description: 'What its calls cost (metrics.totalSpent).' },
  } satisfies Record<string, { value: CampaignOrderField; description: string }>,
});

const CampaignOrderInput = builder.inputType('CampaignOrder', {
  description: 'How to sort a list of campaigns.',
  fields: (t) => ({
    field: t.field({ type: CampaignOrderFieldEnum, required: true, description: 'What to sort by.' }),
    // Optional rather than required with a default: graphql-jit does not fill the defaults of an input object's
    // fields sent as a variable; a missing direction is DESC in the resolver too.
    direction: t.field({
      type: OrderDirectionEnum,
      required: false,
      defaultValue: 'DESC',
      description: 'Which end first (DESC when absent: newest, largest, Z).',
    }),
  }),
});

/** A campaign's own sort value in an order that is not by a total. */
function sortValueOf(campaign: Campaign, field: CampaignOrderField): string {
  switch (field) {
    case 'updated':
      return campaign.updatedAt;
    case 'title':
      return campaign.title;
    case 'status':
      return campaign.status;
    default:
      return campaign.createdAt;
  }
}

/** The one connection type of Campaign lists, wherever they appear. */
export const CampaignConnection = builder.connectionObject(
  {
    type: CampaignRef,
    name: 'CampaignConnection',
    description: 'A page of Campaign nodes, and where it stands.',
  },
  { name: 'CampaignEdge', description: 'One Campaign of a page, with its cursor.', ...PLAIN_EDGE },
);

builder.queryFields((t) => ({
  campaign: t.field({
    type: CampaignRef,
    nullable: true,
    description: 'One of your campaigns, or null.',
    args: {
      campId: t.arg.string({ required: true, validate: campIdField, description: 'The campaign: its campId.' }),
    },
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
        : listCampaigns(context.db, viewerOf(context).id, args, textsAsked(info)),
  }),
  campaigns: t.connection(
    {
      type: CampaignRef,
      description: `Your campaigns, newest first unless \`orderBy\` says otherwise; at most ${MAX_PAGE_SIZE} per page.`,
      args: {
        status: t.arg({ type: CampaignStatusEnum, description: 'Only the campaigns with this status.' }),
        search: t.arg.string({
          description: 'Case-insensitive substring of the title, description or campId.',
          validate: z.string().max(200).nullish(),
        }),
        orderBy: t.arg({
          type: CampaignOrderInput,
          description: 'Sort order (createdAt, newest first, by default); cursors of another order are refused.',
        }),
        filter: t.arg({
          type: CampaignFilterInput,
          description: 'More filters, all to hold.',
        }),
      },
      complexity: (args) => ({
        field: 1 + (args.filter ? CAMPAIGN_FILTER_COST : 0),
        multiplier: Math.max(0, Math.min(args.first ?? args.last ?? DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE)),
      }),
      resolve: (_root, args, context, info) => {
        const texts = textsAsked(info);
        const order = args.orderBy
          ? { field: args.orderBy.field, ascending: args.orderBy.direction === 'ASC' }
          : DEFAULT_CAMPAIGN_ORDER;
        const byTotal = order.field === 'calls' || order.field === 'spend';
        // The totals a page was sorted by (a campaign does not hold them): its cursors carry them.
        const totals = new Map<Campaign, number>();
        const walkedKeys = new Map<Campaign, Keyset>();
        return keysetConnection(
          'campaign',
          args,
          (campaign: Campaign) =>
            walkedKeys.get(campaign) ?? [
              byTotal ? (totals.get(campaign) ?? 0) : sortValueOf(campaign, order.field),
              campaign.campId,
            ],
          async (page) => {
            const filter = { status: args.status, search: args.search, more: campaignFilters(args.filter) };
            if (filter.more) {
              const { nodes, resume } = await walkCampaigns(context.db, viewerOf(context).id, filter, page, texts, order);
              // Its cursor: the key the walk found it at (a total for calls and spend, a time or title otherwise).
              for (const { node, key } of nodes) walkedKeys.set(node, key);
              return { nodes: nodes.map(({ node }) => node), resume };
            }
            const rows = await pageCampaigns(context.db, viewerOf(context).id, filter, page, texts, order);
            for (const row of rows) if (row.total !== null) totals.set(row.campaign, row.total);
            return rows.map((row) => row.campaign);
          },
          // The default order (created, newest first) keeps the cursors it always made, however it was asked for.
          order.field === 'created' && !order.ascending
            ? undefined
            : {
                name: `${order.field}:${order.ascending ? 'asc' : 'desc'}`,
                // Calls and spend (in millionths) are whole numbers, kept as bigint.
                ...(byTotal ? { numeric: { integer: true, min: 0, max: Number.MAX_SAFE_INTEGER } } : {}),
              },
        );
      },
    },
    CampaignConnection,
  ),
}));
