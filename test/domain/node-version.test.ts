// The supported Node.js versions: 22.22.2 or a later 22, 24.15 or a later 24, 26 and newer; any other gets one line
// naming the command that brings the right one, from npm ci, npm start, npm test, npm run build and the CLI.
import { execFile } from 'node:child_process';
import { copyFileSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { nodeVersionProblem, supportedOf } from '../../scripts/check-node.mjs';
import { nodeVersionProblem as srcProblem, SUPPORTED_NODE } from '../../src/node-version.js';

const ROOT = join(import.meta.dirname, '../..');

it('accepts 22.22.2 or a later 22, 24.15 or a later 24, 26 and newer; refuses others with a sentence naming both', () => {
  for (const version of ['v22.22.2', 'v22.23.0', 'v24.15.0', 'v24.21.0', 'v26.0.0', 'v27.1.0']) {
    expect(srcProblem(version)).toBeNull();
  }
  for (const version of ['v22.22.1', 'v22.15.0', 'v23.11.0', 'v24.14.0', 'v25.2.0', 'v20.20.2', 'v16.0.0', 'garbage']) {
    expect(srcProblem(version)).toBe(
      `Node.js 22.22.2 or a later 22, 24.15.0 or a later 24, or 26.0.0 or newer is needed; this is ${version}. Run \`source scripts/pinned-node.sh\` in this shell (it brings the project's Node 24 from the npm registry), then the command again.`,
    );
  }
  expect(srcProblem(process.version)).toBeNull();
});

it('npm start checks the Node before it builds: one line and exit 1 on Node 20, in well under a second', async () => {
  const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
    engines: { node: string };
    scripts: Record<string, string>;
  };
  // One range: package.json's engines, which the pre-start check reads, and the entry points' own check agree.
  expect(supportedOf(pkg.engines.node)).toEqual(SUPPORTED_NODE);
  for (const version of ['v20.20.2', 'v22.22.1', 'v22.22.2', 'v23.0.0', 'v24.14.9', 'v24.21.0', 'v26.0.0']) {
    expect(nodeVersionProblem(version, supportedOf(pkg.engines.node))).toBe(srcProblem(version));
  }
  expect(pkg.scripts.prestart).toMatch(/^node scripts\/check-node\.mjs && /);
  // The script itself, on this Node and on a Node that says it is 20.
  const run = (preload: string[]) =>
    new Promise<{ code: number | null; stderr: string; ms: number }>((resolve) => {
      const started = performance.now();
      execFile(process.execPath, [...preload, 'scripts/check-node.mjs'], { cwd: ROOT }, (error, _out, stderr) =>
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

/** Preloads that make a Node say it is another version (files: NODE_OPTIONS cannot carry a data: URL's quotes). */
const PRELOADS = mkdtempSync(join(tmpdir(), 'gateway-node-says-'));
afterAll(() => rmSync(PRELOADS, { recursive: true, force: true }));
function saying(version: string): string {
  const file = join(PRELOADS, `says-${version}.mjs`);
  writeFileSync(file, `Object.defineProperty(process, "version", { value: ${JSON.stringify(version)} });\n`);
  return file;
}

/** npm as a user runs it, in `cwd`, on a Node that says it is 20 (every node process it starts says so too). */
const npmOnNode20 = (args: string[], cwd: string) => npmOn('v20.20.2', args, cwd);

/** npm as a user runs it, in `cwd`, on a Node that says it is `version` (and so does every node process it starts). */
function npmOn(version: string, args: string[], cwd: string) {
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
          NODE_OPTIONS: `--import=${pathToFileURL(saying(version)).href}`,
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

/** `work` in a copy of what npm ci reads (package.json, the lock, .npmrc), so that nothing lands in the checkout. */
async function inInstallCopy(work: (copy: string) => Promise<void>): Promise<void> {
  const copy = mkdtempSync(join(tmpdir(), 'gateway-npm-ci-'));
  try {
    for (const file of ['package.json', 'package-lock.json', '.npmrc'])
      copyFileSync(join(ROOT, file), join(copy, file));
    await work(copy);
  } finally {
    rmSync(copy, { recursive: true, force: true });
  }
}

it('npm ci on Node 20 stops before installing anything, naming the command that brings the right Node', async () => {
  await inInstallCopy(async (copy) => {
    const ci = await npmOnNode20(['ci', '--no-audit', '--no-fund'], copy);
    expect(ci.code, ci.output).not.toBe(0);
    expect(ci.output).toContain('EBADENGINE');
    expect(ci.output).toContain('source scripts/pinned-node.sh');
    expect(existsSync(join(copy, 'node_modules'))).toBe(false);
    expect(ci.ms).toBeLessThan(15_000);
  });
});

it('npm ci accepts the oldest supported patch of each line and refuses the release before it with the command', async () => {
  await inInstallCopy(async (copy) => {
    // A dry run, offline: nothing is fetched or installed; npm checks every dependency's engines first.
    for (const version of ['v22.22.2', 'v24.15.0']) {
      const ci = await npmOn(version, ['ci', '--dry-run', '--offline', '--no-audit', '--no-fund'], copy);
      expect(ci.output, version).not.toContain('EBADENGINE');
    }
    for (const version of ['v22.22.1', 'v24.14.0', 'v23.11.0']) {
      const ci = await npmOn(version, ['ci', '--dry-run', '--offline', '--no-audit', '--no-fund'], copy);
      expect(ci.code, version).not.toBe(0);
      expect(ci.output, version).toContain('EBADENGINE');
      // The project's own engines are checked first: the message names the command, not a dependency.
      expect(ci.output, version).toContain('source scripts/pinned-node.sh');
    }
    expect(existsSync(join(copy, 'node_modules'))).toBe(false);
  });
  // Five npm runs one after another, each a few seconds on a busy 2-core machine: the check is what npm says, not how
  // fast (the default 20 s ran out once while another CI shared the machine).
}, 60_000);

it('npm test, npm start, npm run build, the CLI and seed:demo on Node 20 each stop with the one line, in seconds', async () => {
  for (const args of [['test'], ['start'], ['run', 'build'], ['run', 'cli', '--', '--help'], ['run', 'seed:demo']]) {
    const run = await npmOnNode20(['--silent', ...args], ROOT);
    expect(run.code, `${args.join(' ')}: ${run.output}`).toBe(1);
    expect(run.output.trim()).toBe(srcProblem('v20.20.2'));
    expect(run.ms).toBeLessThan(15_000);
  }
});
