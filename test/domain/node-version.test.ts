// The supported Node.js versions: 22.15 and newer start (22 and 24 LTS); older ones get one line saying what to install.
import { execFile } from 'node:child_process';
import { copyFileSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { minimumOf, nodeVersionProblem } from '../../scripts/check-node.mjs';
import { MINIMUM_NODE, nodeVersionProblem as srcProblem } from '../../src/node-version.js';

it('accepts Node 22.15 and newer, refuses older ones with a sentence naming both versions', () => {
  for (const version of ['v22.15.0', 'v22.23.3', 'v24.0.0', 'v24.21.0', 'v26.1.0']) {
    expect(srcProblem(version)).toBeNull();
  }
  for (const version of ['v22.14.0', 'v22.12.0', 'v20.20.2', 'v18.19.0', 'v16.0.0', 'garbage']) {
    expect(srcProblem(version)).toBe(
      `Node.js 22.15 or newer (22 or 24 LTS) is needed; this is ${version}. Run \`source scripts/pinned-node.sh\` in this shell (it brings the project's Node 24 from the npm registry), then the command again.`,
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

/** A preload that makes a Node say it is 20 (a file: NODE_OPTIONS cannot carry a data: URL's quotes). */
const SAYS_20 = join(mkdtempSync(join(tmpdir(), 'gateway-node-20-')), 'says-20.mjs');
writeFileSync(SAYS_20, 'Object.defineProperty(process, "version", { value: "v20.20.2" });\n');
afterAll(() => rmSync(dirname(SAYS_20), { recursive: true, force: true }));

/** npm as a user runs it, in `cwd`, on a Node that says it is 20 (every node process it starts says so too). */
function npmOnNode20(args: string[], cwd: string) {
  return new Promise<{ code: number; output: string; ms: number }>((resolve) => {
    const started = performance.now();
    execFile(
      'npm',
      args,
      {
        cwd,
        timeout: 60_000,
        env: {
          ...process.env,
          NODE_OPTIONS: `--import=${pathToFileURL(SAYS_20).href}`,
        },
      },
      (error, stdout, stderr) =>
        resolve({
          code: error ? (typeof error.code === 'number' ? error.code : -1) : 0,
          output: stdout + stderr,
          ms: performance.now() - started,
        }),
    );
  });
}

it('npm ci on Node 20 stops before installing anything, naming the command that brings the right Node', async () => {
  const root = join(import.meta.dirname, '../..');
  // A copy of what npm ci reads (package.json, the lock, .npmrc), so that nothing is installed in the checkout.
  const copy = mkdtempSync(join(tmpdir(), 'gateway-npm-ci-'));
  try {
    for (const file of ['package.json', 'package-lock.json', '.npmrc'])
      copyFileSync(join(root, file), join(copy, file));
    const ci = await npmOnNode20(['ci', '--no-audit', '--no-fund'], copy);
    expect(ci.code, ci.output).not.toBe(0);
    expect(ci.output).toContain('EBADENGINE');
    expect(ci.output).toContain('source scripts/pinned-node.sh');
    expect(existsSync(join(copy, 'node_modules'))).toBe(false);
    expect(ci.ms).toBeLessThan(15_000);
  } finally {
    rmSync(copy, { recursive: true, force: true });
  }
});

it('npm test, npm start, npm run build, the CLI and seed:demo on Node 20 each stop with the one line, in seconds', async () => {
  const root = join(import.meta.dirname, '../..');
  for (const args of [['test'], ['start'], ['run', 'build'], ['run', 'cli', '--', '--help'], ['run', 'seed:demo']]) {
    const run = await npmOnNode20(['--silent', ...args], root);
    expect(run.code, `${args.join(' ')}: ${run.output}`).toBe(1);
    expect(run.output.trim()).toBe(srcProblem('v20.20.2'));
    expect(run.ms).toBeLessThan(15_000);
  }
});
