// What a string pattern of a tool's input asks for, in words (issue 53, item 3): an agent told `String should match
// pattern '^[A-Za-z]{2,3}(-[A-Za-z0-9]{1,8})*$'` must read a regular expression to fix its call; told "a language tag
// such as "en-US"" it need not. Every pattern of the tools' input schemas has its words here (test/mcp/
// tool-arguments.test.ts walks them all); REST keeps pydantic's own message (the legacy contract), GraphQL the
// server's.

/** Patterns known by their source, and what they ask for. */
const KNOWN: Array<[RegExp, (match: RegExpExecArray) => string]> = [
  [/^\^\[A-Za-z0-9_-\]\{1,(\d+)\}\$$/, (m) => `1 to ${m[1]} letters, digits, '_' or '-' (no spaces)`],
  // A trimmed text of bounded length: `^\s*\S(?:[\s\S]{0,N}\S)?\s*$`.
  [
    /^\^\\s\*\\S\(\?:\[\\s\\S\]\{0,(\d+)\}\\S\)\?\\s\*\$$/,
    (m) => `a text of 1 to ${Number(m[1]) + 2} characters once spaces around it are trimmed (not only spaces)`,
  ],
  [/^\^\[A-Za-z\]\{2,3\}\(-\[A-Za-z0-9\]\{1,8\}\)\*\$$/, () => 'a language tag such as "en-US" or "pt-BR"'],
  [/^\^\[A-Za-z\]\[A-Za-z0-9_\+-\]\*/, () => 'an IANA time zone such as "Europe/Lisbon" or "UTC" (not a UTC offset)'],
  [/^\^\\\+\[1-9\]\\d\{1,14\}\$$/, () => 'a phone number in E.164 form, such as "+14155550100"'],
  [/^\^\\d\{4\}-/, () => 'a date and time in RFC 3339 form with its offset, such as "2026-03-01T09:30:00Z"'],
  [/@\(\?:/, () => 'an e-mail address such as "name@example.com"'],
  [
    /^\^\\s\*(?:\(\?:)?\[Hh\]\[Tt\]\[Tt\]\[Pp\]/,
    () => 'an http(s) URL with a host, such as "https://example.com/hook"',
  ],
  [/^\^\[\\x21-\\x7e\]\{1,(\d+)\}\$$/, (m) => `1 to ${m[1]} printable ASCII characters (no spaces)`],
  [
    /^\^\[A-Za-z_\]\[A-Za-z0-9_\]\{0,(\d+)\}\$$/,
    (m) => `a name of 1 to ${Number(m[1]) + 1} letters, digits or '_', not starting with a digit`,
  ],
];

/** What `pattern` asks for, in words; null for a pattern no tool uses (the caller then says what it can). */
export function patternInWords(pattern: string): string | null {
  for (const [shape, words] of KNOWN) {
    const match = shape.exec(pattern);
    if (match) return words(match);
  }
  return null;
}

/** The message of a value that does not match `pattern`: what is wanted, never the expression itself. */
export function patternMismatchMessage(pattern: string, description?: string): string {
  const words = patternInWords(pattern);
  if (words) return `Input should be ${words}`;
  return description ? `Input should be as described: ${description}` : 'Input is not in the form this argument takes';
}

const RAW = /String should match pattern '((?:[^']|'(?!(?:[;,)]|$)))*)'/g;

/** A server's message (pydantic's words, which quote the expression) with every pattern said in words. */
export const patternsInWords = (message: string): string =>
  message.replace(RAW, (_whole, pattern: string) => patternMismatchMessage(pattern));
