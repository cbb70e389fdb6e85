// The bucket edges of callStats (src/domain/call-stats.ts), cut by wall-clock arithmetic over the zone's offsets,
// agree with date-fns's own startOfDay/addDays (and hour, week, month) in the zone, for zones with daylight saving,
// half- and quarter-hour offsets, and clocks that change at midnight, over spans that cross each change.
import { tz } from '@date-fns/tz';
import { addDays, addHours, addMonths, addWeeks, startOfDay, startOfHour, startOfMonth, startOfWeek } from 'date-fns';
import { describe, expect, it } from 'vitest';
import { bucketEdges, localTimeOf, MAX_STATS_BUCKETS, type StatsBucket } from '../../src/domain/call-stats.js';

const ZONES = [
  'UTC',
  'Europe/Paris',
  'America/New_York',
  'America/Los_Angeles',
  'Asia/Kolkata',
  'Asia/Kathmandu',
  'Australia/Adelaide',
  'Australia/Lord_Howe',
  'Pacific/Chatham',
  'America/St_Johns',
  'Pacific/Kiritimati',
  'Pacific/Pago_Pago',
  'America/Sao_Paulo',
];

const STEPS = {
  HOUR: { start: startOfHour, next: addHours, spanDays: 12 },
  DAY: { start: startOfDay, next: addDays, spanDays: 380 },
  WEEK: { start: (d: Date, o: object) => startOfWeek(d, { ...o, weekStartsOn: 1 }), next: addWeeks, spanDays: 700 },
  MONTH: { start: startOfMonth, next: addMonths, spanDays: 3000 },
} as const;

/** The edges date-fns makes, stepping in the zone from the start of `from`'s bucket past `to`. */
function dateFnsEdges(from: Date, to: Date, bucket: StatsBucket, zone: string): number[] {
  const options = { in: tz(zone) };
  const step = STEPS[bucket];
  const edges = [step.start(from, options)];
  while (edges.at(-1)!.getTime() < to.getTime() && edges.length <= MAX_STATS_BUCKETS + 1) {
    edges.push(step.next(edges.at(-1)!, 1, options));
  }
  return edges.map((edge) => edge.getTime());
}

describe('callStats bucket edges', () => {
  const starts = ['2025-03-08T17:23:00Z', '2025-10-24T23:59:59Z', '2026-03-27T12:00:00Z', '2026-09-30T00:00:00Z'];
  for (const bucket of ['HOUR', 'DAY', 'WEEK', 'MONTH'] as const) {
    it.each(ZONES)(`${bucket} edges in %s are date-fns's`, (zone) => {
      for (const start of starts) {
        const from = new Date(start);
        // Spans that cross the spring and autumn changes of both hemispheres.
        for (const days of [1, 40, STEPS[bucket].spanDays]) {
          const to = new Date(from.getTime() + days * 86_400_000);
          const expected = dateFnsEdges(from, to, bucket, zone);
          if (expected.length - 1 > MAX_STATS_BUCKETS) continue;
          expect(bucketEdges(from, to, bucket, zone), `${zone} ${start} +${days}d`).toEqual(expected);
        }
      }
    });
  }

  it("writes each edge as the zone's clocks show it", () => {
    expect(localTimeOf(Date.parse('2026-03-28T23:00:00Z'), 'Europe/Paris')).toBe('2026-03-29T00:00:00+01:00');
    expect(localTimeOf(Date.parse('2026-03-29T22:00:00Z'), 'Europe/Paris')).toBe('2026-03-30T00:00:00+02:00');
    expect(localTimeOf(Date.parse('2026-06-01T18:30:00Z'), 'Asia/Kolkata')).toBe('2026-06-02T00:00:00+05:30');
    expect(localTimeOf(Date.parse('2026-06-01T10:00:00Z'), 'America/St_Johns')).toBe('2026-06-01T07:30:00-02:30');
    expect(localTimeOf(Date.parse('2026-06-01T10:00:00Z'), 'UTC')).toBe('2026-06-01T10:00:00+00:00');
  });

  it('stops at one bucket past the cap, however long the span', () => {
    const started = performance.now();
    expect(() => bucketEdges(new Date(0), new Date('2199-12-31T00:00:00Z'), 'HOUR', 'Europe/Paris')).toThrow(
      /at most 400 buckets/,
    );
    expect(() =>
      bucketEdges(new Date('1900-01-01T00:00:00Z'), new Date('2199-12-31T00:00:00Z'), 'MONTH', 'UTC'),
    ).toThrow(/at most 400 buckets/);
    // Instants past the years time zone rules are known for are refused, not walked.
    expect(() => bucketEdges(new Date(-8.64e15), new Date(8.64e15), 'MONTH', 'UTC')).toThrow(/between the years 1900/);
    expect(() => bucketEdges(new Date(Number.NaN), new Date(0), 'DAY', 'UTC')).toThrow(/between the years 1900/);
    expect(performance.now() - started).toBeLessThan(200);
  });
});
