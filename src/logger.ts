// JSON logs (pino), each line with the request id of the request it was written for. Nothing secret is ever passed
// to the logger: no tokens, passwords, keys, request bodies or query strings.
import { type DestinationStream, type Logger, pino } from 'pino';
import type { Config } from './config.js';
import { currentRequestId } from './http/request-context.js';

export type { Logger };

export function createLogger(level: Config['LOG_LEVEL'], destination?: DestinationStream): Logger {
  return pino(
    {
      level,
      base: undefined,
      timestamp: pino.stdTimeFunctions.isoTime,
      mixin: () => {
        const requestId = currentRequestId();
        return requestId ? { requestId } : {};
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
