// JSON logs (pino), each line with the request id of the request it was written for. Nothing secret is ever passed
// to the logger: no tokens, passwords, keys, request bodies or query strings.
import { isSpanContextValid, trace } from '@opentelemetry/api';
import { type DestinationStream, type Logger, pino, symbols } from 'pino';
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
        // Within a traced request or delivery, the trace it belongs to (docs/observability.md "Traces").
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

/**
 * Writes text for a person (the start-up banner) on the log's own stream, after every log line written before it:
 * pino writes asynchronously, so a console.log would overtake the lines still queued (the migrations applied).
 */
export function writeAfterLogs(logger: Logger, text: string): void {
  const stream = (logger as unknown as Record<symbol, DestinationStream | undefined>)[symbols.streamSym];
  if (stream) stream.write(text);
  else process.stdout.write(text);
}
