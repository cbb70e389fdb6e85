/* global process, console, performance */
// `npm start` compiles src/ to dist/ only when a source is newer than the last build (README "Quick start"): an
// unchanged checkout starts in about a second instead of waiting for tsc, and a configuration mistake shows at once.
// The last build is dist/.build-stamp, dated when that build began (a file saved during a build is built again).
// The build is incremental (tsconfig.build.json keeps dist/.tsbuildinfo): after a small change tsc re-checks only what
// it must. Plain JavaScript, run by `node` itself: no TypeScript loader to start first.
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

export const STAMP = 'dist/.build-stamp';
/** What the build reads: a change to any of them (a file added, changed or removed) calls for a new build. */
export const BUILD_INPUTS = ['src', 'migrations', 'tsconfig.json', 'tsconfig.build.json', 'package-lock.json'];

/** The latest modification under `path` (a folder's own time changes when an entry is added or removed). */
function newestChange(path) {
  const stat = statSync(path);
  if (!stat.isDirectory()) return stat.mtimeMs;
  return Math.max(stat.mtimeMs, ...readdirSync(path).map((name) => newestChange(join(path, name))));
}

/** Whether dist/ must be built again: no build yet, or an input changed since the last one began. */
export function isStale(root, inputs = BUILD_INPUTS, stamp = STAMP) {
  const stampPath = join(root, stamp);
  if (!existsSync(stampPath)) return true;
  const builtAt = statSync(stampPath).mtimeMs;
  return inputs.some((input) => existsSync(join(root, input)) && newestChange(join(root, input)) >= builtAt);
}

/** Compiles src/ and migrations/ to dist/ (tsc, incremental) and dates the stamp when the build began. */
export function build(root) {
  const began = new Date();
  const started = performance.now();
  console.log('building dist/ (tsc; only when src/ has changed since the last build; the first build takes 15–60 s)…');
  execFileSync(process.execPath, [join(root, 'node_modules/typescript/bin/tsc'), '-p', 'tsconfig.build.json'], {
    cwd: root,
    stdio: 'inherit',
  });
  writeFileSync(join(root, STAMP), `${began.toISOString()}\n`);
  utimesSync(join(root, STAMP), began, began);
  console.log(`built dist/ in ${((performance.now() - started) / 1000).toFixed(1)} s`);
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const root = process.cwd();
  if (isStale(root)) build(root);
}
