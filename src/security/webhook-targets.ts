// SSRF guard for outbound webhook calls (DESIGN.md §9): only public unicast addresses are reachable, unless
// ALLOW_PRIVATE_WEBHOOK_TARGETS is set. URLs are checked at registration (literal addresses and well-known local
// names; nothing is resolved then, since DNS answers change) and every address DNS gives is checked again at
// delivery, on the connection itself (see src/events/http-post.ts), so a name cannot be re-pointed in between.
import ipaddr from 'ipaddr.js';

/** ipaddr.js range names → how an error message describes them. Everything but `unicast` is refused. */
const RANGE_LABELS: Record<string, string> = {
  loopback: 'a loopback address',
  private: 'a private address',
  uniqueLocal: 'a private address',
  linkLocal: 'a link-local address (cloud metadata services live there)',
  carrierGradeNat: 'a shared (carrier-grade NAT) address',
  unspecified: 'an unspecified address',
  broadcast: 'a broadcast address',
  multicast: 'a multicast address',
};

/** Host names that always mean this machine or a cloud metadata service. */
const LOCAL_NAMES =
  /^(localhost|.+\.localhost|localhost\.localdomain|metadata|metadata\.google\.internal|instance-data|instance-data\.ec2\.internal)\.?$/i;

/** Why an IP address may not be called (a sentence fragment), or null when it is public. */
export function refusedAddress(address: string): string | null {
  if (!ipaddr.isValid(address)) return 'not an IP address';
  let ip = ipaddr.parse(address);
  if (ip.kind() === 'ipv6' && (ip as ipaddr.IPv6).isIPv4MappedAddress()) ip = (ip as ipaddr.IPv6).toIPv4Address();
  const range = ip.range();
  if (range === 'unicast') return null;
  return RANGE_LABELS[range] ?? `a reserved address (${range})`;
}

/**
 * Why this URL may not be registered as a target, or null. Literal addresses are classified; names are refused only
 * when they are local by definition (the delivery checks what they resolve to).
 */
export function refusedTarget(url: string): string | null {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return 'not a valid URL';
  }
  // WHATWG URL parsing has already normalised IPv4 forms such as 0x7f.1 to 127.0.0.1; IPv6 keeps its brackets.
  const host = parsed.hostname.replace(/^\[(.*)\]$/, '$1');
  if (ipaddr.isValid(host)) {
    const reason = refusedAddress(host);
    return reason && `${host} is ${reason}`;
  }
  if (LOCAL_NAMES.test(host)) return `${host} is a local host name`;
  return null;
}
