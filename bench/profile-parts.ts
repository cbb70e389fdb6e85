// Where each server's CPU goes, by part of the stack (issue 55's table): `--cpu-prof` profiles of servers of one run
// (`BENCH_NODE_FLAGS='--cpu-prof --cpu-prof-dir=/tmp/prof' npm run bench`, or any server started with --cpu-prof), each
// with its CPU µs per request from the bench table, laid side by side in µs per request.
//   npx tsx bench/profile-parts.ts mercurius=/tmp/prof/a.cpuprofile:308 ours=/tmp/prof/b.cpuprofile:450 …
// A frame belongs to the first part whose rule matches it (PARTS, in order); the rest is "other". Self time only: a
// part is what its own functions spent, not what they called. Start-up is in every profile (module loading shows as
// node:internal, small per request after a long run).
import { type CallFrame, perRequest } from './profiles.js';

/** Our source, compiled (dist/, a build of another folder) or run by tsx (src/). */
const ours = (frame: CallFrame, ...folders: string[]) =>
  /\/(dist|\.dist-[^/]+)\/src\/|\/src\//.test(frame.url) &&
  !frame.url.includes('node_modules') &&
  folders.some((folder) => frame.url.includes(`/src/${folder}`));
const inPackage = (frame: CallFrame, ...names: string[]) =>
  names.some((name) => frame.url.includes(`node_modules/${name}/`));

const PARTS: Array<[string, (frame: CallFrame) => boolean]> = [
  ['GC', (f) => f.functionName === '(garbage collector)'],
  // better-sqlite3's native read is timed as the JS function that calls it: our row reader; in a baseline server
  // (raw, floor, mercurius) the whole of its own file, its few resolvers included.
  [
    'SQLite read (better-sqlite3, rows)',
    (f) => inPackage(f, 'better-sqlite3') || ours(f, 'db/database.') || /(raw|floor|mercurius)-server/.test(f.url),
  ],
  ['pg (PostgreSQL driver)', (f) => inPackage(f, 'pg', 'pg-protocol', 'pg-pool')],
  [
    'Node http/net/streams',
    (f) =>
      /^node:(_http|net|internal\/(streams|http|net|stream_base|js_stream))/.test(f.url) ||
      ['writev', 'writeString', 'writeBuffer', 'writeUtf8String', 'writeLatin1String'].includes(f.functionName),
  ],
  ['@whatwg-node (Request, Response, promises)', (f) => inPackage(f, '@whatwg-node')],
  ['fastify and mercurius', (f) => inPackage(f, 'fastify', 'mercurius', 'find-my-way', 'avvio', 'light-my-request')],
  // The answer's serialisation: graphql-jit's compiled stringify, called (and inlined) where we hand it over.
  [
    'serialising the answer (JSON)',
    (f) =>
      ['stringify', 'JSON.stringify'].includes(f.functionName) ||
      inPackage(f, 'fast-json-stringify', 'safe-stable-stringify') ||
      ours(f, 'graphql/server/compiled-queries'),
  ],
  // graphql-jit's compiled query is code made with new Function: no url, a name of its fields' handlers.
  [
    'graphql-jit (its runtime and compiled queries)',
    (f) =>
      inPackage(f, 'graphql-jit') ||
      (f.url === '' &&
        (f.functionName.includes('__') ||
          /Handler$/.test(f.functionName) ||
          (f.functionName === '' && f.lineNumber >= 0))),
  ],
  ['graphql-js', (f) => inPackage(f, 'graphql')],
  ['Pothos', (f) => inPackage(f, '@pothos')],
  ['resolvers and shaping (schema, domain)', (f) => ours(f, 'graphql/schema', 'domain/')],
  // The compiled plans' own functions (and the object builders they generate, which have no file of their own).
  ['compiled plans', (f) => ours(f, 'graphql/server/compiled-plan')],
  ['JSON.parse (bodies, JSON columns)', (f) => f.functionName === 'parse' && f.url === ''],
  [
    'logging (pino)',
    (f) =>
      inPackage(f, 'pino', 'sonic-boom', 'fast-redact', 'pino-std-serializers') ||
      ours(f, 'core/logger', 'http/access-line'),
  ],
  ['Kysely and our query layer', (f) => inPackage(f, 'kysely') || ours(f, 'db/')],
  ['yoga and envelop', (f) => inPackage(f, 'graphql-yoga', '@envelop', '@graphql-yoga', '@graphql-tools')],
  ['metrics (prom-client)', (f) => inPackage(f, 'prom-client') || ours(f, 'http/metrics')],
  [
    'our door, stages, lane, plugins, limits, auth',
    (f) =>
      f.functionName === 'threadCpuUsage' ||
      ours(f, 'http/', 'graphql/', 'security/', 'core/', 'authentication', 'rest/', 'mcp/', 'app', 'services'),
  ],
  ['jsonwebtoken and rate limits', (f) => inPackage(f, 'jsonwebtoken', 'jws', 'jwa', 'rate-limiter-flexible')],
  ['Node (other internals)', (f) => f.url.startsWith('node:')],
];

const partOf = (frame: CallFrame) => PARTS.find(([, matches]) => matches(frame))?.[0] ?? 'other';

const servers = process.argv.slice(2).map((argument) => {
  const found = /^([^=]+)=(.+):(\d+(?:\.\d+)?)$/.exec(argument);
  if (!found?.[1] || !found[2] || !found[3]) {
    console.error('usage: profile-parts <name>=<profile.cpuprofile>:<CPU µs/request> …');
    process.exit(2);
  }
  return { name: found[1], parts: perRequest(found[2], Number(found[3]), partOf), cpu: Number(found[3]) };
});
const parts = [...PARTS.map(([name]) => name), 'other'].filter((part) =>
  servers.some((s) => (s.parts.get(part) ?? 0) >= 0.5),
);
console.log(`| part | ${servers.map((s) => `${s.name} µs/request`).join(' | ')} |`);
console.log(`|---|${servers.map(() => '---').join('|')}|`);
for (const part of parts) {
  const cells = servers.map((s) => {
    const micros = s.parts.get(part) ?? 0;
    return micros < 0.5 ? '—' : `${micros.toFixed(0)} (${((100 * micros) / s.cpu).toFixed(1)} %)`;
  });
  console.log(`| ${part} | ${cells.join(' | ')} |`);
}
console.log(`| total | ${servers.map((s) => s.cpu.toFixed(0)).join(' | ')} |`);
