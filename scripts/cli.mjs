/* global process */
// `npm run cli -- <command>` (and `npm run seed:demo`): the operator CLI. When dist/ is up to date with src/ (`npm start`
// built it), the compiled CLI runs: plain `node`, about a second. Otherwise the sources run through tsx (a few
// seconds more, no build): a checkout being edited never runs a stale CLI, and no command waits for a whole build.
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { isStale } from './build-if-stale.mjs';

const root = join(fileURLToPath(import.meta.url), '../..');
const args = process.argv.slice(2);
const command = isStale(root)
  ? ['--import', 'tsx', join(root, 'src/cli.ts'), ...args]
  : ['--enable-source-maps', join(root, 'dist/src/cli.js'), ...args];
const run = spawnSync(process.execPath, command, { cwd: process.cwd(), stdio: 'inherit' });
if (run.error) throw run.error;
process.exit(run.status ?? 1);
