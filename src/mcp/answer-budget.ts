// Every tool answer fits an agent's context (docs/mcp.md "Answer sizes"): at most MCP_ANSWER_MAX_KB (64 KiB) on the
// wire, both copies of the data counted (structured content and its text copy). An answer over the budget is fitted,
// in this order:
//   1. its long texts (a campaign's script, prompt…, a call's summary and transcript) are cut, all to one length, the
//      longest that fits (at least CUT_FLOOR characters), each ending with a marker that says how much was shown and
//      the text_read arguments that read on (src/mcp/text-tool.ts);
//   2. a list page that still does not fit loses rows from its end: `pageInfo.hasNextPage` becomes true and
//      `endCursor` the cursor of the last row kept, so the next page starts where this one stopped (the operations
//      select each edge's cursor as `_mcpCursor` for this; it never reaches the answer);
//   3. what still does not fit is refused (BAD_USER_INPUT), saying what to ask for instead.

/** Selections aliased with this prefix serve the door only: left out of the output schema and of the answer. */
export const INTERNAL_ALIAS_PREFIX = '_mcp';
/** A text is never cut shorter than this many characters (rows are dropped from a page first). */
export const CUT_FLOOR = 500;
/** What a tool answer's JSON-RPC envelope adds around the data (id, result, content array, structuredContent keys). */
const ENVELOPE_BYTES = 160;

/**
 * What the wire adds to an answer beyond ENVELOPE_BYTES, for one request: its JSON-RPC id as the client chose it (any
 * string: a 2 000-character id took 2 KB of a 64 KiB answer), the 2026-07-28 revision's `resultType` and `_meta`
 * (the server's name and version), and an SSE event's framing (`event: message`, `data: `, the blank line). Counted
 * for every answer, whatever its revision and content type: a few hundred bytes of the budget, never over it.
 */
export function wireAllowance(id: unknown, serverInfo: { name: string; version: string }): number {
  const modern = JSON.stringify({
    resultType: 'complete',
    _meta: { 'io.modelcontextprotocol/serverInfo': serverInfo },
  });
  const sseFraming = 'event: message\nid: \ndata: \n\n'.length + 64;
  return Buffer.byteLength(JSON.stringify(id ?? null)) + Buffer.byteLength(modern) + sseFraming;
}

/** The long texts of the records tools answer, by the kind of record (text_read reads them in pieces). */
export const LONG_TEXTS = {
  campaign: ['description', 'purpose', 'script', 'systemPrompt', 'firstLine', 'knowledgeBase', 'calendar'],
  callLog: ['summary', 'transcript'],
} as const;
export type TextSource = keyof typeof LONG_TEXTS;

export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
export type JsonObject = { [key: string]: Json };

/** What an answer whose data is `text` (as JSON) weighs on the wire: the structured content, and the text copy. */
const textBytes = (text: string): number =>
  Buffer.byteLength(text) + Buffer.byteLength(JSON.stringify(text)) + ENVELOPE_BYTES;

/** What an answer carrying `data` weighs on the wire: the structured content, and its text copy as a JSON string. */
export const answerBytes = (data: unknown): number => textBytes(JSON.stringify(data));

/** A text's name as text_read takes it (SYSTEM_PROMPT), from its field's (systemPrompt): an enum value, as elsewhere. */
export const textFieldName = (field: string): string => field.replace(/([a-z])([A-Z])/g, '$1_$2').toUpperCase();

interface LongText {
  holder: JsonObject;
  key: string;
  full: string;
  source: TextSource;
  id: string;
}

export const isObject = (value: unknown): value is JsonObject =>
  value !== null && typeof value === 'object' && !Array.isArray(value);

/** The record kind and id of an object holding long texts (a call log has a callId; a campaign a campId). */
function sourceOf(holder: JsonObject): { source: TextSource; id: string } | undefined {
  if (typeof holder.callId === 'string') return { source: 'callLog', id: holder.callId };
  if (typeof holder.campId === 'string') return { source: 'campaign', id: holder.campId };
  return undefined;
}

