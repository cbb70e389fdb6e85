// Start-up failures an operator can fix are one line each (the setting, its value with passwords masked, what to do),
// exit code 1 and no stack; the CLI has --help (exit 0) and usage errors (exit 2). The failures themselves are made
// in process (the real errors of createApp and listen); one spawned server proves the wiring end to end.
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { createApp } from '../../src/app.js';
import { runCli } from '../../src/cli.js';
import { loadConfig } from '../../src/core/config.js';
import { createHttpServer, listen } from '../../src/http/server.js';
import { describeStartupFailure } from '../../src/startup-errors.js';
import { migrations } from '../../migrations/index.js';
import { TEST_DATABASE_URL } from '../helpers/app.js';
import { logCapture } from '../helpers/log-lines.js';
import { ROOT, TSX_LOADER } from '../helpers/server-process.js';

const SECRETS = {
  JWT_SECRET: 'startup-secret-startup-secret-startup-0123',
  SECRETS_KEY: Buffer.alloc(32, 3).toString('base64'),
  LOG_LEVEL: 'silent',
};

/** The line start-up would print for `env`, from the error createApp (or loadConfig) really throws. */
async function failureOf(env: Record<string, string>): Promise<string | null> {
  try {
    const config = loadConfig({ ...SECRETS, ...env });
    const app = await createApp(config);
    await app.close();
  } catch (error) {
    return describeStartupFailure(error, { DATABASE_URL: env.DATABASE_URL });
  }
  throw new Error('start-up did not fail');
}

it('logs each migration it applies at start, one line each', async () => {
  const log = logCapture();
  const app = await createApp(loadConfig({ ...SECRETS, LOG_LEVEL: 'info', DATABASE_URL: 'sqlite::memory:' }), {
    logStream: log.stream,
    worker: false,
  });
  await app.close();
  const applied = log.lines.filter((line) => line.msg === 'migration applied').map((line) => line.migration);
  expect(applied).toEqual(Object.keys(migrations));
});

