// A Pothos plugin that answers a node's `id` without a promise (bench/archive.md, "Synchronous node ids").
// @pothos/plugin-relay resolves every `id` through an `async` wrapper (t.globalID), even when the node's own `id`
// resolver is synchronous, as all of ours are: a page of 50 campaigns then costs 50 promises, and graphql-jit's
// completion of each node turns asynchronous. Here the `id` field of each node type calls that node's own `id.resolve`
// and encodes the global id directly, exactly as the relay plugin would (its `encodeGlobalID` option, else the
// standard base64 of `Type:key`); when the node's resolver does return a promise, the relay plugin's resolver runs.
import SchemaBuilder, { BasePlugin, isThenable, type PothosOutputFieldConfig, type SchemaTypes } from '@pothos/core';
import { encodeGlobalID } from '@pothos/plugin-relay';
import type { GraphQLFieldResolver } from 'graphql';

type IdResolver = (parent: unknown, args: object, context: object, info: unknown) => unknown;

export class SyncGlobalIdsPlugin<Types extends SchemaTypes> extends BasePlugin<Types> {
  override wrapResolve(
    resolver: GraphQLFieldResolver<unknown, Types['Context'], object>,
    fieldConfig: PothosOutputFieldConfig<Types>,
  ): GraphQLFieldResolver<unknown, Types['Context'], object> {
    const idFieldName = this.builder.options.relay?.idFieldName ?? 'id';
    if (fieldConfig.kind !== 'Object' || fieldConfig.name !== idFieldName) return resolver;
    const node = this.buildCache.getTypeConfig(fieldConfig.parentType);
    const own = (node.pothosOptions as { id?: { resolve?: IdResolver } }).id?.resolve;
    if (!own) return resolver;
    const typename = node.name;
    const encode = this.builder.options.relay?.encodeGlobalID;
    return (parent, args, context, info) => {
      const key = own(parent, args, context, info);
      if (isThenable(key)) return resolver(parent, args, context, info);
      if (key === null || key === undefined) return key;
      return encode ? encode(typename, String(key), context) : encodeGlobalID(typename, String(key));
    };
  }
}

// Pothos declares its plugins in this global namespace (as its own plugins do); there is no module form.
declare global {
  // eslint-disable-next-line @typescript-eslint/no-namespace
  export namespace PothosSchemaTypes {
    export interface Plugins<Types extends SchemaTypes> {
      syncGlobalIds: SyncGlobalIdsPlugin<Types>;
    }
  }
}

export const SYNC_GLOBAL_IDS = 'syncGlobalIds' as const;
SchemaBuilder.registerPlugin(SYNC_GLOBAL_IDS, SyncGlobalIdsPlugin);
