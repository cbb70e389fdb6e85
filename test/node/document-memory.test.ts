// Memory bounded in bytes (issue 41; docs/limits.md "Memory"): distinct 16 KB documents — valid, failing validation, failing
// to parse — sent back to back to a server process. Every document cache is bounded in bytes (src/core/byte-bounded-
// caches.ts), so the heap stays within the caches' budgets plus a margin whatever the documents, and returns there
// after the load. `DOCUMENTS=2000` runs it at the size (the suite runs 600: 16 KB documents are charged
// ~2.6 MB each, so the caches fill and evict many times over either way).
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, expect, it } from 'vitest';
import { kill, ROOT, startServerProcess, type ServerProcess } from '../helpers/server-process.js';

const DOCUMENTS = Number(process.env.DOCUMENTS ?? 600);
/** The V8 flags `npm start` runs the server with (package.json "start"): the README's memory figures are for those. */
const START_FLAGS = (() => {
  const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> };
  return (/\bnode\s+(.*?)\s*dist\/src\/main\.js/.exec(pkg.scripts.start ?? '')?.[1] ?? '')
    .split(/\s+/)
    .filter((flag) => flag.startsWith('--') && flag !== '--enable-source-maps');
})();
const GC_HOOK = pathToFileURL(join(ROOT, 'test/helpers/gc-on-signal.ts')).href;
/** The caches' budgets at the defaults: yoga's documents and the lane's (48 MiB each), parse errors and APQ (8 each). */
const BUDGETS_MB = 48 + 48 + 8 + 8;
/** What the heap may hold beyond the budgets (the estimates' error, V8's own structures for code): docs/limits.md "Memory". */
const MARGIN_MB = 100;

let server: ServerProcess | undefined;
afterAll(() => server && kill(server.child));

function collectGarbage(started: ServerProcess): Promise<void> {
  return new Promise((resolve, reject) => {
    let seen = '';
    const onData = (chunk: Buffer) => {
      seen = (seen + chunk.toString()).slice(-64);
      if (!seen.includes('gc done')) return;
      started.child.stdout?.off('data', onData);
      resolve();
    };
    started.child.stdout?.on('data', onData);
    started.child.once('exit', () => reject(new Error('the server exited')));
    started.child.kill('SIGUSR2');
  });
}

const megabytes = (bytes: number) => Math.round(bytes / (1024 * 1024));

/** The server's heap used (from /metrics) and its resident set now and at its peak (from /proc). */
async function memory(started: ServerProcess) {
  const metrics = await (await fetch(`${started.base}/metrics`)).text();
  const heap = Number(/^nodejs_heap_size_used_bytes (\d+)/m.exec(metrics)?.[1]);
  if (process.env.MEMORY_DETAIL)
    console.log(
      metrics
        .split('\n')
        .filter((l) => /^nodejs_(heap|external)/.test(l))
        .join('\n'),
    );
  const status = readFileSync(`/proc/${started.child.pid}/status`, 'utf8');
  const kb = (name: string) => Number(new RegExp(`^${name}:\\s+(\\d+) kB`, 'm').exec(status)?.[1]) * 1024;
  return { heap, rss: kb('VmRSS'), peak: kb('VmHWM') };
}

/** A 16 KB document: 100 operations, each spreading a fragment of its own; `kind` makes it fail on purpose. */
function document(i: number, kind: 'valid' | 'invalid' | 'unparsable'): string {
  const parts: string[] = [];
  for (let k = 0; k < 100; k++) {
    const field = kind === 'invalid' ? `unknownField${k}` : 'email';
    parts.push(`query Q${i}_${k} { viewer { ${field} ...AccountFields${i}_${k} } }`);
    parts.push(`fragment AccountFields${i}_${k} on Account { id accountId createdAt apiKeyHint __typename }`);
  }
  const text = parts.join('\n');
  return kind === 'unparsable' ? `${text} {` : text;
}

