// The pure parts of the counted benchmark (bench/callgrind.ts): a dump's totals and self costs, V8's perf map, and the
// package groups. The fixture is a hand-made dump in callgrind 3.19's format (compressed names defined in cob=/cfn=,
// relative positions, a call's inclusive cost after calls=), with its sums worked out in the comments below.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import {
  countsOf,
  cycleEstimate,
  groupCosts,
  groupOfCode,
  groupOfNative,
  groupOfScript,
  parsePerfMap,
  parseSelfCosts,
  parseTotals,
} from '../../bench/callgrind.js';

const fixture = (name: string) => readFileSync(join(import.meta.dirname, 'fixtures', name), 'utf8');
const dump = fixture('callgrind.out.txt');
const perfMap = fixture('perf.map.txt');

describe('the totals', () => {
  test('are read from totals: by the names of the events: line, not from summary:', () => {
    const { events, counts } = parseTotals(dump);
    expect(events).toEqual(['Ir', 'Dr', 'Dw', 'I1mr', 'D1mr', 'D1mw', 'ILmr', 'DLmr', 'DLmw']);
    // L1 = I1mr 9 + D1mr 8 + D1mw 1; LL = ILmr 1 + DLmr 3 + DLmw 1; cycles = 1120 + 10 × 18 + 100 × 5.
    expect(counts).toEqual({ ir: 1120, l1: 18, ll: 5, cycles: 1800 });
  });

  test('fall back to summary: where a dump has no totals:', () => {
    const { counts } = parseTotals(dump.replace(/^totals:.*$/m, ''));
    expect(counts).toEqual({ ir: 1100, l1: 18, ll: 5, cycles: 1100 + 180 + 500 });
  });

  test('name their columns whatever order they come in', () => {
    expect(countsOf(['DLmw', 'Ir', 'I1mr'], [2, 1000, 3])).toEqual({ ir: 1000, l1: 3, ll: 2, cycles: 1230 });
    expect(cycleEstimate(1, 1, 1)).toBe(111);
  });

  test('refuse text that is not a dump', () => {
    expect(() => parseTotals('hello')).toThrow(/not a callgrind dump/);
  });
});

describe('the self costs', () => {
  const { functions, code } = parseSelfCosts(dump);

  test('leave out the inclusive cost of calls and follow relative positions', () => {
    // Scavenge: 100 + 20 (1 I1 miss, 1 D1 miss) + 100 (1 LL miss), 50, 20; its call's 500 is not its own.
    expect(functions.get('/opt/node/bin/node\tv8::internal::Heap::Scavenge()')).toMatchObject({ ir: 170, cycles: 290 });
    expect(functions.get('/opt/node/bin/node\tBuiltins_JSONStringify')).toMatchObject({ ir: 210, cycles: 230 });
  });

  test('resolve names first defined in cob= and cfn=', () => {
    const sqlite = functions.get('/work/x/node_modules/better-sqlite3/prebuilds/linux-x64.node\tsqlite3VdbeExec');
    expect(sqlite).toMatchObject({ ir: 300, cycles: 540 });
  });

  test('keep code without an object file by instruction address', () => {
    expect([...code.entries()]).toEqual([
      [0x28000100, { ir: 300, cycles: 590 }],
      [0x2800010a, { ir: 100, cycles: 110 }],
      [0x28000400, { ir: 40, cycles: 40 }],
    ]);
  });
});

describe('the perf map', () => {
  const lookup = parsePerfMap(perfMap);

  test('finds the entry covering an address, the later one where two do', () => {
    expect(lookup(0x28000100)).toMatch(/^JS:\*campaigns /);
    expect(lookup(0x2800017f)).toMatch(/^JS:\*campaigns /);
    expect(lookup(0x28000250)).toMatch(/^JS:\^resolve /);
    expect(lookup(0x28000400)).toBeUndefined();
    expect(lookup(0x10)).toBeUndefined();
  });
});

