// Call logs: the CallLog type, Query.callLogs / Campaign.callLogs connections, callLogList (offset paging).
import { z } from 'zod';
import type { GraphQLResolveInfo } from 'graphql';
import {
  CALL_LOG_TEXTS,
  type CallLog,
  type CallLogFilter,
  type CallLogOrder,
  type CallLogOrderField,
  DEFAULT_CALL_LOG_ORDER,
  sortValueOf,
  type CallLogTexts,
  getCallLogsByIds,
  listCallLogs,
  pageCallLogs,
  walkCallLogs,
} from '../../../domain/call-logs.js';
import { type CallStatus, MAX_CALL_LOG_PAGE } from '../../../domain/call-logs.schema.js';
import { campIdField } from '../../../domain/campaigns.schema.js';
import { builder, INTERNAL_ONLY, viewerOf } from '../builder.js';
import { answerText, LONG_TEXT_COST } from '../field-costs.js';
import { scopedNode } from '../global-ids.js';
import type { Context } from '../context.js';
import type { Keyset } from '../../../db/keyset.js';
import { DEFAULT_PAGE_SIZE, keysetConnection, MAX_PAGE_SIZE, PLAIN_EDGE } from '../pagination.js';
import { CallLogFilterInput, callLogFilters, FILTER_WALK_COST } from './call-log-filter.js';
import { asksFor } from '../selection.js';
import { CampaignRef } from './campaign.js';
import { OrderDirectionEnum } from './order-direction.js';
import { CallStatusEnum } from './call-status.js';

/** The provider's Direction values this API names; anything else it reports is OTHER. */
const CALL_DIRECTIONS = {
  INBOUND: { value: 'inbound', description: 'The contact called the campaign number.' },
  OUTBOUND_API: { value: 'outbound-api', description: 'Placed by the campaign (through the provider API).' },
  OUTBOUND_DIAL: { value: 'outbound-dial', description: 'Dialled out from another call.' },
  OTHER: { value: 'other', description: 'A direction the provider reported that is none of the above.' },
} as const;
type CallDirection = (typeof CALL_DIRECTIONS)[keyof typeof CALL_DIRECTIONS]['value'];

const CallDirectionEnum = builder.enumType('CallDirection', {
  description: "Which way a call went, from the provider's Direction.",
  values: CALL_DIRECTIONS,
});

function callDirection(direction: string | null): CallDirection | null {
  if (direction === null || direction === '') return null;
  const known = Object.values(CALL_DIRECTIONS).find((entry) => entry.value === direction.toLowerCase());
  return known ? known.value : 'other';
}

export const CallLogRef = builder.loadableNode('CallLog', {
  // Its columns are read without a resolver call each (src/graphql/schema/plain-fields.ts).
  plainFields: true,
  description: 'One call of a campaign, as the telephony provider reported it, with what the AI engine attached.',
  // Call ids are the provider's, unique per account only (docs/graphql.md, "Global ids").
  ...scopedNode((log: CallLog) => log.callId, getCallLogsByIds),
  fields: (t) => ({
    callId: t.exposeString('callId', { description: "The provider's call id (CallSid)." }),
    campId: t.exposeString('campaignId', { description: 'The campaign the call belongs to: its campId.' }),
    campaignId: t.exposeString('campaignId', {
      description: 'The campaign the call belongs to: its campId.',
      deprecationReason: 'Use campId.',
    }),
    campaign: t.field({
      type: CampaignRef,
      description: 'The campaign the call belongs to.',
      resolve: (call) => call.campaignId,
    }),
    callDirection: t.field({
      plain: true,
      type: CallDirectionEnum,
      nullable: true,
      description: 'Which way the call went; null when the provider did not say.',
      resolve: (call) => callDirection(call.direction),
    }),
    direction: t.exposeString('direction', {
      nullable: true,
      description: "The provider's Direction as it reported it (`outbound-api`); null when it did not say.",
      deprecationReason: 'Use callDirection.',
    }),
    providerDirection: t.exposeString('direction', {
      nullable: true,
      subGraphs: INTERNAL_ONLY,
      description: "The provider's Direction as it reported it (`outbound-api`): the REST door's `direction`.",
    }),
    fromNumber: t.exposeString('fromNumber', {
      nullable: true,
      description: 'The calling number as the provider reported it (From); null when it did not say.',
    }),
    toNumber: t.exposeString('toNumber', {
      nullable: true,
      description: 'The called number as the provider reported it (To); null when it did not say.',
    }),
    status: t.field({
      plain: true,
      type: CallStatusEnum,
      description: 'The latest status the provider reported.',
      resolve: (call) => call.status,
    }),
    startedAt: t.field({
      plain: true,
      type: 'DateTime',
      description: 'When the first status callback of the call arrived; lists are sorted and filtered by it.',
      resolve: (call) => call.startedAt,
    }),
    endedAt: t.field({
      plain: true,
      type: 'DateTime',
      nullable: true,
      description: 'When the call reached a terminal status; null while it has not.',
      resolve: (call) => call.endedAt,
    }),
    durationSeconds: t.exposeInt('durationSeconds', {
      nullable: true,
      description: 'How long the call lasted, in seconds (CallDuration); null until the provider reports it.',
    }),
    cost: t.exposeFloat('cost', {
      nullable: true,
      description: "What the call cost (the provider's Price, sign dropped, in its currency); null until reported.",
    }),
    recordingUrl: t.exposeString('recordingUrl', {
      nullable: true,
      description: 'http(s) URL of the recording the provider made; null when there is none.',
    }),
    // Long texts: they weigh more in a document's cost, and count against the answer's text budget as they resolve
    // (src/graphql/schema/field-costs.ts), so they are not plain.
    transcript: t.string({
      nullable: true,
      complexity: LONG_TEXT_COST,
      description: 'The transcript the AI engine attached (callLogRecordOutcome); null until then.',
      resolve: (call, _args, _context, info) => answerText(call.transcript, info),
    }),
    summary: t.string({
      nullable: true,
      complexity: LONG_TEXT_COST,
      description: 'The summary the AI engine attached (callLogRecordOutcome); null until then.',
      resolve: (call, _args, _context, info) => answerText(call.summary, info),
    }),
    analysis: t.field({
      plain: true,
      complexity: LONG_TEXT_COST,
      type: 'JSON',
      nullable: true,
      description: 'The post-call analysis the AI engine attached (callLogRecordOutcome); null until then.',
      resolve: (call) => call.analysis,
    }),
    createdAt: t.field({
      plain: true,
      type: 'DateTime',
      description: 'When the call log was created (its first status callback).',
      resolve: (call) => call.createdAt,
    }),
    updatedAt: t.field({
      plain: true,
      type: 'DateTime',
      description: 'When the call log last changed.',
      resolve: (call) => call.updatedAt,
    }),
  }),
});