// The memory of one process on the embedded database: once per run (not again in the PostgreSQL pass).
it.skipIf(process.env.TEST_DATABASE_URL)(
  `${DOCUMENTS} distinct 16 KB documents keep the heap within the caches' budgets, and it returns after the load`,
  { timeout: 240_000 },
  async () => {
    server = await startServerProcess(
      {
        DATABASE_URL: undefined,
        PASSWORD_HASH_COST: '10',
        RATE_LIMIT_PER_MINUTE: '1000000',
        ANONYMOUS_RATE_LIMIT_PER_MINUTE: '1000000',
        LARGE_BODY_MIB_PER_MINUTE: '100000',
        GRAPHQL_PREPARED_LANE: 'on',
        // One account (or address) driven flat out on purpose: its share of the CPU would stop it.
        WORK_BUDGET_MS_PER_MINUTE: '100000000',
        ANONYMOUS_WORK_BUDGET_MS_PER_MINUTE: '100000000',
      },
      mkdtempSync(join(tmpdir(), 'gateway-memory-')),
      [...START_FLAGS, '--expose-gc', '--import', GC_HOOK],
    );
    const started = server;
    const post = async (path: string, body: unknown, token?: string) => {
      const response = await fetch(`${started.base}${path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
        body: JSON.stringify(body),
      });
      return { status: response.status, body: (await response.json()) as any };
    };
    await post('/api/v3/signup', { email: 'memory@example.com', password: 'a long password' });
    const login = await post('/api/v3/login', { username: 'memory@example.com', password: 'a long password' });
    const token: string = login.body.access_token;
    // Warm: every path once, then the baseline after full collections.
    for (const kind of ['valid', 'invalid', 'unparsable'] as const) {
      await post('/graphql', { query: document(-1, kind), operationName: 'Q-1_0' }, token);
    }
    await collectGarbage(started);
    const before = await memory(started);

    const kinds = ['valid', 'invalid', 'unparsable'] as const;
    const answers = new Map<string, number>();
    for (let i = 0; i < DOCUMENTS; i += 4) {
      await Promise.all(
        [0, 1, 2, 3].map(async (j) => {
          const kind = kinds[(i + j) % 3]!;
          const query = document(i + j, kind);
          expect(query.length).toBeGreaterThan(14_000);
          const { status, body } = await post('/graphql', { query, operationName: `Q${i + j}_7` }, token);
          const outcome = `${kind} ${status} ${body.errors ? body.errors[0].extensions?.code : 'data'}`;
          answers.set(outcome, (answers.get(outcome) ?? 0) + 1);
        }),
      );
    }
    const loaded = await memory(started);
    await collectGarbage(started);
    const after = await memory(started);
    const report = {
      before: { heap: megabytes(before.heap), rss: megabytes(before.rss) },
      loaded: { heap: megabytes(loaded.heap), rss: megabytes(loaded.rss), peak: megabytes(loaded.peak) },
      after: { heap: megabytes(after.heap), rss: megabytes(after.rss) },
      answers: Object.fromEntries(answers),
    };
    console.log(JSON.stringify(report));
    // Each kind was answered as meant: data, a validation failure, a parse failure.
    expect(answers.get('valid 200 data')).toBeGreaterThan(0);
    expect(answers.get('invalid 200 GRAPHQL_VALIDATION_FAILED')).toBeGreaterThan(0);
    expect(answers.get('unparsable 200 GRAPHQL_PARSE_FAILED')).toBeGreaterThan(0);
    // After a full collection what is left is what the caches may keep.
    expect(megabytes(after.heap - before.heap)).toBeLessThanOrEqual(BUDGETS_MB + MARGIN_MB);
    // Under load the resident set stays within the same bound plus V8's room to grow (heap growing factor 2).
    expect(megabytes(loaded.peak - before.rss)).toBeLessThanOrEqual(2 * (BUDGETS_MB + MARGIN_MB));
  },
);
