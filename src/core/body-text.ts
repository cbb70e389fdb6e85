// A request body read as bytes (`request.bytes()`: the doors count keys, fields and nesting on the bytes before they
// decode anything: src/validation/json-limits.ts, form-fields.ts), then as text.
const utf8 = new TextDecoder();

/** Bytes read as text as fetch's `Request.text()` reads them: UTF-8, a leading BOM dropped, bad bytes replaced. */
export const decodeBody = (bytes: Uint8Array): string => utf8.decode(bytes);
