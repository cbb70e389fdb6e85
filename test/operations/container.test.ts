// The container (Dockerfile, .dockerignore, compose.yaml; docs/operations.md "Containers") WITHOUT DOCKER: Docker was
// not available where these files were written, and the suite does not use it, so nothing here builds or runs an
// image. What can be checked without it is:
// - the Dockerfile, read instruction by instruction: the pinned Node (.node-version) on a slim image, several stages,
//   a non-root USER, HOST=0.0.0.0, a HEALTHCHECK on /readyz, node as PID 1 with exactly the flags of `npm start`;
// - the build context .dockerignore leaves, computed with its rules: every COPY source in it, nothing else of note;
// - compose.yaml: two gateways built from the Dockerfile, PostgreSQL and Redis with health checks, shared secrets
//   that must be given (never written in the file);
// - the image's steps, run in a clean directory as the Dockerfile runs them (its COPYs from the computed context,
//   its RUNs by sh), stage by stage, and what the final stage assembles started with the image's ENV and CMD: it
//   migrates, answers /readyz and the HEALTHCHECK's own command, and exits 0 on SIGTERM. Two steps are stood in
//   for, where they run: `npm ci` links this checkout's node_modules (a real install takes 30 s and more and the
//   network; that the image's `--omit=dev` suffices is checked instead by resolving every package dist/ imports
//   against package.json's `dependencies`), and `chown` is skipped (there is no `node` user here);
// - on PostgreSQL (TEST_DATABASE_URL), compose.yaml's two gateways, started at once from that layout with its
//   environment on a fresh database: migrations applied once in all, a token one signs accepted by the other.
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import {
  cpSync,
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  rmSync,
  statSync,
  symlinkSync,
} from 'node:fs';
import { isBuiltin } from 'node:module';
import { createServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { basename, dirname, join, relative } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '../..');
const read = (path: string) => readFileSync(join(ROOT, path), 'utf8');
const PINNED_NODE = read('.node-version').trim();
const PACKAGE = JSON.parse(read('package.json')) as { scripts: Record<string, string>; dependencies: object };

// ---------------------------------------------------------------------------------------------------------------
// The Dockerfile, as Docker reads it: comments and line continuations, then one instruction per line.

interface Instruction {
  keyword: string;
  args: string;
}

interface Stage {
  name: string;
  from: string;
  instructions: Instruction[];
}

function instructionsOf(text: string): Instruction[] {
  const found: Instruction[] = [];
  let pending = '';
  for (const line of text.split('\n')) {
    const trimmed = line.trim();
    if (trimmed.startsWith('#') || (!pending && trimmed === '')) continue;
    const continued = trimmed.endsWith('\\');
    pending += `${pending ? ' ' : ''}${continued ? trimmed.slice(0, -1).trim() : trimmed}`;
    if (continued) continue;
    const match = /^(\S+)\s*(.*)$/.exec(pending);
    if (match) found.push({ keyword: match[1]!.toUpperCase(), args: match[2]! });
    pending = '';
  }
  return found;
}

function stagesOf(text: string): Stage[] {
  const stages: Stage[] = [];
  for (const instruction of instructionsOf(text)) {
    if (instruction.keyword === 'FROM') {
      const match = /^(\S+)(?:\s+AS\s+(\S+))?$/i.exec(instruction.args);
      if (!match) throw new Error(`FROM ${instruction.args}: not understood`);
      stages.push({ from: match[1]!, name: match[2] ?? `stage-${stages.length}`, instructions: [] });
    } else {
      const stage = stages.at(-1);
      if (!stage) throw new Error(`${instruction.keyword} before any FROM`);
      stage.instructions.push(instruction);
    }
  }
  return stages;
}

/** `--name=value` options first, then the rest. */
function optionsOf(args: string): { options: Map<string, string>; rest: string } {
  const options = new Map<string, string>();
  let rest = args.trim();
  for (let match = /^--([a-z-]+)=(\S+)\s*/.exec(rest); match; match = /^--([a-z-]+)=(\S+)\s*/.exec(rest)) {
    options.set(match[1]!, match[2]!);
    rest = rest.slice(match[0].length);
  }
  return { options, rest };
}

