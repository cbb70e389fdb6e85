// The `filter` of call log lists (docs/dashboards.md "Filters"): several campaigns, statuses and outcomes, duration and
// cost ranges, phone numbers, a post-call analysis field. Every given filter must hold.
import { z } from 'zod';
import {
  CALL_LOG_WALK_BUDGET,
  CALL_OUTCOMES,
  type CallLogFilters,
  type CallOutcome,
} from '../../../domain/call-logs.js';
import { CALL_STATUSES } from '../../../domain/call-logs.schema.js';
import { campIdField } from '../../../domain/campaigns.schema.js';
import { MAX_ARMS } from '../../../db/filtered-walk.js';
import { builder } from '../builder.js';
import { CallStatusEnum } from './call-log.js';

/** Campaigns one filter names at most (as callStats). */
export const MAX_FILTER_CAMPAIGNS = 50;

const OUTCOME_DESCRIPTIONS: Record<CallOutcome, string> = {
  answered: 'Answered: in progress or completed (callStats `answered`).',
  completed: 'Answered and ended normally.',
  failed: 'Could not be placed.',
  'no-answer': 'Nobody answered.',
  busy: 'The other end was busy.',
  canceled: 'Canceled before it was answered.',
  ongoing: 'Not over yet: queued, ringing or in progress (callStats `ongoing`).',
};

export const CallOutcomeEnum = builder.enumType('CallOutcome', {
  description: 'How a call went, as callStats counts it; each stands for the statuses it names.',
  values: Object.fromEntries(
    (Object.keys(CALL_OUTCOMES) as CallOutcome[]).map((outcome) => [
      outcome.toUpperCase().replace('-', '_'),
      { value: outcome, description: OUTCOME_DESCRIPTIONS[outcome] },
    ]),
  ) as Record<string, { value: CallOutcome; description: string }>,
});

const DurationRange = builder.inputType('DurationRange', {
  description: 'A range of durations in seconds, both ends inclusive; a call that reported no duration is in none.',
  fields: (t) => ({
    min: t.int({ validate: z.int().min(0).max(2_147_483_647).nullish(), description: 'At least this many seconds.' }),
    max: t.int({ validate: z.int().min(0).max(2_147_483_647).nullish(), description: 'At most this many seconds.' }),
  }),
});

const CostRange = builder.inputType('CostRange', {
  description:
    "A range of costs in the account's currency, both ends inclusive; a call that reported no cost is in none.",
  fields: (t) => ({
    min: t.float({ validate: z.number().min(0).max(1e12).nullish(), description: 'At least this much.' }),
    max: t.float({ validate: z.number().min(0).max(1e12).nullish(), description: 'At most this much.' }),
  }),
});

/** A top-level field name of an analysis: letters, digits and underscores (it goes into a JSON path). */
const ANALYSIS_FIELD = /^[A-Za-z_][A-Za-z0-9_]{0,63}$/;

const CallAnalysisMatch = builder.inputType('CallAnalysisMatch', {
  description: "A field of the call's post-call analysis (a top-level field of the JSON object) and the value it holds.",
  fields: (t) => ({
    field: t.string({
      required: true,
      validate: z.string().regex(ANALYSIS_FIELD, 'a top-level field name: letters, digits and _, at most 64'),
      description: 'The field, such as `interested`.',
    }),
    equals: t.field({
      type: 'JSON',
      required: true,
      validate: z.union([z.string().max(1000), z.number(), z.boolean()], {
        error: 'a string (at most 1000 characters), a number or a boolean',
      }),
      description: 'The value it holds: a string, a number or a boolean (JSON equality).',
    }),
  }),
});

export const CallLogFilterInput = builder.inputType('CallLogFilter', {
  description:
    'Which call logs a list shows; every given filter must hold. Each page reads at most ' +
    `${CALL_LOG_WALK_BUDGET} call logs in the list's order (fewer with \`analysis\`): a filter that matches few of ` +
    'them can answer a page shorter than asked, even empty, with hasNextPage true and an endCursor to go on from ' +
    '(docs/dashboards.md, "Filters").',
  fields: (t) => ({
    campIds: t.stringList({
      validate: z.array(campIdField).min(1).max(MAX_FILTER_CAMPAIGNS).nullish(),
      description: `Only the calls of these campaigns (1–${MAX_FILTER_CAMPAIGNS} campIds; unknown ones match nothing).`,
    }),
    statuses: t.field({
      type: [CallStatusEnum],
      validate: z.array(z.enum(CALL_STATUSES)).min(1).max(MAX_ARMS).nullish(),
      description: 'Only the calls whose latest status is one of these.',
    }),
    outcomes: t.field({
      type: [CallOutcomeEnum],
      validate: z.array(z.string()).min(1).max(MAX_ARMS).nullish(),
      description: 'Only the calls that went one of these ways.',
    }),
    duration: t.field({ type: DurationRange, description: 'Only the calls that lasted this long (seconds).' }),
    cost: t.field({ type: CostRange, description: "Only the calls that cost this much (the account's currency)." }),
    fromNumber: t.string({
      validate: z.string().min(1).max(64).nullish(),
      description: 'Only the calls from this number, exactly as the provider reported it (E.164: +14155550100).',
    }),
    toNumber: t.string({
      validate: z.string().min(1).max(64).nullish(),
      description: 'Only the calls to this number, exactly as the provider reported it.',
    }),
    analysis: t.field({
      type: CallAnalysisMatch,
      description: 'Only the calls whose post-call analysis holds this value in this field.',
    }),
  }),
});

/** The GraphQL filter as the domain takes it. */
export const callLogFilters = (input: typeof CallLogFilterInput.$inferInput | null | undefined): CallLogFilters | null =>
  input ? (input as CallLogFilters) : null;

/**
 * What a filtered list costs beyond its page (docs/limits.md): the rows its walk may read, a point per 20 (200 for a
 * full budget), whether or not they match.
 */
export const FILTER_WALK_COST = Math.ceil(CALL_LOG_WALK_BUDGET / 20);