describe('start-up failures are one line naming the setting and what to do', () => {
  it('an unreachable PostgreSQL, with the password masked', async () => {
    const line = await failureOf({ DATABASE_URL: 'postgres://app:s3cret@127.0.0.1:1/app' });
    expect(line).toMatch(/^Cannot reach the database at DATABASE_URL=postgres:\/\/app:\*\*\*\*@127\.0\.0\.1:1\/app /);
    expect(line).not.toContain('s3cret');
  });

  it.runIf(TEST_DATABASE_URL)('PostgreSQL refusing the credentials, or a database that does not exist', async () => {
    const url = new URL(TEST_DATABASE_URL ?? '');
    const badUser = Object.assign(new URL(url), { username: 'no_such_role', password: 'pw' }).toString();
    expect(await failureOf({ DATABASE_URL: badUser })).toMatch(/refused the credentials .*no_such_role:\*\*\*\*@/);
    const badDb = Object.assign(new URL(url), { pathname: '/no_such_database_here' }).toString();
    expect(await failureOf({ DATABASE_URL: badDb })).toMatch(/no_such_database_here.* does not exist/);
  });

  it('an unusable SQLite path', async () => {
    const line = await failureOf({ DATABASE_URL: 'sqlite:/dev/null/x.db' });
    expect(line).toMatch(/DATABASE_URL=sqlite:\/dev\/null\/x\.db.*writable directory/);
  });

  it('a SQLite path in a folder that does not exist (a typo must not start an empty database)', async () => {
    const missing = join(tmpdir(), `no-such-folder-${process.pid}`, 'campaigns.db');
    const line = await failureOf({ DATABASE_URL: `sqlite:${missing}` });
    expect(line).toMatch(
      /^Cannot use the SQLite database DATABASE_URL=sqlite:.*no-such-folder.* does not exist; create it/,
    );
    expect(line?.split('\n')).toHaveLength(1);
    expect(existsSync(dirname(missing))).toBe(false);
  });

  it('bad values, each quoted (secrets hidden), all in one line', async () => {
    const line = await failureOf({ PORT: 'abc', TOKEN_TTL_SECONDS: '5', JWT_SECRET: 'short-secret' });
    expect(line).toContain('PORT="abc" must be a number');
    expect(line).toContain('TOKEN_TTL_SECONDS="5" must be at least 60');
    expect(line).toContain('JWT_SECRET=(hidden)');
    expect(line).not.toContain('short-secret');
    expect(line?.split('\n')).toHaveLength(1);
  });

  describe('a port in use', () => {
    let busy: Server;
    beforeAll(() => new Promise<void>((resolve) => (busy = createServer()).listen(0, '127.0.0.1', resolve)));
    afterAll(() => new Promise<void>((resolve) => busy.close(() => resolve())));

    it('names PORT and what to do', async () => {
      const port = (busy.address() as { port: number }).port;
      const app = await createApp(loadConfig({ ...SECRETS, DATABASE_URL: 'sqlite::memory:' }));
      const { server } = createHttpServer(app);
      const error = await listen(server, port, '127.0.0.1').then(
        () => null,
        (caught: unknown) => caught,
      );
      await app.close();
      expect(describeStartupFailure(error, { PORT: port, HOST: '127.0.0.1' })).toBe(
        `Port ${port} is already in use on 127.0.0.1 (PORT=${port}): stop the other server or set PORT to a free port.`,
      );
    });
  });

  it('anything else is not described (it is a bug: printed with its stack)', () => {
    expect(describeStartupFailure(new TypeError('x is not a function'))).toBeNull();
  });

  const startFailing = (env: Record<string, string>) =>
    new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
      execFile(
        process.execPath,
        ['--import', TSX_LOADER, join(ROOT, 'src/main.ts')],
        {
          cwd: mkdtempSync(join(tmpdir(), 'gateway-startup-')),
          env: { PATH: process.env.PATH ?? '', ...env },
          // About 1.5 s alone; a CI run on two busy cores once took over 20 s to load the sources.
          timeout: 50_000,
        },
        (error, stdout, stderr) => resolve({ code: typeof error?.code === 'number' ? error.code : 0, stdout, stderr }),
      );
    });

  it('npm start prints just that line and exits 1: plain text for a person, one JSON line otherwise', async () => {
    const env = { ...SECRETS, DATABASE_URL: 'postgres://app:s3cret@127.0.0.1:1/app' };
    const [person, machine] = await Promise.all([
      startFailing({ ...env, LOG_FORMAT: 'plain' }),
      startFailing({ ...env, LOG_FORMAT: 'json' }),
    ]);
    const reason = /^Cannot reach the database at DATABASE_URL=postgres:\/\/app:\*\*\*\*@127\.0\.0\.1:1\/app /;
    expect(person.code, person.stderr).toBe(1);
    expect(person.stderr.trim().split('\n'), person.stderr).toEqual([expect.stringMatching(reason)]);
    expect(machine.code, machine.stderr).toBe(1);
    const lines = machine.stderr.trim().split('\n');
    expect(lines, machine.stderr).toHaveLength(1);
    expect(JSON.parse(lines[0] ?? '')).toMatchObject({ level: 50, msg: expect.stringMatching(reason) });
    expect(machine.stderr + machine.stdout).not.toContain('s3cret');
  }, 60_000);

  it('settings refused at start: on PostgreSQL without the secrets, one line saying to set both; a lookalike warned', async () => {
    const outcome = await startFailing({
      LOG_FORMAT: 'json',
      DATABASE_URL: 'postgres://app:s3cret@127.0.0.1:1/app',
      REDIS_URI: 'redis://127.0.0.1:6379',
    });
    expect(outcome.code, outcome.stderr).toBe(1);
    const lines = outcome.stderr
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { level: number; msg: string });
    expect(lines.map((line) => [line.level, line.msg])).toEqual([
      [40, 'REDIS_URI is not a setting of the gateway (did you mean REDIS_URL?): it is ignored'],
      [50, expect.stringMatching(/^On PostgreSQL set JWT_SECRET and SECRETS_KEY, the same for every instance/)],
    ]);
  }, 60_000);
});

