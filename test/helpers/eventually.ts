// Retries `check` until it stops throwing (every 25 ms, for at most `timeoutMs`): vitest's vi.waitFor, with the
// defaults the event tests use.
import { vi } from 'vitest';

export const eventually = <T>(check: () => Promise<T>, timeoutMs = 5000): Promise<T> =>
  vi.waitFor(check, { timeout: timeoutMs, interval: 25 });
