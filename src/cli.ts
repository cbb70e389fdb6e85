// Operator commands: `migrate`, `schema:print`, `seed:demo`, `user:create --email E --password P`.
import { writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { loadConfig } from './config.js';
import { openDatabase } from './db/database.js';
import { migrateToLatest } from './db/migrate.js';
import { signUp } from './domain/accounts.js';
import { signUpSchema } from './domain/accounts.schema.js';
import { loadVoiceCatalogue } from './domain/voices.js';
import { seedDemo } from './demo.js';
import { printSortedSchema } from './graphql/schema.js';

export const SCHEMA_FILE = 'schema/schema.graphql';

async function run(command: string | undefined, args: string[]): Promise<void> {
  switch (command) {
    case 'schema:print': {
      writeFileSync(SCHEMA_FILE, printSortedSchema());
      console.log(`wrote ${SCHEMA_FILE}`);
      return;
    }
    case 'migrate': {
      const { db, dialect, close } = openDatabase(loadConfig().DATABASE_URL);
      try {
        const applied = await migrateToLatest(db, dialect);
        console.log(applied.length ? `applied: ${applied.join(', ')}` : 'database is up to date');
      } finally {
        await close();
      }
      return;
    }
    case 'user:create': {
      const { values } = parseArgs({
        args,
        options: { email: { type: 'string' }, password: { type: 'string' } },
      });
      const input = signUpSchema.safeParse(values);
      if (!input.success)
        throw new Error(input.error.issues.map((i) => `--${i.path.join('.')}: ${i.message}`).join('\n'));
      const config = loadConfig();
      const { db, dialect, close } = openDatabase(config.DATABASE_URL);
      try {
        await migrateToLatest(db, dialect);
        const { account, apiKey } = await signUp(db, input.data, {
          allowSignup: true,
          passwordCost: config.PASSWORD_HASH_COST,
        });
        console.log(`created ${account.email} (${account.id})\nAPI key (shown once): ${apiKey}`);
      } finally {
        await close();
      }
      return;
    }
    case 'seed:demo': {
      const config = loadConfig();
      const { db, dialect, close } = openDatabase(config.DATABASE_URL);
      try {
        await migrateToLatest(db, dialect);
        await loadVoiceCatalogue(db);
        const demo = await seedDemo(db, config);
        console.log(
          [
            `Demo account ready (${demo.campaigns} campaigns, ${demo.callLogs} call logs, ${demo.meetings} meetings, a webhook).`,
            `  e-mail    ${demo.email}`,
            `  password  ${demo.password}`,
            `  API key   ${demo.apiKey}   (shown once; running seed:demo again starts the demo account over)`,
            '',
            'Start the server (npm start), open http://127.0.0.1:4000/graphql, run "Login", put the accessToken in',
            'the Headers tab as {"Authorization": "Bearer <accessToken>"}, then run "Campaigns".',
            'REST: curl -s -X POST http://127.0.0.1:4000/api/v3/login -d username=demo@example.com -d password=demo-password',
          ].join('\n'),
        );
      } finally {
        await close();
      }
      return;
    }
    default:
      throw new Error(
        'usage: npm run cli -- <migrate | schema:print | seed:demo | user:create --email E --password P>',
      );
  }
}

run(process.argv[2], process.argv.slice(3)).catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
