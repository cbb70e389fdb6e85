// The call-status callback signature of the common telephony providers: base64(HMAC-SHA1(auth token,
// full URL + every POST parameter's name and value, in parameter-name order)).
import { createHmac, timingSafeEqual } from 'node:crypto';

export function telephonySignature(authToken: string, url: string, params: Record<string, string>): string {
  const payload = Object.keys(params)
    .sort()
    .reduce((data, name) => data + name + params[name], url);
  return createHmac('sha1', authToken).update(payload, 'utf8').digest('base64');
}

/** Constant-time comparison; a missing or malformed signature is simply not valid. */
export function verifyTelephonySignature(
  authToken: string,
  url: string,
  params: Record<string, string>,
  signature: string | null | undefined,
): boolean {
  if (!signature) return false;
  const expected = Buffer.from(telephonySignature(authToken, url, params));
  const given = Buffer.from(signature);
  return given.length === expected.length && timingSafeEqual(given, expected);
}