/** The one connection type of CallLog lists, wherever they appear. */
export const CallLogConnection = builder.connectionObject(
  {
    type: CallLogRef,
    name: 'CallLogConnection',
    description: 'A page of CallLog nodes, and where it stands.',
  },
  { name: 'CallLogEdge', description: 'One CallLog of a page, with its cursor.', ...PLAIN_EDGE },
);

interface FilterArgs {
  status?: CallStatus | null;
  since?: Date | null;
  until?: Date | null;
  filter?: typeof CallLogFilterInput.$inferInput | null;
}

const toFilter = (args: FilterArgs, campId?: string | null): CallLogFilter => ({
  campId,
  status: args.status,
  since: args.since?.toISOString(),
  until: args.until?.toISOString(),
  more: callLogFilters(args.filter),
});

const FILTER_DESCRIPTION = 'More filters, all to hold.';

/** A page's cost, and the walk of a filtered one (docs/limits.md, "What a document costs"). */
const listCost = (args: { first?: number | null; last?: number | null; filter?: unknown }) => ({
  field: 1 + (args.filter ? FILTER_WALK_COST : 0),
  multiplier: Math.max(0, Math.min(args.first ?? args.last ?? DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE)),
});

/**
 * The long texts a list field's query asks for: only those are read (a page of 100 transcripts is 50 MB). Its call
 * logs reach no other field (lists do not fill the node loader), so one read without a text is never asked for it.
 */
const textsAsked = (info: GraphQLResolveInfo): CallLogTexts => asksFor(info, CALL_LOG_TEXTS);

const CallLogOrderFieldEnum = builder.enumType('CallLogOrderField', {
  description: 'What a list of call logs can be sorted by; ties are broken by callId.',
  values: {
    STARTED_AT: { value: 'started', description: 'When the call started (its first status callback).' },
    DURATION: {
      value: 'duration',
      description: 'How long it lasted, in seconds; a call that reported no duration sorts as -1.',
    },
    COST: { value: 'cost', description: 'What it cost; a call that reported no cost sorts as -1.' },
    STATUS: { value: 'status', description: "Its latest status, in alphabetical order of the provider's word." },
  } satisfies Record<string, { value: CallLogOrderField; description: string }>,
});

const CallLogOrderInput = builder.inputType('CallLogOrder', {
  description: 'How to sort a list of call logs.',
  fields: (t) => ({
    field: t.field({ type: CallLogOrderFieldEnum, required: true, description: 'What to sort by.' }),
    // Optional rather than required with a default: graphql-jit does not fill the defaults of an input object's
    // fields sent as a variable; a missing direction is DESC in the resolver too.
    direction: t.field({
      type: OrderDirectionEnum,
      required: false,
      defaultValue: 'DESC',
      description: 'Which end first (DESC when absent: newest, longest, dearest).',
    }),
  }),
});

/** The sort values of a duration (seconds, an integer column; -1 when not reported) and of a cost. */
const DURATION_VALUES = { integer: true, min: -1, max: 2_147_483_647 };
const COST_VALUES = { integer: false, min: -1, max: 1e12 };

