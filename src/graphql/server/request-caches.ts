// Per-request caches let go when an execution ends (docs/graphql-internals.md "Plain fields"; docs/decisions.md §18).
//
// Pothos keeps per-request state in module-level WeakMaps keyed by the context: scope-auth's RequestCache (its maps are
// keyed by the parent objects it granted) and the dataloaders (and what they loaded or were primed with). V8's
// young-generation collectors keep the value of a WeakMap entry alive while the entry exists, whether or not its key
// still is: only a full mark-compact clears entries whose keys died. So those values survived two scavenges and were
// promoted with each request (~1.2 KB per campaigns(first: 50) request, measured). Deleting the scope-auth entry and
// clearing the loaders when the execution ends leaves them to die young.
import { isAsyncIterable, type Plugin } from 'graphql-yoga';
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
