// The integration mutations of before, deprecated aliases of `<kind>Connect` and `<kind>Disconnect`
// (src/graphql/schema/types/integrations.ts), running the same code: the verb-first `connectX` (`updateTelephony`) taking
// `<Label>IntegrationInput` (every field a String) and answering the integration, and `disconnectX: Boolean!`. Their
// names are frozen here, one place: a kind declared after them gets only the current mutations.
import { displayName } from '../../../domain/integrations.schema.js';
import { builder } from '../builder.js';
import { replacedBy } from '../payloads.js';
import {
  connectInput,
  connectKind,
  connectMutationOf,
  disconnectKind,
  disconnectMutationOf,
  KINDS,
} from './integrations.js';

/** The deprecated names of the kinds that had them (the GraphQL contract keeps them: docs/graphql.md#mutations). */
export const DEPRECATED_INTEGRATION_MUTATIONS: Readonly<Record<string, { connect: string; disconnect: string }>> = {
  telephony: { connect: 'updateTelephony', disconnect: 'disconnectTelephony' },
  board: { connect: 'connectBoard', disconnect: 'disconnectBoard' },
  calendar: { connect: 'connectCalendar', disconnect: 'disconnectCalendar' },
  erp: { connect: 'connectErp', disconnect: 'disconnectErp' },
  social: { connect: 'connectSocial', disconnect: 'disconnectSocial' },
  chat: { connect: 'connectChat', disconnect: 'disconnectChat' },
};

for (const { kind, ref, legacyInput } of KINDS) {
  const deprecated = DEPRECATED_INTEGRATION_MUTATIONS[kind.kind];
  if (!deprecated) continue;
  const name = displayName(kind);
  builder.mutationFields((t) => ({
    [deprecated.connect]: t.field({
      type: ref,
      deprecationReason: replacedBy(connectMutationOf(kind)),
      description: `Connects (or replaces) the ${name} integration.`,
      args: { input: t.arg({ type: legacyInput, required: true, description: connectInput(kind) }) },
      resolve: (_root, args, context) => connectKind(kind, context, args.input),
    }),
    [deprecated.disconnect]: t.boolean({
      deprecationReason: replacedBy(disconnectMutationOf(kind)),
      description: `Deletes the stored ${name} credentials; NOT_FOUND when there are none.`,
      resolve: async (_root, _args, context) => {
        await disconnectKind(kind, context);
        return true;
      },
    }),
  }));
}
