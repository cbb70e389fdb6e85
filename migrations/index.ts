// Every migration, by name; names sort in the order they run. Migrations are frozen once shipped.
import type { Migration } from 'kysely';
import * as m0001 from './0001_accounts.js';
import * as m0002 from './0002_voices.js';
import * as m0003 from './0003_campaigns.js';

export const migrations: Record<string, Migration> = {
  '0001_accounts': m0001,
  '0002_voices': m0002,
  '0003_campaigns': m0003,
};
