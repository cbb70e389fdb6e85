// Where two servers' CPU goes, side by side (issue 21): two `--cpu-prof` profiles of the same run (for example the
// floor and our GraphQL door, BENCH_NODE_FLAGS='--cpu-prof --cpu-prof-dir=…'), each with its CPU µs per request from
// the bench table. Self time is spread over the requests in proportion to each profile's busy (non-idle) time, then
// grouped by function or by package, largest difference first. Start-up is in both profiles: module loading shows up
// as a small per-request cost of its own (node:internal/modules), to be read as such.
//   npx tsx bench/profile-diff.ts floor.cpuprofile 780 ours.cpuprofile 1060 [fn|pkg] [rows]
import { functionOf, packageOf, perRequest } from './profiles.js';

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
