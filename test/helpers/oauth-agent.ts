// A hosted agent for the OAuth tests (docs/mcp-oauth.md): its client ID metadata document served over https with a
// certificate made at test time (the gateway is told to trust it), an OAuthClientProvider for the MCP SDK's auth(),
// and a cookie-keeping user agent that walks the authorisation redirects and submits the consent form.
import { createHash, randomBytes } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type {
  OAuthDiscoveryState,
  OAuthClientMetadata,
  OAuthClientProvider,
  StoredOAuthClientInformation,
  StoredOAuthTokens,
} from '@modelcontextprotocol/client';
import { generate } from 'selfsigned';

export const REDIRECT_URI = 'https://agent.example/callback';

/** PKCE by hand, for the refusals the SDK would never send. */
export function pkce() {
  const verifier = randomBytes(32).toString('base64url');
  return { verifier, challenge: createHash('sha256').update(verifier).digest('base64url') };
}

/** The authorisation URL; a parameter given as null is left out. */
export function authorizeUrl(base: string, clientId: string, params: Record<string, string | null> = {}) {
  const url = new URL(`${base}/oauth/authorize`);
  const defaults = {
    response_type: 'code',
    client_id: clientId,
    redirect_uri: REDIRECT_URI,
    scope: 'mcp:read mcp:write',
    resource: `${base}/mcp`,
    state: 'st',
  };
  for (const [key, value] of Object.entries({ ...defaults, ...params })) {
    if (value !== null) url.searchParams.set(key, value);
  }
  return url.href;
}

export interface MetadataHost {
  /** The client ID (the document's own URL). */
  clientId: string;
  /** A PEM file with the host's certificate, for OAUTH_CLIENT_METADATA_CA_FILE. */
  caFile: string;
  /** How many times the document was fetched. */
  fetches(): number;
  close(): Promise<void>;
}

export interface MetadataBehaviour {
  /** Sends the document's first bytes, then nothing more (the connection stays open). */
  stall?: boolean;
  /** A Content-Length header of this value (the body is sent as it is). */
  contentLength?: number;
  /** Answers with this status (and no document) instead. */
  status?: number;
}

