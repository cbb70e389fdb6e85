// JSON logs (pino), each line with the request id of the request it was written for. Nothing secret is ever passed
// to the logger: no tokens, passwords, keys, request bodies or query strings.
import { writeSync } from 'node:fs';
import { hostname } from 'node:os';
import { isSpanContextValid, trace } from '@opentelemetry/api';
import { type DestinationStream, type Level, type Logger, pino, symbols } from 'pino';
import type { Config } from './config.js';
import { currentRequestId } from './request-context.js';

export type { Logger };

const PROCESS = { pid: process.pid, hostname: hostname() };

export function createLogger(level: Config['LOG_LEVEL'], destination?: DestinationStream): Logger {
  return pino(
    {
      level,
      // Which process of which machine (or container) wrote the line, as pino's default has it.
      base: PROCESS,
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

/**
 * Whether the start-up's own lines (the banner, start-up failures, "SIGTERM: shutting down") are written for a person:
 * with LOG_FORMAT=plain, or (LOG_FORMAT=auto, the default) on a terminal. Otherwise (a container, a process manager, a
 * pipe, or LOG_FORMAT=json) every line is
 * JSON, so that a log collector parses each one (docs/configuration.md LOG_FORMAT).
 */
export function plainTextOn(stream: { isTTY?: boolean }, env: NodeJS.ProcessEnv = process.env): boolean {
  if (env.LOG_FORMAT === 'plain' || env.LOG_FORMAT === 'json') return env.LOG_FORMAT === 'plain';
  return Boolean(stream.isTTY);
}

/** One JSON line as the app writes them (pid, hostname, ISO time), for a line of the process itself. */
export function jsonLine(
  level: Extract<Level, 'info' | 'warn' | 'error' | 'fatal'>,
  message: string,
  fields: Record<string, unknown> = {},
): string {
  let text = '';
  const capture = { write: (line: string) => void (text += line) };
  pino({ base: PROCESS, timestamp: pino.stdTimeFunctions.isoTime }, capture)[level](fields, message);
  return text;
}

/**
 * A line of the process itself, outside any request and before or after the app's logger exists (a setting warned
 * about, a start-up failure, a signal): plain text for a person (plainTextOn), else one JSON line as the app writes
 * them. Written whatever LOG_LEVEL, as the banner is, and synchronously: the process may exit right after it.
 */
export function processLine(
  level: Extract<Level, 'info' | 'warn' | 'error' | 'fatal'>,
  message: string,
  fields: Record<string, unknown> = {},
): void {
  // What goes wrong to standard error, the rest to standard output, as a person's terminal has it.
  const stream = level === 'info' ? process.stdout : process.stderr;
  const bytes = Buffer.from(plainTextOn(stream) ? `${message}\n` : jsonLine(level, message, fields));
  // Whole, even to a non-blocking pipe that takes part of it or none for a moment (EAGAIN): the process may exit next.
  let written = 0;
  for (let tries = 0; written < bytes.length && tries < 1000; tries++) {
    try {
      written += writeSync(stream.fd, bytes, written);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EAGAIN') return;
    }
  }
}

/** The fields of the access line (src/http/access-line.ts), in the order they are written. */
export interface RequestLineFields {
  method: string;
  path: string;
  status: number;
  client: string;
  ms: number;
  errors: readonly string[] | null;
}

/**
 * The access line, formatted in one template (issue 55): the same bytes `logger.info({ method, path, status, client,
 * ms, errors }, 'request')` writes — pino's level and ISO time, the logger's bindings (pid, hostname: pino keeps them
 * preformatted), the mixin's request and trace ids — without pino's per-call work (the mixin's objects, the redaction
 * of paths none of these fields has, the serialisation of an object of known shape, a Date per line: the time's text
 * is reused within its millisecond). test/http/access-line-format.test.ts holds it to pino's own line.
 */
export function requestLineWriter(logger: Logger): (fields: RequestLineFields) => void {
  const internals = logger as unknown as Record<symbol, unknown>;
  const stream = internals[symbols.streamSym] as DestinationStream | undefined;
  const bindings = internals[symbols.chindingsSym];
  const level = logger.levels.values.info;
  if (!stream || typeof bindings !== 'string' || level === undefined) {
    return ({ errors, ...fields }) => logger.info({ ...fields, ...(errors ? { errors } : {}) }, 'request');
  }
  let second = -1;
  let secondText = '';
  return ({ method, path, status, client, ms, errors }) => {
    if (!logger.isLevelEnabled('info')) return;
    const now = Date.now();
    // "2026-12-03T00:45:21.747Z": the text up to the second changes once a second, the milliseconds every line.
    const thisSecond = Math.floor(now / 1000);
    if (thisSecond !== second) {
      second = thisSecond;
      secondText = new Date(thisSecond * 1000).toISOString().slice(0, 20);
    }
    const millis = String(now - thisSecond * 1000).padStart(3, '0');
    const requestId = currentRequestId();
    const span = trace.getActiveSpan()?.spanContext();
    const traced = span && isSpanContextValid(span) ? `,"trace_id":"${span.traceId}","span_id":"${span.spanId}"` : '';
    stream.write(
      `{"level":${level},"time":"${secondText}${millis}Z"${bindings}` +
        `${requestId ? `,"requestId":${JSON.stringify(requestId)}${traced}` : traced}` +
        `,"method":${JSON.stringify(method)},"path":${JSON.stringify(path)},"status":${status}` +
        `,"client":${JSON.stringify(client)},"ms":${ms}` +
        `${errors ? `,"errors":${JSON.stringify(errors)}` : ''},"msg":"request"}\n`,
    );
  };
}
