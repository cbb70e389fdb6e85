// Headers a request may carry once. Node keeps the first Host, Authorization, Content-Type or Content-Length of a
// request that repeats one and drops the rest, while a proxy in front may have acted on another: two Host headers
// could route by one and be served as the other, two framing headers smuggle a second request. Such a request is
// refused with 400 before it is routed.

/** Request headers that must not repeat (lower case), by length, so most names are skipped without lower-casing. */
const SINGLE = new Map<number, readonly string[]>();
for (const name of ['host', 'authorization', 'content-type', 'content-length', 'transfer-encoding']) {
  SINGLE.set(name.length, [...(SINGLE.get(name.length) ?? []), name]);
}

/** Why the request's headers cannot be served (a header that must come once came more often), or null. */
export function duplicateHeaderProblem(rawHeaders: readonly string[]): string | null {
  let seen: Set<string> | undefined;
  for (let i = 0; i < rawHeaders.length; i += 2) {
    const raw = rawHeaders[i]!;
    const candidates = SINGLE.get(raw.length);
    if (!candidates) continue;
    const name = raw.toLowerCase();
    if (!candidates.includes(name)) continue;
    seen ??= new Set();
    if (seen.has(name)) return `Bad Request: the request has more than one ${canonical(name)} header`;
    seen.add(name);
  }
  return null;
}

const canonical = (name: string) =>
  name.replace(/(^|-)([a-z])/g, (_, dash: string, letter: string) => dash + letter.toUpperCase());