describe('the CLI', () => {
  let out: string[];
  let err: string[];
  beforeAll(() => {
    vi.spyOn(console, 'log').mockImplementation((...args: unknown[]) => void out.push(args.join(' ')));
    vi.spyOn(console, 'error').mockImplementation((...args: unknown[]) => void err.push(args.join(' ')));
  });
  afterAll(() => vi.restoreAllMocks());
  afterEach(() => {
    out = [];
    err = [];
  });
  out = [];
  err = [];

  it('--help lists the commands and exits 0; each command has its own --help', async () => {
    expect(await runCli(['--help'])).toBe(0);
    for (const name of ['migrate', 'schema:print', 'seed:demo', 'user:create']) expect(out.join('\n')).toContain(name);
    out = [];
    expect(await runCli(['user:create', '--help'])).toBe(0);
    expect(out.join('\n')).toMatch(
      /^usage: npm run cli -- user:create --email E {3}\(the password in ACCOUNT_PASSWORD/,
    );
    expect(out.join('\n')).toContain('--email');
  });

  it.each([
    [['nope'], /^unknown command "nope"/],
    [[], /^no command given/],
    [
      ['user:create', '--email', 'a@example.com'],
      /^user:create needs the password in ACCOUNT_PASSWORD \(or --password\)\n\nusage: npm run cli -- user:create/,
    ],
    [['user:create', '--email', 'a@example.com', '--password', 'short'], /^--password: /],
    [['migrate', '--force'], /^migrate: Unknown option '--force'/],
  ])('%j: what was wrong, then the usage, exit 2', async (argv, message) => {
    expect(await runCli(argv)).toBe(2);
    expect(err.join('\n')).toMatch(message);
    expect(err.join('\n')).toContain('usage: npm run cli --');
  });

  it('user:create with an e-mail in use fails in one line, exit 1', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'gateway-cli-'));
    vi.stubEnv('DATABASE_URL', `sqlite:${join(dir, 'cli.db')}`);
    vi.stubEnv('JWT_SECRET', SECRETS.JWT_SECRET);
    vi.stubEnv('SECRETS_KEY', SECRETS.SECRETS_KEY);
    vi.stubEnv('PASSWORD_HASH_COST', '10');
    try {
      const create = ['user:create', '--email', 'twice@example.com', '--password', 'a long password'];
      expect(await runCli(create)).toBe(0);
      expect(await runCli(create)).toBe(1);
    } finally {
      vi.unstubAllEnvs();
    }
    expect(err).toEqual(['An account with this email already exists']);
  });

  it.runIf(TEST_DATABASE_URL)(
    'migrate needs only DATABASE_URL, even on PostgreSQL (a migration job has no secrets)',
    async () => {
      vi.stubEnv('DATABASE_URL', TEST_DATABASE_URL ?? '');
      vi.stubEnv('JWT_SECRET', '');
      vi.stubEnv('SECRETS_KEY', '');
      // A secrets file no other run wrote: the working directory's ./data/secrets.json may hold one secret already.
      vi.stubEnv('SECRETS_FILE', join(mkdtempSync(join(tmpdir(), 'no-secrets-')), 'secrets.json'));
      try {
        expect(await runCli(['migrate']), err.join('\n')).toBe(0);
        // Anything else on PostgreSQL needs both secrets.
        expect(await runCli(['user:create', '--email', 'x@example.com', '--password', 'a long password'])).toBe(1);
      } finally {
        vi.unstubAllEnvs();
      }
      expect(out.join('\n')).toMatch(/database is up to date|applied: /);
      expect(err).toEqual([expect.stringMatching(/^On PostgreSQL set JWT_SECRET and SECRETS_KEY/)]);
    },
  );

  it('a command that cannot reach its database fails in one line, exit 1', async () => {
    vi.stubEnv('DATABASE_URL', 'postgres://app:s3cret@127.0.0.1:1/app');
    vi.stubEnv('JWT_SECRET', SECRETS.JWT_SECRET);
    vi.stubEnv('SECRETS_KEY', SECRETS.SECRETS_KEY);
    try {
      expect(await runCli(['migrate'])).toBe(1);
    } finally {
      vi.unstubAllEnvs();
    }
    expect(err).toEqual([
      expect.stringMatching(/^Cannot reach the database at DATABASE_URL=postgres:\/\/app:\*\*\*\*@/),
    ]);
  });
});
