// What the OAuth door refuses before the authorisation server sees a request (docs/mcp-oauth.md "Hostile input"):
// methods a path does not serve (405 with Allow), and control characters in any parameter — the query, the path,
// a form or JSON body, Basic client credentials. A NUL reaching PostgreSQL is a DatabaseError (a 500), and no OAuth
// value (ids, URIs, codes, scopes, client metadata) has a use for any control character, so all are refused alike.
import type { IncomingMessage } from 'node:http';
import { parse as parseQuery } from 'node:querystring';
import { INTERACTION_PATH, OAUTH_ROUTES, PROTECTED_RESOURCE_PATHS } from './endpoints.js';

/** oidc-provider reads request bodies up to this size (lib/shared/selective_body.js); larger ones are answered 413. */
export const MAX_OAUTH_BODY_BYTES = 56 * 1024;

/** C0 controls (NUL, tab, CR, LF, …), DEL and the C1 controls. */
// eslint-disable-next-line no-control-regex -- matching control characters is what it is for
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;
/** A parameter name that may be named in a refusal and a log line (anything else is "a parameter"). */
const NAMEABLE = /^[A-Za-z0-9_.-]{1,64}$/;

/** Whether a value holds a control character. */
export const hasControl = (value: string): boolean => CONTROL.test(value);

/** How a refusal names the parameter: its name when it is a plain one, never the value. */
const nameOf = (key: string): string => (NAMEABLE.test(key) ? key : 'a parameter');

/** The first parameter of a parsed query or form (querystring's shape) with a control character in name or value. */
export function controlInParams(params: Record<string, string | string[] | undefined>): string | undefined {
  for (const [key, value] of Object.entries(params)) {
    if (hasControl(key)) return 'a parameter name';
    const values = Array.isArray(value) ? value : value === undefined ? [] : [value];
    if (values.some(hasControl)) return nameOf(key);
  }
  return undefined;
}

/**
 * The first top-level member of a JSON document with a control character in any string inside it (keys too); walked
 * without recursion, so no nesting depth costs a stack.
 */
export function controlInJson(document: unknown): string | undefined {
  const top: Array<[string, unknown]> =
    document && typeof document === 'object' && !Array.isArray(document)
      ? Object.entries(document)
      : [['the body', document]];
  for (const [key, value] of top) {
    if (hasControl(key)) return 'a member name';
    const stack: unknown[] = [value];
    while (stack.length > 0) {
      const item = stack.pop();
      if (typeof item === 'string') {
        if (hasControl(item)) return nameOf(key);
      } else if (Array.isArray(item)) {
        stack.push(...item);
      } else if (item && typeof item === 'object') {
        for (const [inner, innerValue] of Object.entries(item)) {
          if (hasControl(inner)) return nameOf(key);
          stack.push(innerValue);
        }
      }
    }
  }
  return undefined;
}

/** The query string and the path (its percent-decoded segments) of a request target. */
export function controlInTarget(pathname: string, search: string): string | undefined {
  let decoded = pathname;
  try {
    decoded = decodeURIComponent(pathname);
  } catch {
    // Not valid percent-encoding: the router matches it as it is (and finds nothing).
  }
  if (hasControl(decoded)) return 'the path';
  return search ? controlInParams(parseQuery(search.replace(/^\?/, ''))) : undefined;
}

/** HTTP Basic client credentials (RFC 6749 §2.3.1: form-encoded client_id and secret, then base64). */
export function controlInAuthorization(header: string | undefined): string | undefined {
  if (!header) return undefined;
  if (hasControl(header)) return 'the Authorization header';
  const basic = /^basic\s+(\S+)\s*$/i.exec(header);
  if (!basic) return undefined;
  const credentials = Buffer.from(basic[1]!, 'base64').toString('utf8');
  if (hasControl(credentials)) return 'the Authorization header';
  for (const part of credentials.split(':')) {
    try {
      if (hasControl(decodeURIComponent(part.replace(/\+/g, ' ')))) return 'the Authorization header';
    } catch {
      // Not form-encoded: the provider refuses it.
    }
  }
  return undefined;
}

