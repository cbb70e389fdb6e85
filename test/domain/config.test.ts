// Configuration comes from the environment, is validated at start, and secrets are generated once (mode 0600).
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { describe, expect, test } from 'vitest';
import {
  ConfigError,
  databaseLabel,
  databaseNamed,
  loadConfig,
  lookalikeSettings,
  maskUrl,
  reachableUrl,
} from '../../src/core/config.js';

describe('configuration', () => {
  test('defaults, and secrets generated into a private file that later starts reuse', () => {
    const dir = mkdtempSync(join(tmpdir(), 'cfg-'));
    const file = join(dir, 'data', 'secrets.json');
    const warnings: string[] = [];
    const first = loadConfig({ SECRETS_FILE: file }, (m) => warnings.push(m));
    expect(first.PORT).toBe(4000);
    expect(first.HOST).toBe('127.0.0.1');
    expect(first.DATABASE_URL).toBe('sqlite:./data/campaigns.db');
    expect(first.TOKEN_TTL_SECONDS).toBe(3600);
    expect(first.ALLOW_SIGNUP).toBe(true);
    expect(first.SECRETS_KEY).toHaveLength(32);
    expect(warnings).toHaveLength(1);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const stored = JSON.parse(readFileSync(file, 'utf8'));
    expect(stored.JWT_SECRET).toBe(first.JWT_SECRET);

    const second = loadConfig({ SECRETS_FILE: file }, (m) => warnings.push(m));
    expect(second.JWT_SECRET).toBe(first.JWT_SECRET);
    expect(second.SECRETS_KEY.equals(first.SECRETS_KEY)).toBe(true);
    expect(warnings).toHaveLength(1);
  });

  test('start-up names only the secrets it generated (issue 32: not JWT_SECRET when it is set)', () => {
    const file = join(mkdtempSync(join(tmpdir(), 'cfg-')), 'secrets.json');
    const warnings: string[] = [];
    const jwtSecret = 'j'.repeat(40);
    const first = loadConfig({ SECRETS_FILE: file, JWT_SECRET: jwtSecret }, (m) => warnings.push(m));
    expect(warnings).toEqual([`SECRETS_KEY not set: generated it into ${file} (keep this file private and backed up)`]);
    expect(first.JWT_SECRET).toBe(jwtSecret);
    // The file holds what was generated, and nothing the environment gave.
    const stored = JSON.parse(readFileSync(file, 'utf8'));
    expect(Object.keys(stored)).toEqual(['SECRETS_KEY']);
    expect(Buffer.from(stored.SECRETS_KEY, 'base64').equals(first.SECRETS_KEY)).toBe(true);

    // Later without JWT_SECRET: that one is generated into the same file, and named alone.
    const second = loadConfig({ SECRETS_FILE: file }, (m) => warnings.push(m));
    expect(warnings[1]).toBe(`JWT_SECRET not set: generated it into ${file} (keep this file private and backed up)`);
    expect(second.SECRETS_KEY.equals(first.SECRETS_KEY)).toBe(true);
    expect(JSON.parse(readFileSync(file, 'utf8')).JWT_SECRET).toBe(second.JWT_SECRET);
    expect(statSync(file).mode & 0o777).toBe(0o600);

    // Neither set and no file: both generated, both named.
    const fresh = join(mkdtempSync(join(tmpdir(), 'cfg-')), 'secrets.json');
    loadConfig({ SECRETS_FILE: fresh, SECRETS_KEY: undefined }, (m) => warnings.push(m));
    expect(warnings[2]).toBe(
      `JWT_SECRET and SECRETS_KEY not set: generated them into ${fresh} (keep this file private and backed up)`,
    );
    expect(warnings).toHaveLength(3);
  });

  test('a secret added to the secrets file replaces it whole: what it held is kept, private, nothing left beside it', () => {
    const dir = mkdtempSync(join(tmpdir(), 'cfg-'));
    const file = join(dir, 'secrets.json');
    const key = randomBytes(32).toString('base64');
    writeFileSync(file, JSON.stringify({ SECRETS_KEY: key, note: 'rotated 2026-01' }), { mode: 0o644 });
    const config = loadConfig({ SECRETS_FILE: file }, () => undefined);
    const stored = JSON.parse(readFileSync(file, 'utf8'));
    expect(stored).toEqual({ SECRETS_KEY: key, note: 'rotated 2026-01', JWT_SECRET: config.JWT_SECRET });
    expect(config.SECRETS_KEY.equals(Buffer.from(key, 'base64'))).toBe(true);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(readdirSync(dir)).toEqual(['secrets.json']);
  });

  test('a bad value stops start-up with a message naming every bad variable', () => {
    const env = {
      PORT: 'eighty',
      DATABASE_URL: 'mysql://x',
      SECRETS_KEY: 'short',
      ALLOW_SIGNUP: 'maybe',
      JWT_SECRET: 'x'.repeat(40),
    };
    expect(() => loadConfig(env)).toThrow(ConfigError);
    try {
      loadConfig(env);
    } catch (error) {
      const message = (error as Error).message;
      for (const name of ['PORT', 'DATABASE_URL', 'SECRETS_KEY', 'ALLOW_SIGNUP']) expect(message).toContain(name);
    }
  });
});

