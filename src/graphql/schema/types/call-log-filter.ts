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
import { MAX_RESULT_VALUE, RESULT_FIELD } from '../../../db/analysis-results.js';
import { builder } from '../builder.js';
import { CallStatusEnum } from './call-status.js';

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
  description: 'Seconds, both ends inclusive; a call that reported no duration is in no range.',
  fields: (t) => ({
    min: t.int({ validate: z.int().min(0).max(2_147_483_647).nullish(), description: 'At least.' }),
    max: t.int({ validate: z.int().min(0).max(2_147_483_647).nullish(), description: 'At most.' }),
  }),
});

const CostRange = builder.inputType('CostRange', {
  description: "The account's currency, both ends inclusive; a call that reported no cost is in no range.",
  fields: (t) => ({
    min: t.float({ validate: z.number().min(0).nullish(), description: 'At least.' }),
    max: t.float({ validate: z.number().min(0).nullish(), description: 'At most.' }),
  }),
});

const CallAnalysisMatch = builder.inputType('CallAnalysisMatch', {
  description: "A top-level field of the call's post-call analysis and the value it holds.",
  fields: (t) => ({
    field: t.string({
      required: true,
      validate: z.string().regex(RESULT_FIELD),
      description: 'A top-level field.',
    }),
    equals: t.string({
      required: true,
      // A longer string is never kept as a result (src/db/analysis-results.ts), so it could match nothing.
      validate: z.string().max(MAX_RESULT_VALUE - 2),
      description: 'This string, or the number or boolean it spells ("true").',
    }),
  }),
});

export const CallLogFilterInput = builder.inputType('CallLogFilter', {
  description:
    `Which call logs a list shows; all given must hold. A page reads at most ${CALL_LOG_WALK_BUDGET} calls (1000 with ` +
    '`analysis`): it may be short, even empty, with hasNextPage and an endCursor to go on from.',
  fields: (t) => ({
    campIds: t.stringList({
      validate: z.array(campIdField).min(1).max(MAX_FILTER_CAMPAIGNS).nullish(),
      description: 'Any of these campaigns.',
    }),
    statuses: t.field({
      type: [CallStatusEnum],
      validate: z.array(z.enum(CALL_STATUSES)).min(1).max(MAX_ARMS).nullish(),
      description: 'Any of these statuses.',
    }),
    outcomes: t.field({
      type: [CallOutcomeEnum],
      validate: z.array(z.string()).min(1).max(MAX_ARMS).nullish(),
      description: 'Any of these outcomes.',
    }),
    duration: t.field({ type: DurationRange, description: 'In seconds, inclusive.' }),
    cost: t.field({ type: CostRange, description: 'Inclusive.' }),
    fromNumber: t.string({
      validate: z.string().min(1).max(64).nullish(),
      description: 'The calling number.',
    }),
    toNumber: t.string({
      validate: z.string().min(1).max(64).nullish(),
      description: 'The number called.',
    }),
    analysis: t.field({
      type: CallAnalysisMatch,
      description: 'A post-call analysis field.',
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