function longTexts(value: Json, found: LongText[] = []): LongText[] {
  if (Array.isArray(value)) {
    for (const item of value) longTexts(item, found);
  } else if (isObject(value)) {
    const source = sourceOf(value);
    for (const [key, child] of Object.entries(value)) {
      if (
        source &&
        typeof child === 'string' &&
        child.length > CUT_FLOOR &&
        (LONG_TEXTS[source.source] as readonly string[]).includes(key)
      ) {
        found.push({ holder: value, key, full: child, ...source });
      } else longTexts(child, found);
    }
  }
  return found;
}

/** `text` cut to at most `length` UTF-16 code units, never through a surrogate pair. */
export function cutText(text: string, length: number): string {
  if (text.length <= length) return text;
  return text.slice(0, isHighSurrogate(text.charCodeAt(length - 1)) ? length - 1 : length);
}

/** The first and the second UTF-16 unit of a surrogate pair (a character outside the BMP: an emoji). */
export const isHighSurrogate = (code: number): boolean => code >= 0xd800 && code <= 0xdbff;
export const isLowSurrogate = (code: number): boolean => code >= 0xdc00 && code <= 0xdfff;

/** The marker that ends a cut text: how much is shown and how to read on. */
export function cutMarker(shown: number, total: number, id: string, field: string): string {
  const args = JSON.stringify({ id, field: textFieldName(field), offset: shown });
  return `\n…[cut: ${shown} of ${total} characters shown; read on with text_read ${args}]`;
}

function applyCut(texts: LongText[], limit: number): void {
  for (const text of texts) {
    if (text.full.length <= limit) text.holder[text.key] = text.full;
    else {
      const shown = cutText(text.full, limit);
      text.holder[text.key] = shown + cutMarker(shown.length, text.full.length, text.id, text.key);
    }
  }
}

/**
 * The longest length L such that the texts cut to L hold at most `budget` characters together (each counts at least
 * a byte a character on the wire): no longer cut can fit, so no trial need serialise more than the budget of text.
 */
function longestCommonLength(texts: LongText[], budget: number): number {
  const lengths = texts.map((text) => text.full.length).sort((a, b) => a - b);
  let used = 0;
  for (let index = 0; index < lengths.length; index++) {
    const length = lengths[index]!;
    const rest = lengths.length - index;
    // Every text from here on is at least `length` long: cut to L ≥ length they hold used + rest × L.
    if (used + rest * length > budget) return Math.floor((budget - used) / rest);
    used += length;
  }
  return lengths.at(-1) ?? 0;
}

/**
 * Cuts the texts to the longest common length that fits (at least CUT_FLOOR); whether the answer fits then. No text
 * is tried longer than the whole budget, so no trial serialises much more than the answer could hold.
 */
function fitTexts(data: Json, texts: LongText[], budget: number): boolean {
  if (texts.length === 0) return answerBytes(data) <= budget;
  let low = CUT_FLOOR;
  let high = Math.max(low, longestCommonLength(texts, budget));
  applyCut(texts, low);
  if (answerBytes(data) > budget) return false;
  // The largest limit that fits, to within 2 % (each trial serialises the answer once).
  while (high - low > Math.max(16, low * 0.02)) {
    const middle = Math.floor((low + high) / 2);
    applyCut(texts, middle);
    if (answerBytes(data) <= budget) low = middle;
    else high = middle;
  }
  applyCut(texts, low);
  return true;
}

interface Connection {
  edges: Json[];
  pageInfo: JsonObject;
}

function connections(value: Json, found: Connection[] = []): Connection[] {
  if (Array.isArray(value)) for (const item of value) connections(item, found);
  else if (isObject(value)) {
    if (Array.isArray(value.edges) && isObject(value.pageInfo)) {
      found.push({ edges: value.edges, pageInfo: value.pageInfo });
    }
    for (const child of Object.values(value)) connections(child, found);
  }
  return found;
}

/** A copy of the arrays and objects of `value`; strings and other values are shared. */
function copyJson(value: Json): Json {
  if (Array.isArray(value)) return value.map(copyJson);
  if (!isObject(value)) return value;
  const copy: JsonObject = {};
  for (const [key, child] of Object.entries(value)) copy[key] = copyJson(child);
  return copy;
}

