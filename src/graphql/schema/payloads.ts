// The mutation convention (docs/graphql.md#mutations): every mutation takes one `input:` argument (or none) and answers
// a `<Mutation>Payload` object holding what changed, so a payload can grow fields without breaking a query.
import type { OutputRef } from '@pothos/core';
import { encodeGlobalID } from '@pothos/plugin-relay';
import { badInput, DomainError } from '../../core/errors.js';
import { builder } from './builder.js';
import type { Context } from './context.js';

/** The node a mutation deleted: its type name, and the key its type encodes in its id (src/graphql/schema/global-ids.ts). */
export interface Deleted<V> {
  typename: string;
  nodeKey: (value: V, context: Context) => string;
}

/**
 * `<Mutation>Payload { <field>: <Type>! }`: the changed object, as the mutation left it. A mutation that deletes a
 * node passes `deleted`: its payload holds the object as it was and `deletedId: ID!`, the global id it had, which a
 * normalised cache removes (Relay's `@deleteRecord`, urql Graphcache's `cache.invalidate`).
 * V: what the mutation resolves to (a loadable node's ref also admits its key, a string; a mutation never answers one).
 */
export function payloadType<T, V extends T = T>(
  mutation: string,
  field: string,
  ref: OutputRef<T>,
  description: string,
  deleted?: Deleted<V>,
) {
  return builder.objectRef<V>(`${typeStem(mutation)}Payload`).implement({
    description: `What \`${mutation}\` answers.`,
    // The payload is the object itself. Pothos cannot check a generic T against the ref's shape (a conditional type);
    // the mutations that build payloads are typed against T at their call sites.
    fields: (t) => ({
      [field]: t.field({ type: ref, description, resolve: (value) => value as never }),
      ...(deleted && {
        deletedId: t.id({
          description: `The global id the deleted ${deleted.typename} had: remove it from a normalised cache.`,
          resolve: (value, _args, context) => encodeGlobalID(deleted.typename, deleted.nodeKey(value, context)),
        }),
      }),
    }),
  });
}

/** The deprecation of a mutation replaced by one that follows the convention. */
export const replacedBy = (mutation: string) => `Use ${mutation} (input: argument, payload answer).`;

/** `campaignCreate` → `CampaignCreate`: the stem of a mutation's input and payload type names. */
export const typeStem = (mutation: string) => `${mutation.charAt(0).toUpperCase()}${mutation.slice(1)}`;

type Path = ReadonlyArray<string | number>;

/**
 * The domain locates some input problems under the deprecated mutation's argument (`patch.url`, `analysis.x`); a
 * mutation of the convention reports them under its own `input` (`input.url`, `input.analysis.x`).
 */
export async function rerooted<T>(work: Promise<T>, from: Path, to: Path): Promise<T> {
  try {
    return await work;
  } catch (error) {
    if (!(error instanceof DomainError) || error.code !== 'BAD_USER_INPUT' || !error.issues) throw error;
    const moved = error.issues.map((issue) =>
      from.every((part, index) => issue.path[index] === part)
        ? { ...issue, path: [...to, ...issue.path.slice(from.length)] }
        : issue,
    );
    throw badInput(moved);
  }
}
