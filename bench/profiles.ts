// What the CPU profiles of bench servers (`--cpu-prof`, BENCH_NODE_FLAGS) hold, per request: self time spread over the
// requests in proportion to each profile's busy (non-idle) time. Read by bench/profile-diff.ts (two servers, by function
// or package) and bench/profile-parts.ts (several servers, by part of the stack: issue 55's table).
import { readFileSync } from 'node:fs';

export interface CallFrame {
  functionName: string;
  url: string;
  lineNumber: number;
}
export interface Profile {
  nodes: Array<{ id: number; callFrame: CallFrame }>;
  samples: number[];
  timeDeltas: number[];
}

export const packageOf = ({ url, functionName }: CallFrame): string => {
  const inModules = /node_modules\/((@[^/]+\/)?[^/]+)/.exec(url);
  if (inModules?.[1]) return inModules[1];
  if (url.startsWith('node:')) return url.split('/').slice(0, 2).join('/');
  if (url.includes('/dist/')) return `ours: ${url.replace(/.*\/dist\//, '')}`;
  return url || functionName;
};

export const functionOf = ({ url, functionName, lineNumber }: CallFrame): string =>
  `${functionName || '(anonymous)'} ${url.replace(/.*node_modules\//, '').replace(/.*\/dist\//, '')}:${lineNumber}`;

/** µs per request by key. */
export function perRequest(path: string, cpuMicros: number, keyOf: (frame: CallFrame) => string): Map<string, number> {
  const profile = JSON.parse(readFileSync(path, 'utf8')) as Profile;
  const selfTime = new Map<number, number>();
  profile.samples.forEach((id, index) => selfTime.set(id, (selfTime.get(id) ?? 0) + (profile.timeDeltas[index] ?? 0)));
  const byKey = new Map<string, number>();
  let busy = 0;
  for (const { id, callFrame } of profile.nodes) {
    if (callFrame.functionName === '(idle)') continue;
    const time = selfTime.get(id) ?? 0;
    busy += time;
    const key = keyOf(callFrame);
    byKey.set(key, (byKey.get(key) ?? 0) + time);
  }
  for (const [key, time] of byKey) byKey.set(key, (time / busy) * cpuMicros);
  return byKey;
}
