// Operator commands (`npm run cli -- <command>`): migrate, schema:print, seed:demo, user:create, the token commands,
// callback:send. `--help` for the list and for each command (exit 0); an unknown command or a missing or unknown
// option is a usage error (exit 2); a failure the operator can fix is one line (src/startup-errors.ts, exit 1).
// Secrets (a password, an API key) come from environment variables, never from options: npm prints a script's
// command line, options and all, before it runs it.
import './node-version.js';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { type Config, loadConfig, loadDatabaseUrl, reachableUrl } from './core/config.js';
import { openDatabase } from './db/database.js';
import { migrateToLatest } from './db/migrate.js';
import { findAccountByApiKey, findAccountIdByEmail, signUp } from './domain/accounts.js';
import { callbackParamsSchema } from './domain/call-logs.schema.js';
import { readIntegrationSecrets } from './domain/integrations.js';
import { telephony } from './domain/integrations.schema.js';
import { createSecretBox } from './security/secrets.js';
import { telephonySignature } from './security/telephony-signature.js';
import {
  accessTokenCreateSchema,
  createAccessToken,
  listAccessTokens,
  revokeAccessToken,
} from './domain/access-tokens.js';
import { DomainError } from './core/errors.js';
import { createTokenIssuer } from './security/tokens.js';
import { signUpSchema } from './domain/accounts.schema.js';
import { loadVoiceCatalogue } from './domain/voices.js';
import { seedDemo } from './demo.js';
import { buildManifest, MANIFEST_FILE, RETIRED_FILE, retiredOperations } from './graphql/server/persisted-manifest.js';
import { breakingSubgraphChanges } from './graphql/schema/federation.js';
import { printSortedSchema, printSubgraphSdl } from './graphql/schema/schema.js';
import { MCP_TOOLS_FILE, printMcpTools } from './mcp/tool-list.js';
import { describeStartupFailure, type StartupSettings } from './startup-errors.js';

export const SCHEMA_FILE = 'schema/schema.graphql';
export const SUBGRAPH_FILE = 'schema/subgraph.graphql';

/** A mistake in how a command was called: the message and the usage (of that command, if known), exit code 2. */
class UsageError extends Error {
  constructor(
    message: string,
    readonly command?: string,
  ) {
    super(message);
  }
}

interface Command {
  summary: string;
  usage: string;
  options?: Record<string, { type: 'string' | 'boolean'; description: string }>;
  /** String options as given; a boolean option (a flag) as "true" when it is present. */
  run(options: Record<string, string | undefined>): Promise<void>;
}

/** A command's required options: a usage error naming the first one missing. */
function needs(command: string, options: Record<string, string | undefined>, names: string[]): void {
  for (const name of names) {
    if (options[name] === undefined) throw new UsageError(`${command} needs --${name}`, command);
  }
}

/** zod's issues with a command's options as one usage error (`--password: …; --name: …`); `renamed`: option names. */
function usageFromIssues(
  command: string,
  issues: ReadonlyArray<{ path: PropertyKey[]; message: string }>,
  renamed: Record<string, string> = {},
): UsageError {
  const problems = issues.map((issue) => {
    const name = issue.path.map(String).join('.');
    return `--${renamed[name] ?? name}: ${issue.message}`;
  });
  return new UsageError(problems.join('; '), command);
}

/** Settings of the current command, for its failure messages. */
let settings: StartupSettings = {};

/**
 * Loads the configuration, opens its database and migrates it, then runs `work` with both and the migrations that
 * were applied (said when there were any, unless `quiet`).
 */
async function withDatabase<T>(
  work: (db: ReturnType<typeof openDatabase>['db'], config: Config, applied: string[]) => Promise<T>,
  { quiet = false } = {},
): Promise<T> {
  const config = loadConfig();
  settings = config;
  const { db, dialect, close } = openDatabase(config.DATABASE_URL);
  try {
    const applied = await migrateToLatest(db, dialect);
    if (applied.length > 0 && !quiet) console.log(`migrated: ${applied.join(', ')}`);
    return await work(db, config, applied);
  } finally {
    await close();
  }
}

