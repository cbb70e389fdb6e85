// A query answered on a provisional credential (docs/decisions.md §14; src/authentication.ts) is confirmed before its
// answer leaves: on PostgreSQL the viewer of a read is the account last read for its token, checked by the request's
// first hot read in its own statement. Anything else (a mutation, a subscription, a query with @defer or @stream) is
// confirmed before it runs. A credential that did not stand is replaced by the caller as the database has it now
// (often: none, a revoked token), and the query runs again with it, so the answer is exactly the one it would have
// been had the account been read first.
import type { ExecutionArgs } from 'graphql';
import type { Plugin } from 'graphql-yoga';
import type { Authentication } from '../../authentication.js';
import type { Context } from '../schema/context.js';
import { isWholeQuery } from './incremental-delivery.js';

/** The context's caller fields as an authentication gives them (each of them, so that none is left behind). */
const callerOf = (authentication: Authentication): Partial<Context> => ({
  viewer: authentication.viewer,
  authFailure: authentication.authFailure,
  tokenExpiresAt: authentication.tokenExpiresAt,
  readOnly: authentication.readOnly,
  accessTokenId: authentication.accessTokenId,
});

/** Confirms before anything runs: a caller that did not stand replaces the provisional one in the context. */
async function confirmFirst(
  confirm: () => Promise<Authentication | null>,
  extendContext: (extension: Partial<Context>) => void,
): Promise<void> {
  const now = await confirm();
  if (now) extendContext(callerOf(now));
}

/** How a query runs again: through every plugin (masking, the response cache…), as yoga's getEnveloped gives it. */
export type FullExecute = (context: object) => (args: ExecutionArgs) => unknown;

/**
 * First among the plugins: a later one (the response cache, read-only tokens, variable errors) may answer in its
 * place, and must not answer on an unconfirmed credential. A query that did not stand runs again through the whole
 * pipeline (`execute`), so that it is answered exactly as it would have been: errors masked, precedence the same.
 */
export const confirmProvisionalCredentials = (execute: FullExecute): Plugin<Context> => ({
  onExecute({ args, extendContext }) {
    // Synchronous when there is nothing to confirm (most requests: SQLite, mutations' own confirmation): no promise.
    const confirm = (args.contextValue as Partial<Context>).confirmCredential;
    if (!confirm) return undefined;
    if (!isWholeQuery(args.document, args.operationName)) return confirmFirst(confirm, extendContext);
    return {
      async onExecuteDone({ setResult }) {
        const now = await confirm();
        if (!now) return;
        const contextValue = { ...args.contextValue, ...callerOf(now), confirmCredential: undefined };
        setResult((await execute(contextValue)({ ...args, contextValue })) as Parameters<typeof setResult>[0]);
      },
    };
  },
  onSubscribe({ args, extendContext }) {
    const confirm = (args.contextValue as Partial<Context>).confirmCredential;
    return confirm ? confirmFirst(confirm, extendContext) : undefined;
  },
});
