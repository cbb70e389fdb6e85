// The supported Node.js versions: 22.15 and newer start (22 and 24 LTS); older ones get one line saying what to install.
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { minimumOf, nodeVersionProblem } from '../../scripts/check-node.mjs';
import { MINIMUM_NODE, nodeVersionProblem as srcProblem } from '../../src/node-version.js';

it('accepts Node 22.15 and newer, refuses older ones with a sentence naming both versions', () => {
  for (const version of ['v22.15.0', 'v22.23.3', 'v24.0.0', 'v24.21.0', 'v26.1.0']) {
    expect(srcProblem(version)).toBeNull();
  }
  for (const version of ['v22.14.0', 'v22.12.0', 'v20.20.2', 'v18.19.0', 'v16.0.0', 'garbage']) {
    expect(srcProblem(version)).toBe(
      `Node.js 22.15 or newer (22 or 24 LTS) is needed; this is ${version}. Install a supported version (see the README).`,
    );
  }
  expect(srcProblem(process.version)).toBeNull();
});

it('npm start checks the Node before it builds: one line and exit 1 on Node 20, in well under a second', async () => {
  const root = join(import.meta.dirname, '../..');
  const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as {
    engines: { node: string };
    scripts: Record<string, string>;
  };
  // One range: package.json's engines, which the pre-start check reads, and the entry points' own check agree.
  expect(minimumOf(pkg.engines.node)).toEqual(MINIMUM_NODE);
  for (const version of ['v20.20.2', 'v22.14.0', 'v22.15.0', 'v24.21.0']) {
    expect(nodeVersionProblem(version, MINIMUM_NODE)).toBe(srcProblem(version));
  }
  expect(pkg.scripts.prestart).toMatch(/^node scripts\/check-node\.mjs && /);
  // The script itself, on this Node and on a Node that says it is 20.
  const run = (preload: string[]) =>
    new Promise<{ code: number | null; stderr: string; ms: number }>((resolve) => {
      const started = performance.now();
      execFile(process.execPath, [...preload, 'scripts/check-node.mjs'], { cwd: root }, (error, _out, stderr) =>
        resolve({ code: error ? (error.code as number) : 0, stderr, ms: performance.now() - started }),
      );
    });
  expect(await run([])).toMatchObject({ code: 0, stderr: '' });
  const old = await run([
    '--import',
    'data:text/javascript,Object.defineProperty(process,"version",{value:"v20.20.2"})',
  ]);
  expect(old.code).toBe(1);
  expect(old.stderr).toBe(`${srcProblem('v20.20.2')}\n`);
  expect(old.ms).toBeLessThan(1000);
});