const commands: Record<string, Command> = {
  migrate: {
    summary: 'apply the pending migrations to DATABASE_URL (npm start does it too)',
    usage: 'migrate',
    run: async () => {
      console.log('migrating…');
      // DATABASE_URL alone: a migration job needs no secrets, not even on PostgreSQL.
      const url = loadDatabaseUrl();
      settings = { DATABASE_URL: url };
      const { db, dialect, close } = openDatabase(url);
      try {
        const applied = await migrateToLatest(db, dialect);
        console.log(applied.length ? `applied: ${applied.join(', ')}` : 'database is up to date');
      } finally {
        await close();
      }
    },
  },
  'schema:print': {
    summary: `write the GraphQL schema to ${SCHEMA_FILE} (npm run schema)`,
    usage: 'schema:print',
    run: async () => {
      writeFileSync(SCHEMA_FILE, printSortedSchema());
      console.log(`wrote ${SCHEMA_FILE}`);
    },
  },
  'subgraph:print': {
    summary: `write the Apollo Federation 2 subgraph SDL to ${SUBGRAPH_FILE} (npm run schema; docs/supergraph.md)`,
    usage: 'subgraph:print [--allow-breaking]',
    options: {
      'allow-breaking': {
        type: 'boolean',
        description: 'write it even when it breaks what the committed SDL promised (a field removed, a type changed…)',
      },
    },
    run: async (options) => {
      const sdl = printSubgraphSdl();
      const before = existsSync(SUBGRAPH_FILE) ? readFileSync(SUBGRAPH_FILE, 'utf8') : null;
      const breaking = before === null ? [] : breakingSubgraphChanges(before, sdl);
      if (breaking.length > 0 && options['allow-breaking'] !== 'true') {
        throw new CliFailure(
          `the subgraph SDL would break what ${SUBGRAPH_FILE} promises to the supergraph:\n` +
            breaking.map((change) => `  - ${change}`).join('\n') +
            '\nkeep the old fields (deprecate them), or write it anyway with subgraph:print --allow-breaking',
        );
      }
      writeFileSync(SUBGRAPH_FILE, sdl);
      console.log(`wrote ${SUBGRAPH_FILE}`);
    },
  },
  'persisted:manifest': {
    summary: `write the trusted documents of PERSISTED_OPERATIONS=only to ${MANIFEST_FILE} (npm run schema)`,
    usage: 'persisted:manifest',
    run: async () => {
      const retired = retiredOperations(readFileSync(RETIRED_FILE, 'utf8'));
      const manifest = buildManifest(readFileSync('README.md', 'utf8'), retired);
      writeFileSync(MANIFEST_FILE, `${JSON.stringify(manifest, null, 2)}\n`);
      console.log(`wrote ${MANIFEST_FILE} (${Object.keys(manifest).length} documents)`);
    },
  },
  'mcp:tools': {
    summary: `write the MCP door's tool definitions to ${MCP_TOOLS_FILE} (npm run schema; docs/mcp.md)`,
    usage: 'mcp:tools',
    run: async () => {
      writeFileSync(MCP_TOOLS_FILE, printMcpTools());
      console.log(`wrote ${MCP_TOOLS_FILE}`);
    },
  },
  'seed:demo': {
    summary: 'create (or start over) the demo account with campaigns, call logs, meetings and a webhook',
    usage: 'seed:demo',
    run: async () => {
      await withDatabase(async (db, config) => {
        await loadVoiceCatalogue(db);
        console.log('seeding the demo account…');
        const demo = await seedDemo(db, config);
        const gateway = gatewayAddress(config);
        console.log(
          [
            `Demo account ready (${demo.campaigns} campaigns, ${demo.callLogs} call logs, ${demo.meetings} meetings, a paused webhook).`,
            `  e-mail           ${demo.email}`,
            `  password         ${demo.password}`,
            `  API key          ${demo.apiKey}   (shown once; running seed:demo again starts the demo account over)`,
            `  telephony token  ${demo.telephonyAuthToken}   (signs call-status callbacks: X-Telephony-Signature)`,
            '',
            'Start the server (npm start). Its first lines give the address to paste where you try the examples:',
            `  export GATEWAY=${gateway}   # with this shell's PORT and HOST; PORT=… npm start prints its own`,
            '  open $GATEWAY/graphql in a browser, run "Login", then "Campaigns"',
            '  curl -s $GATEWAY/api/v3/login -d username=demo@example.com -d password=demo-password',
            `  API_KEY=${demo.apiKey} npm run cli -- callback:send --camp spring-outreach --call-sid CAdemo1 --status completed`,
          ].join('\n'),
        );
      });
    },
  },
  'user:create': {
    summary: 'create an account (even when ALLOW_SIGNUP=false) and print its API key once',
    usage: 'user:create --email E   (the password in ACCOUNT_PASSWORD, so that npm does not print it)',
    options: {
      email: { type: 'string', description: 'the e-mail to log in with' },
      password: {
        type: 'string',
        description: '8 to 128 characters; better in the environment variable ACCOUNT_PASSWORD (npm prints options)',
      },
    },
    run: async (options) => {
      const password = options.password ?? process.env.ACCOUNT_PASSWORD;
      if (password === undefined) {
        throw new UsageError('user:create needs the password in ACCOUNT_PASSWORD (or --password)', 'user:create');
      }
      needs('user:create', options, ['email']);
      const input = signUpSchema.safeParse({ ...options, password });
      if (!input.success) throw usageFromIssues('user:create', input.error.issues);
      await withDatabase(async (db, config) => {
        const { account, apiKey } = await signUp(db, input.data, {
          allowSignup: true,
          passwordCost: config.PASSWORD_HASH_COST,
        });
        console.log(`created ${account.email} (${account.id})\nAPI key (shown once): ${apiKey}`);
      });
    },
  },
};

