// Reading `application/x-www-form-urlencoded` bodies with a cap on the number of fields (docs/limits.md), shared by
// every door that reads forms: the fields are counted by a scan of the bytes that stops at the cap, before
// URLSearchParams builds anything, so a 1 MiB form of 100 000 fields costs a millisecond to refuse, not seconds.

import { decodeBody } from '../core/body-text.js';

/** The most fields a form may hold (Starlette's own default `max_fields`); a route may ask for fewer. */
export const MAX_FORM_FIELDS = 1000;

export type FormRead = { ok: true; fields: URLSearchParams } | { ok: false; limit: number };

/**
 * Whether a form holds more than `max` fields: non-empty `&`-separated pieces, as URLSearchParams counts them
 * (`a=1&&b=2` is two). Read as bytes, before the body is decoded (`&` is ASCII, and no byte of a multi-byte character
 * is); stops as soon as the cap is passed.
 */
export function formFieldsOver(body: Uint8Array, max: number): boolean {
  let count = 0;
  let start = 0;
  while (start <= body.length) {
    let end = body.indexOf(0x26 /* & */, start);
    if (end < 0) end = body.length;
    if (end > start && ++count > max) return true;
    start = end + 1;
  }
  return false;
}

/** The form's fields, or the cap it passed (nothing of the input is kept for the refusal). */
export function readFormFields(body: Uint8Array, max = MAX_FORM_FIELDS): FormRead {
  if (formFieldsOver(body, max)) return { ok: false, limit: max };
  return { ok: true, fields: new URLSearchParams(decodeBody(body)) };
}

/** The sentence a refusal names the cap with. */
export const tooManyFormFields = (limit: number) => `A form may hold at most ${limit} fields`;
