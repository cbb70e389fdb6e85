// The bounds on dynamic client registrations (docs/mcp-oauth.md "Registrations"): a registration no code was issued
// to yet is pending, and pending ones are few per address, short-lived, and capped in all with the oldest evicted, so
// that no flood of registrations refuses one that goes on to authorise.
import ipaddr from 'ipaddr.js';
import type { Kysely } from 'kysely';
import type { Logger } from '../core/logger.js';
import type { Database } from '../db/types.js';
import { settlePendingClient } from '../domain/oauth-artifacts.js';

/**
 * Whom a pending registration counts against: the client address, and for IPv6 its /64 (one host's share of a
 * network: an attacker holding one /64 holds 2^64 addresses).
 */
export function registrantOf(address: string): string {
  if (!address.includes(':') || !ipaddr.IPv6.isValid(address)) return address;
  const parts = ipaddr.IPv6.parse(address).parts.slice(0, 4);
  return `${parts.map((part) => part.toString(16)).join(':')}::/64`;
}

export interface RegistrationBounds {
  /** OAUTH_MAX_PENDING_CLIENTS_PER_ADDRESS. */
  perAddress: number;
  /** OAUTH_MAX_REGISTERED_CLIENTS: pending ones only. */
  total: number;
}

/** After a registration succeeded: it is pending from its address, and the bounds are kept (evicting the oldest). */
export async function settleRegistration(
  db: Kysely<Database>,
  logger: Logger,
  clientId: string,
  address: string,
  bounds: RegistrationBounds,
): Promise<void> {
  const registrant = registrantOf(address);
  const evicted = await settlePendingClient(db, clientId, registrant, bounds);
  // Evictions are expected under a flood and for a busy platform's shared address: info, once per registration.
  if (evicted > 0) logger.info({ registrant, evicted }, 'OAuth registration evicted older unused registrations');
}
