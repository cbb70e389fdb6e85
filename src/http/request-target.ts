// What a request names before any door sees it: its Host header and its target. The fetch doors build the request's
// URL from them, so a Host carrying a path (`127.0.0.1:4000/metrics?`) would route `GET /graphql` to /metrics, one a
// URL cannot hold would throw, and an absolute target (`GET http://other/mcp`, for proxies only) would name another
// host. Such a request is refused with 400 before it is routed.

/**
 * A host name (underscores too: Docker Compose names containers so) or IPv4 address, or a bracketed IPv6 address, and
 * an optional port.
 */
const HOST =
  /^(?:[A-Za-z0-9_](?:[A-Za-z0-9_-]{0,62})(?:\.[A-Za-z0-9_-]{1,63})*\.?|\[[0-9A-Fa-f:.]{2,45}\])(?::(\d{1,5}))?$/;
const MAX_HOST_LENGTH = 260;

/** Why the request's Host and target cannot be served, or null when they can. */
export function requestTargetProblem(host: string | undefined, target: string | undefined): string | null {
  if (host !== undefined) {
    const match = host.length <= MAX_HOST_LENGTH ? HOST.exec(host) : null;
    if (!match || (match[1] !== undefined && Number(match[1]) > 65_535)) {
      return 'Bad Request: the Host header is not a host name or address with an optional port';
    }
  }
  if (target !== undefined && !target.startsWith('/')) {
    return 'Bad Request: the request target must be a path (origin-form)';
  }
  return null;
}
