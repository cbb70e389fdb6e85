// Worst-case GraphQL documents within the token limit (issue 41): what one anonymous caller can send to make the
// server parse and validate as much as possible per request. Each shape is built fresh for every request (a seed
// in the operation's name), so no cache answers it.
//
// `npm run bench:documents` times each shape through the app's fetch handler in process (an anonymous request: the
// whole cost of refusing or accepting the document, parse and validation included), and prints the median, p90 and
// worst of ITERATIONS requests per shape; BENCH_STRICT=1 fails when any shape's median is over LIMIT_MS (20).
// bench/isolation.ts sends the same documents from one address at its full rate limit.
import { pathToFileURL } from 'node:url';
import { hasMoreTokensThan } from '../src/graphql/server/document-work.js';
import { WORK_BUDGETS_OUT_OF_THE_WAY } from './support.js';

/** The token limit (src/graphql/server/yoga.ts GRAPHQL_LIMITS.tokens), less a few. */
const MAX_TOKENS = 4_990;

/** The largest n (≤ max) whose document fits in the token limit: a worst case is as big as a caller may send. */
function fitted(make: (seed: string, n: number) => string, max = 5_000): (seed: string) => string {
  let low = 1;
  let high = max;
  while (low < high) {
    const middle = Math.ceil((low + high) / 2);
    if (!hasMoreTokensThan(make('0', middle), MAX_TOKENS)) low = middle;
    else high = middle - 1;
  }
  if (hasMoreTokensThan(make('0', low), MAX_TOKENS))
    throw new Error(`no size of this shape fits in ${MAX_TOKENS} tokens`);
  return (seed) => make(seed, low);
}

/** The scalar fields of Account (a worst case repeats each as often as the merging limit allows). */
const ACCOUNT_FIELDS = ['email', 'id', 'accountId', 'createdAt', 'apiKeyHint', '__typename'];

const times = (n: number, unit: (i: number) => string) => Array.from({ length: n }, (_, i) => unit(i)).join(' ');

/** Each shape: a name, and a document made with `seed` in it (as large as the token limit allows). */
export const EXPENSIVE_DOCUMENTS: ReadonlyArray<{ name: string; document: (seed: string) => string }> = [
  {
    name: 'one field repeated',
    document: fitted((seed, n) => `query Q${seed} { viewer { ${times(n, () => 'email')} } }`),
  },
  {
    name: 'five fields repeated',
    document: fitted(
      (seed, n) => `query Q${seed} { viewer { ${times(n, () => 'email id accountId createdAt __typename')} } }`,
    ),
  },
  {
    name: 'repeated fields, 15 of each name',
    document: fitted(
      (seed, n) => `query Q${seed} { viewer { ${times(n, (i) => `f${i % Math.ceil(n / 15)}: email`)} } }`,
    ),
  },
  {
    name: 'nested fields repeated',
    document: fitted(
      (seed, n) => `query Q${seed} { ${times(n, () => 'campaigns { edges { node { title status } } }')} }`,
    ),
  },
  {
    name: 'nested fields repeated at every level',
    document: fitted(
      (seed, n) =>
        `query Q${seed} { ${times(n, () => `campaigns { ${times(n, () => `edges { ${times(n, () => 'node { title status }')} }`)} }`)} }`,
      40,
    ),
  },
  {
    name: 'repeated fields, arguments that conflict',
    document: fitted(
      (seed, n) =>
        `query Q${seed} { ${times(n, (i) => `campaigns(first: ${(i % 50) + 1}) { edges { node { title } } }`)} }`,
    ),
  },
  {
    name: 'many fragments, each spread once',
    document: fitted((seed, n) => {
      const fragments = times(n, (i) => `fragment F${i} on Account { email id accountId }`);
      return `query Q${seed} { viewer { ${times(n, (i) => `...F${i}`)} } } ${fragments}`;
    }),
  },
  {
    name: 'many fragments, 15 spreads in each selection',
    document: fitted((seed, n) => {
      n = Math.min(n, 100);
      const fragments = times(n, (i) => `fragment F${i} on Campaign { title status campId }`);
      const nodes = times(Math.ceil(n / 15), (j) => `n${j}: node { ${times(15, (i) => `...F${(j * 15 + i) % n}`)} }`);
      return `query Q${seed} { campaigns { edges { ${nodes} } } } ${fragments}`;
    }),
  },
  {
    name: 'one fragment spread many times',
    document: fitted(
      (seed, n) =>
        `query Q${seed} { viewer { ${times(n, () => '...F')} } } fragment F on Account { email id accountId }`,
    ),
  },
  {
    name: 'nested fragments, each spreading the next twice',
    document: fitted((seed, n) => {
      const fragments = times(n, (i) =>
        i === n - 1
          ? `fragment F${i} on Account { email }`
          : `fragment F${i} on Account { ...F${i + 1} ...F${i + 1} id }`,
      );
      return `query Q${seed} { viewer { ...F0 } } ${fragments}`;
    }, 400),
  },
  {
    name: 'nested fragments, 10 levels of 15 spreads',
    document: fitted((seed, n) => {
      const fragments = times(10, (i) =>
        i === 9
          ? `fragment F${i} on Campaign { title }`
          : `fragment F${i} on Campaign { ${times(n, () => `...F${i + 1}`)} status }`,
      );
      return `query Q${seed} { campaigns { edges { node { ...F0 } } } } ${fragments}`;
    }, 15),
  },
  {
    name: 'inline fragments nested',
    document: fitted(
      (seed, n) => `query Q${seed} { viewer { ${'... on Account { email '.repeat(n)}${'}'.repeat(n)} } }`,
    ),
  },
  {
    name: 'directives on every field',
    document: fitted(
      (seed, n) =>
        `query Q${seed} { viewer { ${times(n, (i) => `f${i}: email @include(if: true) @skip(if: false)`)} } }`,
    ),
  },
  {
    name: 'many variables, each used',
    document: fitted((seed, n) => {
      n = Math.min(n, 15 * ACCOUNT_FIELDS.length);
      const definitions = times(n, (i) => `$v${i}: Boolean = true`);
      const fields = times(n, (i) => `${ACCOUNT_FIELDS[i % ACCOUNT_FIELDS.length]} @include(if: $v${i})`);
      return `query Q${seed}(${definitions}) { viewer { ${fields} } }`;
    }),
  },
  {
    name: 'unknown fields (every one an error)',
    document: fitted((seed, n) => `query Q${seed} { viewer { ${times(n, (i) => `nope${i}`)} } }`),
  },
  {
    name: 'many operations (100)',
    document: fitted(
      (seed, n) =>
        times(Math.min(n, 100), (i) => `query Q${seed}x${i} { viewer { ${times(n, (j) => `f${j}: email`)} } }`),
      60,
    ),
  },
  {
    name: 'many operations',
    document: fitted((seed, n) => times(n, (i) => `query Q${seed}x${i} { viewer { email } }`)),
  },
  {
    name: 'deep lists of input values',
    document: fitted(
      (seed, n) => `query Q${seed} { voices(language: ${'['.repeat(n)}"en"${']'.repeat(n)}) { voiceId } }`,
    ),
  },
  {
    name: 'long string arguments',
    document: fitted(
      (seed, n) => `query Q${seed} { ${times(n, (i) => `v${i}: voices(language: "${'x'.repeat(200)}") { voiceId }`)} }`,
    ),
  },
];

