// Integration secrets at rest: AES-256-GCM with SECRETS_KEY, a fresh 12-byte IV per value.
// Envelope: "v1." + base64url(iv ‖ auth tag ‖ ciphertext).
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';

export interface SecretBox {
  seal(plaintext: string): string;
  /** Throws when the envelope was tampered with or sealed under another key. */
  open(envelope: string): string;
}

const VERSION = 'v1.';

export function createSecretBox(key: Buffer): SecretBox {
  if (key.length !== 32) throw new Error('SECRETS_KEY must be 32 bytes');
  return {
    seal(plaintext) {
      const iv = randomBytes(12);
      const cipher = createCipheriv('aes-256-gcm', key, iv);
      const ciphertext = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
      return VERSION + Buffer.concat([iv, cipher.getAuthTag(), ciphertext]).toString('base64url');
    },
    open(envelope) {
      if (!envelope.startsWith(VERSION)) throw new Error('unknown secret envelope');
      const raw = Buffer.from(envelope.slice(VERSION.length), 'base64url');
      // The whole 16-byte tag, always: GCM would otherwise accept a tag cut short (as short as 4 bytes).
      const decipher = createDecipheriv('aes-256-gcm', key, raw.subarray(0, 12), { authTagLength: 16 });
      decipher.setAuthTag(raw.subarray(12, 28));
      return Buffer.concat([decipher.update(raw.subarray(28)), decipher.final()]).toString('utf8');
    },
  };
}

/** How a secret is ever shown: "****" and its last 4 characters — or "****" alone when it is shorter than 8. */
export function maskSecret(secret: string): string {
  return secret.length >= 8 ? `****${secret.slice(-4)}` : '****';
}
