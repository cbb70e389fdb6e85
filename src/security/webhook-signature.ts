// Standard Webhooks signing (https://www.standardwebhooks.com, docs/decisions.md §9): the secret is `whsec_` + base64 of
// 32 random bytes, the HMAC key is its decoded part, and the signature covers `${id}.${timestamp}.${body}`.
import { createHmac, randomBytes } from 'node:crypto';

const PREFIX = 'whsec_';

export function newWebhookSecret(): string {
  return PREFIX + randomBytes(32).toString('base64');
}

/** The `webhook-signature` header value: `v1,` + base64 HMAC-SHA256. */
export function signWebhook(secret: string, id: string, timestamp: number, body: string): string {
  const key = Buffer.from(secret.startsWith(PREFIX) ? secret.slice(PREFIX.length) : secret, 'base64');
  const digest = createHmac('sha256', key).update(`${id}.${timestamp}.${body}`).digest('base64');
  return `v1,${digest}`;
}
