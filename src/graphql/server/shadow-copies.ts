// Shadow mode (GRAPHQL_PREPARED_LANE=shadow; src/http/lane-shadow.ts): the copy of a request that yoga answers again
// beside the prepared lane executes on the reference schema, where every field has its resolver
// (src/graphql/schema/plain-fields.ts), so that the lane's plain fields are checked against their resolvers.
const shadowCopies = new WeakSet<Request>();

/** Marks the copy of a request that yoga answers in shadow mode. */
export function markShadowCopy(request: Request): void {
  shadowCopies.add(request);
}

export const isShadowCopy = (request: Request | undefined): boolean =>
  request !== undefined && shadowCopies.has(request);
