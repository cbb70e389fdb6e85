// JSON logs (pino). Nothing secret is ever passed to the logger: no tokens, passwords, keys or request bodies.
import { type Logger, pino } from 'pino';
import type { Config } from './config.js';

export type { Logger };

export function createLogger(level: Config['LOG_LEVEL']): Logger {
  return pino({ level, base: undefined, timestamp: pino.stdTimeFunctions.isoTime });
}
