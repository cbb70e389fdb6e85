// What a request leaves behind dies young (docs/decisions.md §18): once its answer is out, nothing of a request may
// survive V8's young-generation collections. Each answer's page (rows, campaigns, edges, cursors) was promoted to
// the old generation, and collected there by the mark-compacts that were most of the GraphQL door's GC time, because
// an object literal with getters (a page's pageInfo) recorded its closures in an old-generation map; on PostgreSQL the
// driver's rows too (node-postgres assigned each query's promise callback after constructing it). V8's GC profiler
// tells how much the old generation grew across each scavenge: that is what the scavenge promoted.
//
// Measured in a process of its own (test/fixtures/young-garbage-run.ts) with `npm start`'s heap flags: in a suite
// worker, which runs test files one after another (isolate: false), what earlier files left behind was promoted
// along with it (28 KB a request once on PostgreSQL in CI, against ~6 KB alone).
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT, TSX_LOADER } from '../helpers/server-process.js';

interface Run {
  edges: number;
  requests: number;
  scavenges: number;
  perRequest: number;
  each: number[];
}

describe('what a request leaves behind', () => {
  it('dies young: a page of 50 campaigns promotes a small part of what it allocated', async () => {
    const output = await new Promise<string>((resolve, reject) =>
      execFile(
        process.execPath,
        [
          '--heap-growing-percent=100',
          '--max-semi-space-size=16',
          '--import',
          TSX_LOADER,
          join(ROOT, 'test/fixtures/young-garbage-run.ts'),
        ],
        { cwd: ROOT, timeout: 120_000 },
        (error, stdout, stderr) => (error ? reject(new Error(`${error.message}\n${stderr}`)) : resolve(stdout)),
      ),
    );
    const run = JSON.parse(output.trim().split('\n').at(-1) ?? '{}') as Run;
    expect(run.edges).toBe(50);
    // Each request allocates ~0.5 MB: the young generation is collected several times over 1 500 of them.
    expect(run.scavenges).toBeGreaterThanOrEqual(3);
    // With pageInfo's getters in an object literal each request promoted its page: ~20 KB per request here (the
    // server under load: ~35 KB); on PostgreSQL with pg's late callback as well, ~23 KB. Now ~6 KB on either
    // database: what survives is the few long-lived things a request touches.
    expect(run.perRequest, `bytes promoted by each scavenge: ${run.each.join(', ')}`).toBeLessThan(10 * 1024);
  }, 150_000);
});
