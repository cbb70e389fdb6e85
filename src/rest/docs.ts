// GET /api/v3/openapi.json and the interactive docs at /api/v3/docs (Swagger UI's files from swagger-ui-dist).
import { onFirstUse } from '../core/first-use.js';
import { offLoop } from '../core/request-context.js';
import { Response } from '../core/fetch-api.js';
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type { RestRoute } from './route.js';

const ASSETS: Record<string, string> = {
  'swagger-ui.css': 'text/css; charset=utf-8',
  'swagger-ui-bundle.js': 'text/javascript; charset=utf-8',
  'swagger-ui-standalone-preset.js': 'text/javascript; charset=utf-8',
  'favicon-32x32.png': 'image/png',
};

const PAGE = `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <title>Campaign gateway — REST API (/api/v3)</title>
  <link rel="stylesheet" href="/api/v3/docs/swagger-ui.css">
  <link rel="stylesheet" href="/api/v3/docs/page.css">
  <link rel="icon" type="image/png" href="/api/v3/docs/favicon-32x32.png">
</head>
<body>
  <div id="swagger-ui"></div>
  <script src="/api/v3/docs/swagger-ui-bundle.js"></script>
  <script src="/api/v3/docs/swagger-ui-standalone-preset.js"></script>
  <script src="/api/v3/docs/init.js"></script>
</body>
</html>
`;

const INIT = `window.ui = SwaggerUIBundle({
  url: '/api/v3/openapi.json',
  dom_id: '#swagger-ui',
  deepLinking: true,
  presets: [SwaggerUIBundle.presets.apis, SwaggerUIStandalonePreset],
  layout: 'StandaloneLayout',
});
`;

// The Authorize dialog's password flow asks for an e-mail (username) and a password only: this service uses no OAuth2
// client, so the client id and secret, where they go, and Swagger UI's note about scopes (there are none) are hidden.
const CSS = `.swagger-ui .scope-def,
.swagger-ui .auth-container .wrapper:has(> label[for='password_type']),
.swagger-ui .auth-container .wrapper:has(> label[for^='client_id_']),
.swagger-ui .auth-container .wrapper:has(> label[for^='client_secret_']) {
  display: none;
}
`;

export type DocsHandler = (pathname: string) => Promise<Response | null>;

export function createDocs(routes: readonly RestRoute[]): DocsHandler {
  // Built on its first request (issue 55): a document of hundreds of kilobytes, and the code that makes it, that most
  // instances never serve.
  const openapiText = onFirstUse(() =>
    import('./openapi.js').then(({ buildOpenApi }) => JSON.stringify(buildOpenApi(routes))),
  );
  const assetDir = dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'));
  const cache = new Map<string, Uint8Array<ArrayBuffer>>();
  const send = (body: string | Uint8Array<ArrayBuffer>, type: string) =>
    new Response(body, { headers: { 'content-type': type, 'cache-control': 'public, max-age=3600' } });

  return async (pathname) => {
    // Its making is no one's work: the request is off the loop meanwhile (not charged to its work budget).
    if (pathname === '/api/v3/openapi.json') return send(await offLoop(openapiText()), 'application/json');
    if (pathname === '/api/v3/docs' || pathname === '/api/v3/docs/') return send(PAGE, 'text/html; charset=utf-8');
    if (pathname === '/api/v3/docs/init.js') return send(INIT, 'text/javascript; charset=utf-8');
    if (pathname === '/api/v3/docs/page.css') return send(CSS, 'text/css; charset=utf-8');
    const name = pathname.startsWith('/api/v3/docs/') ? pathname.slice('/api/v3/docs/'.length) : '';
    const type = ASSETS[name];
    if (!type) return null;
    let file = cache.get(name);
    if (!file) cache.set(name, (file = new Uint8Array(await readFile(join(assetDir, name)))));
    return send(file, type);
  };
}
