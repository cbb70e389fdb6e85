// The address of the client a request comes from, for the per-address throttles and the login lockout
// (docs/limits.md). Without a proxy it is the socket's peer. Behind TRUST_PROXY reverse proxies that each append
// the address they received from to X-Forwarded-For, it is the entry that many places from the right: entries
// further left were written by the client itself and prove nothing.
import ipaddr from 'ipaddr.js';
import { UNKNOWN_CLIENT } from '../core/request-context.js';

export function clientAddressOf(request: Request, socketAddress: string | undefined, trustedProxies: number): string {
  const peer = normalise(socketAddress) ?? UNKNOWN_CLIENT;
  if (trustedProxies === 0) return peer;
  const forwarded = (request.headers.get('x-forwarded-for') ?? '')
    .split(',')
    .map((entry) => entry.trim())
    .filter(Boolean);
  // The nearest proxy wrote the last entry; with N proxies the client is N entries from the right.
  const entry = forwarded[forwarded.length - trustedProxies];
  return normalise(entry) ?? peer;
}

/** Addresses already seen, by their text: a client's (or its proxy's) comes back with each of its requests. */
const canonical = new Map<string, string | undefined>();
/** Past this many, the oldest goes first (X-Forwarded-For entries are the client's to choose). */
const MAX_REMEMBERED = 1024;
/** Longer texts (an IPv6 address with a long zone id, or garbage) are worked out each time, not remembered. */
const MAX_ADDRESS_LENGTH = 64;

/** How many addresses are remembered (tests check the bound). */
export const rememberedAddresses = (): number => canonical.size;

/** A valid address in canonical form (IPv4-mapped IPv6 as IPv4), or undefined. */
function normalise(address: string | undefined): string | undefined {
  if (!address) return undefined;
  const known = canonical.get(address);
  if (known !== undefined || canonical.has(address)) return known;
  const found = ipaddr.isValid(address) ? ipaddr.process(address).toString() : undefined;
  if (address.length <= MAX_ADDRESS_LENGTH) {
    if (canonical.size >= MAX_REMEMBERED) canonical.delete(canonical.keys().next().value as string);
    canonical.set(address, found);
  }
  return found;
}
