/* global process, console, performance */
// `npm start` compiles src/ to dist/ only when a source is newer than the last build (README "Quick start"): an
// unchanged checkout starts in about a second instead of waiting for tsc, and a configuration mistake shows at once.
// The last build is dist/.build-stamp, dated when that build began (a file saved during a build is built again).
// The build is incremental (tsconfig.build.json keeps dist/.tsbuildinfo): after a small change tsc re-checks only what
// it must. Plain JavaScript, run by `node` itself: no TypeScript loader to start first.
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
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

/** The compiled files of the sources (.ts, not .d.ts) under `folders` that are not under dist/. */
export function missingOutputs(root, folders = ['src', 'migrations']) {
  const missing = [];
  const walk = (relative) => {
    for (const entry of readdirSync(join(root, relative), { withFileTypes: true })) {
      const path = join(relative, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (entry.name.endsWith('.ts') && !entry.name.endsWith('.d.ts')) {
        const output = join('dist', path.replace(/\.ts$/, '.js'));
        if (!existsSync(join(root, output))) missing.push(output);
      }
    }
  };
  for (const folder of folders) if (existsSync(join(root, folder))) walk(folder);
  return missing;
}

/**
 * Whether dist/ must be built again: no build yet, an input changed since the last one began, or a compiled file of
 * a source is missing (dist/ partly deleted).
 */
export function isStale(root, inputs = BUILD_INPUTS, stamp = STAMP) {
  const stampPath = join(root, stamp);
  if (!existsSync(stampPath)) return true;
  if (missingOutputs(root).length > 0) return true;
  const builtAt = statSync(stampPath).mtimeMs;
  return inputs.some((input) => existsSync(join(root, input)) && newestChange(join(root, input)) >= builtAt);
}

/** Compiles src/ and migrations/ to dist/ (tsc, incremental) and dates the stamp when the build began. */
export function build(root) {
  const began = new Date();
  const started = performance.now();
  console.log('building dist/ (tsc; only when src/ has changed since the last build; the first build takes 15–60 s)…');
  // An incremental tsc emits only what it thinks changed: a compiled file deleted since is not written again unless it
  // forgets what it built.
  if (missingOutputs(root).length > 0) {
    rmSync(join(root, 'dist/.tsbuildinfo'), { force: true });
  }
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
