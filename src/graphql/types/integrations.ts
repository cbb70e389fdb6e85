// GraphQL for every integration kind, derived from the declarations in src/domain/integrations.schema.ts:
// `<Label>Integration` (connected + fields, secrets masked), `<Label>IntegrationInput`, the connect and
// disconnect mutations, and `Account.integrations`.
import {
  displayName,
  INTEGRATION_KINDS,
  type IntegrationKind,
  integrationInputSchema,
} from '../../domain/integrations.schema.js';
import {
  connectIntegration,
  disconnectIntegration,
  type IntegrationView,
  listIntegrations,
} from '../../domain/integrations.js';
import { builder, viewerOf } from '../builder.js';
import type { Context } from '../context.js';
import { AccountRef } from './account.js';
import { payloadType, replacedBy } from '../payloads.js';

/** A kind that is not connected is `{ connected: false }` with every field null. */
type IntegrationShape = IntegrationView | { connected: false; fields?: undefined; updatedAt?: undefined };

const NOT_CONNECTED: IntegrationShape = { connected: false };

function integrationType(kind: IntegrationKind) {
  return builder.objectRef<IntegrationShape>(`${kind.label}Integration`).implement({
    description: `The ${kind.label.toLowerCase()} integration of your account: its fields, secrets masked.`,
    fields: (t) => ({
      connected: t.exposeBoolean('connected', {
        description: 'Whether it is set up; the other fields are null if not.',
      }),
      updatedAt: t.field({
        type: 'DateTime',
        nullable: true,
        description: 'When it was last set.',
        resolve: (value) => value.updatedAt ?? null,
      }),
      ...Object.fromEntries(
        Object.entries(kind.fields).map(([name, field]) => [
          name,
          t.string({
            nullable: true,
            description: field.secret
              ? `${field.description} Shown masked: "****" + its last 4 characters ("****" alone when short).`
              : field.description,
            resolve: (value) => value.fields?.[name] ?? null,
          }),
        ]),
      ),
    }),
  });
}

function integrationInput(kind: IntegrationKind) {
  return builder
    .inputType(`${kind.label}IntegrationInput`, {
      description: `The ${kind.label.toLowerCase()} integration's fields; setting them again replaces them all.`,
      fields: (t) =>
        Object.fromEntries(
          Object.entries(kind.fields).map(([name, field]) => [
            name,
            t.string({ required: !field.optional, description: field.description }),
          ]),
        ),
    })
    .validate(integrationInputSchema(kind));
}

/** The `input` argument of the connect mutations. */
const connectInput = (kind: IntegrationKind) =>
  `Every field of the ${displayName(kind)} integration; what was stored before is replaced.`;

/** Each kind with its GraphQL object type, built once. */
const KINDS = INTEGRATION_KINDS.map((kind) => ({ kind, ref: integrationType(kind), input: integrationInput(kind) }));

const IntegrationsRef = builder.objectRef<Map<string, IntegrationView>>('Integrations');

IntegrationsRef.implement({
  description: 'Every integration kind of the account; `connected` says whether it is set up.',
  fields: (t) =>
    Object.fromEntries(
      KINDS.map(({ kind, ref }) => [
        kind.kind,
        t.field({
          type: ref,
          description: `The ${displayName(kind)} integration; \`connected: false\` when it is not set up.`,
          resolve: (integrations) => integrations.get(kind.kind) ?? NOT_CONNECTED,
        }),
      ]),
    ),
});

builder.objectField(AccountRef, 'integrations', (t) =>
  t.field({
    type: IntegrationsRef,
    description: 'Every integration kind of the account, connected or not.',
    resolve: (account, _args, context) => listIntegrations(context.db, context.secrets, account.id, INTEGRATION_KINDS),
  }),
);

// Per kind: `<kind>Connect(input:)` and `<kind>Disconnect`, answering the integration as it now stands
// (docs/graphql.md#mutations), and the verb-first `connectX`/`updateTelephony` and `disconnectX: Boolean!` of before,
// deprecated aliases running the same code.
for (const { kind, ref, input } of KINDS) {
  const name = displayName(kind);
  const connect = (context: Context, fields: unknown) =>
    connectIntegration(context.db, context.secrets, viewerOf(context).id, kind, fields as Record<string, unknown>);
  const disconnect = (context: Context) => disconnectIntegration(context.db, viewerOf(context).id, kind);
  builder.mutationFields((t) => ({
    [`${kind.kind}Connect`]: t.field({
      type: payloadType(`${kind.kind}Connect`, 'integration', ref, `The ${name} integration as it is now.`),
      description: `Connects (or replaces) the ${name} integration.`,
      args: { input: t.arg({ type: input, required: true, description: connectInput(kind) }) },
      resolve: (_root, args, context) => connect(context, args.input),
    }),
    [`${kind.kind}Disconnect`]: t.field({
      type: payloadType(
        `${kind.kind}Disconnect`,
        'integration',
        ref,
        `The ${name} integration as it is now: not connected.`,
      ),
      description: `Deletes the stored ${name} credentials; NOT_FOUND when there are none.`,
      resolve: async (_root, _args, context) => {
        await disconnect(context);
        return NOT_CONNECTED;
      },
    }),
    [kind.graphql.connect]: t.field({
      type: ref,
      deprecationReason: replacedBy(`${kind.kind}Connect`),
      description: `Connects (or replaces) the ${name} integration.`,
      args: { input: t.arg({ type: input, required: true, description: connectInput(kind) }) },
      resolve: (_root, args, context) => connect(context, args.input),
    }),
    [kind.graphql.disconnect]: t.boolean({
      deprecationReason: replacedBy(`${kind.kind}Disconnect`),
      description: `Deletes the stored ${name} credentials; NOT_FOUND when there are none.`,
      resolve: async (_root, _args, context) => {
        await disconnect(context);
        return true;
      },
    }),
  }));
}
