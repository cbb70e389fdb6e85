// The access line is formatted in one template (issue 55; src/core/logger.ts requestLineWriter): it must be the very
// line pino writes for the same fields — bindings, mixin, field order, escaping — but for its time, which is checked
// to be pino's format and the moment of writing. The trace ids it carries are checked in test/http/tracing.test.ts.
import { describe, expect, test } from 'vitest';
import { createLogger, type RequestLineFields, requestLineWriter } from '../../src/core/logger.js';
import { runWithRequestId } from '../../src/core/request-context.js';

function capture() {
  const lines: string[] = [];
  return { lines, stream: { write: (line: string) => void lines.push(line) } };
}

const withoutTime = (line: string) => line.replace(/"time":"[^"]*"/, '"time":"…"');

const CASES: RequestLineFields[] = [
  { method: 'GET', path: '/api/v3/get_campaigns', status: 200, client: '127.0.0.1', ms: 1.2, errors: null },
  { method: 'POST', path: '/graphql', status: 200, client: '::1', ms: 0, errors: ['BAD_USER_INPUT', 'NOT_FOUND'] },
  // What a client controls is escaped as JSON escapes it: quotes, backslashes, control and non-ASCII characters.
  { method: 'PATCH', path: '/a"b\\c\u0001é😀', status: 499, client: '10.0.0.1', ms: 12345.6, errors: [] },
];

describe('the access line', () => {
  test.each(CASES)('is the line pino writes for the same fields ($method $path)', async (fields) => {
    const ours = capture();
    const pinos = capture();
    const write = requestLineWriter(createLogger('info', ours.stream));
    const logger = createLogger('info', pinos.stream);
    const { errors, ...rest } = fields;
    await runWithRequestId('req-"1"', async () => {
      write(fields);
      logger.info({ ...rest, ...(errors ? { errors } : {}) }, 'request');
    });
    write(fields);
    logger.info({ ...rest, ...(errors ? { errors } : {}) }, 'request');
    expect(ours.lines.map(withoutTime)).toEqual(pinos.lines.map(withoutTime));
    expect(ours.lines[0]).toContain('"requestId":"req-\\"1\\""');
    for (const line of ours.lines) expect(JSON.parse(line)).toMatchObject(rest);
  });

  test("writes pino's ISO time of the moment it is written", () => {
    const ours = capture();
    const write = requestLineWriter(createLogger('info', ours.stream));
    const before = Date.now();
    write(CASES[0] as RequestLineFields);
    const after = Date.now();
    const { time } = JSON.parse(ours.lines[0] ?? '{}') as { time: string };
    expect(time).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    expect(Date.parse(time)).toBeGreaterThanOrEqual(before);
    expect(Date.parse(time)).toBeLessThanOrEqual(after);
  });

  test('writes nothing below its level', () => {
    const ours = capture();
    requestLineWriter(createLogger('warn', ours.stream))(CASES[0] as RequestLineFields);
    expect(ours.lines).toEqual([]);
  });
});