const ORDER_BY_DESCRIPTION =
  'Sort order (startedAt, newest first, by default); cursors of another order are refused.';

function connection(
  context: Context,
  args: Parameters<typeof keysetConnection>[1] & {
    orderBy?: { field: CallLogOrderField; direction?: 'ASC' | 'DESC' | null } | null;
  },
  filter: CallLogFilter,
  info: GraphQLResolveInfo,
) {
  const accountId = viewerOf(context).id;
  const walked = filter.more != null;
  const texts = textsAsked(info);
  const order: CallLogOrder = args.orderBy
    ? { field: args.orderBy.field, ascending: args.orderBy.direction === 'ASC' }
    : DEFAULT_CALL_LOG_ORDER;
  const isDefault = order.field === 'started' && !order.ascending;
  // A walked call's cursor is the key the walk found it at (its status or duration may have moved since).
  const keys = new Map<CallLog, Keyset>();
  return keysetConnection(
    'call-log',
    args,
    (call: CallLog) => keys.get(call) ?? [sortValueOf(call, order.field), call.callId],
    async (page) => {
      if (!walked) return pageCallLogs(context.db, accountId, filter, page, texts, order);
      const { nodes, resume } = await walkCallLogs(context.db, accountId, filter, page, texts, order);
      for (const { node, key } of nodes) keys.set(node, key);
      return { nodes: nodes.map(({ node }) => node), resume };
    },
    // The default order keeps the cursors it always made, however it was asked for.
    isDefault
      ? undefined
      : {
          name: `${order.field}:${order.ascending ? 'asc' : 'desc'}`,
          ...(order.field === 'duration' ? { numeric: DURATION_VALUES } : {}),
          ...(order.field === 'cost' ? { numeric: COST_VALUES } : {}),
        },
  );
}

const DESCRIPTION = 'Newest first; `since` and `until` bound startedAt, both inclusive.';
const SORTED = 'Newest first unless `orderBy` says otherwise; `since` and `until` bound startedAt, both inclusive.';

/** The filter arguments' descriptions, the same on every call-log list. */
const FILTER = {
  campId: 'Only the calls of this campaign (its campId); NOT_FOUND when you have no such campaign.',
  status: 'Only the calls whose latest status is this one.',
  since: 'Only the calls started at or after this time.',
  until: 'Only the calls started at or before this time.',
};

builder.queryFields((t) => ({
  callLogs: t.connection(
    {
      type: CallLogRef,
      description: `Your call logs. ${SORTED} An unknown campId is NOT_FOUND.`,
      args: {
        campId: t.arg.string({ validate: campIdField.nullish(), description: FILTER.campId }),
        status: t.arg({ type: CallStatusEnum, description: FILTER.status }),
        since: t.arg({ type: 'DateTime', description: FILTER.since }),
        until: t.arg({ type: 'DateTime', description: FILTER.until }),
        orderBy: t.arg({ type: CallLogOrderInput, description: ORDER_BY_DESCRIPTION }),
        filter: t.arg({ type: CallLogFilterInput, description: FILTER_DESCRIPTION }),
      },
      complexity: listCost,
      resolve: (_root, args, context, info) => connection(context, args, toFilter(args, args.campId), info),
    },
    CallLogConnection,
  ),
  callLogList: t.field({
    type: [CallLogRef],
    subGraphs: INTERNAL_ONLY,
    description: `Offset paging (what the legacy REST door uses). ${DESCRIPTION}`,
    args: {
      campId: t.arg.string({ validate: campIdField.nullish() }),
      status: t.arg({ type: CallStatusEnum }),
      since: t.arg({ type: 'DateTime' }),
      until: t.arg({ type: 'DateTime' }),
      limit: t.arg.int({ required: true, defaultValue: 100, validate: z.int().min(1).max(MAX_CALL_LOG_PAGE) }),
      offset: t.arg.int({ required: true, defaultValue: 0, validate: z.int().min(0) }),
    },
    resolve: (_root, args, context, info) =>
      listCallLogs(
        context.db,
        viewerOf(context).id,
        { ...toFilter(args, args.campId), limit: args.limit, offset: args.offset },
        textsAsked(info),
      ),
  }),
}));

builder.objectField(CampaignRef, 'callLogs', (t) =>
  t.connection(
    {
      type: CallLogRef,
      description: `This campaign's call logs. ${SORTED}`,
      args: {
        status: t.arg({ type: CallStatusEnum, description: FILTER.status }),
        since: t.arg({ type: 'DateTime', description: FILTER.since }),
        until: t.arg({ type: 'DateTime', description: FILTER.until }),
        orderBy: t.arg({ type: CallLogOrderInput, description: ORDER_BY_DESCRIPTION }),
        filter: t.arg({ type: CallLogFilterInput, description: FILTER_DESCRIPTION }),
      },
      complexity: listCost,
      resolve: (campaign, args, context, info) => connection(context, args, toFilter(args, campaign.campId), info),
    },
    CallLogConnection,
  ),
);
