// `npm start` on an empty folder: creates ./data/, migrates, serves GraphiQL and the REST paths.
import { type ChildProcess, execFile } from 'node:child_process';
import { existsSync, mkdtempSync, statSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { ROOT, startServerProcess } from '../helpers/server-process.js';

const TSX = join(ROOT, 'node_modules/.bin/tsx');

describe('a fresh start', () => {
  let server: ChildProcess;
  let base: string;
  let printed = '';
  const cwd = mkdtempSync(join(tmpdir(), 'gateway-start-'));

  beforeAll(async () => {
    // PORT=0 picks a free port; the server prints the address it got. LOG_FORMAT=plain: the lines a person sees
    // on a terminal (a pipe, as here, gets JSON lines otherwise: below).
    ({
      child: server,
      base,
      printed,
    } = await startServerProcess({ DATABASE_URL: undefined, LOG_LEVEL: 'info', LOG_FORMAT: 'plain' }, cwd));
  }, 30_000);

  afterAll(() => {
    server?.kill('SIGTERM');
  });

  test('prints where GraphiQL, REST, its docs, OpenAPI and the health checks are, and which database it opened', () => {
    for (const path of ['/graphql', '/api/v3', '/api/v3/docs', '/api/v3/openapi.json', '/healthz', '/readyz']) {
      expect(printed).toContain(`${base}${path}`);
    }
    expect(printed).toContain('\n  database  sqlite ./data/campaigns.db\n');
  });

  test('says where the gateway is as the line the examples start from, after the migrations it applied', () => {
    expect(printed).toContain(`\n  export GATEWAY=${base}\n`);
    const banner = printed.indexOf('Campaign gateway listening on');
    const migrations = [...printed.matchAll(/"msg":"migration applied"/g)].map((match) => match.index);
    expect(migrations.length).toBeGreaterThan(10);
    // pino writes through a buffer: a banner printed by console.log came out before most of them.
    for (const at of migrations) expect(at).toBeLessThan(banner);
  });

  test('creates the SQLite database and a private secrets file under ./data/', () => {
    expect(existsSync(join(cwd, 'data/campaigns.db'))).toBe(true);
    expect(statSync(join(cwd, 'data/secrets.json')).mode & 0o777).toBe(0o600);
  });

  test('serves GraphiQL to browsers, with the default query that logs in and lists campaigns', async () => {
    const response = await fetch(`${base}/graphql`, { headers: { accept: 'text/html' } });
    expect(response.status).toBe(200);
    const html = await response.text();
    expect(html).toContain('<html');
    expect(html).toContain('mutation Login');
    expect(html).toContain('query Campaigns');
  });

  test('serves the REST paths and GraphQL over HTTP', async () => {
    const email = `start-${Date.now()}@example.com`;
    const signup = await fetch(`${base}/api/v3/signup`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email, password: 'long enough password' }),
    });
    expect(signup.status).toBe(200);
    const login = await fetch(`${base}/api/v3/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ username: email, password: 'long enough password' }),
    });
    const { access_token } = (await login.json()) as { access_token: string };
    const voices = await fetch(`${base}/api/v3/get_supported_voices`, {
      headers: { authorization: `Bearer ${access_token}` },
    });
    expect(voices.status).toBe(200);
    expect(((await voices.json()) as unknown[]).length).toBeGreaterThanOrEqual(12);
    const graphql = await fetch(`${base}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${access_token}` },
      body: JSON.stringify({ query: '{ viewer { email } }' }),
    });
    expect(await graphql.json()).toEqual({ data: { viewer: { email } } });
  });

  test('status lines carry the standard reason phrase, as the legacy service sent them', async () => {
    const statusLine = (path: string, method = 'GET') =>
      new Promise<string>((resolve, reject) => {
        const request = httpRequest(`${base}${path}`, { method }, (response) => {
          response.resume();
          resolve(`${response.statusCode} ${response.statusMessage}`);
        });
        request.on('error', reject);
        request.end();
      });
    expect(await statusLine('/api/v3/no_such_path')).toBe('404 Not Found');
    expect(await statusLine('/api/v3/get_campaigns')).toBe('401 Unauthorized');
    expect(await statusLine('/healthz')).toBe('200 OK');
    expect(await statusLine('/api/v3/signup', 'POST')).toBe('422 Unprocessable Entity');
  });

  test('`cli migrate` reports an up-to-date database', async () => {
    const { stdout } = await promisify(execFile)(TSX, [join(ROOT, 'src/cli.ts'), 'migrate'], { cwd });
    expect(stdout).toContain('database is up to date');
  });
});

describe('a start without a terminal (a container, a process manager)', () => {
  test('writes every line as JSON with pid and host: first the database, last where it listens; SIGTERM too', async () => {
    const cwd = mkdtempSync(join(tmpdir(), 'gateway-json-'));
    const { child, base, printed } = await startServerProcess(
      { DATABASE_URL: undefined, LOG_LEVEL: 'info', LOG_FORMAT: 'json' },
      cwd,
    );
    let output = printed;
    child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGTERM');
    expect(await exited).toBe(0);
    const lines = output
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    for (const line of lines) expect(line).toMatchObject({ pid: child.pid, hostname: hostname() });
    expect(lines[0]).toMatchObject({
      level: 30,
      msg: 'Starting on sqlite ./data/campaigns.db',
      database: { kind: 'sqlite', name: './data/campaigns.db' },
    });
    const listening = lines.find((line) => String(line.msg).startsWith('Campaign gateway listening on'));
    expect(listening).toMatchObject({
      address: base,
      gateway: base,
      graphiql: `${base}/graphql`,
      ready: `${base}/readyz`,
      database: { kind: 'sqlite' },
    });
    expect(lines.at(-1)).toMatchObject({ msg: 'SIGTERM: shutting down', signal: 'SIGTERM' });
  }, 30_000);
});
