// The integration kinds, as declarations: their fields, which are secret, their rules and their words.
// A new kind is one entry here (plus nothing else: storage, GraphQL types, the `<kind>Connect`/`<kind>Disconnect`
// mutations and REST routes are derived).
import { z } from 'zod';
import { httpUrlField } from '../validation/fields.js';

export interface IntegrationField {
  /**
   * Encrypted at rest, shown only as "****" + last 4. On connect, that mask sent back keeps the stored secret
   * (src/domain/integrations.ts).
   */
  secret?: boolean;
  /** Optional fields may be omitted (then `default`, or null). */
  optional?: boolean;
  default?: string;
  rule: z.ZodType<string>;
  description: string;
  /** A closed set: the values `rule` accepts, shown in GraphQL as this enum (its values are the stored strings). */
  closedSet?: { name: string; description: string; values: Readonly<Record<string, string>> };
}

export interface IntegrationKind {
  kind: string;
  /** "Telephony": GraphQL type names (TelephonyIntegration) and, unless `displayName` says otherwise, messages. */
  label: string;
  displayName?: string;
  fields: Record<string, IntegrationField>;
  /** GET of a kind that is not connected → 404 with this detail. */
  notConnected: string;
  /** DELETE of a kind that is not connected → 404 with this detail. */
  notFound: string;
  rest: { add?: string; get?: string; remove?: string };
}

/** Trimmed, then 1–max characters: so (OpenAPI) it must hold something that is not whitespace. */
const text = (max: number) => z.string().trim().min(1).max(max).meta({ pattern: '\\S' });
const E164 = /^\+[1-9]\d{1,14}$/;

type ClosedSet = NonNullable<IntegrationField['closedSet']>;

/** A field whose values are a closed set: its rule accepts exactly the set's values (and GraphQL shows its enum). */
const oneOf = (set: ClosedSet): Pick<IntegrationField, 'rule' | 'closedSet'> => {
  const [first, ...rest] = Object.keys(set.values);
  if (first === undefined) throw new Error(`The closed set ${set.name} has no value`);
  return { rule: z.enum([first, ...rest]), closedSet: set };
};

export const telephony: IntegrationKind = {
  kind: 'telephony',
  label: 'Telephony',
  fields: {
    telephonyAccountSid: { rule: text(128), description: 'Account identifier at the telephony provider.' },
    telephonyAuthToken: {
      secret: true,
      rule: text(256),
      description: 'Signs call-status callbacks; never shown whole.',
    },
    telephonyPhoneNumber: {
      rule: z.string().regex(E164, 'must be an E.164 phone number such as +14155550100'),
      description: 'The number calls come from, in E.164 (+14155550100).',
    },
    voiceProvider: {
      optional: true,
      default: 'TELEPHONY',
      description: 'Only TELEPHONY for now.',
      ...oneOf({
        name: 'VoiceProvider',
        description: 'Who renders the voice of the calls.',
        values: { TELEPHONY: 'The telephony provider renders the voice of the calls.' },
      }),
    },
  },
  notConnected: 'Telephony is not configured',
  notFound: 'Telephony integration not found',
  rest: { add: '/update_telephony', get: '/get_telephony' },
};

const url = httpUrlField;

export const board: IntegrationKind = {
  kind: 'board',
  label: 'Board',
  fields: {
    apiKey: { secret: true, rule: text(512), description: 'API key of the board / work-management tool.' },
    boardId: { rule: text(128), description: 'The board calls are logged to.' },
    workspace: { optional: true, rule: text(200), description: 'Workspace or account name at the tool.' },
  },
  notConnected: 'Board integration is not connected',
  notFound: 'Board integration not found',
  rest: { add: '/add_board_info', get: '/get_board_info', remove: '/remove_board_info' },
};

/** GET /get_calendar_info also lists upcoming meetings, so its route is written out in src/rest/routes/meetings.ts. */
export const calendar: IntegrationKind = {
  kind: 'calendar',
  label: 'Calendar',
  fields: {
    apiKey: { secret: true, rule: text(512), description: 'API key of the scheduling tool.' },
    schedulingUrl: { rule: url, description: 'Public booking page: an http(s) URL the URL parser accepts.' },
    eventTypeId: { optional: true, rule: text(128), description: 'Event type meetings are booked as.' },
  },
  notConnected: 'Calendar integration is not connected',
  notFound: 'Calendar integration not found',
  rest: { add: '/add_calendar_info', remove: '/remove_calendar_info' },
};

export const erp: IntegrationKind = {
  kind: 'erp',
  label: 'Erp',
  displayName: 'ERP',
  fields: {
    erpUrl: { rule: url, description: 'Base URL of the ERP system: an http(s) URL the URL parser accepts.' },
    apiKey: { secret: true, rule: text(512), description: 'ERP API key.' },
    secret: { secret: true, rule: text(512), description: 'ERP API secret.' },
  },
  notConnected: 'ERP integration is not connected',
  notFound: 'ERP integration not found',
  rest: { add: '/add_erp_info', get: '/get_erp_info', remove: '/remove_erp_info' },
};

export const social: IntegrationKind = {
  kind: 'social',
  label: 'Social',
  fields: {
    pageId: { rule: text(128), description: 'The page or phone-number id messages arrive for.' },
    accessToken: { secret: true, rule: text(1024), description: 'Page access token.' },
    verifyToken: { secret: true, rule: text(256), description: 'Checked in the webhook verification handshake.' },
    appSecret: {
      secret: true,
      optional: true,
      rule: text(256),
      description: 'When set, inbound webhooks must carry a valid X-Hub-Signature-256.',
    },
  },
  notConnected: 'Social integration is not connected',
  notFound: 'Social integration not found',
  rest: { add: '/add_social_info', get: '/get_social_info', remove: '/remove_social_info' },
};

export const chat: IntegrationKind = {
  kind: 'chat',
  label: 'Chat',
  fields: {
    botToken: { secret: true, rule: text(512), description: 'Bot token of the chat workspace.' },
    workspace: { optional: true, rule: text(200), description: 'Workspace name.' },
    channelId: { rule: text(128), description: 'Channel messages are posted to.' },
  },
  notConnected: 'Chat integration is not connected',
  notFound: 'Chat integration not found',
  rest: { add: '/add_chat_info', get: '/get_chat_info', remove: '/remove_chat_info' },
};

export const INTEGRATION_KINDS: readonly IntegrationKind[] = [telephony, board, calendar, erp, social, chat];

/** The zod schema of a kind's input, from its declaration. */
export function integrationInputSchema(kind: IntegrationKind) {
  const shape: Record<string, z.ZodType> = {};
  for (const [name, field] of Object.entries(kind.fields)) {
    const rule = field.rule.describe(field.description);
    shape[name] = field.optional
      ? field.default !== undefined
        ? rule.optional().default(field.default)
        : rule.nullish()
      : rule;
  }
  return z.object(shape);
}

/** How messages name a kind: "telephony", "ERP". */
export function displayName(kind: IntegrationKind): string {
  return kind.displayName ?? kind.label.toLowerCase();
}
