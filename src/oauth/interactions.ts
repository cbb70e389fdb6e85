// The login and consent step of an authorisation request (docs/mcp-oauth.md "Login and consent"): the provider sends
// the browser to /oauth/interaction/<uid>; the page (src/oauth/interaction-page.ts) asks for the account's e-mail and
// password and which access to grant. The interaction is bound to the provider's signed, SameSite=Lax interaction
// cookie, and a POST with a foreign Origin is refused, so another site cannot submit the form. Password guesses count
// against the same per-e-mail-and-address lockout as the login mutation.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type Provider from 'oidc-provider';
import type { Logger } from '../core/logger.js';
import type { Kysely } from 'kysely';
import type { Database } from '../db/types.js';
import { authenticate } from '../domain/accounts.js';
import { touchPendingClient } from '../domain/oauth-artifacts.js';
import type { RateLimits } from '../security/rate-limits.js';
import { readFormFields } from '../validation/form-fields.js';
import { INTERACTION_PATH, mcpResourceUrl } from './endpoints.js';
import { hasControl } from './hostile-input.js';
import { consentPage, problemPage } from './interaction-page.js';

/** A form is a few short fields: more than this is refused. */
const MAX_FORM_BYTES = 8 * 1024;

export interface InteractionServices {
  db: Kysely<Database>;
  limits: Pick<RateLimits, 'loginAttempt' | 'loginSucceeded'>;
  logger: Logger;
  passwordCost: number;
}

const PAGE_HEADERS = {
  'content-type': 'text/html; charset=utf-8',
  'cache-control': 'no-store',
  'x-frame-options': 'DENY',
  // same-origin (not no-referrer): with no-referrer, browsers send `Origin: null` on the form's POST.
  'referrer-policy': 'same-origin',
  'content-security-policy': "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'; base-uri 'none'",
};

function send(res: ServerResponse, status: number, html: string, extra: Record<string, string> = {}): void {
  res.writeHead(status, { ...PAGE_HEADERS, ...extra });
  res.end(html);
}

async function readForm(req: IncomingMessage): Promise<URLSearchParams | null> {
  const type = req.headers['content-type'] ?? '';
  if (!type.toLowerCase().startsWith('application/x-www-form-urlencoded')) return null;
  const chunks: Buffer[] = [];
  let read = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    read += chunk.length;
    if (read > MAX_FORM_BYTES) return null;
    chunks.push(chunk);
  }
  // Its fields are counted before anything is built of them (MAX_FORM_FIELDS; docs/limits.md).
  const form = readFormFields(Buffer.concat(chunks));
  return form.ok ? form.fields : null;
}

const firstOf = (value: unknown): string | undefined =>
  typeof value === 'string' ? value : Array.isArray(value) && typeof value[0] === 'string' ? value[0] : undefined;

/** Serves GET and POST /oauth/interaction/<uid>. */
export async function handleInteraction(
  provider: Provider,
  services: InteractionServices,
  req: IncomingMessage,
  res: ServerResponse,
  uid: string,
  clientAddress: string,
): Promise<void> {
  let details: Awaited<ReturnType<Provider['interactionDetails']>>;
  try {
    details = await provider.interactionDetails(req, res);
  } catch {
    return send(res, 400, problemPage('This sign-in request has expired or was opened in another browser.'));
  }
  if (details.uid !== uid) return send(res, 400, problemPage('This sign-in request does not match your browser.'));
  const clientId = firstOf(details.params.client_id) ?? '';
  const client = await provider.Client.find(clientId);
  if (!client) return send(res, 400, problemPage('The agent is not known.'));
  const requested = new Set((firstOf(details.params.scope) ?? '').split(' ').filter(Boolean));
  const view = {
    // Built from the uid alone: the raw request line (`//evil/oauth/interaction/…`) must not shape the form's action.
    action: `${INTERACTION_PATH}${encodeURIComponent(uid)}`,
    clientName: client.clientName,
    clientId,
    redirectUri: firstOf(details.params.redirect_uri) ?? '',
    writeRequested: requested.has('mcp:write'),
  };
  if (req.method === 'GET' || req.method === 'HEAD') {
    // A pending registration (docs/mcp-oauth.md "Registrations") whose user is signing in counts as the newest again.
    await touchPendingClient(services.db, clientId);
    return send(res, 200, consentPage(view));
  }
  if (req.method !== 'POST') return send(res, 405, problemPage('Method not allowed.'), { allow: 'GET, POST' });

  const origin = req.headers.origin;
  if (origin && origin !== new URL(provider.issuer).origin) {
    services.logger.warn({ origin }, 'OAuth consent posted from another origin');
    return send(res, 403, problemPage('The form was sent from another site.'));
  }
  const form = await readForm(req);
  if (!form) return send(res, 400, problemPage('The form could not be read.'));
  // The e-mail goes to the database (where a NUL is an error, not a miss): no field but the password, which is only
  // hashed, may hold a control character (src/oauth/hostile-input.ts).
  if ([...form].some(([key, value]) => hasControl(key) || (key !== 'password' && hasControl(value)))) {
    services.logger.info({ path: INTERACTION_PATH }, 'OAuth request refused: a control character');
    res.writeHead(400, { 'content-type': 'application/json', 'cache-control': 'no-store' });
    return void res.end(
      JSON.stringify({
        error: 'invalid_request',
        error_description: 'a form field holds a control character (U+0000-U+001F, U+007F-U+009F)',
      }),
    );
  }
  if (form.get('decision') === 'deny') {
    return provider.interactionFinished(
      req,
      res,
      { error: 'access_denied', error_description: 'The user denied access' },
      { mergeWithLastSubmission: false },
    );
  }
  const email = (form.get('email') ?? '').trim().slice(0, 254);
  const password = (form.get('password') ?? '').slice(0, 256);
  if (!email || !password)
    return send(res, 400, consentPage({ ...view, email, error: 'Enter your e-mail and password.' }));
  const wait = await services.limits.loginAttempt(email, clientAddress);
  if (wait !== null) {
    const error = `Too many failed sign-ins; try again in ${wait} seconds.`;
    return send(res, 429, consentPage({ ...view, email, error }), { 'retry-after': String(wait) });
  }
  const account = await authenticate(services.db, email, password, services.passwordCost);
  if (!account) return send(res, 401, consentPage({ ...view, email, error: 'Incorrect e-mail or password.' }));
  await services.limits.loginSucceeded(email, clientAddress);

  const write = requested.has('mcp:write') && form.get('access') === 'write';
  const grant = new provider.Grant({ accountId: account.id, clientId });
  const resource = firstOf(details.params.resource) ?? mcpResourceUrl(provider.issuer);
  // Read-only access rejects mcp:write (the provider then asks no more); the token is read-only without it.
  grant.addResourceScope(resource, 'mcp:read');
  grant.addOIDCScope('mcp:read');
  if (requested.has('mcp:write')) {
    if (write) {
      grant.addResourceScope(resource, 'mcp:write');
      grant.addOIDCScope('mcp:write');
    } else {
      grant.rejectResourceScope(resource, 'mcp:write');
      grant.rejectOIDCScope('mcp:write');
    }
  }
  if (requested.has('openid')) grant.addOIDCScope('openid');
  const grantId = await grant.save();
  return provider.interactionFinished(
    req,
    res,
    { login: { accountId: account.id }, consent: { grantId } },
    { mergeWithLastSubmission: false },
  );
}
