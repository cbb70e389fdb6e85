// JSON logs (pino), each line with the request id of the request it was written for. Nothing secret is ever passed
// to the logger: no tokens, passwords, keys, request bodies or query strings.
import { isSpanContextValid, trace } from '@opentelemetry/api';
import { type DestinationStream, type Logger, pino } from 'pino';
import type { Config } from './config.js';
import { currentRequestId } from './request-context.js';

export type { Logger };

export function createLogger(level: Config['LOG_LEVEL'], destination?: DestinationStream): Logger {
  return pino(
    {
      level,
      base: undefined,
      timestamp: pino.stdTimeFunctions.isoTime,
      mixin: () => {
        const requestId = currentRequestId();
        // Within a traced request or delivery, the trace it belongs to (README "Traces").
        const span = trace.getActiveSpan()?.spanContext();
        const traced = span && isSpanContextValid(span) ? { trace_id: span.traceId, span_id: span.spanId } : {};
        return requestId ? { requestId, ...traced } : traced;
      },
      // Belt and braces: should an object with these keys ever be logged, its values are not written.
      redact: {
        paths: [
          'password',
          'token',
          'accessToken',
          'apiKey',
          'secret',
          'authorization',
          '*.password',
          '*.authorization',
        ],
        censor: '[redacted]',
      },
    },
    destination,
  );
}
