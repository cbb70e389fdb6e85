// SSRF guard for outbound webhook calls (docs/decisions.md §9): only public unicast addresses are reachable, unless
// ALLOW_PRIVATE_WEBHOOK_TARGETS is set. URLs are checked at registration (literal addresses and well-known local
// names; nothing is resolved then, since DNS answers change) and every address DNS gives is checked again at
// delivery, on the connection itself (see src/events/http-post.ts), so a name cannot be re-pointed in between.
// IPv6 addresses that embed an IPv4 address (IPv4-compatible, mapped, SIIT, NAT64, 6to4, Teredo) are judged by it.
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

const rangeRefusal = (ip: ipaddr.IPv4 | ipaddr.IPv6): string | null => {
  const range = ip.range();
  if (range === 'unicast') return null;
  return RANGE_LABELS[range] ?? `a reserved address (${range})`;
};

/**
 * The IPv4 addresses an IPv6 address carries inside it, in the forms that route to them: IPv4-compatible (::/96),
 * IPv4-mapped (::ffff:0:0/96, however it is spelled), SIIT (::ffff:0:0:0/96), NAT64 (64:ff9b::/96 and the local-use
 * 64:ff9b:1::/48), 6to4 (2002::/16, bits 16–47) and Teredo (2001::/32: the server in bits 32–63, the client in the
 * last 32 bits, inverted). Each is judged as that IPv4 address would be.
 */
function embeddedIPv4(ip: ipaddr.IPv6): ipaddr.IPv4[] {
  const w = ip.parts; // eight 16-bit words
  const v4 = (high: number, low: number) => new ipaddr.IPv4([high >> 8, high & 0xff, low >> 8, low & 0xff]);
  const zero = (from: number, to: number) => w.slice(from, to).every((word) => word === 0);
  const last = v4(w[6] ?? 0, w[7] ?? 0);
  if (zero(0, 5) && (w[5] === 0 || w[5] === 0xffff)) return [last]; // compatible, mapped
  if (zero(0, 4) && w[4] === 0xffff && w[5] === 0) return [last]; // SIIT
  if (w[0] === 0x64 && w[1] === 0xff9b && (zero(2, 6) || w[2] === 1)) return [last]; // NAT64
  if (w[0] === 0x2002) return [v4(w[1] ?? 0, w[2] ?? 0)]; // 6to4
  if (w[0] === 0x2001 && w[1] === 0) return [v4(w[2] ?? 0, w[3] ?? 0), v4((w[6] ?? 0) ^ 0xffff, (w[7] ?? 0) ^ 0xffff)];
  return [];
}

/** Why an address is refused: its range's label, and the IPv4 address it embeds when that is what is refused. */
interface Refusal {
  label: string;
  embeds?: string;
}

function refusal(address: string): Refusal | null {
  if (!ipaddr.isValid(address)) return { label: 'not an IP address' };
  const ip = ipaddr.parse(address);
  // :: and ::1 sit inside ::/96 too, but are themselves what they are.
  const byOwnRange = ip.kind() === 'ipv4' || ip.range() === 'loopback' || ip.range() === 'unspecified';
  const embedded = byOwnRange ? [] : embeddedIPv4(ip as ipaddr.IPv6);
  if (embedded.length === 0) {
    const label = rangeRefusal(ip);
    return label ? { label } : null;
  }
  // An IPv6 form of a public IPv4 address (NAT64 to a public host, say) is as public as that address.
  for (const inner of embedded) {
    const label = rangeRefusal(inner);
    if (label) return { label, embeds: inner.toString() };
  }
  return null;
}

/**
 * Why an IP address may not be called, as a phrase that follows it after a comma ("a loopback address", "which
 * embeds 127.0.0.1, a loopback address"), or null when it is public. The delivery checks every resolved address here.
 */
export function refusedAddress(address: string): string | null {
  const r = refusal(address);
  return r && (r.embeds ? `which embeds ${r.embeds}, ${r.label}` : r.label);
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
    const r = refusal(host);
    return r && (r.embeds ? `${host} embeds ${r.embeds}, ${r.label}` : `${host} is ${r.label}`);
  }
  if (LOCAL_NAMES.test(host)) return `${host} is a local host name`;
  return null;
}
