// A full garbage collection of this process, now: a suite worker runs test files one after another (isolate: false),
// and a test that measures the event loop must not be charged for a major collection of what earlier files left.
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

export function collectGarbageNow(): void {
  gc();
}
