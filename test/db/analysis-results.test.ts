// The short results of a post-call analysis that lists filter on (src/db/analysis-results.ts).
import { describe, expect, it } from 'vitest';
import { analysisResultsOf, MAX_RESULTS_TEXT, resultEntries, spelledScalar } from '../../src/db/analysis-results.js';

const has = (results: string | null, field: string, equals: string) =>
  resultEntries(field, equals).some((entry) => (results ?? '').includes(entry));

describe('analysis results', () => {
  it('keeps top-level short strings, finite numbers and booleans, found by their value', () => {
    const results = analysisResultsOf({
      interested: true,
      score: 7,
      ratio: 0.5,
      note: 'call back "tomorrow"\n',
      nested: { interested: false },
      list: [1, 2],
      none: null,
      long: 'x'.repeat(300),
      'with space': 'no',
      '1st': 'no',
    });
    expect(has(results, 'interested', 'true')).toBe(true);
    expect(has(results, 'interested', 'false')).toBe(false);
    expect(has(results, 'score', '7')).toBe(true);
    expect(has(results, 'score', '7.0')).toBe(true);
    expect(has(results, 'score', '70')).toBe(false);
    expect(has(results, 'ratio', '0.50')).toBe(true);
    expect(has(results, 'note', 'call back "tomorrow"\n')).toBe(true);
    expect(has(results, 'note', 'call back')).toBe(false);
    for (const field of ['nested', 'list', 'none', 'long']) expect(results).not.toContain(field);
    // A field is found only as a whole name: `score` is not `core`'s.
    expect(has(results, 'core', '7')).toBe(false);
  });

  it('a string that spells a number or boolean matches both; other strings only themselves', () => {
    const results = analysisResultsOf({ a: '7', b: 7, c: 'true', d: 'yes' });
    expect(has(results, 'a', '7')).toBe(true);
    expect(has(results, 'b', '7')).toBe(true);
    expect(has(results, 'c', 'true')).toBe(true);
    expect(has(results, 'd', 'yes')).toBe(true);
    expect(spelledScalar('1e400')).toBeNull();
    expect(spelledScalar('007')).toBeNull();
    expect(spelledScalar('-0')).toBe('0');
    expect(spelledScalar('3.50')).toBe('3.5');
  });

  it('a lone surrogate is only text, and a value never holds a separator', () => {
    const results = analysisResultsOf({ note: 'a\ud800b', sep: '\x1e\x1f' });
    expect(has(results, 'note', 'a\ud800b')).toBe(true);
    expect(has(results, 'sep', '\x1e\x1f')).toBe(true);
    expect((results ?? '').split('\x1e').filter(Boolean)).toHaveLength(2);
  });

  it('stops at the size cap, whole entries only; nothing kept is null', () => {
    const many = Object.fromEntries(Array.from({ length: 500 }, (_, i) => [`field${i}`, 'v'.repeat(50)]));
    const results = analysisResultsOf(many)!;
    expect(results.length).toBeLessThanOrEqual(MAX_RESULTS_TEXT);
    expect(results.endsWith('\x1e')).toBe(true);
    expect(has(results, 'field0', 'v'.repeat(50))).toBe(true);
    expect(has(results, 'field499', 'v'.repeat(50))).toBe(false);
    expect(analysisResultsOf({ nested: {} })).toBeNull();
    expect(analysisResultsOf([1])).toBeNull();
    expect(analysisResultsOf('text')).toBeNull();
  });
});