test('MCP_GRAPHQL_TOOL (any document) and PERSISTED_OPERATIONS=only (trusted documents only) are refused together', () => {
  const secrets = { JWT_SECRET: 'x'.repeat(32), SECRETS_KEY: Buffer.alloc(32, 1).toString('base64') };
  expect(() => loadConfig({ ...secrets, MCP_GRAPHQL_TOOL: 'true', PERSISTED_OPERATIONS: 'only' })).toThrow(
    /MCP_GRAPHQL_TOOL.*PERSISTED_OPERATIONS=only forbids/,
  );
  expect(loadConfig({ ...secrets, MCP_GRAPHQL_TOOL: 'true' }).MCP_GRAPHQL_TOOL).toBe(true);
});

test('the URL a local client reaches the gateway at (npm start prints it as GATEWAY; the CLI sends to it)', () => {
  expect(reachableUrl('127.0.0.1', 4100)).toBe('http://127.0.0.1:4100');
  expect(reachableUrl('0.0.0.0', 4000)).toBe('http://127.0.0.1:4000');
  expect(reachableUrl('::', 4000)).toBe('http://127.0.0.1:4000');
  expect(reachableUrl('::1', 4000)).toBe('http://[::1]:4000');
  expect(reachableUrl('gateway.internal', 80)).toBe('http://gateway.internal:80');
});

