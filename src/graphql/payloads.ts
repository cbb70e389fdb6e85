// The mutation convention (docs/graphql.md#mutations): every mutation takes one `input:` argument (or none) and answers
// a `<Mutation>Payload` object holding what changed, so a payload can grow fields without breaking a query.
import type { OutputRef } from '@pothos/core';
import { encodeGlobalID } from '@pothos/plugin-relay';
import { badInput, DomainError } from '../domain/errors.js';
import { builder } from './builder.js';
import type { Context } from './context.js';

/** `<Mutation>Payload { <field>: <Type>! }`: the changed object, as the mutation left it. */
export function payloadType<T>(mutation: string, field: string, ref: OutputRef<T>, description: string) {
  return builder.objectRef<T>(`${typeStem(mutation)}Payload`).implement({
    description: `What \`${mutation}\` answers.`,
    // The payload is the object itself. Pothos cannot check a generic T against the ref's shape (a conditional type);
    // the mutations that build payloads are typed against T at their call sites.
    fields: (t) => ({ [field]: t.field({ type: ref, description, resolve: (value) => value as never }) }),
  });
}

/**
 * `<Mutation>Payload { <field>: <Type>!, deletedId: ID! }` for a mutation that deletes a node: the object as it was,
 * and its global id, which a normalised cache removes (Relay's `@deleteRecord`, urql Graphcache's `cache.invalidate`).
 * `nodeKey` is the key the node's type encodes in its id (src/graphql/global-ids.ts).
 */
export function deletePayloadType<T, V extends T>(
  mutation: string,
  field: string,
  ref: OutputRef<T>,
  description: string,
  // V: what the mutation resolves to (a loadable node's ref also admits its key, a string; the mutation never answers one).
  node: { typename: string; nodeKey: (value: V, context: Context) => string },
) {
  return builder.objectRef<V>(`${typeStem(mutation)}Payload`).implement({
    description: `What \`${mutation}\` answers.`,
    fields: (t) => ({
      // As in payloadType: the payload is the object itself.
      [field]: t.field({ type: ref, description, resolve: (value) => value as never }),
      deletedId: t.id({
        description: `The global id the deleted ${node.typename} had: remove it from a normalised cache.`,
        resolve: (value, _args, context) => encodeGlobalID(node.typename, node.nodeKey(value, context)),
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
