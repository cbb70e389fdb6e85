// Limits on the shape of JSON a client sends (docs/limits.md): nesting at most 64 levels deep (REST bodies, GraphQL
// bodies, variables and JSON scalars), in GraphQL variables no list longer than 1000 items, and in REST and MCP bodies,
// GraphQL variables and extensions at most 10 000 object keys and list items together. The checks are iterative, so a
// hostile document cannot overflow the stack of the code that measures it; they stop at the limit they find passed,
// and they run before any recursive code (graphql-js's coercion, jsonc-parser's error reporting, zod) sees the value.

export const MAX_JSON_DEPTH = 64;
export const MAX_LIST_LENGTH = 1000;
/**
 * Object keys and list items, counted together, in one REST or MCP body, or in GraphQL variables or extensions: the
 * largest legitimate input (100 representations, 50 participants, a social delivery of 1000 messages is a raw body)
 * holds a few thousand; walking, coercing or validating 100 000 costs the shared event loop a good part of a second.
 */
export const MAX_JSON_VALUES = 10_000;

export interface ShapeLimits {
  maxDepth?: number;
  /** Longest array allowed anywhere in the value; unlimited when unset. */
  maxListLength?: number;
  /** Most object keys and list items, counted together, in the whole value; unlimited when unset. */
  maxValues?: number;
}

/** What is wrong with a value's shape, as a sentence, or null when it is within the limits. */
export function jsonShapeProblem(value: unknown, limits: ShapeLimits = {}): string | null {
  const maxDepth = limits.maxDepth ?? MAX_JSON_DEPTH;
  const maxList = limits.maxListLength ?? Infinity;
  const maxValues = limits.maxValues ?? Infinity;
  let values = 0;
  const pending: Array<[unknown, number]> = [[value, 0]];
  for (let next = pending.pop(); next; next = pending.pop()) {
    const [item, depth] = next;
    if (item === null || typeof item !== 'object') continue;
    if (depth >= maxDepth) return `JSON is nested deeper than ${maxDepth} levels`;
    const children = Array.isArray(item) ? item : Object.values(item);
    if (Array.isArray(item) && item.length > maxList)
      return `a list has ${item.length} items; at most ${maxList} are allowed`;
    values += children.length;
    if (values > maxValues) return `more than ${maxValues} object keys and list items in all`;
    for (const child of children) if (child !== null && typeof child === 'object') pending.push([child, depth + 1]);
  }
  return null;
}

/**
 * Whether a JSON body nests deeper than `maxDepth`, read as UTF-8 bytes without parsing it (so also for a body that is
 * not valid JSON; the brackets and quotes it reads are ASCII, as in jsonValuesOverAt): brackets inside strings do not
 * count. Returns the byte offset where the limit was crossed, or -1.
 */
export function jsonTooDeepAt(bytes: Uint8Array, maxDepth = MAX_JSON_DEPTH): number {
  let depth = 0;
  for (let index = 0; index < bytes.length; index++) {
    const code = bytes[index];
    if (code === 0x22 /* " */) {
      index = closingQuoteAt(bytes, index);
      if (index < 0) return -1;
    } else if (code === 0x5b /* [ */ || code === 0x7b /* { */) {
      if (++depth > maxDepth) return index;
    } else if (code === 0x5d /* ] */ || code === 0x7d /* } */) {
      depth--;
    }
  }
  return -1;
}

/**
 * Whether a JSON body holds more than `maxValues` object keys and list items, read as UTF-8 bytes before it is decoded
 * or parsed (so also for a body that is not valid JSON): a key per `:`, an item per `,` inside a list and one more per
 * `[`, so the count never falls short of the parsed value's; brackets, colons and commas inside strings do not count.
 * Every byte that counts (quotes, brackets, colons, commas, the backslash) is ASCII, and no byte of a multi-byte
 * character is below 0x80, so the count is the decoded text's — without decoding (and copying) a body of 60 000 keys
 * only to refuse it. Strings are skipped with `indexOf` (native). Returns the byte offset where the limit was passed,
 * or -1.
 */
export function jsonValuesOverAt(bytes: Uint8Array, maxValues = MAX_JSON_VALUES): number {
  let count = 0;
  // Whether each open container is a list (only commas inside lists separate items; in objects the colons count).
  const lists: boolean[] = [];
  for (let index = 0; index < bytes.length; index++) {
    const code = bytes[index];
    let counts = false;
    if (code === 0x22 /* " */) {
      index = closingQuoteAt(bytes, index);
      if (index < 0) return -1;
      continue;
    }
    if (code === 0x7b /* { */) lists.push(false);
    else if (code === 0x5b /* [ */) {
      lists.push(true);
      counts = true;
    } else if (code === 0x7d /* } */ || code === 0x5d /* ] */) lists.pop();
    else if (code === 0x3a /* : */) counts = true;
    else if (code === 0x2c /* , */) counts = lists.at(-1) === true;
    if (counts && ++count > maxValues) return index;
  }
  return -1;
}

/** The offset of the quote that closes the string opened at `open` (one not escaped by an odd run of `\`), or -1. */
function closingQuoteAt(bytes: Uint8Array, open: number): number {
  for (let quote = bytes.indexOf(0x22, open + 1); quote >= 0; quote = bytes.indexOf(0x22, quote + 1)) {
    let backslashes = 0;
    while (bytes[quote - 1 - backslashes] === 0x5c /* \ */) backslashes++;
    if (backslashes % 2 === 0) return quote;
  }
  return -1;
}
