// Captures an app's JSON log lines (pass `stream` as StartOptions.logStream with LOG_LEVEL set).
import { Writable } from 'node:stream';

export interface LogLine {
  level: number;
  msg: string;
  requestId?: string;
  err?: { stack?: string };
  [key: string]: unknown;
}

export function logCapture(): { stream: Writable; lines: LogLine[] } {
  const lines: LogLine[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const line of chunk.toString().split('\n').filter(Boolean)) lines.push(JSON.parse(line) as LogLine);
      done();
    },
  });
  return { stream, lines };
}
