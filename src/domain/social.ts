// The social channel's webhook (docs/decisions.md §8): the verification handshake, and inbound messages stored once per
// message id. No bearer token: the account's API key is in the path; the app secret, when stored, signs the body.
import type { Kysely, Selectable } from 'kysely';
import { chunks } from '../db/chunks.js';
import { type KeysetPage, keysetPage } from '../db/keyset.js';
import type { Database, SocialMessagesTable } from '../db/types.js';
import type { SecretBox } from '../security/secrets.js';
import { secretsEqual, verifyHubSignature } from '../security/hub-signature.js';
import { issuesFromZod } from '../validation/issues.js';
import { findAccountByApiKey } from './accounts.js';
import { getCampaign, requireCampaign } from './campaigns.js';
import { badInput, DomainError, forbidden } from '../core/errors.js';
import { withEvents } from './events.js';
import { yieldToLoop } from '../core/event-loop.js';
import { readIntegrationSecrets } from './integrations.js';
import { social } from './integrations.schema.js';
import {
  countMessageSlots,
  type InboundMessage,
  MAX_MESSAGES_PER_DELIVERY,
  messagesOf,
  socialEnvelopeSchema,
} from './social.schema.js';
import { jsonTooDeepAt, MAX_JSON_DEPTH } from '../validation/json-limits.js';

export interface SocialMessage extends InboundMessage {
  campaignId: string;
  /** When this gateway stored it. */
  createdAt: string;
}

const toMessage = (row: Selectable<SocialMessagesTable>): SocialMessage => ({
  messageId: row.message_id,
  campaignId: row.camp_id,
  sender: row.sender,
  text: row.text,
  receivedAt: row.received_at,
  createdAt: row.created_at,
});

const verificationFailed = () => forbidden('Verification failed');

/** GET handshake: the challenge back when the key, the campaign and the verify token all match. */
export async function verifySocialSubscription(
  db: Kysely<Database>,
  box: SecretBox,
  request: {
    apiKey: string;
    campId: string;
    mode?: string | null;
    verifyToken?: string | null;
    challenge?: string | null;
  },
): Promise<string> {
  if (request.mode !== 'subscribe' || !request.verifyToken || !request.challenge) throw verificationFailed();
  const account = await findAccountByApiKey(db, request.apiKey);
  if (!account) throw verificationFailed();
  const [secrets, campaign] = await Promise.all([
    readIntegrationSecrets(db, box, account.id, social),
    getCampaign(db, account.id, request.campId),
  ]);
  const stored = secrets?.verifyToken;
  if (!campaign || !stored || !secretsEqual(stored, request.verifyToken)) throw verificationFailed();
  return request.challenge;
}

/**
 * POST receiver: verifies the signature over the raw body (when an app secret is stored), then stores each message
 * of the envelope once. Returns the messages that were new; each raises `social.message.received`.
 */
export async function receiveSocialMessages(
  db: Kysely<Database>,
  box: SecretBox,
  request: { apiKey: string; campId: string; rawBody: string; signature?: string | null },
  /**
   * Runs once the request is accepted, before the body is read: `signed` when its signature was checked against the
   * stored app secret (the account's callback budget), not when no app secret is stored.
   */
  accepted: (accountId: string, signed: boolean) => Promise<void> = async () => undefined,
): Promise<SocialMessage[]> {
  const account = await findAccountByApiKey(db, request.apiKey);
  if (!account) throw forbidden('Invalid API key');
  const secrets = await readIntegrationSecrets(db, box, account.id, social);
  if (!secrets) throw forbidden('Social integration is not connected');
  if (secrets.appSecret && !verifyHubSignature(secrets.appSecret, request.rawBody, request.signature)) {
    throw forbidden('Invalid signature');
  }
  await accepted(account.id, Boolean(secrets.appSecret));
  await requireCampaign(db, account.id, request.campId);

  let body: unknown;
  try {
    if (jsonTooDeepAt(Buffer.from(request.rawBody)) >= 0) {
      throw badInput([
        { path: ['body'], type: 'json_invalid', message: `The body is nested deeper than ${MAX_JSON_DEPTH} levels` },
      ]);
    }
    body = JSON.parse(request.rawBody);
  } catch (error) {
    if (error instanceof DomainError) throw error;
    throw badInput([{ path: ['body'], type: 'json_invalid', message: 'The body is not valid JSON' }]);
  }
  const slots = countMessageSlots(body);
  if (slots > MAX_MESSAGES_PER_DELIVERY) {
    throw badInput([
      {
        path: ['body', 'entry'],
        type: 'too_long',
        message: `The delivery holds ${slots} messages; at most ${MAX_MESSAGES_PER_DELIVERY} are allowed in one`,
      },
    ]);
  }
  const envelope = socialEnvelopeSchema.safeParse(body);
  if (!envelope.success) throw badInput(issuesFromZod(envelope.error.issues, body, ['body']));
  const byId = new Map(messagesOf(envelope.data).map((m) => [m.messageId, m]));
  const messages = [...byId.values()];
  if (messages.length === 0) return [];

  const now = new Date().toISOString();
  const rows = messages.map((m) => ({
    account_id: account.id,
    message_id: m.messageId,
    camp_id: request.campId,
    sender: m.sender,
    text: m.text,
    received_at: m.receivedAt,
    created_at: now,
  }));
  // In chunks, in one transaction.
  return withEvents(db, account.id, async (trx, raise) => {
    const stored: Array<Selectable<SocialMessagesTable>> = [];
    for (const [index, chunk] of chunks(rows).entries()) {
      // Other requests' work runs between chunks (on PostgreSQL their queries too).
      if (index > 0) await yieldToLoop();
      stored.push(
        ...(await trx
          .insertInto('social_messages')
          .values(chunk)
          .onConflict((oc) => oc.columns(['account_id', 'message_id']).doNothing())
          .returningAll()
          .execute()),
      );
    }
    const received = stored.map(toMessage);
    await raise(request.campId, 'social.message.received', ...received);
    return received;
  });
}

/** The account's messages with these message ids (those that exist), in no particular order. */
export async function getSocialMessagesByIds(
  db: Kysely<Database>,
  accountId: string,
  messageIds: readonly string[],
): Promise<SocialMessage[]> {
  if (messageIds.length === 0) return [];
  const rows = await db
    .selectFrom('social_messages')
    .selectAll()
    .where('account_id', '=', accountId)
    .where('message_id', 'in', messageIds)
    .execute();
  return rows.map(toMessage);
}

/** A keyset page of a campaign's messages (newest first by receivedAt, then messageId). */
export async function pageSocialMessages(
  db: Kysely<Database>,
  accountId: string,
  campId: string,
  page: KeysetPage,
): Promise<SocialMessage[]> {
  const query = db
    .selectFrom('social_messages')
    .selectAll()
    .where('account_id', '=', accountId)
    .where('camp_id', '=', campId);
  const rows = await keysetPage(query, ['received_at', 'message_id'], page).execute();
  return rows.map(toMessage);
}
