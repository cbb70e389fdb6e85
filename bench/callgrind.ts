// Counted benchmarks (issue 34, `BENCH_COUNT=1 npm run bench`): each target runs under valgrind's callgrind with its
// cache simulation, is warmed up, has its counters zeroed, serves a fixed number of requests released in fixed batches
// (one request per keep-alive connection, the whole batch awaited before the next, so that the interleaving repeats
// from run to run), and has its counters dumped; the dump's totals give per request the instructions executed (Ir),
// the L1 and last-level cache misses, and callgrind's cycle estimate Ir + 10 × L1 misses + 100 × LL misses.
// `BENCH_COUNT_PROFILE=1` adds a round with V8's perf map (`--perf-basic-prof`) and per-instruction dumps, whose costs
// are grouped by package (the JIT code by the script each function came from, native code by its object file).
// The pure parts (the dump, the perf map, the groups) are exported for test/bench/callgrind.test.ts.
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { Agent, request as httpRequest } from 'node:http';
import type { Socket } from 'node:net';
import { existsSync, openSync, readdirSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { basename, join } from 'node:path';
import { promisify } from 'node:util';

// --- the dump ----------------------------------------------------------------------------------------------------

/** The three counts per request that the tables show, and callgrind's cycle estimate from them. */
export interface Counts {
  ir: number;
  l1: number;
  ll: number;
  cycles: number;
}

/** Callgrind's cycle estimate (its "CEst"): an L1 miss costs 10 instructions' time, a last-level miss 100. */
export const cycleEstimate = (ir: number, l1: number, ll: number): number => ir + 10 * l1 + 100 * ll;

/** Counts from a vector of event values, named by the dump's `events:` line (their order is the dump's, not fixed). */
export function countsOf(events: string[], values: number[]): Counts {
  const value = (name: string) => values[events.indexOf(name)] ?? 0;
  const ir = value('Ir');
  const l1 = value('I1mr') + value('D1mr') + value('D1mw');
  const ll = value('ILmr') + value('DLmr') + value('DLmw');
  return { ir, l1, ll, cycles: cycleEstimate(ir, l1, ll) };
}

const numbers = (text: string) => text.trim().split(/\s+/).filter(Boolean).map(Number);

/**
 * The totals of one dump: the `events:` line names the columns; `totals:` (the sum of every cost line, written at the
 * end) is read, `summary:` (the header's) where there is no `totals:`.
 */
export function parseTotals(text: string): { events: string[]; counts: Counts } {
  const events = /^events:(.*)$/m.exec(text)?.[1]?.trim().split(/\s+/);
  const totals = /^totals:(.*)$/m.exec(text)?.[1] ?? /^summary:(.*)$/m.exec(text)?.[1];
  if (!events || totals === undefined) throw new Error('not a callgrind dump: no events: or totals:/summary: line');
  return { events, counts: countsOf(events, numbers(totals)) };
}

/** Self cost of one place: Ir and the cycle estimate. */
export interface Cost {
  ir: number;
  cycles: number;
}

/**
 * Self costs of a dump: by object file and function name, and for code without an object file (`???`: V8's JIT code)
 * by instruction address (with `--dump-instr=yes`; without it the address is unknown and such code counts under its
 * function's name). The cost lines after a `calls=` line are the call's inclusive cost and are not self cost.
 */
export function parseSelfCosts(text: string): {
  functions: Map<string, Cost & { object: string; name: string }>;
  code: Map<number, Cost>;
} {
  const functions = new Map<string, Cost & { object: string; name: string }>();
  const code = new Map<number, Cost>();
  const names = { ob: new Map<string, string>(), fl: new Map<string, string>(), fn: new Map<string, string>() };
  // `ob=(3) /lib/x.so` defines id 3 (also from cob=), `ob=(3)` refers to it; ids are shared by ob/cob, fn/cfn, fl/fi/fe/cfi.
  const name = (table: Map<string, string>, value: string) => {
    const found = /^\((\d+)\)(?:\s(.*))?$/.exec(value.trim());
    if (!found) return value.trim();
    if (found[2] !== undefined) table.set(found[1] ?? '', found[2]);
    return table.get(found[1] ?? '') ?? '???';
  };
  let events: string[] = [];
  let positions = 1;
  let instrColumn = -1;
  const last: number[] = [];
  let object = '???';
  let fn = '???';
  let current: (Cost & { object: string; name: string }) | undefined;
  let callCost = false;
  for (const line of text.split('\n')) {
    const first = line.charCodeAt(0);
    // A cost line starts with a position: a digit, +, -, * or 0x.
    if ((first >= 48 && first <= 57) || first === 43 || first === 45 || first === 42) {
      const fields = line.split(' ');
      for (let i = 0; i < positions; i++) {
        const field = fields[i] ?? '*';
        const previous = last[i] ?? 0;
        last[i] =
          field === '*'
            ? previous
            : field.startsWith('+') || field.startsWith('-')
              ? previous + Number.parseInt(field, 10)
              : field.startsWith('0x')
                ? Number.parseInt(field, 16)
                : Number.parseInt(field, 10);
      }
      if (callCost) {
        callCost = false;
        continue;
      }
      const values = fields.slice(positions).filter(Boolean).map(Number);
      const counts = countsOf(events, values);
      if (object === '???' && instrColumn >= 0) {
        const address = last[instrColumn] ?? 0;
        const entry = code.get(address) ?? { ir: 0, cycles: 0 };
        entry.ir += counts.ir;
        entry.cycles += counts.cycles;
        code.set(address, entry);
      } else {
        if (!current) {
          const key = `${object}\t${fn}`;
          current = functions.get(key) ?? { object, name: fn, ir: 0, cycles: 0 };
          functions.set(key, current);
        }
        current.ir += counts.ir;
        current.cycles += counts.cycles;
      }
      continue;
    }
    const equals = line.indexOf('=');
    const colon = line.indexOf(':');
    if (equals > 0 && (colon < 0 || equals < colon)) {
      const key = line.slice(0, equals);
      const value = line.slice(equals + 1);
      if (key === 'ob') object = name(names.ob, value);
      else if (key === 'cob') name(names.ob, value);
      else if (key === 'fn') fn = name(names.fn, value);
      else if (key === 'cfn') name(names.fn, value);
      else if (key === 'fl' || key === 'fi' || key === 'fe' || key === 'cfi' || key === 'cfl') name(names.fl, value);
      else if (key === 'calls') callCost = true;
      if (key === 'ob' || key === 'fn') current = undefined;
      continue;
    }
    if (line.startsWith('events:')) events = line.slice(7).trim().split(/\s+/);
    else if (line.startsWith('positions:')) {
      const kinds = line.slice(10).trim().split(/\s+/);
      positions = kinds.length;
      instrColumn = kinds.indexOf('instr');
    }
  }
  return { functions, code };
}

// --- V8's perf map and the groups ----------------------------------------------------------------------------------

/** /tmp/perf-<pid>.map as written by `--perf-basic-prof`: `start size name` lines (hex); a later entry wins. */
export function parsePerfMap(text: string): (address: number) => string | undefined {
  const entries = text
    .split('\n')
    .map((line, order) => {
      const found = /^([0-9a-f]+) ([0-9a-f]+) (.*)$/i.exec(line);
      return found
        ? {
            start: Number.parseInt(found[1] ?? '', 16),
            end: 0,
            size: Number.parseInt(found[2] ?? '', 16),
            order,
            name: found[3] ?? '',
          }
        : null;
    })
    .filter((entry) => entry !== null)
    .map((entry) => ({ ...entry, end: entry.start + entry.size }))
    .sort((a, b) => a.start - b.start);
  const longest = entries.reduce((max, entry) => Math.max(max, entry.size), 0);
  return (address) => {
    // The last entry starting at or before the address, then back over those that could still cover it.
    let low = 0;
    let high = entries.length - 1;
    while (low <= high) {
      const middle = (low + high) >> 1;
      if ((entries[middle]?.start ?? 0) <= address) low = middle + 1;
      else high = middle - 1;
    }
    let best: (typeof entries)[number] | undefined;
    for (let i = high; i >= 0; i--) {
      const entry = entries[i];
      if (!entry || entry.start + longest <= address) break;
      if (address < entry.end && (!best || entry.order > best.order)) best = entry;
    }
    return best?.name;
  };
}

/** The rows of the package profile, in the order printed. */
export const GROUPS = [
  'ours (dist/src, src; a baseline: its own script)',
  'yoga/envelop',
  '@whatwg-node',
  'Pothos',
  'graphql-jit',
  'graphql-js',
  'code made by new Function or eval (graphql-jit’s compiled queries, row mappers)',
  'Kysely',
  'better-sqlite3 (JS and native)',
  'pino/logging',
  'fastify/mercurius',
  'other node_modules',
  'Node: JS internals (node:)',
  'Node: GC (native, by symbol)',
  'Node: V8 builtins, interpreter, runtime (native)',
  'Node: libc and system libraries',
  'unattributed JIT code (not in the perf map)',
] as const;
export type Group = (typeof GROUPS)[number];

const PACKAGE_GROUPS: Array<[RegExp, Group]> = [
  [/^(graphql-yoga|@graphql-yoga\/.*|@envelop\/.*)$/, 'yoga/envelop'],
  [/^@whatwg-node\//, '@whatwg-node'],
  [/^@pothos\//, 'Pothos'],
  [/^graphql-jit$/, 'graphql-jit'],
  [/^graphql$/, 'graphql-js'],
  [/^kysely$/, 'Kysely'],
  [/^better-sqlite3$/, 'better-sqlite3 (JS and native)'],
  [
    /^(pino|pino-.*|sonic-boom|thread-stream|fast-redact|@pinojs\/.*|quick-format-unescaped|on-exit-leak-free)$/,
    'pino/logging',
  ],
  [
    /^(fastify|@fastify\/.*|mercurius|avvio|find-my-way|light-my-request|fast-json-stringify|secure-json-parse|toad-cache|fastify-plugin|single-user-cache|tiny-lru|quick-lru|safe-stable-stringify)$/,
    'fastify/mercurius',
  ],
];

/** The group of a script (the path a perf-map entry names). */
export function groupOfScript(path: string): Group {
  if (path.startsWith('node:')) return 'Node: JS internals (node:)';
  const modules = path.lastIndexOf('/node_modules/');
  if (modules >= 0) {
    const parts = path.slice(modules + '/node_modules/'.length).split('/');
    const pkg = parts[0]?.startsWith('@') ? `${parts[0]}/${parts[1]}` : (parts[0] ?? '');
    return PACKAGE_GROUPS.find(([pattern]) => pattern.test(pkg))?.[1] ?? 'other node_modules';
  }
  if (/\/(dist\/)?(src|bench)\//.test(path)) return 'ours (dist/src, src; a baseline: its own script)';
  return 'other node_modules';
}

/**
 * The group of a perf-map entry: `JS:*name file:///…/x.js:1:2` (or `Script:`, `Function:`, `LazyCompile:`) by its
 * script; V8's own code (`Builtin:`, `BytecodeHandler:`, `RegExp:`, stubs) is Node's.
 */
export function groupOfCode(entry: string): Group {
  if (/^(JS|Script|Function|LazyCompile):/.test(entry)) {
    const script = /(?:^|\s)(file:\/\/\S+|node:\S+|\/\S+)$/.exec(entry)?.[1];
    if (script) return groupOfScript(decodeURI(script.replace(/^file:\/\//, '').replace(/(:\d+)+$/, '')));
    // No script: code compiled from a string at run time (`JS:*name :598:49`), such as graphql-jit's compiled query.
    return 'code made by new Function or eval (graphql-jit’s compiled queries, row mappers)';
  }
  return 'Node: V8 builtins, interpreter, runtime (native)';
}

/**
 * V8's collector, by the demangled symbol's name (its qualified name before the arguments, so that a return or argument
 * type such as `v8::internal::HeapNumber` does not count): the heap's and the collectors' classes, and code templated
 * on a marking or scavenging visitor. A heuristic.
 */
const GC_SYMBOL = new RegExp(
  [
    String.raw`v8::internal::(Heap|Scavenger\w*|ScavengeJob|MarkCompact\w*|MinorMarkSweep\w*|\w*Marking\w*|\w*Sweeper\w*|\w*Evacuat\w*|GCTracer|MemoryAllocator|MemoryReducer|PagedSpace\w*|SemiSpace\w*|RememberedSet\w*|SlotSet|LocalHeap|ArrayBufferSweeper)(<.*>)?::`,
    String.raw`<.*(Marking|Scavenging|Evacuation)\w*Visitor`,
    String.raw`^cppgc::`,
  ].join('|'),
);

/** The group of native code, by its object file (and, for the node binary, whether the symbol is the collector's). */
export function groupOfNative(object: string, fn: string): Group {
  // An addon (better-sqlite3's prebuilds/linux-x64.node, with SQLite in it) by the package it ships in; the node
  // binary itself may live in a node_modules folder too (the pinned one: .tools/…/node_modules/node/bin/node).
  if (object.endsWith('.node') && object.includes('/node_modules/')) return groupOfScript(object);
  if (/\/lib[^/]*\.so[.\d]*$/.test(object) || /ld-linux/.test(object) || /vgpreload/.test(object)) {
    return 'Node: libc and system libraries';
  }
  const paren = fn.indexOf('(');
  if (GC_SYMBOL.test(paren > 0 ? fn.slice(0, paren) : fn)) return 'Node: GC (native, by symbol)';
  return 'Node: V8 builtins, interpreter, runtime (native)';
}

/** A dump's self costs by group, and by function (JIT code by its perf-map entry, native code by symbol and object). */
export function groupCosts(
  dump: string,
  perfMap: string,
): { groups: Map<Group, Cost>; functions: Map<string, Cost & { group: Group }> } {
  const parsed = parseSelfCosts(dump);
  const lookup = parsePerfMap(perfMap);
  const groups = new Map<Group, Cost>(GROUPS.map((group) => [group, { ir: 0, cycles: 0 }]));
  const functions = new Map<string, Cost & { group: Group }>();
  const add = (group: Group, name: string, cost: Cost) => {
    const entry = groups.get(group) ?? { ir: 0, cycles: 0 };
    entry.ir += cost.ir;
    entry.cycles += cost.cycles;
    const fn = functions.get(name) ?? { group, ir: 0, cycles: 0 };
    fn.ir += cost.ir;
    fn.cycles += cost.cycles;
    functions.set(name, fn);
  };
  const unattributed = 'unattributed JIT code (not in the perf map)';
  for (const cost of parsed.functions.values()) {
    if (cost.object === '???') {
      // No per-instruction address (a dump without --dump-instr=yes): the function's name is its address.
      const entry = /^0x[0-9a-f]+$/i.test(cost.name) ? lookup(Number.parseInt(cost.name, 16)) : undefined;
      add(entry ? groupOfCode(entry) : unattributed, entry ?? unattributed, cost);
    } else add(groupOfNative(cost.object, cost.name), `${cost.name} [${basename(cost.object)}]`, cost);
  }
  for (const [address, cost] of parsed.code) {
    const entry = lookup(address);
    add(entry ? groupOfCode(entry) : unattributed, entry ?? unattributed, cost);
  }
  return { groups, functions };
}

// --- running a target ----------------------------------------------------------------------------------------------

/** One counted target: how to start it (node arguments after the binary) and the request it is sent. */
export interface CountedTarget {
  name: string;
  node: string[];
  env: Record<string, string>;
  request: { path: string; method: 'GET' | 'POST'; headers: Record<string, string>; body?: string };
  /** The number of entries the first answer must hold in an array (the 50 campaigns), checked once per run. */
  entries: number;
}

export interface CountOptions {
  /** The run's folder: valgrind's control pipes, dumps and each server's output go there. */
  dir: string;
  cwd: string;
  env: Record<string, string | undefined>;
  requests: number;
  warmup: number;
  connections: number;
  runs: number;
  profile: boolean;
  /** With `profile`: how many of the costliest functions to list per target. */
  top: number;
  /** Keep the dumps and perf maps in `dir` (BENCH_KEEP=1). */
  keep: boolean;
  taskset: boolean;
  log: (line: string) => void;
}

interface Measured {
  counts: Counts;
  bytes: number;
  failures: number;
  newConnections: number;
  seconds: { start: number; total: number };
  profile?: Map<Group, Cost>;
  top?: Array<[string, Cost & { group: Group }]>;
}

const run = promisify(execFile);

let started = 0;

/**
 * Under callgrind a request takes a few hundred milliseconds, so a batch of 16 takes seconds, and a connection that was
 * answered first waits that long for the next batch: past a server's keepAliveTimeout (5 s in ours and node:http's
 * default) the server closes it just as the client sends on it (ECONNRESET), and the counts would include new
 * connections. Every target is started with this preload, which sets each node:http server's keepAliveTimeout to
 * 10 minutes as it starts listening: the timeout is an idle timer's length, so the work per request is the same.
 */
const KEEP_ALIVE_PRELOAD = `data:text/javascript,${encodeURIComponent(
  "import { Server } from 'node:http'; const listen = Server.prototype.listen; " +
    'Server.prototype.listen = function (...args) { this.keepAliveTimeout = 600000; return listen.apply(this, args); };',
)}`;

/** Starts a target under callgrind (its own vgdb prefix, so that callgrind_control finds the right pipes). */
async function startUnderCallgrind(
  target: CountedTarget,
  options: CountOptions,
  profile: boolean,
): Promise<{ child: ChildProcess; base: string; prefix: string }> {
  const n = ++started;
  const prefix = join(options.dir, `vgdb-${n}`);
  const log = join(options.dir, `counted-${n}.log`);
  const valgrind = [
    'valgrind',
    '--tool=callgrind',
    '--cache-sim=yes',
    // V8 writes and rewrites machine code in anonymous memory: every store there must drop the translations.
    '--smc-check=all-non-file',
    `--vgdb-prefix=${prefix}`,
    `--callgrind-out-file=${join(options.dir, 'callgrind.out.%p')}`,
    `--log-file=${join(options.dir, `valgrind-${n}.log`)}`,
    ...(profile ? ['--dump-instr=yes'] : []),
  ];
  // The profile's round: V8 writes /tmp/perf-<pid>.map (and, with it, a log of its own: kept in the run's folder).
  const v8 = profile
    ? [
        '--perf-basic-prof',
        '--no-compact-code-space',
        `--logfile=${join(options.dir, `v8-${n}.log`)}`,
        '--no-logfile-per-isolate',
      ]
    : [];
  const [binary, ...rest] = target.node;
  const command = [
    ...(options.taskset ? ['taskset', '-c', '0'] : []),
    ...valgrind,
    binary ?? 'node',
    ...v8,
    `--import=${KEEP_ALIVE_PRELOAD}`,
    ...rest,
  ];
  const child = spawn(command[0] ?? 'valgrind', command.slice(1), {
    cwd: options.cwd,
    env: { ...options.env, ...target.env, PORT: '0' },
    stdio: ['ignore', openSync(log, 'w'), openSync(`${log}.err`, 'w')],
  });
  // Start-up under callgrind takes a minute or two (V8 and every module run 50× slower).
  const deadline = Date.now() + 10 * 60_000;
  while (Date.now() < deadline) {
    const found = /listening on (http:\/\/[^\s"]+)/.exec(readFileSync(log, 'utf8'));
    if (found?.[1]) return { child, base: found[1].replace(/\/$/, ''), prefix };
    if (child.exitCode !== null) break;
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
  child.kill('SIGKILL');
  throw new Error(`${target.name} did not start under callgrind (see ${log}, ${log}.err)`);
}

const control = (prefix: string, flag: '-z' | '-d', pid: number) =>
  run('callgrind_control', [`--vgdb-prefix=${prefix}`, flag, String(pid)], { timeout: 10 * 60_000 });

/** An array of `length` entries anywhere in a JSON answer (the 50 campaigns), to check the first answer once. */
function holdsArrayOf(value: unknown, length: number): boolean {
  if (Array.isArray(value)) return value.length === length || value.some((item) => holdsArrayOf(item, length));
  if (value && typeof value === 'object') return Object.values(value).some((item) => holdsArrayOf(item, length));
  return false;
}

/**
 * Sends `count` requests in batches of one per connection (the batch awaited as a whole before the next), on an
 * agent of `connections` keep-alive sockets. Every answer must be 2xx with the body size of the first one.
 */
async function batches(
  agent: Agent,
  base: string,
  target: CountedTarget,
  count: number,
  connections: number,
  expect: { bytes: number | null; sockets: Set<Socket> },
): Promise<{ failures: number; firstFailure: string | undefined; newConnections: number; bytes: number }> {
  const url = new URL(base);
  let failures = 0;
  let firstFailure: string | undefined;
  let newConnections = 0;
  const one = () =>
    new Promise<{ status: number; body: Buffer }>((resolve, reject) => {
      const req = httpRequest(
        {
          agent,
          host: url.hostname,
          port: url.port,
          path: target.request.path,
          method: target.request.method,
          headers: {
            ...target.request.headers,
            ...(target.request.body ? { 'content-length': String(Buffer.byteLength(target.request.body)) } : {}),
          },
        },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (chunk: Buffer) => chunks.push(chunk));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks) }));
          res.on('error', reject);
        },
      );
      req.on('socket', (socket) => {
        if (!expect.sockets.has(socket)) {
          expect.sockets.add(socket);
          newConnections += 1;
        }
      });
      req.on('error', reject);
      req.end(target.request.body);
    });
  for (let sent = 0; sent < count; sent += connections) {
    const answers = await Promise.all(
      Array.from({ length: Math.min(connections, count - sent) }, () =>
        one().catch((error: unknown) => ({ status: 0, body: Buffer.from(String(error)) })),
      ),
    );
    for (const answer of answers) {
      if (expect.bytes === null && answer.status >= 200 && answer.status < 300) {
        if (!holdsArrayOf(JSON.parse(answer.body.toString('utf8')), target.entries)) {
          throw new Error(`${target.name}: the first answer does not hold ${target.entries} entries`);
        }
        expect.bytes = answer.body.length;
      }
      if (answer.status < 200 || answer.status >= 300 || answer.body.length !== expect.bytes) {
        failures += 1;
        firstFailure ??=
          answer.status === 0
            ? `no answer: ${answer.body.toString('utf8')}`
            : `${answer.status}, ${answer.body.length} bytes: ${answer.body.toString('utf8').slice(0, 200)}`;
      }
    }
  }
  return { failures, firstFailure, newConnections, bytes: expect.bytes ?? 0 };
}

/** The newest dump callgrind wrote for a process (`callgrind.out.<pid>.<n>`, n counting up with each -d). */
function newestDump(dir: string, pid: number): string {
  const parts = readdirSync(dir)
    .map((file) => new RegExp(`^callgrind\\.out\\.${pid}\\.(\\d+)$`).exec(file))
    .filter((found) => found !== null)
    .map((found) => Number(found[1]))
    .sort((a, b) => b - a);
  if (parts[0] === undefined) throw new Error(`no dump of ${pid} in ${dir}`);
  return join(dir, `callgrind.out.${pid}.${parts[0]}`);
}

async function measure(target: CountedTarget, options: CountOptions, profile: boolean): Promise<Measured> {
  const began = Date.now();
  const { child, base, prefix } = await startUnderCallgrind(target, options, profile);
  const startSeconds = (Date.now() - began) / 1000;
  const pid = child.pid ?? 0;
  const agent = new Agent({ keepAlive: true, maxSockets: options.connections });
  try {
    const expect = { bytes: null as number | null, sockets: new Set<Socket>() };
    // The first batches run V8's and graphql-jit's compilers under callgrind, seconds each: a keep-alive socket idle
    // that long may be closed by the server (keepAliveTimeout) as the next batch takes it. Such a warm-up answer is
    // reported, not fatal; the counted answers all have to be right.
    const warm = await batches(agent, base, target, options.warmup, options.connections, expect);
    if (warm.failures > 0) {
      options.log(`${target.name}: ${warm.failures} warm-up answer(s) failed, the first: ${warm.firstFailure ?? ''}`);
    }
    if (expect.bytes === null) throw new Error(`${target.name}: no warm-up answer was right`);
    await control(prefix, '-z', pid);
    const measured = await batches(agent, base, target, options.requests, options.connections, expect);
    if (measured.failures > 0) {
      options.log(
        `${target.name}: ${measured.failures} counted answer(s) failed, the first: ${measured.firstFailure ?? ''}`,
      );
    }
    await control(prefix, '-d', pid);
    const dumpFile = newestDump(options.dir, pid);
    const dump = readFileSync(dumpFile, 'utf8');
    const { counts } = parseTotals(dump);
    const perRequest = (value: number) => value / options.requests;
    let groups: Map<Group, Cost> | undefined;
    let top: Array<[string, Cost & { group: Group }]> | undefined;
    if (profile) {
      const map = `/tmp/perf-${pid}.map`;
      const costs = groupCosts(dump, existsSync(map) ? readFileSync(map, 'utf8') : '');
      for (const cost of [...costs.groups.values(), ...costs.functions.values()]) {
        cost.ir = perRequest(cost.ir);
        cost.cycles = perRequest(cost.cycles);
      }
      groups = costs.groups;
      top = [...costs.functions].sort((a, b) => b[1].cycles - a[1].cycles).slice(0, options.top);
      if (options.keep) renameSync(map, join(options.dir, `perf-${pid}.map`));
      else rmSync(map, { force: true });
    }
    if (!options.keep) rmSync(dumpFile, { force: true });
    return {
      counts: {
        ir: perRequest(counts.ir),
        l1: perRequest(counts.l1),
        ll: perRequest(counts.ll),
        cycles: perRequest(counts.cycles),
      },
      bytes: measured.bytes,
      failures: measured.failures,
      newConnections: measured.newConnections,
      seconds: { start: startSeconds, total: (Date.now() - began) / 1000 },
      profile: groups,
      top,
    };
  } finally {
    agent.destroy();
    // The dump is taken; the final one at exit is not needed (and takes a while to write): killed outright.
    child.kill('SIGKILL');
    await new Promise((resolve) => (child.exitCode !== null ? resolve(null) : child.once('exit', resolve)));
    rmSync(`/tmp/perf-${pid}.map`, { force: true });
  }
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? 0;
const thousands = (value: number) => Math.round(value).toLocaleString('en-US');

/**
 * Counts every target `runs` times, interleaved (round 1 of every target, then round 2, …), prints the medians per
 * column with the spread of the cycle estimate, then (with `profile`) one more round's package profile.
 */
export async function countTargets(targets: CountedTarget[], options: CountOptions): Promise<boolean> {
  const rounds: Measured[][] = targets.map(() => []);
  const began = Date.now();
  for (let round = 1; round <= options.runs; round++) {
    for (const [index, target] of targets.entries()) {
      const measured = await measure(target, options, false);
      rounds[index]?.push(measured);
      options.log(
        `round ${round}/${options.runs} ${target.name}: ${thousands(measured.counts.cycles)} cycles/request ` +
          `(start ${measured.seconds.start.toFixed(0)} s, all ${measured.seconds.total.toFixed(0)} s)`,
      );
    }
  }
  const rows = targets.map((target, index) => {
    const all = rounds[index] ?? [];
    const of = (key: keyof Counts) => median(all.map((m) => m.counts[key]));
    const cycles = all.map((m) => m.counts.cycles);
    return {
      name: target.name,
      ir: of('ir'),
      l1: of('l1'),
      ll: of('ll'),
      cycles: of('cycles'),
      min: Math.min(...cycles),
      max: Math.max(...cycles),
      bytes: median(all.map((m) => m.bytes)),
      failures: all.reduce((sum, m) => sum + m.failures, 0),
      newConnections: all.reduce((sum, m) => sum + m.newConnections, 0),
    };
  });
  const out = options.log;
  // COUNT_RUNS=0 with BENCH_COUNT_PROFILE=1: the package profile alone.
  if (options.runs > 0) {
    const raw = rows[0]?.cycles || 1;
    out(
      `\nCounted (callgrind --cache-sim=yes): ${options.warmup} requests of warm-up, then ${options.requests} counted, ` +
        `in batches of one per connection over ${options.connections} keep-alive connections; medians of ${options.runs} ` +
        `run(s) per target, interleaved; cycles = Ir + 10 × L1 misses + 100 × LL misses (callgrind's estimate)\n`,
    );
    out(
      '| target | Ir/request | L1 misses/request | LL misses/request | cycles/request | vs raw | cycles min–max (spread) | bytes/response | non-2xx or wrong size |',
    );
    out('|---|---|---|---|---|---|---|---|---|');
    for (const row of rows) {
      const spread = row.cycles > 0 ? (100 * (row.max - row.min)) / row.cycles : 0;
      out(
        `| ${row.name} | ${thousands(row.ir)} | ${thousands(row.l1)} | ${thousands(row.ll)} | ${thousands(row.cycles)} | ` +
          `${(row.cycles / raw).toFixed(2)}× | ${thousands(row.min)}–${thousands(row.max)} (${spread.toFixed(1)} %) | ` +
          `${row.bytes} | ${row.failures} |`,
      );
    }
    for (const row of rows.filter((r) => r.newConnections > options.connections * options.runs)) {
      out(
        `note: ${row.name} opened ${row.newConnections - options.connections * options.runs} connection(s) more than ${options.connections} per run`,
      );
    }
  }
  if (options.profile) {
    const profiled: Measured[] = [];
    for (const target of targets) {
      const measured = await measure(target, options, true);
      profiled.push(measured);
      options.log(`profile ${target.name}: ${thousands(measured.counts.cycles)} cycles/request`);
    }
    out(
      `\nPackage profile (one more run of each target with --perf-basic-prof --no-compact-code-space and ` +
        `--dump-instr=yes): self cost in cycles (estimate) per request by group; JIT code by the script of the perf ` +
        `map's function covering each instruction, native code by object file. A V8 builtin called from JS counts ` +
        `under Node, not under its caller.\n`,
    );
    out(`| group | ${targets.map((t) => t.name).join(' | ')} |`);
    out(`|---|${targets.map(() => '---|').join('')}`);
    for (const group of GROUPS) {
      const cells = profiled.map((m) => {
        const cost = m.profile?.get(group)?.cycles ?? 0;
        return `${thousands(cost)} (${((100 * cost) / (m.counts.cycles || 1)).toFixed(1)} %)`;
      });
      out(`| ${group} | ${cells.join(' | ')} |`);
    }
    out(`| total (this run) | ${profiled.map((m) => thousands(m.counts.cycles)).join(' | ')} |`);
    for (const [index, m] of profiled.entries()) {
      if (!m.top?.length) continue;
      out(`\nThe ${m.top.length} costliest functions of ${targets[index]?.name ?? ''} (self cycles per request):\n`);
      out('| function | group | cycles/request | share |');
      out('|---|---|---|---|');
      for (const [name, cost] of m.top) {
        const share = (100 * cost.cycles) / (m.counts.cycles || 1);
        const shown = name.length > 140 ? `${name.slice(0, 137)}…` : name;
        out(`| ${shown.replaceAll('|', '\\|')} | ${cost.group} | ${thousands(cost.cycles)} | ${share.toFixed(1)} % |`);
      }
    }
  }
  out(`\none counted run took ${((Date.now() - began) / 60_000).toFixed(1)} min`);
  return rows.every((row) => row.failures === 0);
}
