// GraphQL for every integration kind, derived from the declarations in src/domain/integrations.schema.ts:
// `<Label>Integration` (connected + fields, secrets masked), `<Kind>ConnectInput`, the `<kind>Connect` and
// `<kind>Disconnect` mutations, and `Account.integrations`.
import { isDeepStrictEqual } from 'node:util';
import {
  displayName,
  INTEGRATION_KINDS,
  type IntegrationField,
  type IntegrationKind,
  integrationInputSchema,
} from '../../../domain/integrations.schema.js';
import {
  connectIntegration,
  disconnectIntegration,
  type IntegrationView,
  listIntegrations,
} from '../../../domain/integrations.js';
import { builder, viewerOf } from '../builder.js';
import type { Context } from '../context.js';
import type { Account } from '../../../domain/accounts.js';
import { AccountRef } from './account.js';
import { typeStem } from '../payloads.js';

/** A kind that is not connected is `{ connected: false }` with every field null. */
type IntegrationShape = IntegrationView | { connected: false; fields?: undefined; updatedAt?: undefined };

export const NOT_CONNECTED: IntegrationShape = { connected: false };

/** The GraphQL enum of each closed set an integration field declares, built once per name. */
const closedSetEnums = new Map<
  string,
  { set: NonNullable<IntegrationField['closedSet']>; ref: ReturnType<typeof closedSetEnum> }
>();

function closedSetEnum(set: NonNullable<IntegrationField['closedSet']>) {
  return builder.enumType(set.name, {
    description: set.description,
    values: Object.fromEntries(
      Object.entries(set.values).map(([value, description]) => [value, { value, description }]),
    ),
  });
}

/** The enum of a closed set; two sets of one name must be the same set (one enum in the schema). */
function enumOf(set: NonNullable<IntegrationField['closedSet']>) {
  const known = closedSetEnums.get(set.name);
  if (known) {
    if (!isDeepStrictEqual(known.set, set)) throw new Error(`Two different closed sets are named ${set.name}`);
    return known.ref;
  }
  const ref = closedSetEnum(set);
  closedSetEnums.set(set.name, { set, ref });
  return ref;
}

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
        Object.entries(kind.fields).map(([name, field]) => {
          const description = field.secret
            ? `${field.description} Shown masked: "****" + its last 4 characters ("****" alone when short).`
            : field.description;
          const { closedSet } = field;
          if (!closedSet)
            return [name, t.string({ nullable: true, description, resolve: (value) => value.fields?.[name] ?? null })];
          // Every value stored through either door is one of the set; anything else (written around the rules) is null.
          return [
            name,
            t.field({
              type: enumOf(closedSet),
              nullable: true,
              description,
              resolve: (value) => {
                const stored = value.fields?.[name];
                return stored !== undefined && stored !== null && Object.hasOwn(closedSet.values, stored)
                  ? stored
                  : null;
              },
            }),
          ];
        }),
      ),
    }),
  });
}

/**
 * The fields of a kind as an input: `<Label>IntegrationInput` (the deprecated connectX of before: every field a
 * String) or `<Kind>ConnectInput` (closed sets as their enums; a field with a default is non-null with that default,
 * since null is not one of its values). Both are checked by the same rules.
 */
function integrationInput(kind: IntegrationKind, name: string, current: boolean) {
  return builder
    .inputType(name, {
      description: `The ${kind.label.toLowerCase()} integration's fields; setting them again replaces them all, except a secret sent back as the mask you read (kept).`,
      fields: (t) =>
        Object.fromEntries(
          Object.entries(kind.fields).map(([field, declared]) => {
            const { closedSet } = declared;
            const description = declared.secret
              ? `${declared.description} Send back unchanged the mask you read to keep the stored one.`
              : declared.description;
            if (!current) return [field, t.string({ required: !declared.optional, description })];
            const required = !declared.optional || declared.default !== undefined;
            const defaultValue = declared.default !== undefined ? { defaultValue: declared.default } : {};
            return [
              field,
              closedSet
                ? t.field({ type: enumOf(closedSet), required, description, ...defaultValue })
                : t.string({ required, description, ...defaultValue }),
            ];
          }),
        ),
    })
    .validate(integrationInputSchema(kind));
}

/** The `input` argument of the connect mutations. */
export const connectInput = (kind: IntegrationKind) =>
  `Every field of the ${displayName(kind)} integration; what was stored before is replaced (a secret sent back as the mask you read is kept).`;

/** `<kind>Connect` and `<kind>Disconnect`: the mutations of each kind (docs/graphql.md#mutations). */
export const connectMutationOf = (kind: IntegrationKind) => `${kind.kind}Connect`;
export const disconnectMutationOf = (kind: IntegrationKind) => `${kind.kind}Disconnect`;

/** Each kind with its GraphQL object type, built once. */
export const KINDS = INTEGRATION_KINDS.map((kind) => ({
  kind,
  ref: integrationType(kind),
  input: integrationInput(kind, typeStem(connectMutationOf(kind)) + 'Input', true),
  legacyInput: integrationInput(kind, `${kind.label}IntegrationInput`, false),
}));

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

/** What `<kind>Connect` and `<kind>Disconnect` answer: the integration as it now stands, and the account it is of. */
interface IntegrationChange {
  integration: IntegrationShape;
  account: Account;
}

function integrationPayload(mutation: string, ref: (typeof KINDS)[number]['ref'], integration: string) {
  return builder.objectRef<IntegrationChange>(`${typeStem(mutation)}Payload`).implement({
    description: `What \`${mutation}\` answers.`,
    fields: (t) => ({
      integration: t.field({ type: ref, description: integration, resolve: (change) => change.integration }),
      account: t.field({
        type: AccountRef,
        description: 'Your account, so that a normalised cache can refetch its `integrations` in the same answer.',
        resolve: (change) => change.account,
      }),
    }),
  });
}

/** Connects (or replaces) a kind's integration for the caller: both the mutation below and its deprecated alias. */
export const connectKind = (kind: IntegrationKind, context: Context, fields: unknown) =>
  connectIntegration(context.db, context.secrets, viewerOf(context).id, kind, fields as Record<string, unknown>);
export const disconnectKind = (kind: IntegrationKind, context: Context) =>
  disconnectIntegration(context.db, viewerOf(context).id, kind);

// Per kind: `<kind>Connect(input:)` and `<kind>Disconnect`, answering the integration as it now stands
// (docs/graphql.md#mutations). Their deprecated aliases of before are in integrations-deprecated.ts.
for (const { kind, ref, input } of KINDS) {
  const name = displayName(kind);
  const connectMutation = connectMutationOf(kind);
  const disconnectMutation = disconnectMutationOf(kind);
  builder.mutationFields((t) => ({
    [connectMutation]: t.field({
      type: integrationPayload(connectMutation, ref, `The ${name} integration as it is now.`),
      description: `Connects (or replaces) the ${name} integration.`,
      args: { input: t.arg({ type: input, required: true, description: connectInput(kind) }) },
      resolve: async (_root, args, context) => ({
        integration: await connectKind(kind, context, args.input),
        account: viewerOf(context),
      }),
    }),
    [disconnectMutation]: t.field({
      type: integrationPayload(disconnectMutation, ref, `The ${name} integration as it is now: not connected.`),
      description: `Deletes the stored ${name} credentials; NOT_FOUND when there are none.`,
      resolve: async (_root, _args, context) => {
        await disconnectKind(kind, context);
        return { integration: NOT_CONNECTED, account: viewerOf(context) };
      },
    }),
  }));
}
