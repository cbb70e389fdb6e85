// Start-up failures an operator can fix are one line each (the setting, its value with passwords masked, what to do),
// exit code 1 and no stack; the CLI has --help (exit 0) and usage errors (exit 2).
import { execFile } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEST_DATABASE_URL } from '../helpers/app.js';
import { ROOT, TSX_LOADER } from '../helpers/server-process.js';

interface Outcome {
  code: number;
  stdout: string;
  stderr: string;
}

const cwd = mkdtempSync(join(tmpdir(), 'gateway-startup-'));
const BASE_ENV = {
  PATH: process.env.PATH ?? '',
  JWT_SECRET: 'startup-secret-startup-secret-startup-0123',
  SECRETS_KEY: Buffer.alloc(32, 3).toString('base64'),
  LOG_LEVEL: 'silent',
};

function run(script: 'main' | 'cli', args: string[], env: Record<string, string> = {}): Promise<Outcome> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      ['--import', TSX_LOADER, join(ROOT, `src/${script}.ts`), ...args],
      { cwd, env: { ...BASE_ENV, ...env }, timeout: 20_000 },
      (error, stdout, stderr) => {
        const code = error ? (typeof error.code === 'number' ? error.code : -1) : 0;
        resolve({ code, stdout, stderr });
      },
    );
  });
}

/** One line, no stack, exit code 1. */
function expectOneLine(outcome: Outcome, ...needles: Array<string | RegExp>): void {
  const shown = `exit ${outcome.code}: ${outcome.stderr}`;
  expect(outcome.code, shown).toBe(1);
  expect(outcome.stderr.trim().split('\n'), shown).toHaveLength(1);
  expect(outcome.stderr, shown).not.toMatch(/\n\s+at /);
  for (const needle of needles) expect(outcome.stderr, shown).toMatch(needle);
}

describe.concurrent('npm start refuses to start with one clear line', () => {
  let busy: Server;
  let busyPort = 0;
  beforeAll(async () => {
    busy = createServer();
    await new Promise<void>((resolve) => busy.listen(0, '127.0.0.1', resolve));
    busyPort = (busy.address() as { port: number }).port;
  });
  afterAll(() => new Promise<void>((resolve) => busy.close(() => resolve())));

  it('an unreachable PostgreSQL, naming DATABASE_URL with its password masked', async () => {
    const outcome = await run('main', [], { DATABASE_URL: 'postgres://app:s3cret@127.0.0.1:1/app' });
    expectOneLine(outcome, 'DATABASE_URL=postgres://app:****@127.0.0.1:1/app', /Cannot reach the database/);
    expect(outcome.stderr).not.toContain('s3cret');
  });

  it.runIf(TEST_DATABASE_URL)('PostgreSQL refusing the credentials, or a database that does not exist', async () => {
    const url = new URL(TEST_DATABASE_URL ?? '');
    const badUser = Object.assign(new URL(url), { username: 'no_such_role', password: 'pw' }).toString();
    expectOneLine(await run('main', [], { DATABASE_URL: badUser }), /refused the credentials/, 'no_such_role:****');
    const badDb = Object.assign(new URL(url), { pathname: '/no_such_database_here' }).toString();
    expectOneLine(await run('main', [], { DATABASE_URL: badDb }), /does not exist/, 'no_such_database_here');
  });

  it('a port in use, naming PORT', async () => {
    const outcome = await run('main', [], { DATABASE_URL: 'sqlite::memory:', PORT: String(busyPort) });
    expectOneLine(outcome, `Port ${busyPort} is already in use`, `PORT=${busyPort}`);
  });

  it('an unusable SQLite path', async () => {
    const outcome = await run('main', [], { DATABASE_URL: 'sqlite:/dev/null/x.db' });
    expectOneLine(outcome, 'DATABASE_URL=sqlite:/dev/null/x.db', /writable directory/);
  });

  it('bad values, each quoted (secrets hidden), all in one line', async () => {
    const outcome = await run('main', [], { PORT: 'abc', TOKEN_TTL_SECONDS: '5', JWT_SECRET: 'short-secret' });
    expectOneLine(outcome, 'PORT="abc" must be a number', 'TOKEN_TTL_SECONDS="5" must be at least 60');
    expect(outcome.stderr).toContain('JWT_SECRET=(hidden)');
    expect(outcome.stderr).not.toContain('short-secret');
  });
});

describe.concurrent('the CLI', () => {
  it('--help lists the commands and exits 0; each command has its own --help', async () => {
    const all = await run('cli', ['--help']);
    expect(all.code).toBe(0);
    for (const name of ['migrate', 'schema:print', 'seed:demo', 'user:create']) expect(all.stdout).toContain(name);
    const one = await run('cli', ['user:create', '--help']);
    expect(one.code).toBe(0);
    expect(one.stdout).toContain('--email');
  });

  it('an unknown command, no command, a missing or an unknown option: what was wrong, the usage, exit 2', async () => {
    const unknown = await run('cli', ['nope']);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(/^unknown command "nope"/);
    expect((await run('cli', [])).code).toBe(2);
    const missing = await run('cli', ['user:create', '--email', 'a@example.com']);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/^user:create needs --password/);
    const extra = await run('cli', ['migrate', '--force']);
    expect(extra.code).toBe(2);
    expect(extra.stderr).toContain("Unknown option '--force'");
  });

  it('a command that cannot reach its database fails in one line, like the server', async () => {
    const outcome = await run('cli', ['migrate'], { DATABASE_URL: 'postgres://app:s3cret@127.0.0.1:1/app' });
    expectOneLine(outcome, /Cannot reach the database/, 'app:****@');
  });
});