/** The media types of the bodies the provider reads (form posts, and JSON at the registration endpoint). */
export type BodyKind = 'form' | 'json';

export function bodyKindOf(req: IncomingMessage): BodyKind | undefined {
  const type = (req.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
  if (type === 'application/x-www-form-urlencoded') return 'form';
  if (type === 'application/json') return 'json';
  return undefined;
}

/**
 * A body's parameters as the provider will read them (src/oauth/provider.ts: oidc-provider's selective body parser):
 * the first with a control character, or undefined. A body that does not parse is left to the provider to refuse.
 */
export function controlInBody(kind: BodyKind, body: Buffer, contentType: string | undefined): string | undefined {
  const charset = /;\s*charset\s*=\s*"?([^";\s]+)/i.exec(contentType ?? '')?.[1];
  let text: string;
  try {
    text = new TextDecoder(charset ?? 'utf-8').decode(body);
  } catch {
    return undefined;
  }
  if (kind === 'form') return controlInParams(parseQuery(text));
  try {
    return controlInJson(JSON.parse(text));
  } catch {
    return undefined;
  }
}

/**
 * Hands a body the door has read back to the request, for oidc-provider to read as if it came off the socket: its
 * parser reads `req` only while `req.readable`, through `req.iterator()` (lib/shared/selective_body.js; a parser
 * upstream of it would make it warn on stderr). The bytes are the same ones, so its own checks (length, limit) hold.
 */
export function replayBody(req: IncomingMessage, body: Buffer): void {
  Object.defineProperty(req, 'readable', { value: true, configurable: true });
  Object.defineProperty(req, 'iterator', {
    configurable: true,
    value: async function* replay() {
      yield body;
    },
  });
}

/** Reads a body of at most `max` bytes: the bytes, or 'too large' (the rest is not read). */
export async function readBody(req: IncomingMessage, max: number): Promise<Buffer | 'too large'> {
  const chunks: Buffer[] = [];
  let read = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    read += chunk.length;
    if (read > max) return 'too large';
    chunks.push(chunk);
  }
  return Buffer.concat(chunks, read);
}

/**
 * The methods each path of the door serves (GET implies HEAD); OPTIONS is the provider's where it answers CORS
 * preflights, else the door's own (204 with Allow). undefined: no such path (404).
 */
export function methodsOf(
  pathname: string,
  registration: boolean,
): { allow: readonly string[]; cors: boolean } | undefined {
  if (PROTECTED_RESOURCE_PATHS.has(pathname)) return { allow: ['GET', 'HEAD', 'OPTIONS'], cors: true };
  switch (pathname) {
    case '/.well-known/oauth-authorization-server':
    case '/.well-known/openid-configuration':
    case OAUTH_ROUTES.jwks:
      return { allow: ['GET', 'HEAD', 'OPTIONS'], cors: true };
    case OAUTH_ROUTES.token:
    case OAUTH_ROUTES.revocation:
      return { allow: ['POST', 'OPTIONS'], cors: true };
    case OAUTH_ROUTES.authorization:
      return { allow: ['GET', 'HEAD', 'OPTIONS'], cors: false };
    case OAUTH_ROUTES.registration:
      return registration ? { allow: ['POST', 'OPTIONS'], cors: false } : undefined;
  }
  if (pathname.startsWith(INTERACTION_PATH)) return { allow: ['GET', 'HEAD', 'POST', 'OPTIONS'], cors: false };
  // The provider's resume of an authorisation request (/oauth/authorize/<uid>) and the RFC 7592 read of a
  // registration (registration_client_uri): read only, no update or delete.
  const rest = (prefix: string) =>
    pathname.startsWith(`${prefix}/`) && !pathname.slice(prefix.length + 1).includes('/');
  if (rest(OAUTH_ROUTES.authorization)) return { allow: ['GET', 'HEAD', 'OPTIONS'], cors: false };
  if (registration && rest(OAUTH_ROUTES.registration)) return { allow: ['GET', 'HEAD', 'OPTIONS'], cors: false };
  return undefined;
}