describe('settings that refuse mistakes (issue 54)', () => {
  const secrets = { JWT_SECRET: 'x'.repeat(32), SECRETS_KEY: Buffer.alloc(32, 1).toString('base64') };
  const PG = 'postgres://gateway:s3cret@db.internal:5433/campaigns';

  test('on PostgreSQL the secrets are not generated: the start refuses in one line saying to set both', () => {
    const file = join(mkdtempSync(join(tmpdir(), 'cfg-')), 'secrets.json');
    const refused = () => loadConfig({ DATABASE_URL: PG, SECRETS_FILE: file }, () => undefined);
    expect(refused).toThrow(ConfigError);
    expect(refused).toThrow(/^On PostgreSQL set JWT_SECRET and SECRETS_KEY, the same for every instance/);
    expect(() => loadConfig({ DATABASE_URL: PG, SECRETS_FILE: file, JWT_SECRET: 'j'.repeat(40) })).toThrow(
      /^On PostgreSQL set SECRETS_KEY,/,
    );
    // Nothing was written; both given, it starts; a secrets file an older start generated is still read.
    expect(readdirSync(dirname(file))).toEqual([]);
    expect(loadConfig({ DATABASE_URL: PG, SECRETS_FILE: file, ...secrets }).DATABASE_URL).toBe(PG);
    writeFileSync(file, JSON.stringify({ JWT_SECRET: secrets.JWT_SECRET, SECRETS_KEY: secrets.SECRETS_KEY }));
    expect(loadConfig({ DATABASE_URL: PG, SECRETS_FILE: file }).JWT_SECRET).toBe(secrets.JWT_SECRET);
  });

  test('an empty or unparsable DATABASE_URL is refused, never the default SQLite file instead', () => {
    expect(() => loadConfig({ ...secrets, DATABASE_URL: '' })).toThrow(/DATABASE_URL is set but empty/);
    for (const bad of ['postgres://db:notaport/x', 'postgresql://', 'postgres://app:s3cr/t@db.internal:5432/x']) {
      expect(() => loadConfig({ ...secrets, DATABASE_URL: bad }), bad).toThrow(/DATABASE_URL=/);
    }
    expect(() => loadConfig({ ...secrets, DATABASE_URL: 'postgres://u:pw@db:notaport/x' })).toThrow(
      'DATABASE_URL="postgres://****@db:notaport/x" is not a URL',
    );
    // A password that breaks the URL is never shown, nor one given as a parameter.
    const unparsable = () => loadConfig({ ...secrets, DATABASE_URL: 'postgres://app:s3cr/t@db.internal:5432/x' });
    expect(unparsable).toThrow('DATABASE_URL="postgres://****@db.internal:5432/x"');
    expect(() => loadConfig({ ...secrets, REDIS_URL: 'redis://:pa/ss@cache:6379' })).toThrow(/^(?!.*pa\/ss)/s);
    expect(maskUrl('redis://cache:6379/0?password=s3cret&db=1')).toBe('redis://cache:6379/0?password=****&db=1');
    // What pg reads is accepted: a host, or a Unix socket's folder as ?host=, or only a database (on localhost).
    for (const good of [
      'postgresql://db/campaigns',
      'postgres:///campaigns?host=/var/run/postgresql',
      'postgres://u:pw@/db?host=/run/postgresql',
      'postgres:///campaigns',
    ]) {
      expect(loadConfig({ ...secrets, DATABASE_URL: good }).DATABASE_URL, good).toBe(good);
    }
  });

  test('an OTLP endpoint that is not an http(s) URL is refused, and so is a REDIS_URL without a host', () => {
    expect(() => loadConfig({ ...secrets, REDIS_URL: 'redis://:6379' })).toThrow(
      /REDIS_URL="redis:\/\/:6379" is not a URL/,
    );
    for (const name of ['OTEL_EXPORTER_OTLP_ENDPOINT', 'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT']) {
      expect(() => loadConfig({ ...secrets, [name]: 'collector:4318' })).toThrow(
        `${name}="collector:4318" must be an http:// or https:// URL`,
      );
      expect(() => loadConfig({ ...secrets, [name]: 'http://collector:4318' })).not.toThrow();
    }
  });

  test('a name that looks like a setting but is not one is warned about, with the one it likely meant', () => {
    const env = {
      ...secrets,
      DATABSE_URL: PG,
      database_url: PG,
      REDIS_URI: 'redis://x',
      RATE_LIMIT_PER_MINUT: '5',
      port: '4100',
      // The environment's own and the tests' variables are not taken for settings.
      PATH: '/usr/bin',
      HOME: '/root',
      HOSTNAME: 'box',
      TEST_DATABASE_URL: PG,
      npm_config_loglevel: 'warn',
      OTEL_SERVICE_NAME: 'gateway',
    };
    expect(lookalikeSettings(env)).toEqual([
      { given: 'DATABSE_URL', meant: 'DATABASE_URL' },
      { given: 'database_url', meant: 'DATABASE_URL' },
      { given: 'REDIS_URI', meant: 'REDIS_URL' },
      { given: 'RATE_LIMIT_PER_MINUT', meant: 'RATE_LIMIT_PER_MINUTE' },
      { given: 'port', meant: 'PORT' },
    ]);
    const warnings: string[] = [];
    loadConfig(env, (warning) => warnings.push(warning));
    expect(warnings[0]).toBe('DATABSE_URL is not a setting of the gateway (did you mean DATABASE_URL?): it is ignored');
    expect(warnings).toHaveLength(5);
    expect(warnings.join('\n')).not.toContain('s3cret');
  });

  test('the database as the banner and the first log line name it: kind, host, port, name, never the password', () => {
    expect(databaseNamed(PG)).toEqual({ kind: 'postgres', host: 'db.internal', port: 5433, name: 'campaigns' });
    expect(databaseLabel(databaseNamed(PG))).toBe('postgres db.internal:5433/campaigns');
    expect(databaseLabel(databaseNamed('postgres://app@db'))).toBe('postgres db:5432/');
    expect(databaseLabel(databaseNamed('postgres:///campaigns?host=/run/postgresql'))).toBe(
      'postgres /run/postgresql:5432/campaigns',
    );
    expect(databaseLabel(databaseNamed('sqlite:./data/campaigns.db'))).toBe('sqlite ./data/campaigns.db');
  });
});
