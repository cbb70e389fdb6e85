// onFirstUse (src/core/first-use.ts): what is made on a first request is made once for every request waiting for it,
// and made again after a failure rather than failing every later request.
import { describe, expect, test } from 'vitest';
import { onFirstUse } from '../../src/core/first-use.js';

describe('onFirstUse', () => {
  test('makes once for every caller, at once or later', async () => {
    let made = 0;
    const get = onFirstUse(async () => ({ n: ++made }));
    const [a, b] = await Promise.all([get(), get()]);
    expect(a).toBe(b);
    expect(await get()).toBe(a);
    expect(made).toBe(1);
  });

  test('tries again after a failure, and keeps what then succeeds', async () => {
    let calls = 0;
    const get = onFirstUse(async () => {
      calls += 1;
      if (calls === 1) throw new Error('EMFILE: too many open files');
      return 'made';
    });
    await expect(get()).rejects.toThrow('EMFILE');
    expect(await get()).toBe('made');
    expect(await get()).toBe('made');
    expect(calls).toBe(2);
  });
});
