// What an instance makes only when a request first needs it (issue 55: the MCP door, the OAuth server, the OpenAPI
// document): made once and shared by every request that waits for it; a failure (a module that could not be read) is
// not kept, so the next request tries again.

/** `make`, run on the first call and its promise shared, or run again after it failed. */
export function onFirstUse<T>(make: () => Promise<T>): () => Promise<T> {
  let made: Promise<T> | undefined;
  return () =>
    (made ??= make().catch((error: unknown) => {
      made = undefined;
      throw error;
    }));
}
