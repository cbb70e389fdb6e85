// The nodes of a walked page read after the walk (src/db/filtered-walk.ts keptNodes): cursors are the keys walked,
// and a row deleted in between neither ends the list early nor repeats a row on the next page.
import { describe, expect, it } from 'vitest';
import { bothAllow, keptNodes } from '../../src/db/filtered-walk.js';
import type { Keyset } from '../../src/db/keyset.js';

const keys = (...ids: string[]): Keyset[] => ids.map((id, i) => [100 - i, id]);

describe('keptNodes', () => {
  it('keeps each node with the key the walk found it at', () => {
    const walked = { keys: keys('a', 'b', 'c'), resume: null };
    const { nodes, resume } = keptNodes(walked, 3, ([, id]) => `node ${id}`);
    expect(nodes).toEqual([
      { key: [100, 'a'], node: 'node a' },
      { key: [99, 'b'], node: 'node b' },
      { key: [98, 'c'], node: 'node c' },
    ]);
    expect(resume).toBeNull();
  });

  it('a full page that lost a row ends at its last key walked, without the row past the page', () => {
    // A page of 3 (limit 4: one more to know more follow); "b" was deleted between the walk and the read.
    const walked = { keys: keys('a', 'b', 'c', 'd'), resume: null };
    const { nodes, resume } = keptNodes(walked, 4, ([, id]) => (id === 'b' ? undefined : id));
    expect(nodes.map(({ node }) => node)).toEqual(['a', 'c']);
    // The next page starts after "c": "d" comes next, neither skipped nor shown twice.
    expect(resume).toEqual([98, 'c']);
  });

  it('a page that ended the list, or the budget, keeps where it stopped', () => {
    const short = { keys: keys('a', 'b'), resume: [50, 'z'] as Keyset };
    expect(keptNodes(short, 4, ([, id]) => (id === 'a' ? undefined : id))).toEqual({
      nodes: [{ key: [99, 'b'], node: 'b' }],
      resume: [50, 'z'],
    });
    const ended = { keys: keys('a', 'b'), resume: null };
    expect(keptNodes(ended, 4, () => undefined)).toEqual({ nodes: [], resume: null });
  });
});

describe('bothAllow', () => {
  it('intersects, drops duplicates, and knows no list from an empty one', () => {
    expect(bothAllow(null, null)).toBeNull();
    expect(bothAllow(['a'], null)).toEqual(['a']);
    expect(bothAllow(null, ['b', 'a', 'b'])).toEqual(['b', 'a']);
    expect(bothAllow(['a', 'c'], ['b', 'c', 'c'])).toEqual(['c']);
    expect(bothAllow(['a'], ['b'])).toEqual([]);
  });
});
