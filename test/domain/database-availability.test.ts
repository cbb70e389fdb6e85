// The database's availability says each change once (docs/decisions.md §15): a query that was already in flight when
// the outage was noticed does not count as the database being back (that made the log flap).
import { expect, test } from 'vitest';
import { createDatabaseAvailability } from '../../src/db/availability.js';
import type { Logger } from '../../src/core/logger.js';

test('one line per change: a query sent before the outage was noticed does not say it is back', () => {
  const lines: string[] = [];
  const logger = {
    warn: (_: unknown, msg: string) => lines.push(`warn ${msg}`),
    info: (msg: string) => lines.push(`info ${msg}`),
  };
  const availability = createDatabaseAvailability(logger as unknown as Logger);
  const refused = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' });
  const inFlight = performance.now() - 5;
  expect(availability.failed(refused)).toBe(true);
  expect(availability.failed(refused)).toBe(true);
  availability.answered('select 1', inFlight);
  expect(availability.down).toBe(true);
  availability.answered('select 1', performance.now());
  availability.answered('select 1', performance.now());
  expect(availability.down).toBe(false);
  expect(lines).toEqual(['warn database unreachable: answering 503 until it is back', 'info database reachable again']);
});