/** An exec-form argument list (a JSON array of strings); the shell form is refused, so no shell comes between. */
function execForm(args: string): string[] {
  const parsed = JSON.parse(args) as unknown;
  if (!Array.isArray(parsed) || !parsed.every((item) => typeof item === 'string')) {
    throw new Error(`not an exec form: ${args}`);
  }
  return parsed as string[];
}

/** `ENV A=1 B=2` (values without quotes or spaces: the form the Dockerfile uses). */
function envOf(args: string): Record<string, string> {
  const env: Record<string, string> = {};
  for (const pair of args.split(/\s+/).filter(Boolean)) {
    const match = /^([A-Z_][A-Z0-9_]*)=([^"'\s]*)$/.exec(pair);
    if (!match) throw new Error(`ENV ${args}: only NAME=value pairs are understood`);
    env[match[1]!] = match[2]!;
  }
  return env;
}

const STAGES = stagesOf(read('Dockerfile'));
const FINAL = STAGES.at(-1)!;
const stageNamed = (name: string) => STAGES.find((stage) => stage.name === name);

/** A stage's instructions with those of the stages it is built FROM, first. */
function lineage(stage: Stage): Instruction[] {
  const parent = stageNamed(stage.from);
  return [...(parent ? lineage(parent) : []), ...stage.instructions];
}

const baseImage = (stage: Stage): string => {
  const parent = stageNamed(stage.from);
  return parent ? baseImage(parent) : stage.from;
};
const last = (stage: Stage, keyword: string) => lineage(stage).findLast((i) => i.keyword === keyword);
const IMAGE_ENV = Object.assign(
  {},
  ...lineage(FINAL)
    .filter((i) => i.keyword === 'ENV')
    .map((i) => envOf(i.args)),
) as Record<string, string>;
const HEALTHCHECK = (() => {
  const instruction = last(FINAL, 'HEALTHCHECK');
  if (!instruction) return null;
  const { options, rest } = optionsOf(instruction.args);
  const command = /^CMD\s+(\[.*\])$/.exec(rest);
  return command ? { options, command: execForm(command[1]!) } : null;
})();
const CMD = execForm(last(FINAL, 'CMD')?.args ?? 'null');
/** package.json's `start`: `exec node <flags> <entry>`. */
const START = PACKAGE.scripts.start!.split(/\s+/).filter((word, index) => !(index === 0 && word === 'exec'));
const seconds = (duration: string | undefined) => Number(/^(\d+)s$/.exec(duration ?? '')?.[1] ?? NaN);

describe('the Dockerfile (read, not built: no Docker is available to the suite)', () => {
  it('builds in stages on the slim image of the pinned Node, every stage from it', () => {
    expect(STAGES.length).toBeGreaterThanOrEqual(2);
    for (const stage of STAGES) {
      expect(baseImage(stage), `stage ${stage.name}`).toMatch(/^node:\d+\.\d+\.\d+-(?:[a-z]+-)?slim$/);
      expect(baseImage(stage), `stage ${stage.name}`).toMatch(
        new RegExp(`^node:${PINNED_NODE.replaceAll('.', '\\.')}-`),
      );
    }
    expect(PINNED_NODE).toMatch(/^24\./);
    // The compiler is in the build stage's node_modules, not in the final image's.
    expect(lineage(FINAL).some((i) => i.keyword === 'RUN' && /\bnpm run build\b/.test(i.args))).toBe(false);
    expect(FINAL.instructions.some((i) => i.keyword === 'COPY' && /--from=/.test(i.args))).toBe(true);
  });

  it('runs as a user other than root, listens on every interface, in production', () => {
    const user = last(FINAL, 'USER')?.args ?? 'root';
    expect(user).not.toMatch(/^(root|0)(:|$)/);
    expect(user).toBe('node');
    expect(IMAGE_ENV).toMatchObject({ HOST: '0.0.0.0', NODE_ENV: 'production' });
    expect(last(FINAL, 'EXPOSE')?.args).toBe(IMAGE_ENV.PORT ?? '4000');
    expect(last(FINAL, 'STOPSIGNAL')?.args).toBe('SIGTERM');
  });

  it("runs node itself as PID 1 with exactly the flags of package.json's start script", () => {
    expect(START[0]).toBe('node');
    expect(CMD).toEqual(START);
    expect(CMD).toContain('--heap-growing-percent=100');
    // An ENTRYPOINT (or a shell form) would put something between the signal and node.
    expect(lineage(FINAL).some((i) => i.keyword === 'ENTRYPOINT')).toBe(false);
  });

  it('has a HEALTHCHECK that asks /readyz with node (the slim image has no curl)', () => {
    expect(HEALTHCHECK).not.toBeNull();
    expect(HEALTHCHECK!.command[0]).toBe('node');
    expect(HEALTHCHECK!.command.join(' ')).toContain('/readyz');
    expect(seconds(HEALTHCHECK!.options.get('timeout'))).toBeGreaterThan(0);
    expect(seconds(HEALTHCHECK!.options.get('interval'))).toBeGreaterThan(0);
  });
});

// ---------------------------------------------------------------------------------------------------------------
// The build context: the checkout less what .dockerignore excludes (its rules: the last matching pattern decides; a
// pattern that matches a folder matches everything in it; `*` stays within one path segment, `**` crosses them).

const IGNORE = read('.dockerignore')
  .split('\n')
  .map((line) => line.trim())
  .filter((line) => line && !line.startsWith('#'))
  .map((line) => {
    const negated = line.startsWith('!');
    const pattern = (negated ? line.slice(1) : line).replace(/^\/+|\/+$/g, '');
    const source = pattern
      .split('**')
      .map((part) =>
        part
          .replace(/[.+^${}()|[\]\\]/g, '\\$&')
          .replace(/\*/g, '[^/]*')
          .replace(/\?/g, '[^/]'),
      )
      .join('.*');
    return { negated, pattern, regex: new RegExp(`^${source}$`) };
  });

function ignored(path: string): boolean {
  const segments = path.split('/');
  const prefixes = segments.map((_, index) => segments.slice(0, index + 1).join('/'));
  let excluded = false;
  for (const rule of IGNORE) {
    if (prefixes.some((prefix) => rule.regex.test(prefix))) excluded = !rule.negated;
  }
  return excluded;
}

/** Whether a negated pattern could bring back something below an excluded folder (so it must be walked). */
const mayReinclude = (folder: string) =>
  IGNORE.some((rule) => rule.negated && (rule.pattern.startsWith(`${folder}/`) || /^[*?[]/.test(rule.pattern)));

function contextFiles(dir = ROOT): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    const name = relative(ROOT, path);
    if (entry.isDirectory()) return ignored(name) && !mayReinclude(name) ? [] : contextFiles(path);
    return entry.isFile() && !ignored(name) ? [name] : [];
  });
}