async function main(): Promise<void> {
  const { createApp } = await import('../src/app.js');
  const { signUpAndLogin } = await import('./support.js');
  const { loadConfig } = await import('../src/core/config.js');
  const iterations = Number(process.env.ITERATIONS ?? 30);
  const limitMs = Number(process.env.LIMIT_MS ?? 20);
  const app = await createApp(
    loadConfig({
      DATABASE_URL: 'sqlite::memory:',
      JWT_SECRET: 'bench-secret-bench-secret-bench-secret-0',
      SECRETS_KEY: Buffer.alloc(32, 7).toString('base64'),
      LOG_LEVEL: 'silent',
      ANONYMOUS_RATE_LIMIT_PER_MINUTE: '1000000',
      ...WORK_BUDGETS_OUT_OF_THE_WAY,
    }),
    { worker: false },
  );
  const { token } = await signUpAndLogin(app);
  let seed = 0;
  let failed = false;
  // Signed in (the 5 000-token limit: the worst cases), then without a token (1 000 tokens: refused before parsing).
  for (const [who, authorization] of [
    ['signed in', `Bearer ${token}`],
    ['without a token', null],
  ] as const) {
    const send = async (document: string) => {
      const response = await app.fetch(
        new Request('http://bench/graphql', {
          method: 'POST',
          headers: { 'content-type': 'application/json', ...(authorization ? { authorization } : {}) },
          body: JSON.stringify({ query: document, operationName: /query (\w+)/.exec(document)?.[1] }),
        }),
      );
      return { status: response.status, body: await response.text() };
    };
    const rows: string[] = [
      `\n${who}:\n`,
      '| document | bytes | status | first error | median ms | p90 ms | worst ms |',
      '|---|---|---|---|---|---|---|',
    ];
    for (const shape of EXPENSIVE_DOCUMENTS) {
      const times: number[] = [];
      let last = { status: 0, body: '' };
      let bytes = 0;
      for (let i = 0; i < iterations + 5; i++) {
        const document = shape.document(String(++seed));
        bytes = document.length;
        const start = performance.now();
        last = await send(document);
        if (i >= 5) times.push(performance.now() - start);
      }
      times.sort((x, y) => x - y);
      const median = times[Math.floor(times.length / 2)] ?? 0;
      const worst = times[times.length - 1] ?? 0;
      const p90 = times[Math.floor(times.length * 0.9)] ?? 0;
      // The median is judged: the worst of a run in one process includes its garbage collections (of this bench's
      // own strings too), which a request meets whatever its document.
      if (median > limitMs) failed = true;
      const error = (JSON.parse(last.body) as { errors?: Array<{ message: string }> }).errors?.[0]?.message ?? '';
      rows.push(
        `| ${shape.name} | ${bytes} | ${last.status} | ${error.slice(0, 60).replace(/\|/g, '\\|')} | ${median.toFixed(1)} | ${p90.toFixed(1)} | ${worst.toFixed(1)} |`,
      );
    }
    console.log(rows.join('\n'));
  }
  await app.close();
  if (failed && process.env.BENCH_STRICT) {
    console.error(`a document took more than ${limitMs} ms`);
    process.exitCode = 1;
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) await main();
