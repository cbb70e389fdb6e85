// Long answers serialised in pieces (docs/limits.md "Work budget"; issue 52). An answer holding megabytes of long text
// (a page of transcripts: up to MAX_ANSWER_TEXT_CHARACTERS) took one JSON.stringify of 10–17 ms, during which every
// other tenant's request waited: the victim's p99 doubled behind such answers though their account paid for them.
// Here the answer's shape is serialised at once with each long text left as a token, and the long texts one at a
// time, the event loop free between them; each piece is timed as the request's own work (timedWork). The text is the
// one JSON.stringify gives (a test compares them).
import { randomBytes } from 'node:crypto';
import { yieldToLoop } from '../../core/event-loop.js';
import { timedWork } from '../../core/request-context.js';

/** Characters of long text (answerTextNoted) from which an answer is serialised in pieces. */
export const LONG_ANSWER_TEXT = 512 * 1024;
/** A string at least this long is serialised on its own, between yields. */
export const LONG_STRING = 16 * 1024;
/** The loop is given back once this many characters have been serialised since it last was. */
const PIECE_CHARACTERS = 256 * 1024;

/** A token that no text holds: a NUL, this process's nonce and the text's index (JSON escapes the NULs). */
const NONCE = randomBytes(12).toString('hex');
const tokenOf = (index: number) => `\u0000${NONCE}:${index}\u0000`;
const TOKEN_JSON = new RegExp(`"\\\\u0000${NONCE}:(\\d+)\\\\u0000"`, 'g');

/** How many answers were serialised in pieces since the process started (tests read it). */
export const longAnswerStats = { answers: 0 };

type Holder = Record<string, unknown> | unknown[];

/**
 * The JSON text of `value` (what JSON.stringify gives), built with the loop given back between long strings:
 * `yieldNow` is awaited between pieces (a test counts it).
 */
export async function stringifyInPieces(value: unknown, yieldNow: () => Promise<void> = yieldToLoop): Promise<string> {
  // The long strings, each replaced by its token while the shape is serialised (and put back at once after).
  const longs: Array<{ holder: Holder; key: string | number; text: string }> = [];
  const walk = (node: unknown) => {
    if (node === null || typeof node !== 'object') return;
    if (typeof (node as { toJSON?: unknown }).toJSON === 'function') return;
    if (Array.isArray(node)) {
      for (let i = 0; i < node.length; i++) {
        const item: unknown = node[i];
        if (typeof item === 'string' && item.length >= LONG_STRING) longs.push({ holder: node, key: i, text: item });
        else walk(item);
      }
      return;
    }
    for (const key of Object.keys(node)) {
      const item = (node as Record<string, unknown>)[key];
      if (typeof item === 'string' && item.length >= LONG_STRING) {
        longs.push({ holder: node as Record<string, unknown>, key, text: item });
      } else walk(item);
    }
  };
  let shape: string;
  timedWork(() => walk(value));
  if (longs.length === 0) return timedWork(() => JSON.stringify(value));
  longAnswerStats.answers += 1;
  try {
    timedWork(() => {
      longs.forEach((long, index) => ((long.holder as Record<string | number, unknown>)[long.key] = tokenOf(index)));
    });
    shape = timedWork(() => JSON.stringify(value));
  } finally {
    for (const long of longs) (long.holder as Record<string | number, unknown>)[long.key] = long.text;
  }
  const texts: string[] = [];
  let sinceYield = 0;
  for (const long of longs) {
    if (sinceYield >= PIECE_CHARACTERS) {
      sinceYield = 0;
      await yieldNow();
    }
    texts.push(timedWork(() => JSON.stringify(long.text)));
    sinceYield += long.text.length;
  }
  await yieldNow();
  return timedWork(() => shape.replace(TOKEN_JSON, (_, index: string) => texts[Number(index)] as string));
}

/** The JSON of `result` whose `data` is `data` already serialised; the rest (errors, extensions) where JSON.stringify puts it. */
export function withData(result: object, data: string): string {
  const token = tokenOf(-1);
  const rest = JSON.stringify({ ...result, data: token });
  const tokenJson = JSON.stringify(token);
  const at = rest.indexOf(tokenJson);
  return `${rest.slice(0, at)}${data}${rest.slice(at + tokenJson.length)}`;
}
