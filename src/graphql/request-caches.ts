// Per-request caches let go when an execution ends (docs/graphql.md "Per-request caches"; bench/README.md, "Fifth
// round").
//
// Pothos keeps per-request state in module-level WeakMaps keyed by the context: scope-auth's RequestCache (its maps are
// keyed by the parent objects it granted, so they reach every row, edge and cursor of the answer). V8's young-generation
// collectors treat the value of a WeakMap entry as strong while the entry exists, whether or not its key is still
// alive: only a full mark-compact clears entries whose keys died. So each request's answer survived two scavenges, was
// promoted to the old generation, and was collected there by the mark-compacts that were most of the GC time of the
// GraphQL door. Deleting the entry when the execution ends leaves the answer to die young, as it should.
import type { Plugin } from 'graphql-yoga';
import { clearAllDataLoaders } from '@pothos/plugin-dataloader';
import { RequestCache } from '@pothos/plugin-scope-auth';

/** Lets go of what a context's per-request caches hold, once nothing of its execution is left to run. */
export function releaseRequestCaches(context: object): void {
  RequestCache.clearForContext(context);
  clearAllDataLoaders(context);
}

/** At the end of every execution (a stream's once it ends): the context's per-request caches let go. */
export const requestCachesReleased: Plugin = {
  onExecute({ args }) {
    const context = args.contextValue as object | null | undefined;
    if (typeof context !== 'object' || context === null) return undefined;
    return {
      onExecuteDone({ result }) {
        if (isAsyncIterable(result)) return { onEnd: () => releaseRequestCaches(context) };
        releaseRequestCaches(context);
        return undefined;
      },
    };
  },
};

const isAsyncIterable = (value: unknown): value is AsyncIterable<unknown> =>
  typeof value === 'object' && value !== null && Symbol.asyncIterator in value;
