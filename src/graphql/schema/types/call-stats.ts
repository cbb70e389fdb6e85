// Call statistics over time: Query.callStats, its buckets and totals (docs/dashboards.md).
import type { ObjectFieldBuilder } from '@pothos/core';
import { z } from 'zod';
import {
  type CallCounts,
  type CallStats,
  type CallStatsBucket,
  loadCallStats,
  MAX_STATS_BUCKETS,
  MAX_STATS_CAMPAIGNS,
  type StatsBucket,
} from '../../../domain/call-stats.js';
import { campIdField } from '../../../domain/campaigns.schema.js';
import { builder, viewerOf } from '../builder.js';

type Types = typeof builder.$inferSchemaTypes;

const BucketEnum = builder.enumType('CallStatsBucketSize', {
  description: "How long each bucket of callStats is, in the caller's time zone.",
  values: {
    HOUR: { value: 'HOUR', description: 'An hour (in a zone such as Asia/Kolkata, from :30 to :30 in UTC).' },
    DAY: { value: 'DAY', description: 'A day, midnight to midnight (23 or 25 hours on the days clocks change).' },
    WEEK: { value: 'WEEK', description: 'A week, from Monday midnight.' },
    MONTH: { value: 'MONTH', description: 'A calendar month, from midnight on its first day.' },
  } satisfies Record<StatsBucket, { value: StatsBucket; description: string }>,
});

/** The counter fields, the same on a bucket and on the totals. */
function counterFields(t: ObjectFieldBuilder<Types, CallCounts>) {
  return {
    calls: t.exposeInt('calls', { description: 'Calls started in the period, whatever their status.' }),
    answered: t.exposeInt('answered', { description: 'Calls answered: in progress or completed.' }),
    completed: t.exposeInt('completed', { description: 'Calls answered and ended normally.' }),
    failed: t.exposeInt('failed', { description: 'Calls that could not be placed.' }),
    noAnswer: t.exposeInt('noAnswer', { description: 'Calls nobody answered.' }),
    busy: t.exposeInt('busy', { description: 'Calls that found the line busy.' }),
    canceled: t.exposeInt('canceled', { description: 'Calls canceled before they were answered.' }),
    ongoing: t.exposeInt('ongoing', { description: 'Calls not over yet: queued, ringing or in progress.' }),
    totalDurationSeconds: t.exposeInt('totalDurationSeconds', {
      description: 'Seconds of calls, summed over the calls that reported a duration.',
    }),
    averageDurationSeconds: t.exposeFloat('averageDurationSeconds', {
      description: 'totalDurationSeconds over the calls that reported a duration, in seconds; 0 when none did.',
    }),
    spend: t.exposeFloat('spend', {
      description: "What the calls cost, in the provider's currency (the account's), to a millionth.",
    }),
    averageCost: t.exposeFloat('averageCost', {
      description: 'spend over the calls that reported a cost; 0 when none did.',
    }),
  };
}

const CallCountsRef = builder.objectRef<CallCounts>('CallCounts').implement({
  description:
    'Counts of calls started in a period, by their latest status, with their duration and spend. The statuses ' +
    'are counted as they are now: a call started on Monday and answered on Tuesday counts on Monday.',
  fields: (t) => counterFields(t),
});

const CallStatsBucketRef = builder.objectRef<CallStatsBucket>('CallStatsBucket').implement({
  description: 'The calls started in one bucket: from `start` (inclusive) to `end` (exclusive).',
  fields: (t) => ({
    start: t.field({ type: 'DateTime', description: "The bucket's first instant (UTC).", resolve: (b) => b.start }),
    end: t.field({ type: 'DateTime', description: "The next bucket's first instant (UTC).", resolve: (b) => b.end }),
    localStart: t.exposeString('localStart', {
      description: "The bucket's start in the time zone asked for, with its offset (2026-03-29T00:00:00+01:00).",
    }),
    // A bucket is a CallCounts with its bounds: the counter fields read the same properties.
    ...counterFields(t as unknown as ObjectFieldBuilder<Types, CallCounts>),
  }),
});

const CallStatsRef = builder.objectRef<CallStats>('CallStats').implement({
  description: 'Call statistics over time: one bucket per hour, day, week or month, and totals.',
  fields: (t) => ({
    bucket: t.field({ type: BucketEnum, description: 'How long each bucket is.', resolve: (s) => s.bucket }),
    timeZone: t.exposeString('timeZone', { description: 'The time zone the buckets are cut in.' }),
    buckets: t.field({
      type: [CallStatsBucketRef],
      description: 'Every bucket that meets [from, to), whole, oldest first; a bucket without calls is all zeros.',
      resolve: (s) => s.buckets,
    }),
    totals: t.field({
      type: CallCountsRef,
      description: 'The sums over the buckets (from the first bucket’s start to the last one’s end).',
      resolve: (s) => s.totals,
    }),
  }),
});

const HOUR_MS = 3_600_000;
const LEAST_MS: Record<StatsBucket, number> = {
  HOUR: HOUR_MS,
  DAY: 23 * HOUR_MS,
  WEEK: 167 * HOUR_MS,
  MONTH: 671 * HOUR_MS,
};

builder.queryFields((t) => ({
  callStats: t.field({
    type: CallStatsRef,
    description:
      `Your call statistics over time, in buckets cut in \`timeZone\` (at most ${MAX_STATS_BUCKETS} buckets). ` +
      'Calls count in the bucket in which they started; counts and spend agree with Campaign.metrics. Durations ' +
      "are in seconds, spend in the provider's currency.",
    args: {
      campIds: t.arg.stringList({
        description: `Only the calls of these campaigns (at most ${MAX_STATS_CAMPAIGNS}); every campaign when absent. An unknown campId is NOT_FOUND.`,
        validate: z.array(campIdField).max(MAX_STATS_CAMPAIGNS).nullish(),
      }),
      from: t.arg({ type: 'DateTime', required: true, description: 'The start of the span (its bucket counts whole).' }),
      to: t.arg({
        type: 'DateTime',
        required: true,
        description: 'The end of the span, exclusive (the bucket it falls in counts whole).',
      }),
      bucket: t.arg({ type: BucketEnum, required: true, defaultValue: 'DAY', description: 'How long each bucket is.' }),
      timeZone: t.arg.string({
        required: true,
        defaultValue: 'UTC',
        description: 'An IANA time zone name (Europe/Paris, America/New_York) or UTC: where buckets start and end.',
        validate: z.string().min(1).max(64),
      }),
    },
    // A live query of it follows every write of the account's call logs (src/graphql/live/live-keys.ts).
    extensions: { sumsUp: 'CallLog' },
    // What it reads: one row per hour of the span (per campaign named), and one answer object per bucket.
    complexity: (args) => {
      const span = Math.max(0, new Date(args.to).getTime() - new Date(args.from).getTime());
      const buckets = Math.min(MAX_STATS_BUCKETS, Math.ceil(span / LEAST_MS[args.bucket]) + 1);
      const hours = Math.min(span / HOUR_MS, MAX_STATS_BUCKETS * 31 * 24);
      return { field: 1 + Math.ceil((hours * Math.max(1, args.campIds?.length ?? 1)) / 100), multiplier: buckets };
    },
    resolve: (_root, args, context) =>
      loadCallStats(context.db, viewerOf(context).id, {
        campIds: args.campIds,
        from: args.from,
        to: args.to,
        bucket: args.bucket,
        timeZone: args.timeZone,
      }),
  }),
}));