/** Where the gateway answers: GATEWAY when set, else this configuration's own listen address (PORT, HOST). */
function gatewayAddress(config: Config): string {
  const given = process.env.GATEWAY?.trim();
  if (given) return given.replace(/\/+$/, '');
  return reachableUrl(config.HOST, config.PORT);
}

/** The account with this e-mail, for the token commands: a one-line failure when there is none. */
async function accountIdByEmail(db: ReturnType<typeof openDatabase>['db'], email: string): Promise<string> {
  const id = await findAccountIdByEmail(db, email);
  if (id === null) throw new CliFailure(`no account with the e-mail ${email}`);
  return id;
}

/** A failure the operator can fix, said in one line (exit 1). */
class CliFailure extends Error {}

Object.assign(commands, {
  'token:create': {
    summary: 'create a named access token for an account (agents, scripts; docs/security.md) and print it once',
    usage: 'token:create --email E --name N [--read-only] [--expires-in-days D]',
    options: {
      email: { type: 'string', description: 'the account' },
      name: { type: 'string', description: 'what the token is for (1 to 100 characters)' },
      'read-only': { type: 'boolean', description: 'queries only: mutations are refused' },
      'expires-in-days': { type: 'string', description: 'days until it stops working (default: never)' },
    },
    run: async (options) => {
      needs('token:create', options, ['email', 'name']);
      const days = options['expires-in-days'];
      if (days !== undefined && !/^\d{1,4}$/.test(days)) {
        throw new UsageError('--expires-in-days: a whole number of days, 1 to 3650', 'token:create');
      }
      const readOnly = options['read-only'];
      const input = accessTokenCreateSchema.safeParse({
        name: options.name,
        readOnly: readOnly === 'true',
        expiresAt: days === undefined ? null : new Date(Date.now() + Number(days) * 86_400_000),
      });
      if (!input.success) throw usageFromIssues('token:create', input.error.issues, { expiresAt: 'expires-in-days' });
      await withDatabase(async (db, config) => {
        const accountId = await accountIdByEmail(db, options.email ?? '');
        const tokens = createTokenIssuer(config.JWT_SECRET, config.TOKEN_TTL_SECONDS);
        const { accessToken, token } = await createAccessToken(db, tokens, accountId, input.data);
        const expiry = accessToken.expiresAt ? `expires ${accessToken.expiresAt}` : 'does not expire';
        console.log(
          `created ${accessToken.tokenId} "${accessToken.name}" (${accessToken.readOnly ? 'read-only' : 'read-write'}, ${expiry})\n` +
            `token (shown once): ${token}`,
        );
      });
    },
  },
  'token:list': {
    summary: "list an account's named access tokens (never the tokens themselves)",
    usage: 'token:list --email E',
    options: { email: { type: 'string', description: 'the account' } },
    run: async (options) => {
      needs('token:list', options, ['email']);
      await withDatabase(async (db) => {
        const tokens = await listAccessTokens(db, await accountIdByEmail(db, options.email ?? ''));
        if (tokens.length === 0) console.log('no access tokens');
        for (const token of tokens) {
          const mode = token.readOnly ? 'read-only ' : 'read-write';
          console.log(`${token.tokenId}  ${token.hint}  ${mode}  expires ${token.expiresAt ?? 'never'}  ${token.name}`);
        }
      });
    },
  },
  'token:revoke': {
    summary: 'revoke a named access token: the next request with it is refused on every instance',
    usage: 'token:revoke --email E --id tok_…',
    options: {
      email: { type: 'string', description: 'the account' },
      id: { type: 'string', description: 'the tokenId (token:list shows it)' },
    },
    run: async (options) => {
      needs('token:revoke', options, ['email', 'id']);
      await withDatabase(async (db) => {
        const accountId = await accountIdByEmail(db, options.email ?? '');
        const revoked = await revokeAccessToken(db, accountId, options.id ?? '');
        console.log(`revoked ${revoked.tokenId} "${revoked.name}"`);
      });
    },
  },
  'callback:send': {
    summary:
      "send a call-status callback as the telephony provider would, signed with the account's stored telephony token",
    usage:
      'callback:send --camp C --call-sid CA… --status S [--duration SECONDS] [--price P] [--to +1…] [--from +1…]   ' +
      '(the API key in API_KEY; the gateway at GATEWAY, default http://HOST:PORT)',
    options: {
      camp: { type: 'string', description: 'the campaign (campId)' },
      'call-sid': { type: 'string', description: "the provider's call id (CallSid): one call log per id" },
      status: {
        type: 'string',
        description: 'queued, ringing, in-progress, completed, busy, failed, no-answer, canceled',
      },
      duration: { type: 'string', description: 'CallDuration, whole seconds' },
      price: { type: 'string', description: 'Price, a decimal number' },
      to: { type: 'string', description: 'To, the number called' },
      from: { type: 'string', description: 'From, the calling number' },
    },
    run: async (options) => {
      needs('callback:send', options, ['camp', 'call-sid', 'status']);
      const apiKey = process.env.API_KEY?.trim();
      if (!apiKey) {
        throw new UsageError("callback:send needs the account's API key (ck_…) in API_KEY", 'callback:send');
      }
      const entries: Array<[string, string | undefined]> = [
        ['CallSid', options['call-sid']],
        ['CallStatus', options.status],
        ['CallDuration', options.duration],
        ['Price', options.price],
        ['To', options.to],
        ['From', options.from],
        ['Direction', 'outbound-api'],
      ];
      const params = Object.fromEntries(entries.filter((entry): entry is [string, string] => entry[1] !== undefined));
      const checked = callbackParamsSchema.safeParse(params);
      if (!checked.success) {
        const names: Record<string, string> = { CallSid: 'call-sid', CallStatus: 'status', CallDuration: 'duration' };
        throw usageFromIssues('callback:send', checked.error.issues, {
          ...names,
          Price: 'price',
          To: 'to',
          From: 'from',
        });
      }
      await withDatabase(async (db, config) => {
        const account = await findAccountByApiKey(db, apiKey);
        if (!account) throw new CliFailure('no account has this API key (API_KEY); seed:demo and sign-up print it');
        const secrets = await readIntegrationSecrets(db, createSecretBox(config.SECRETS_KEY), account.id, telephony);
        const authToken = secrets?.telephonyAuthToken;
        if (typeof authToken !== 'string') {
          throw new CliFailure(`${account.email} has no telephony integration: connect one (update_telephony) first`);
        }
        const gateway = gatewayAddress(config);
        const path = `/api/v3/telephony_webhook/${encodeURIComponent(apiKey)}/${encodeURIComponent(options.camp ?? '')}`;
        // The signature covers the URL the gateway believes it was called at: PUBLIC_BASE_URL's when that is set.
        const signedUrl = `${(config.PUBLIC_BASE_URL ?? gateway).replace(/\/+$/, '')}${path}`;
        let response: Response;
        try {
          response = await fetch(`${gateway}${path}`, {
            method: 'POST',
            headers: {
              'content-type': 'application/x-www-form-urlencoded',
              'x-telephony-signature': telephonySignature(authToken, signedUrl, params),
            },
            body: new URLSearchParams(params),
            signal: AbortSignal.timeout(10_000),
          });
        } catch (error) {
          const reason =
            error instanceof Error ? (error.cause instanceof Error ? error.cause.message : error.message) : '';
          throw new CliFailure(`the gateway at ${gateway} did not answer (${reason}); is it running? (GATEWAY)`);
        }
        const text = await response.text();
        console.log(`${response.status} ${text}`);
        if (!response.ok) throw new CliFailure(`the gateway refused the callback (HTTP ${response.status})`);
      });
    },
  },
} satisfies Record<string, Command>);

