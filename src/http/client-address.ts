// The address of the client a request comes from, for the per-address throttles and the login lockout
// (README "Limits"). Without a proxy it is the socket's peer. Behind TRUST_PROXY reverse proxies that each append
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

/** A valid address in canonical form (IPv4-mapped IPv6 as IPv4), or undefined. */
function normalise(address: string | undefined): string | undefined {
  if (!address || !ipaddr.isValid(address)) return undefined;
  return ipaddr.process(address).toString();
}