describe('the build context (.dockerignore)', () => {
  it('holds every source the Dockerfile copies, and no dependencies, builds, data, secrets or history', () => {
    const context = contextFiles();
    for (const stage of STAGES) {
      for (const instruction of stage.instructions.filter((i) => i.keyword === 'COPY')) {
        const { options, rest } = optionsOf(instruction.args);
        if (options.has('from')) continue;
        for (const source of rest.split(/\s+/).slice(0, -1)) {
          expect(ignored(source), `COPY ${source}`).toBe(false);
          expect(existsSync(join(ROOT, source)), `COPY ${source}`).toBe(true);
        }
      }
    }
    const outside = ['node_modules/', 'dist/', 'data/', '.git/', '.tools/', 'test/', 'bench/', 'scratch/', 'reports/'];
    expect(context.filter((path) => outside.some((folder) => path.startsWith(folder)))).toEqual([]);
    // Whether or not they exist in this checkout.
    for (const path of [
      '.env',
      '.env.local',
      'data/secrets.json',
      'data/campaigns.db',
      'node_modules/graphql/index.js',
      'dist/src/main.js',
      '.git/config',
      '.tools/node-24.21.0/bin/node',
      'test/browser/output/page.png',
      'test-results/results.json',
      '.stryker-tmp/x.js',
      'reports/mutation/index.html',
      'compose.yaml',
    ]) {
      expect(ignored(path), path).toBe(true);
    }
    expect(context).toContain('src/main.ts');
    expect(context.length).toBeLessThan(1000);
  });
});