const HELP = new Set(['--help', '-h', 'help']);

function overview(): string {
  const width = Math.max(...Object.keys(commands).map((name) => name.length));
  return [
    'usage: npm run cli -- <command> [options]     (npm run cli -- <command> --help for one command)',
    '',
    'commands:',
    ...Object.entries(commands).map(([name, command]) => `  ${name.padEnd(width)}  ${command.summary}`),
    '',
    'Configuration comes from the environment (DATABASE_URL, ...; see docs/configuration.md).',
  ].join('\n');
}

function commandHelp(name: string, command: Command): string {
  const options = Object.entries(command.options ?? {}).map(([option, { description }]) => {
    return `  --${option}  ${description}`;
  });
  return [
    `usage: npm run cli -- ${command.usage}`,
    '',
    command.summary,
    ...(options.length ? ['', ...options] : []),
  ].join('\n');
}

async function dispatch(argv: string[]): Promise<void> {
  const [name, ...args] = argv;
  if (name === undefined) throw new UsageError('no command given');
  if (HELP.has(name)) {
    console.log(overview());
    return;
  }
  const command = commands[name];
  if (!command) throw new UsageError(`unknown command "${name}"`);
  if (args.some((arg) => HELP.has(arg))) {
    console.log(commandHelp(name, command));
    return;
  }
  let values: Record<string, string | undefined>;
  try {
    const parsed = parseArgs({ args, options: command.options ?? {}, strict: true, allowPositionals: false });
    values = Object.fromEntries(
      Object.entries(parsed.values).map(([key, value]) => [key, value === undefined ? undefined : String(value)]),
    );
  } catch (error) {
    throw new UsageError(`${name}: ${error instanceof Error ? error.message : String(error)}`, name);
  }
  await command.run(values);
}

/** Runs one CLI invocation; resolves to its exit code (0 done, 1 failed, 2 called wrongly). */
export async function runCli(argv: string[]): Promise<number> {
  settings = {};
  try {
    await dispatch(argv);
    return 0;
  } catch (error) {
    if (error instanceof UsageError) {
      const command = error.command === undefined ? undefined : commands[error.command];
      console.error(`${error.message}\n\n${command ? commandHelp(error.command ?? '', command) : overview()}`);
      return 2;
    }
    // A refusal of the domain (an e-mail already in use, a token that is not there): its sentence, one line.
    if (error instanceof CliFailure || error instanceof DomainError) {
      console.error(error.message);
      return 1;
    }
    console.error(describeStartupFailure(error, settings) ?? error);
    return 1;
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  runCli(process.argv.slice(2)).then(
    (code) => process.exit(code),
    () => process.exit(1),
  );
}
