// Operator commands: `migrate`, `schema:print`, `user:create --email E --password P`.
import { writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { loadConfig } from './config.js';
import { openDatabase } from './db/database.js';
import { migrateToLatest } from './db/migrate.js';
import { signUp } from './domain/accounts.js';
import { signUpSchema } from './domain/accounts.schema.js';
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
    default:
      throw new Error('usage: npm run cli -- <migrate | schema:print | user:create --email E --password P>');
  }
}

run(process.argv[2], process.argv.slice(3)).catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