// ---------------------------------------------------------------------------------------------------------------
// compose.yaml, read by a parser of the YAML it is written in (block mappings and sequences, plain and double-quoted
// scalars, JSON-style flow sequences): anything else in the file is refused, so that nothing is misread.

type Yaml = string | null | Yaml[] | { [key: string]: Yaml };

function parseYaml(text: string): Yaml {
  const lines = text
    .split('\n')
    .map((line, index) => ({ number: index + 1, indent: line.length - line.trimStart().length, text: line.trim() }))
    .filter((line) => line.text !== '' && !line.text.startsWith('#'));
  let at = 0;
  const beyond = (value: string, number: number) =>
    new Error(`compose.yaml line ${number}: ${value} is beyond this test's YAML`);
  /** A quoted scalar at the start of `value`: its text and what follows it. */
  const quoted = (value: string, number: number): [string, string] => {
    const match = value.startsWith("'") ? /^'((?:[^']|'')*)'/.exec(value) : /^"((?:[^"\\]|\\.)*)"/.exec(value);
    if (!match) throw beyond(value, number);
    const text = value.startsWith("'") ? match[1]!.replaceAll("''", "'") : (JSON.parse(match[0]) as string);
    return [text, value.slice(match[0].length).trim()];
  };
  const scalar = (value: string, number: number): Yaml => {
    if (value.startsWith("'") || value.startsWith('"')) {
      const [text, rest] = quoted(value, number);
      if (rest) throw beyond(value, number);
      return text;
    }
    if (value.startsWith('[')) {
      // A flow sequence of quoted scalars: ['CMD', "redis-cli", 'ping'].
      const items: string[] = [];
      let rest = value.slice(1).trim();
      while (!rest.startsWith(']')) {
        const [text, after] = quoted(rest, number);
        items.push(text);
        rest = after.startsWith(',') ? after.slice(1).trim() : after;
        if (!rest) throw beyond(value, number);
      }
      if (rest !== ']') throw beyond(value, number);
      return items;
    }
    if (/^[{&*!|>%@`]/.test(value) || / #|: /.test(value) || value.endsWith(':')) throw beyond(value, number);
    return value;
  };
  const block = (indent: number): Yaml => {
    const first = lines[at]!;
    if (first.text.startsWith('- ')) {
      const items: Yaml[] = [];
      while (lines[at]?.indent === indent && lines[at]!.text.startsWith('- ')) {
        const line = lines[at++]!;
        items.push(scalar(line.text.slice(2).trim(), line.number));
      }
      return items;
    }
    const map: { [key: string]: Yaml } = {};
    while (lines[at]?.indent === indent) {
      const line = lines[at++]!;
      const match = /^([A-Za-z0-9_.-]+):(?:\s+(.*))?$/.exec(line.text);
      if (!match) throw beyond(line.text, line.number);
      if (match[1]! in map) throw new Error(`compose.yaml line ${line.number}: ${match[1]} twice`);
      const next = lines[at];
      if (match[2] !== undefined) map[match[1]!] = scalar(match[2], line.number);
      else map[match[1]!] = next && next.indent > indent ? block(next.indent) : null;
    }
    if (lines[at] && lines[at]!.indent > indent) throw new Error(`compose.yaml line ${lines[at]!.number}: indentation`);
    return map;
  };
  const document = block(0);
  if (at !== lines.length) throw new Error(`compose.yaml line ${lines[at]!.number}: not read`);
  return document;
}

/** Compose's interpolation: `${NAME}`, `${NAME:-default}`, `${NAME:?error}` (refused when unset or empty), `$$`. */
function interpolate(value: string, variables: Record<string, string>): string {
  return value.replace(/\$\$|\$\{([A-Z_][A-Z0-9_]*)(?:(:?[-?])([^}]*))?\}/g, (whole, name, operator, word) => {
    if (whole === '$$') return '$';
    const given = variables[name as string];
    const missing = operator?.startsWith(':') ? !given : given === undefined;
    if (!missing) return given!;
    if (operator?.endsWith('?')) throw new Error(`required variable ${name} is missing a value: ${word}`);
    return operator ? (word as string) : '';
  });
}

const map = (value: Yaml | undefined): { [key: string]: Yaml } => {
  if (!value || typeof value !== 'object' || Array.isArray(value)) throw new Error(`not a mapping: ${value}`);
  return value;
};
const COMPOSE = map(parseYaml(read('compose.yaml')));
const SERVICES = map(COMPOSE.services);
const GATEWAYS = Object.keys(SERVICES).filter((name) => map(SERVICES[name]).build !== undefined);
const gatewayEnv = (name: string) => map(map(SERVICES[name]).environment) as Record<string, string>;

describe('compose.yaml (read, not run: no Docker is available to the suite)', () => {
  it('two gateways built from the Dockerfile, PostgreSQL and Redis, each healthy before the gateways start', () => {
    expect(GATEWAYS).toHaveLength(2);
    const images = Object.values(SERVICES).map((service) => map(service).image);
    expect(images.some((image) => typeof image === 'string' && image.startsWith('postgres:'))).toBe(true);
    expect(images.some((image) => typeof image === 'string' && image.startsWith('redis:'))).toBe(true);
    const published: string[] = [];
    for (const name of GATEWAYS) {
      const service = map(SERVICES[name]);
      expect(service.build).toBe('.');
      const dependsOn = map(service.depends_on);
      expect(Object.keys(dependsOn).sort()).toEqual(['postgres', 'redis']);
      for (const dependency of Object.keys(dependsOn)) {
        expect(map(dependsOn[dependency]).condition).toBe('service_healthy');
        expect(map(map(SERVICES[dependency]).healthcheck).test).toEqual(expect.arrayContaining(['CMD']));
      }
      const ports = service.ports as string[];
      expect(ports).toHaveLength(1);
      expect(ports[0]!.split(':').at(-1)).toBe(last(FINAL, 'EXPOSE')?.args);
      published.push(ports[0]!.split(':').at(-2)!);
    }
    // Each on a port of its own; the database and Redis are not published at all.
    expect(new Set(published).size).toBe(2);
    expect(map(SERVICES.postgres).ports).toBeUndefined();
    expect(map(SERVICES.redis).ports).toBeUndefined();
  });

  it('the gateways share the database, Redis and secrets, which must be given (compose refuses to start without)', () => {
    const [first, second] = GATEWAYS.map(gatewayEnv);
    expect(second).toEqual(first);
    const postgres = map(map(SERVICES.postgres).environment) as Record<string, string>;
    const given = {
      JWT_SECRET: 'j'.repeat(40),
      SECRETS_KEY: randomBytes(32).toString('base64'),
      POSTGRES_PASSWORD: 'p',
    };
    const database = new URL(interpolate(first!.DATABASE_URL!, given));
    expect(database.protocol).toBe('postgres:');
    expect(database.hostname).toBe('postgres');
    expect(database.username).toBe(postgres.POSTGRES_USER);
    expect(decodeURIComponent(database.password)).toBe(interpolate(postgres.POSTGRES_PASSWORD!, given));
    expect(database.pathname).toBe(`/${postgres.POSTGRES_DB}`);
    expect(new URL(first!.REDIS_URL!).hostname).toBe('redis');
    for (const secret of ['JWT_SECRET', 'SECRETS_KEY'] as const) {
      // A required variable, never a value written in the file.
      expect(first![secret]).toMatch(new RegExp(`^\\$\\{${secret}:\\?[^}]+\\}$`));
      expect(interpolate(first![secret]!, given)).toBe(given[secret]);
      expect(() => interpolate(first![secret]!, { ...given, [secret]: '' })).toThrow(secret);
    }
  });
});

// ---------------------------------------------------------------------------------------------------------------
// The image's steps in a clean directory, stage by stage: a folder per stage stands for its WORKDIR.

const WORK = mkdtempSync(join(tmpdir(), 'container-'));
const children = new Set<ChildProcess>();
afterAll(() => {
  for (const child of children) child.kill('SIGKILL');
  rmSync(WORK, { recursive: true, force: true });
});

/** What was stood in for, as the test names say: `npm ci` and `chown` (see the top of this file). */
const stoodIn: string[] = [];
let runtimeDir = '';

/** Docker's COPY: a folder's contents go into the destination; several sources, or a trailing /, mean a folder. */
function copy(sources: string[], destination: string): void {
  const intoFolder = sources.length > 1 || destination.endsWith('/');
  for (const source of sources) {
    const folder = statSync(source).isDirectory();
    const target = intoFolder && !folder ? join(destination, basename(source)) : destination;
    if (lstatSync(source).isSymbolicLink()) {
      // The node_modules linked in for `npm ci`: linked again.
      mkdirSync(dirname(target), { recursive: true });
      symlinkSync(readlinkSync(source), target, 'dir');
      continue;
    }
    mkdirSync(folder ? target : dirname(target), { recursive: true });
    cpSync(source, target, { recursive: true, verbatimSymlinks: true });
  }
}

function assemble(): void {
  const context = join(WORK, 'context');
  for (const file of contextFiles()) copy([join(ROOT, file)], join(context, file));
  const dirs = new Map<string, { dir: string; workdir: string }>();
  const home = join(WORK, 'home');
  mkdirSync(home);
  for (const stage of STAGES) {
    const dir = join(WORK, `stage-${stage.name}`);
    const parent = dirs.get(stage.from);
    if (parent) cpSync(parent.dir, dir, { recursive: true, verbatimSymlinks: true });
    else mkdirSync(dir);
    let workdir = parent?.workdir ?? '/';
    let env: Record<string, string> = {};
    for (const i of lineage(stage).filter((i) => i.keyword === 'ENV')) env = { ...env, ...envOf(i.args) };
    for (const { keyword, args } of stage.instructions) {
      if (keyword === 'WORKDIR') {
        // One folder per stage stands for its WORKDIR: set once, before anything is copied there.
        expect(args.startsWith('/') && workdir === '/' && readdirSync(dir).length === 0, `WORKDIR ${args}`).toBe(true);
        workdir = args;
      } else if (keyword === 'COPY') {
        const { options, rest } = optionsOf(args);
        const words = rest.split(/\s+/);
        const target = words.at(-1)!;
        expect(target.startsWith('/'), `COPY to ${target}: relative to WORKDIR`).toBe(false);
        const destination = join(dir, target) + (target.endsWith('/') ? '/' : '');
        const from = options.get('from');
        const sources = words.slice(0, -1).map((source) => {
          if (!from) return join(context, source);
          const other = dirs.get(from)!;
          expect(source.startsWith(`${other.workdir}/`), `COPY --from=${from} ${source}`).toBe(true);
          return join(other.dir, relative(other.workdir, source));
        });
        copy(sources, destination);
      } else if (keyword === 'RUN') {
        for (const command of args.split('&&').map((part) => part.trim())) {
          if (/^npm ci\b/.test(command)) {
            stoodIn.push(`${stage.name}: ${command} (linked node_modules)`);
            symlinkSync(join(ROOT, 'node_modules'), join(dir, 'node_modules'), 'dir');
          } else if (/^chown\b/.test(command)) {
            stoodIn.push(`${stage.name}: ${command} (skipped)`);
          } else {
            execFileSync('sh', ['-c', command], {
              cwd: dir,
              env: { PATH: `${dirname(process.execPath)}:${process.env.PATH}`, HOME: home, ...env },
              stdio: 'pipe',
            });
          }
        }
      }
    }
    dirs.set(stage.name, { dir, workdir });
  }
  runtimeDir = dirs.get(FINAL.name)!.dir;
}

async function freePort(): Promise<number> {
  const server = createServer().listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  server.close();
  await once(server, 'close');
  return port;
}

interface Started {
  child: ChildProcess;
  base: string;
  port: number;
  output: () => string;
}

/** The image's CMD in the runtime folder, with the image's ENV and `env` over it; `node` is this Node (the pinned one). */
async function startCmd(env: Record<string, string>): Promise<Started> {
  const port = await freePort();
  const child = spawn(process.execPath, CMD.slice(1), {
    cwd: runtimeDir,
    env: {
      PATH: process.env.PATH,
      HOME: join(WORK, 'home'),
      ...IMAGE_ENV,
      HOST: '127.0.0.1',
      PORT: String(port),
      ...env,
    },
  });
  children.add(child);
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  return { child, port, base: `http://127.0.0.1:${port}`, output: () => output };
}

async function ready({ child, base, output }: Started, timeoutMs = 30_000): Promise<unknown> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`the server exited with ${child.exitCode}:\n${output()}`);
    const answer = await fetch(`${base}/readyz`, { signal: AbortSignal.timeout(1000) }).catch(() => null);
    if (answer?.status === 200) return answer.json();
    if (Date.now() > deadline) throw new Error(`not ready within ${timeoutMs} ms:\n${output()}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** SIGTERM, as `docker stop` sends it (STOPSIGNAL): the exit code, or null past `timeoutMs`. */
async function stop({ child }: Started, timeoutMs = 8000): Promise<number | null> {
  const exited = child.exitCode !== null ? Promise.resolve() : once(child, 'exit');
  child.kill('SIGTERM');
  const timer = new Promise<'late'>((resolve) => setTimeout(() => resolve('late'), timeoutMs).unref());
  if ((await Promise.race([exited, timer])) === 'late') return null;
  children.delete(child);
  return child.exitCode;
}

/** The HEALTHCHECK's own command as Docker runs it in the container (its environment: PORT), within its timeout. */
function healthcheck(port: number): Promise<number | null> {
  const [, ...args] = HEALTHCHECK!.command;
  const child = spawn(process.execPath, args, { env: { PATH: process.env.PATH, PORT: String(port) } });
  const timeout = setTimeout(() => child.kill('SIGKILL'), seconds(HEALTHCHECK!.options.get('timeout')) * 1000);
  return once(child, 'exit').then(([code]) => {
    clearTimeout(timeout);
    return code as number | null;
  });
}

const migrationsApplied = (output: string) =>
  output
    .split('\n')
    .filter((line) => line.includes('"migration applied"'))
    .map((line) => (JSON.parse(line) as { migration: string }).migration);

describe("no Docker available, so the image's steps run in a clean directory as the Dockerfile runs them", () => {
  beforeAll(assemble, 240_000);

  it('assembles a runtime folder of dist/, package.json, the manifest, node_modules and a data folder', () => {
    expect(readdirSync(runtimeDir).sort()).toEqual(['data', 'dist', 'node_modules', 'package.json', 'schema']);
    expect(existsSync(join(runtimeDir, CMD.at(-1)!))).toBe(true);
    expect(readdirSync(join(runtimeDir, 'data'))).toEqual([]);
    // No sources, no build inputs, no tests in the final image.
    expect(existsSync(join(runtimeDir, 'src'))).toBe(false);
    expect(existsSync(join(runtimeDir, 'tsconfig.json'))).toBe(false);
    expect(stoodIn).toEqual([
      expect.stringMatching(/npm ci --omit=dev .*linked/),
      expect.stringMatching(/npm ci .*linked/),
      expect.stringMatching(/chown .*skipped/),
    ]);
  });

  it("dist/ imports at run time only packages of package.json's dependencies (what npm ci --omit=dev installs)", () => {
    const dependencies = new Set(Object.keys(PACKAGE.dependencies));
    const imported = new Set<string>();
    const walk = (dir: string): string[] =>
      readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
        entry.isDirectory() ? walk(join(dir, entry.name)) : entry.name.endsWith('.js') ? [join(dir, entry.name)] : [],
      );
    for (const file of walk(join(runtimeDir, 'dist'))) {
      const code = readFileSync(file, 'utf8');
      const specifiers = code.matchAll(
        /(?:\bfrom\s*|\bimport\s*\(?\s*|\.resolve\(\s*|\brequire\(\s*)['"]([a-z@][\w.@/:-]*)['"]/g,
      );
      for (const [, specifier] of specifiers) {
        if (isBuiltin(specifier!)) continue;
        const parts = specifier!.split('/');
        imported.add(specifier!.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0]!);
      }
    }
    expect(imported.size).toBeGreaterThan(20);
    expect([...imported].filter((name) => !dependencies.has(name))).toEqual([]);
  });

  it('on SQLite in its data folder (the default): migrates, answers /readyz and the HEALTHCHECK, exits 0 on SIGTERM', async () => {
    // PERSISTED_OPERATIONS=only reads the manifest at start: the one file outside dist/ it reads.
    const server = await startCmd({ PERSISTED_OPERATIONS: 'only' });
    expect(await ready(server)).toEqual({ status: 'ready' });
    expect(migrationsApplied(server.output()).length).toBeGreaterThan(10);
    expect(readdirSync(join(runtimeDir, 'data'))).toEqual(expect.arrayContaining(['campaigns.db', 'secrets.json']));
    expect(await healthcheck(server.port)).toBe(0);
    const began = Date.now();
    expect(await stop(server)).toBe(0);
    expect(Date.now() - began).toBeLessThan(5000);
    // Nothing listens any more: the same command says so.
    expect(await healthcheck(server.port)).toBe(1);
    // The CLI in the image (`docker compose exec gateway-1 node dist/src/cli.js …`), on the same data folder.
    const cli = execFileSync(process.execPath, ['dist/src/cli.js', 'migrate'], {
      cwd: runtimeDir,
      env: { PATH: process.env.PATH, HOME: join(WORK, 'home'), ...IMAGE_ENV },
      encoding: 'utf8',
    });
    expect(cli).toContain('database is up to date');
  }, 60_000);

  it.skipIf(!process.env.TEST_DATABASE_URL)(
    "on PostgreSQL (TEST_DATABASE_URL): compose.yaml's two gateways, started at once on a fresh database, migrate it once, share their secrets, exit 0",
    async () => {
      const base = new URL(process.env.TEST_DATABASE_URL!);
      // Named as the run's databases are, so that the run's teardown drops it even if this test does not get to.
      const name = `t_${process.env.TEST_RUN_ID ?? 'run'}_container_${randomBytes(4).toString('hex')}`;
      const admin = new pg.Client({ connectionString: base.toString() });
      await admin.connect();
      await admin.query(`create database ${name}`);
      const database = new URL(base);
      database.pathname = `/${name}`;
      const started: Started[] = [];
      try {
        const secrets = {
          JWT_SECRET: randomBytes(36).toString('base64'),
          SECRETS_KEY: randomBytes(32).toString('base64'),
          POSTGRES_PASSWORD: 'unused',
        };
        const environments = GATEWAYS.map((gateway) => {
          const env = Object.fromEntries(
            Object.entries(gatewayEnv(gateway)).map(([key, value]) => [key, interpolate(value, secrets)]),
          );
          // compose.yaml's hosts `postgres` and `redis` are the test's servers here.
          const redis = new URL(env.REDIS_URL!);
          redis.hostname = '127.0.0.1';
          return { ...env, DATABASE_URL: database.toString(), REDIS_URL: redis.toString() };
        });
        started.push(...(await Promise.all(environments.map((env) => startCmd(env)))));
        await Promise.all(started.map((server) => ready(server)));
        // Every migration applied once, by one instance or the other: the second waited for the first's lock.
        const applied = started.flatMap((server) => migrationsApplied(server.output()));
        const migrations = readdirSync(join(runtimeDir, 'dist/migrations')).filter((f) => /^\d{4}_.*\.js$/.test(f));
        expect(applied.sort()).toEqual(migrations.map((file) => file.replace(/\.js$/, '')).sort());

        const [first, second] = started as [Started, Started];
        const graphql = async (server: Started, query: string, token?: string) => {
          const answer = await fetch(`${server.base}/graphql`, {
            method: 'POST',
            headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
            body: JSON.stringify({ query }),
          });
          return (await answer.json()) as { data?: any; errors?: unknown };
        };
        const account = '{ email: "ops@example.com", password: "a long password" }';
        expect(
          (await graphql(first, `mutation { accountSignUp(input: ${account}) { apiKey } }`)).errors,
        ).toBeUndefined();
        const login = await graphql(first, `mutation { accountLogin(input: ${account}) { accessToken } }`);
        const token = login.data?.accountLogin?.accessToken as string;
        expect(token).toBeTruthy();
        expect(await graphql(second, '{ viewer { email } }', token)).toEqual({
          data: { viewer: { email: 'ops@example.com' } },
        });

        for (const server of started) expect(await healthcheck(server.port)).toBe(0);
        expect(await Promise.all(started.map((server) => stop(server)))).toEqual([0, 0]);
      } finally {
        for (const server of started) server.child.kill('SIGKILL');
        await admin.query(`drop database if exists ${name} with (force)`);
        await admin.end();
      }
    },
    90_000,
  );
});