/** Serves a client ID metadata document at https://localhost:<port>/agent/client.json. */
export async function serveClientMetadata(
  extra: Record<string, unknown> = {},
  behaviour: MetadataBehaviour = {},
): Promise<MetadataHost> {
  const pems = await generate([{ name: 'commonName', value: 'localhost' }], {
    keyType: 'ec',
    curve: 'P-256',
    extensions: [
      {
        name: 'subjectAltName',
        altNames: [
          { type: 2, value: 'localhost' },
          { type: 7, ip: '127.0.0.1' },
        ],
      },
    ],
  });
  const caFile = join(mkdtempSync(join(tmpdir(), 'oauth-ca-')), 'ca.pem');
  writeFileSync(caFile, pems.cert);
  let count = 0;
  let clientId = '';
  const server: Server = createServer({ key: pems.private, cert: pems.cert }, (req, res) => {
    count += 1;
    if (req.url !== '/agent/client.json') {
      res.writeHead(404).end();
      return;
    }
    if (behaviour.status !== undefined) {
      res.writeHead(behaviour.status).end();
      return;
    }
    const body = JSON.stringify({
      client_id: clientId,
      client_name: 'Test <Agent>',
      redirect_uris: [REDIRECT_URI],
      grant_types: ['authorization_code'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
      ...extra,
    });
    res.writeHead(200, {
      'content-type': 'application/json',
      ...(behaviour.contentLength !== undefined ? { 'content-length': String(behaviour.contentLength) } : {}),
    });
    if (behaviour.stall) res.write(body.slice(0, 10));
    else res.end(body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  clientId = `https://localhost:${port}/agent/client.json`;
  return {
    clientId,
    caFile,
    fetches: () => count,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** An agent's OAuth state, as the MCP SDK's auth() keeps it; the authorisation URL it was sent to is recorded. */
export class TestAgent implements OAuthClientProvider {
  authorizationUrl: URL | undefined;
  private info: StoredOAuthClientInformation | undefined;
  private stored: StoredOAuthTokens | undefined;
  private verifier = '';
  private discovery: OAuthDiscoveryState | undefined;

  /** `metadata`: what it registers with besides the defaults (hosted platforms' bodies: test/mcp/oauth.test.ts). */
  constructor(
    readonly clientMetadataUrl?: string,
    private readonly metadata: Partial<OAuthClientMetadata> = {},
  ) {}

  get redirectUrl(): string {
    return this.metadata.redirect_uris?.[0] ?? REDIRECT_URI;
  }
  get clientMetadata(): OAuthClientMetadata {
    return {
      client_name: 'Test <Agent>',
      redirect_uris: [REDIRECT_URI],
      grant_types: ['authorization_code'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
      ...this.metadata,
    };
  }
  clientInformation() {
    return this.info;
  }
  saveClientInformation(info: StoredOAuthClientInformation) {
    this.info = info;
  }
  tokens() {
    return this.stored;
  }
  saveTokens(tokens: StoredOAuthTokens) {
    this.stored = tokens;
  }
  redirectToAuthorization(url: URL) {
    this.authorizationUrl = url;
  }
  saveCodeVerifier(verifier: string) {
    this.verifier = verifier;
  }
  codeVerifier() {
    return this.verifier;
  }
  saveDiscoveryState(state: OAuthDiscoveryState) {
    this.discovery = state;
  }
  discoveryState() {
    return this.discovery;
  }
}

/** A user agent that keeps cookies (by name; paths are ignored) and does not follow redirects by itself. */
export class Browser {
  private cookies = new Map<string, string>();

  /** The Cookie header it would send. */
  cookieHeader(): string {
    return [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
  }

  async go(url: string, init: { method?: string; form?: Record<string, string>; origin?: string } = {}) {
    const headers: Record<string, string> = {};
    if (this.cookies.size) headers.cookie = this.cookieHeader();
    if (init.form) headers['content-type'] = 'application/x-www-form-urlencoded';
    if (init.origin) headers.origin = init.origin;
    const response = await fetch(url, {
      method: init.method ?? 'GET',
      headers,
      redirect: 'manual',
      ...(init.form ? { body: new URLSearchParams(init.form).toString() } : {}),
    });
    for (const cookie of response.headers.getSetCookie()) {
      const [pair = ''] = cookie.split(';');
      const at = pair.indexOf('=');
      this.cookies.set(pair.slice(0, at), pair.slice(at + 1));
    }
    const location = response.headers.get('location');
    return { response, location: location ? new URL(location, url).href : null, text: await response.text() };
  }

  /** Follows redirects on the gateway until one leaves it (to the agent) or a page is shown. */
  async follow(url: string, gateway: string) {
    let step = await this.go(url);
    while (step.location && step.location.startsWith(gateway)) step = await this.go(step.location);
    return step;
  }

  /** From the authorisation URL to the redirect back to the agent, approving with these credentials. */
  async authorize(url: string, gateway: string, login: { email: string; password: string; access?: string }) {
    const page = await this.follow(url, gateway);
    if (page.location) return new URL(page.location);
    if (page.response.status !== 200) throw new Error(`no consent page: ${page.response.status} ${page.text}`);
    const action = /action="([^"]+)"/.exec(page.text)?.[1];
    if (!action) throw new Error('no form on the consent page');
    const posted = await this.go(new URL(action.replace(/&amp;/g, '&'), gateway).href, {
      method: 'POST',
      form: { email: login.email, password: login.password, access: login.access ?? 'write', decision: 'approve' },
    });
    if (!posted.location) throw new Error(`the consent was not accepted: ${posted.response.status} ${posted.text}`);
    const back = await this.follow(posted.location, gateway);
    if (!back.location) throw new Error(`no redirect back to the agent: ${back.response.status} ${back.text}`);
    return new URL(back.location);
  }
}
