// The integration kinds, as declarations: their fields, which are secret, their rules and their words.
// A new kind is one entry here (plus nothing else: storage, GraphQL types, mutations and REST routes are derived).
import { z } from 'zod';

export interface IntegrationField {
  /** Encrypted at rest, shown only as "****" + last 4. */
  secret?: boolean;
  /** Optional fields may be omitted (then `default`, or null). */
  optional?: boolean;
  default?: string;
  rule: z.ZodType<string>;
  description: string;
}

export interface IntegrationKind {
  kind: string;
  /** "Telephony": GraphQL type names (TelephonyIntegration) and the words of its 404s. */
  label: string;
  fields: Record<string, IntegrationField>;
  /** GET of a kind that is not connected → 404 with this detail. */
  notConnected: string;
  /** DELETE of a kind that is not connected → 404 with this detail. */
  notFound: string;
  graphql: { connect: string; disconnect: string };
  rest: { add?: string; get?: string; remove?: string };
}

const text = (max: number) => z.string().trim().min(1).max(max);
const E164 = /^\+[1-9]\d{1,14}$/;

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
      rule: z.enum(['TELEPHONY']),
      description: 'Only TELEPHONY for now.',
    },
  },
  notConnected: 'Telephony is not configured',
  notFound: 'Telephony integration not found',
  graphql: { connect: 'updateTelephony', disconnect: 'disconnectTelephony' },
  rest: { add: '/update_telephony', get: '/get_telephony' },
};

export const INTEGRATION_KINDS: readonly IntegrationKind[] = [telephony];

/** The zod schema of a kind's input, from its declaration. */
export function integrationInputSchema(kind: IntegrationKind) {
  const shape: Record<string, z.ZodType> = {};
  for (const [name, field] of Object.entries(kind.fields)) {
    shape[name] = field.optional
      ? field.default !== undefined
        ? field.rule.optional().default(field.default)
        : field.rule.nullish()
      : field.rule;
  }
  return z.object(shape);
}