/** Whether `holder` is `value` or inside it. */
function contains(value: Json, holder: JsonObject): boolean {
  if (value === holder) return true;
  if (Array.isArray(value)) return value.some((item) => contains(item, holder));
  return isObject(value) && Object.values(value).some((child) => contains(child, holder));
}

/**
 * What the answer carries: the door's own selections left out, and — for the named tools — the fields that are null
 * below the root (their output schemas have no null type: a field without a value is absent). A root field keeps its
 * null ("not found"), and a list keeps its null items (their place matters).
 */
function withoutInternal(value: Json, omitNulls: boolean, root = true): Json {
  if (Array.isArray(value)) return value.map((item) => withoutInternal(item, omitNulls, false));
  if (!isObject(value)) return value;
  const kept: JsonObject = {};
  for (const [key, child] of Object.entries(value)) {
    if (key.startsWith(INTERNAL_ALIAS_PREFIX) || (omitNulls && !root && child === null)) continue;
    kept[key] = withoutInternal(child, omitNulls, false);
  }
  return kept;
}

/** A fitted answer: its data, and the data as JSON text (its text copy, serialised once). */
export interface FittedAnswer {
  data: Record<string, unknown>;
  text: string;
}

const answered = (data: JsonObject, text = JSON.stringify(data)): FittedAnswer => ({ data, text });

/** The data of a tool answer fitted to `budget` bytes on the wire, or why it cannot be. */
export function fitAnswer(
  data: unknown,
  budget: number,
  { omitNulls = true }: { omitNulls?: boolean } = {},
): FittedAnswer | { refusal: string } {
  // A copy of the objects (the strings are shared, not copied: a page of 100 transcripts is 50 MB of them), whose
  // long texts can be cut without touching the execution's result.
  const working = copyJson((data ?? {}) as Json) as JsonObject;
  let texts = longTexts(working);
  // Texts that hold more than the whole budget together cannot all be shown whole: then the answer as it is is not
  // even measured (a page of 100 transcripts is 50 MB), and the texts are cut first.
  const whole = longestCommonLength(texts, budget) >= Math.max(0, ...texts.map((text) => text.full.length));
  if (whole) {
    const fitted = withoutInternal(working, omitNulls) as JsonObject;
    const text = JSON.stringify(fitted);
    if (textBytes(text) <= budget) return answered(fitted, text);
  }
  // The internal cursors are needed to cut a page: work on the copy that has them (measured with them: a few dozen
  // bytes a row more than the answer will weigh).
  if (fitTexts(working, texts, budget)) return answered(withoutInternal(working, omitNulls) as JsonObject);
  const [page] = connections(working);
  if (page && page.edges.length > 1) {
    applyCut(texts, CUT_FLOOR);
    const all = [...page.edges];
    const fits = (count: number) => {
      page.edges.splice(0, page.edges.length, ...all.slice(0, count));
      return answerBytes(working) <= budget;
    };
    // The most rows that fit with their texts at the floor (at least one).
    let low = 0;
    let high = all.length;
    while (high - low > 1) {
      const middle = Math.floor((low + high) / 2);
      if (fits(middle)) low = middle;
      else high = middle;
    }
    if (low >= 1) {
      fits(low);
      const last = page.edges[low - 1];
      const cursor = isObject(last) ? last[`${INTERNAL_ALIAS_PREFIX}Cursor`] : undefined;
      if (typeof cursor === 'string') {
        page.pageInfo.hasNextPage = true;
        page.pageInfo.endCursor = cursor;
        // The rows kept get what room is left for their texts.
        texts = texts.filter((text) => page.edges.some((edge) => contains(edge, text.holder)));
        if (fitTexts(working, texts, budget)) return answered(withoutInternal(working, omitNulls) as JsonObject);
      }
    }
  }
  const kilobytes = Math.ceil(budget / 1024);
  return {
    refusal:
      `The answer does not fit in the ${kilobytes} KB a tool answers, even with its long texts cut to ` +
      `${CUT_FLOOR} characters: ask for less — fewer items (first), a shorter span or a longer bucket (call_stats) — ` +
      'or leave out the long texts (withTexts: false)',
  };
}
