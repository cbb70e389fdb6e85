// `npm start` builds dist/ only when something the build reads changed since the last build (scripts/build-if-stale.mjs).
import { mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { isStale, missingOutputs, STAMP } from '../../scripts/build-if-stale.mjs';

const at = (seconds: number) => new Date(1_700_000_000_000 + seconds * 1000);

it('builds when there is no build yet, or an input was changed, added or removed since it began; not otherwise', () => {
  const root = mkdtempSync(join(tmpdir(), 'gateway-build-'));
  const touch = (path: string, seconds: number) => utimesSync(join(root, path), at(seconds), at(seconds));
  mkdirSync(join(root, 'src/graphql'), { recursive: true });
  writeFileSync(join(root, 'src/graphql/a.ts'), '');
  writeFileSync(join(root, 'tsconfig.json'), '{}');
  for (const path of ['src/graphql/a.ts', 'src/graphql', 'src', 'tsconfig.json']) touch(path, 0);
  expect(isStale(root)).toBe(true);

  mkdirSync(join(root, 'dist/src/graphql'), { recursive: true });
  writeFileSync(join(root, STAMP), '');
  touch(STAMP, 10);
  // The stamp is there but a source's compiled file is not (dist/ partly deleted): built again.
  expect(missingOutputs(root)).toEqual([join('dist', 'src/graphql/a.js')]);
  expect(isStale(root)).toBe(true);
  writeFileSync(join(root, 'dist/src/graphql/a.js'), '');
  expect(missingOutputs(root)).toEqual([]);
  expect(isStale(root)).toBe(false);

  touch('src/graphql/a.ts', 20);
  expect(isStale(root)).toBe(true);
  touch('src/graphql/a.ts', 5);
  expect(isStale(root)).toBe(false);

  rmSync(join(root, 'src/graphql/a.ts'));
  touch('src/graphql', 30);
  expect(isStale(root)).toBe(true);
  touch('src/graphql', 5);
  touch('tsconfig.json', 10); // saved while the build ran: built again
  expect(isStale(root)).toBe(true);
  rmSync(root, { recursive: true, force: true });
});
