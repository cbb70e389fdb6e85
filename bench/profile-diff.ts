// Where two servers' CPU goes, side by side (issue 21): two `--cpu-prof` profiles of the same run (for example the
// floor and our GraphQL door, BENCH_NODE_FLAGS='--cpu-prof --cpu-prof-dir=…'), each with its CPU µs per request from
// the bench table. Self time is spread over the requests in proportion to each profile's busy (non-idle) time, then
// grouped by function or by package, largest difference first. Start-up is in both profiles: module loading shows up
// as a small per-request cost of its own (node:internal/modules), to be read as such.
//   npx tsx bench/profile-diff.ts floor.cpuprofile 780 ours.cpuprofile 1060 [fn|pkg] [rows]
import { readFileSync } from 'node:fs';

interface CallFrame {
  functionName: string;
  url: string;
  lineNumber: number;
}
interface Profile {
  nodes: Array<{ id: number; callFrame: CallFrame }>;
  samples: number[];
  timeDeltas: number[];
}

const packageOf = ({ url, functionName }: CallFrame): string => {
  const inModules = /node_modules\/((@[^/]+\/)?[^/]+)/.exec(url);
  if (inModules?.[1]) return inModules[1];
  if (url.startsWith('node:')) return url.split('/').slice(0, 2).join('/');
  if (url.includes('/dist/')) return `ours: ${url.replace(/.*\/dist\//, '')}`;
  return url || functionName;
};

const functionOf = ({ url, functionName, lineNumber }: CallFrame): string =>
  `${functionName || '(anonymous)'} ${url.replace(/.*node_modules\//, '').replace(/.*\/dist\//, '')}:${lineNumber}`;

/** µs per request by key. */
function perRequest(path: string, cpuMicros: number, keyOf: (frame: CallFrame) => string): Map<string, number> {
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

const [first, firstCpu, second, secondCpu, mode = 'pkg', rows = '40'] = process.argv.slice(2);
if (!first || !second || !Number(firstCpu) || !Number(secondCpu)) {
  console.error(
    'usage: profile-diff <a.cpuprofile> <a CPU µs/request> <b.cpuprofile> <b CPU µs/request> [fn|pkg] [rows]',
  );
  process.exit(2);
}
const keyOf = mode === 'fn' ? functionOf : packageOf;
const a = perRequest(first, Number(firstCpu), keyOf);
const b = perRequest(second, Number(secondCpu), keyOf);
const table = [...new Set([...a.keys(), ...b.keys()])]
  .map((key) => ({ key, a: a.get(key) ?? 0, b: b.get(key) ?? 0 }))
  .sort((x, y) => y.b - y.a - (x.b - x.a));
console.log('| µs/request, first | µs/request, second | difference | where |');
console.log('|---|---|---|---|');
const show = ({ key, a: x, b: y }: { key: string; a: number; b: number }) =>
  console.log(`| ${x.toFixed(1)} | ${y.toFixed(1)} | ${(y - x).toFixed(1)} | ${key} |`);
table.slice(0, Number(rows)).forEach(show);
console.log('| … | | | |');
table.slice(-5).forEach(show);
