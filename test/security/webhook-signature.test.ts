// Standard Webhooks signing (src/security/webhook-signature.ts), checked with the reference library
// (`standardwebhooks`), not with our own code: a receiver using it accepts exactly what we sign.
import { Webhook as StandardWebhook } from 'standardwebhooks';
import { describe, expect, it } from 'vitest';
import { newWebhookSecret, signWebhook } from '../../src/security/webhook-signature.js';

const headers = (id: string, timestamp: number, signature: string) => ({
  'webhook-id': id,
  'webhook-timestamp': String(timestamp),
  'webhook-signature': signature,
});

describe('newWebhookSecret', () => {
  it('is whsec_ and the base64 of 32 random bytes', () => {
    const secret = newWebhookSecret();
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(Buffer.from(secret.slice('whsec_'.length), 'base64')).toHaveLength(32);
    expect(newWebhookSecret()).not.toBe(secret);
  });
});

describe('signWebhook', () => {
  const now = Math.floor(Date.now() / 1000);
  const body = JSON.stringify({ type: 'call.completed', data: { callId: 'c1', note: 'café' } });

  it('is a v1 signature the reference library verifies, with the secret with or without its prefix', () => {
    const secret = newWebhookSecret();
    const signature = signWebhook(secret, 'msg_1', now, body);
    expect(signature).toMatch(/^v1,[A-Za-z0-9+/]{43}=$/);
    expect(new StandardWebhook(secret).verify(body, headers('msg_1', now, signature))).toEqual(JSON.parse(body));
    const bare = secret.slice('whsec_'.length);
    expect(signWebhook(bare, 'msg_1', now, body)).toBe(signature);
  });

  it('covers the id, the timestamp and the body (and the key is the decoded secret)', () => {
    const secret = newWebhookSecret();
    const signature = signWebhook(secret, 'msg_1', now, body);
    const verifier = new StandardWebhook(secret);
    expect(() => verifier.verify(body, headers('msg_2', now, signature))).toThrow();
    expect(() => verifier.verify(body, headers('msg_1', now + 1, signature))).toThrow();
    expect(() => verifier.verify(`${body} `, headers('msg_1', now, signature))).toThrow();
    expect(() => new StandardWebhook(newWebhookSecret()).verify(body, headers('msg_1', now, signature))).toThrow();
  });
});
