// One outbound POST of a delivery, with the SSRF guard on the connection itself: every address the host name
// resolves to is checked before connecting (and the connection uses exactly those addresses), so a name that is
// re-pointed at a private address after registration is still refused. Redirects are not followed.
import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import http from 'node:http';
import https from 'node:https';
import type { LookupFunction } from 'node:net';
import { refusedAddress, refusedTarget } from '../security/webhook-targets.js';

export class TargetRefusedError extends Error {}

/** No answer within the delivery timeout (WEBHOOK_TIMEOUT_SECONDS). */
export class NoResponseError extends Error {
  constructor(readonly timeoutMs: number) {
    super(`No response within ${timeoutMs / 1000} s`);
  }
}

/** How much of a response body is read (and thrown away) before the connection is dropped. */
const MAX_RESPONSE_BYTES = 64 * 1024;

/** A DNS lookup that fails when any address of the name is refused by the SSRF guard (also used for OAuth client metadata). */
export const guardedLookup: LookupFunction = (hostname, options, callback) => {
  dnsLookup(hostname, { ...options, all: true }, (error, addresses: LookupAddress[]) => {
    if (error) return callback(error, '', 0);
    for (const { address } of addresses) {
      const reason = refusedAddress(address);
      if (reason) return callback(new TargetRefusedError(`${hostname} resolves to ${address}, ${reason}`), '', 0);
    }
    if (options.all) return (callback as unknown as (e: null, a: LookupAddress[]) => void)(null, addresses);
    const [first] = addresses;
    if (!first) return callback(new Error(`${hostname} has no address`), '', 0);
    return callback(null, first.address, first.family);
  });
};

export interface PostOptions {
  headers: Record<string, string>;
  timeoutMs: number;
  allowPrivate: boolean;
  /** Aborts the request early (the worker stopping). */
  signal?: AbortSignal;
}

/** POSTs `body`; resolves with the response status, rejects on a refused target, a network error or the timeout. */
export function postJson(url: string, body: string, options: PostOptions): Promise<number> {
  if (!options.allowPrivate) {
    const reason = refusedTarget(url);
    if (reason) return Promise.reject(new TargetRefusedError(reason));
  }
  const target = new URL(url);
  const transport = target.protocol === 'https:' ? https : http;
  return new Promise((resolve, reject) => {
    const request = transport.request(
      target,
      {
        method: 'POST',
        headers: { ...options.headers, 'content-length': String(Buffer.byteLength(body)) },
        lookup: options.allowPrivate ? undefined : guardedLookup,
        signal: options.signal
          ? AbortSignal.any([AbortSignal.timeout(options.timeoutMs), options.signal])
          : AbortSignal.timeout(options.timeoutMs),
      },
      (response) => {
        resolve(response.statusCode ?? 0);
        let read = 0;
        response.on('data', (chunk: Buffer) => {
          read += chunk.length;
          if (read > MAX_RESPONSE_BYTES) response.destroy();
        });
        response.on('error', () => {
          // the status is what counts; a body cut short does not matter
        });
      },
    );
    request.on('error', (error) => {
      reject(
        error.name === 'AbortError' || error.name === 'TimeoutError' ? new NoResponseError(options.timeoutMs) : error,
      );
    });
    request.end(body);
  });
}
