// The social channel's webhook signature (Meta-style X-Hub-Signature-256): "sha256=" + hex(HMAC-SHA256(app
// secret, raw request body)). Verified over the bytes as received, never over re-serialised JSON.
import { createHmac, timingSafeEqual } from 'node:crypto';

export function hubSignature(appSecret: string, rawBody: string | Buffer): string {
  return `sha256=${createHmac('sha256', appSecret).update(rawBody).digest('hex')}`;
}

export function verifyHubSignature(appSecret: string, rawBody: string | Buffer, signature: string | null | undefined) {
  if (!signature) return false;
  const expected = Buffer.from(hubSignature(appSecret, rawBody));
  const given = Buffer.from(signature.trim().toLowerCase());
  return given.length === expected.length && timingSafeEqual(given, expected);
}

/** Constant-time equality of two secrets of any length (the verify-token handshake). */
export function secretsEqual(a: string, b: string): boolean {
  const left = createHmac('sha256', 'compare').update(a).digest();
  const right = createHmac('sha256', 'compare').update(b).digest();
  return timingSafeEqual(left, right);
}
