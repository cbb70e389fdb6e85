// Client-supplied text as it may be shown to a person (a token's name, the consent page): nothing in it can change how
// the text around it reads. A registered `client_name` holding U+202E (right-to-left override) read as another
// agent's name on the consent page (issue 53).

/**
 * Control and format characters (zero-width spaces, bidi overrides and isolates…) and line separators become spaces,
 * lone surrogates are dropped, runs of white space become one space, and the ends are trimmed.
 */
export const plainText = (text: string | undefined): string =>
  (text ?? '')
    .replace(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g, '')
    .replace(/[\p{Cc}\p{Cf}\p{Zl}\p{Zp}]/gu, ' ')
    .replace(/\s+/gu, ' ')
    .trim();