describe('the groups', () => {
  test('of scripts, by package or by our folders', () => {
    expect(groupOfScript('node:internal/streams/writable')).toBe('Node: JS internals (node:)');
    expect(groupOfScript('/w/node_modules/@envelop/core/cjs/orchestrator.js')).toBe('yoga/envelop');
    expect(groupOfScript('/w/node_modules/graphql-yoga/cjs/server.js')).toBe('yoga/envelop');
    expect(groupOfScript('/w/node_modules/@whatwg-node/server/cjs/utils.js')).toBe('@whatwg-node');
    expect(groupOfScript('/w/node_modules/mercurius/node_modules/graphql-jit/dist/execution.js')).toBe('graphql-jit');
    expect(groupOfScript('/w/node_modules/graphql/execution/execute.js')).toBe('graphql-js');
    expect(groupOfScript('/w/node_modules/kysely/dist/esm/query-builder/select-query-builder.js')).toBe('Kysely');
    expect(groupOfScript('/w/node_modules/pino/lib/proto.js')).toBe('pino/logging');
    expect(groupOfScript('/w/node_modules/fastify/lib/reply.js')).toBe('fastify/mercurius');
    expect(groupOfScript('/w/node_modules/zod/index.js')).toBe('other node_modules');
    expect(groupOfScript('/work/main/dist/src/http/doors.js')).toBe('ours (dist/src, src; a baseline: its own script)');
    expect(groupOfScript('/tmp/bench-base/dist/bench/raw-server.js')).toBe(
      'ours (dist/src, src; a baseline: its own script)',
    );
  });

  test('of perf-map entries and native code', () => {
    expect(groupOfCode('JS:~ file:///w/node_modules/@pothos/core/esm/index.js:10:3')).toBe('Pothos');
    expect(groupOfCode('JS:*emit node:events:471:44')).toBe('Node: JS internals (node:)');
    expect(groupOfCode('Builtin:ArrayMap')).toBe('Node: V8 builtins, interpreter, runtime (native)');
    expect(groupOfCode("JS:*'nodeCampaignEdgenodeResolverHandler :598:49")).toBe(
      'code made by new Function or eval (graphql-jit’s compiled queries, row mappers)',
    );
    expect(
      groupOfNative(
        '/opt/node/bin/node',
        'v8::internal::JsonStringifier::Result v8::internal::JsonStringifier::Serialize_<true>(v8::internal::Handle<v8::internal::Union<v8::internal::Smi, v8::internal::HeapNumber> >, bool)',
      ),
    ).toBe('Node: V8 builtins, interpreter, runtime (native)');
    expect(
      groupOfNative(
        '/opt/node/bin/node',
        'void v8::internal::MarkingVisitorBase<v8::internal::ConcurrentMarkingVisitor>::ProcessStrongHeapObject<v8::internal::FullHeapObjectSlot>(v8::internal::Tagged<v8::internal::HeapObject>)',
      ),
    ).toBe('Node: GC (native, by symbol)');
    expect(
      groupOfNative(
        '/opt/node/bin/node',
        'void v8::internal::BodyDescriptorBase::IteratePointers<v8::internal::ConcurrentMarkingVisitor>(v8::internal::Tagged<v8::internal::HeapObject>, int)',
      ),
    ).toBe('Node: GC (native, by symbol)');
    expect(
      groupOfNative(
        '/opt/node/bin/node',
        'v8::internal::HeapObject::SizeFromMap(v8::internal::Tagged<v8::internal::Map>) const',
      ),
    ).toBe('Node: V8 builtins, interpreter, runtime (native)');
    expect(groupOfNative('/opt/node/bin/node', 'v8::internal::Scavenger::Process()')).toBe(
      'Node: GC (native, by symbol)',
    );
    expect(groupOfNative('/opt/node/bin/node', 'Builtins_CallFunction')).toBe(
      'Node: V8 builtins, interpreter, runtime (native)',
    );
    expect(groupOfNative('/usr/lib/x86_64-linux-gnu/libc.so.6', 'memcpy')).toBe('Node: libc and system libraries');
    expect(groupOfNative('/w/.tools/node-24.21.0/node_modules/node/bin/node', 'Builtins_LoadIC')).toBe(
      'Node: V8 builtins, interpreter, runtime (native)',
    );
  });

  test('of a whole dump add up to its totals', () => {
    const { groups, functions } = groupCosts(dump, perfMap);
    const cycles = (name: string) => groups.get(name as never)?.cycles;
    expect(cycles('ours (dist/src, src; a baseline: its own script)')).toBe(700);
    expect(cycles('Node: GC (native, by symbol)')).toBe(290);
    expect(cycles('Node: V8 builtins, interpreter, runtime (native)')).toBe(230);
    expect(cycles('better-sqlite3 (JS and native)')).toBe(540);
    expect(cycles('unattributed JIT code (not in the perf map)')).toBe(40);
    expect([...groups.values()].reduce((sum, cost) => sum + cost.cycles, 0)).toBe(parseTotals(dump).counts.cycles);
    expect(functions.get('sqlite3VdbeExec [linux-x64.node]')).toMatchObject({ cycles: 540 });
  });
});
