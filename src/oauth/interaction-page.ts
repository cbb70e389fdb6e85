// The login and consent page of an authorisation request (docs/mcp-oauth.md "Login and consent"): plain server-rendered
// HTML, no script. Every client-supplied string (its name, its id, where it sends the user back) is shown as plain
// text (src/oauth/plain-text.ts: no control, format or bidi characters), isolated (<bdi>) and escaped.
import { plainText } from './plain-text.js';

export interface ConsentView {
  /** The form posts here: the interaction's own path. */
  action: string;
  clientName: string | undefined;
  clientId: string;
  /** Where the user is sent back: the redirect URI's origin is shown. */
  redirectUri: string;
  /** Whether the client asked for mcp:write (else only read-only access is offered). */
  writeRequested: boolean;
  email?: string;
  error?: string;
}

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };
export const escapeHtml = (text: string): string => text.replace(/[&<>"']/g, (c) => ESCAPES[c] ?? c);

const originOf = (uri: string): string => {
  const url = URL.parse(uri);
  return url ? (url.origin === 'null' ? `${url.protocol}…` : url.origin) : uri;
};

const STYLE = `body{font:16px/1.5 system-ui,sans-serif;max-width:32rem;margin:3rem auto;padding:0 1rem;color:#222}
h1{font-size:1.4rem}label{display:block;margin:.8rem 0 .2rem}input[type=email],input[type=password]{width:100%;
padding:.4rem;font:inherit;box-sizing:border-box}fieldset{margin:1rem 0;border:1px solid #ccc}.error{color:#a00;
font-weight:600}.client{font-weight:600}code{word-break:break-all}button{font:inherit;padding:.5rem 1.2rem;
margin-right:.6rem}`;

/** The whole page. */
export function consentPage(view: ConsentView): string {
  const name = escapeHtml(plainText(view.clientName) || plainText(originOf(view.clientId)));
  const shownId = escapeHtml(plainText(view.clientId));
  const backTo = escapeHtml(plainText(originOf(view.redirectUri)));
  const access = view.writeRequested
    ? `<label><input type="radio" name="access" value="write" checked> Read and change (create, update and delete
campaigns, start calls)</label><label><input type="radio" name="access" value="read"> Read only</label>`
    : `<p>Read only (it cannot change anything).</p><input type="hidden" name="access" value="read">`;
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>Allow ${name} to use your campaigns?</title><style>${STYLE}</style></head><body>
<h1>Allow <bdi class="client">${name}</bdi> to use your campaigns?</h1>
<p>The agent <code><bdi>${shownId}</bdi></code> asks for an access token of your account for this gateway's
MCP door. After you decide you are sent back to <code><bdi>${backTo}</bdi></code>.</p>
${view.error ? `<p class="error" role="alert">${escapeHtml(view.error)}</p>` : ''}
<form method="post" action="${escapeHtml(view.action)}">
<label for="email">E-mail of your account</label>
<input id="email" name="email" type="email" autocomplete="username" required maxlength="254"
 value="${escapeHtml(view.email ?? '')}">
<label for="password">Password</label>
<input id="password" name="password" type="password" autocomplete="current-password" required maxlength="256">
<fieldset><legend>Access</legend>${access}</fieldset>
<p>The token appears among your account's access tokens, named after the agent; revoke it there at any time.</p>
<button type="submit" name="decision" value="approve">Approve</button>
<button type="submit" name="decision" value="deny" formnovalidate>Deny</button>
</form></body></html>`;
}

/** A page for a request that cannot go on (an expired interaction, a missing cookie). */
export function problemPage(message: string): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Authorisation failed</title><style>${STYLE}</style></head><body>
<h1>Authorisation failed</h1><p class="error">${escapeHtml(message)}</p>
<p>Start again from the agent.</p></body></html>`;
}
