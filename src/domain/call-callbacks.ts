// Call-status callbacks from the telephony provider (docs/decisions.md §7): identified by the account's API key in the
// path, verified by the provider's signature with the stored auth token, then applied to the call log.
import type { Kysely } from 'kysely';
import type { Database } from '../db/types.js';
import type { SecretBox } from '../security/secrets.js';
import { verifyTelephonySignature } from '../security/telephony-signature.js';
import { issuesFromZod } from '../validation/issues.js';
import { findAccountByApiKey } from './accounts.js';
import { applyCallStatus } from './call-logs.js';
import { callbackParamsSchema } from './call-logs.schema.js';
import { requireCampaign } from './campaigns.js';
import { badInput, forbidden } from '../core/errors.js';
import { readIntegrationSecrets } from './integrations.js';
import { telephony } from './integrations.schema.js';

export interface CallStatusCallback {
  apiKey: string;
  campId: string;
  /** The URL the provider called, as it saw it (PUBLIC_BASE_URL behind a proxy). */
  url: string;
  params: Record<string, string>;
  signature?: string | null | undefined;
}

/**
 * Whether `url` is the callback URL of this key and campaign: its path ends in /telephony_webhook/{apiKey}/{campId}
 * (segments compared decoded; empty ones skipped, as the REST router skips them). The signature covers the URL, so a
 * signature is then valid for this campaign only (not for another campaign or key, which a caller naming the URL and
 * the campaign separately could otherwise pair with it).
 */
function isCallbackUrlOf(url: string, apiKey: string, campId: string): boolean {
  try {
    const segments = new URL(url).pathname.split('/').filter(Boolean);
    const [hook, key, camp] = segments.slice(-3).map(decodeURIComponent);
    return hook === 'telephony_webhook' && key === apiKey && camp === campId;
  } catch {
    return false;
  }
}

/**
 * What a callback is refused for before its body is even read (the REST door asks first): an unknown API key, at the
 * cost of one indexed lookup, or no signature at all. The same words receiveCallStatus answers with.
 */
export async function callbackRefusedEarly(
  db: Kysely<Database>,
  apiKey: string,
  signature: string | null,
): Promise<string | null> {
  if (!(await findAccountByApiKey(db, apiKey))) return 'Invalid API key';
  return signature ? null : 'Invalid signature';
}

/** Nothing is read or stored before the URL, the key and the signature check out. */
export async function receiveCallStatus(
  db: Kysely<Database>,
  box: SecretBox,
  callback: CallStatusCallback,
  /** Runs once the signature checks out, before anything is read or stored for it (the account's callback budget). */
  verified: (accountId: string) => Promise<void> = async () => undefined,
) {
  if (!isCallbackUrlOf(callback.url, callback.apiKey, callback.campId)) throw forbidden('Invalid signature');
  const account = await findAccountByApiKey(db, callback.apiKey);
  if (!account) throw forbidden('Invalid API key');
  const secrets = await readIntegrationSecrets(db, box, account.id, telephony);
  const authToken = secrets?.telephonyAuthToken;
  if (!authToken || !verifyTelephonySignature(authToken, callback.url, callback.params, callback.signature)) {
    throw forbidden('Invalid signature');
  }
  await verified(account.id);
  await requireCampaign(db, account.id, callback.campId);
  const parsed = callbackParamsSchema.safeParse(callback.params);
  if (!parsed.success) throw badInput(issuesFromZod(parsed.error.issues, callback.params, ['params']));
  const p = parsed.data;
  return applyCallStatus(db, account.id, callback.campId, {
    callId: p.CallSid,
    status: p.CallStatus,
    direction: p.Direction,
    from: p.From,
    to: p.To,
    durationSeconds: p.CallDuration,
    cost: p.Price,
    recordingUrl: p.RecordingUrl,
  });
}
