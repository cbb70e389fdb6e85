// Telephony fixtures: connect an account's telephony, and post call-status callbacks signed as a provider would.
import { createHmac } from 'node:crypto';
import type { Reply, TestApp } from './app.js';

export const AUTH_TOKEN = 'test-auth-token-0123456789abcdef';

export async function connectTelephony(t: TestApp, token: string, authToken = AUTH_TOKEN): Promise<Reply<any>> {
  const reply = await t.rest('POST', '/update_telephony', {
    token,
    body: { telephonyAccountSid: 'AC0123456789', telephonyAuthToken: authToken, telephonyPhoneNumber: '+14155550100' },
  });
  if (reply.status !== 200) throw new Error(`update_telephony failed: ${reply.text}`);
  return reply;
}

/** The provider's scheme, written out here independently of src/: base64(HMAC-SHA1(token, url + sorted name+value)). */
export function sign(authToken: string, url: string, params: Record<string, string>): string {
  const data = Object.keys(params)
    .sort()
    .reduce((acc, name) => acc + name + params[name], url);
  return createHmac('sha1', authToken).update(data).digest('base64');
}

/** POSTs a form-encoded callback to /api/v3/telephony_webhook/{apiKey}/{campId}, signed unless `signature` is given. */
export function sendCallback(
  t: TestApp,
  apiKey: string,
  campId: string,
  params: Record<string, string>,
  options: { signature?: string | null; authToken?: string } = {},
): Promise<Reply<any>> {
  const path = `/api/v3/telephony_webhook/${encodeURIComponent(apiKey)}/${encodeURIComponent(campId)}`;
  const signature =
    options.signature === undefined
      ? sign(options.authToken ?? AUTH_TOKEN, `http://127.0.0.1${path}`, params)
      : options.signature;
  const headers: Record<string, string> = { 'content-type': 'application/x-www-form-urlencoded' };
  if (signature !== null) headers['x-telephony-signature'] = signature;
  return t.request('POST', path, { raw: new URLSearchParams(params).toString(), headers });
}

/** A reply as the budget tests read it: its status, its Retry-After and its text. */
export interface CallbackReply {
  status: number;
  retryAfter: string | null;
  text: string;
}

/**
 * A signed (with AUTH_TOKEN) call-status callback, as sendCallback sends it, but from the client address `address`,
 * so that the per-address limits see a provider's shared egress address.
 */
export async function sendCallbackFrom(
  t: TestApp,
  address: string,
  apiKey: string,
  campId: string,
  params: Record<string, string>,
): Promise<CallbackReply> {
  const path = `/api/v3/telephony_webhook/${encodeURIComponent(apiKey)}/${encodeURIComponent(campId)}`;
  const response = await t.app.fetch(
    new Request(`http://127.0.0.1${path}`, {
      method: 'POST',
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        'x-telephony-signature': sign(AUTH_TOKEN, `http://127.0.0.1${path}`, params),
      },
      body: new URLSearchParams(params).toString(),
    }),
    { address },
  );
  const text = await response.text();
  return { status: response.status, retryAfter: response.headers.get('retry-after'), text };
}
