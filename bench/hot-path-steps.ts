// What the per-request steps issues 33 and 35 added cost (issue 43 item 5), counted: `npm run bench:steps` runs this
// script under callgrind once per step with HOT_PATH_CALLS calls of it and once with three times as many, and prints
// the instructions per call: the difference over the difference in calls, so that what both runs pay once (start-up,
// loading, V8 compiling the step's code) cancels out. Each step is called as the
// GraphQL door calls it for the bench's request (`campaigns(first: 50)` with every scalar, a login token, no
// variables) — and, where its work grows with the input, with the input that makes it work (variables given; a
// write's rows).
//
// Alone (`STEP=<name> HOT_PATH_CALLS=<n> npx tsx bench/hot-path-steps.ts`) it runs one step n times and exits.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type ExecutionArgs, parse } from 'graphql';
import { requestTargetProblem } from '../src/http/request-target.js';
import { inputErrors } from '../src/graphql/server/input-errors.js';
import { keysOfWrites } from '../src/graphql/live/live-keys.js';
import { nulCharacters } from '../src/graphql/server/nul-characters.js';
import { readOnlyTokens } from '../src/graphql/server/read-only-tokens.js';
import { schema } from '../src/graphql/schema/schema.js';

const QUERY = parse(
  'query BenchCampaigns { campaigns(first: 50) { edges { node { id campId title voiceId language script } } } }',
);
const WITH_VARIABLES = parse(
  'query Page($first: Int! = 20, $status: CampaignStatus, $search: String) ' +
    '{ campaigns(first: $first, status: $status, search: $search) { edges { node { campId } } } }',
);
const argsOf = (document: ExecutionArgs['document'], variableValues: Record<string, unknown>): ExecutionArgs => ({
  schema,
  document,
  variableValues,
  contextValue: { readOnly: false },
});
const noop = () => undefined;
type Hook = (payload: object) => unknown;
const onExecuteOf = (plugin: object) => (plugin as { onExecute: Hook }).onExecute;
const inputErrorsHook = onExecuteOf(inputErrors());

/** Each step as the door runs it once per request. */
const STEPS: Record<string, () => unknown> = {
  'host and target check (issue 41)': () => requestTargetProblem('127.0.0.1:4000', '/graphql'),
  'read-only tokens, onExecute': () =>
    onExecuteOf(readOnlyTokens)({ args: argsOf(QUERY, {}), setResultAndStopExecution: noop }),
  'NUL characters in variables, onExecute (none given)': () =>
    onExecuteOf(nulCharacters)({ args: argsOf(QUERY, {}), setResultAndStopExecution: noop }),
  'NUL characters in variables, onExecute (three given)': () =>
    onExecuteOf(nulCharacters)({
      args: argsOf(WITH_VARIABLES, { first: 50, status: 'ACTIVE', search: 'spring sale' }),
      setResultAndStopExecution: noop,
    }),
  'input errors and variable defaults, onExecute (no variables)': () =>
    inputErrorsHook({ args: argsOf(QUERY, {}), setResultAndStopExecution: noop }),
  'input errors and variable defaults, onExecute (a default applied)': () =>
    inputErrorsHook({ args: argsOf(WITH_VARIABLES, { status: 'ACTIVE' }), setResultAndStopExecution: noop }),
  'write-side live keys of one campaign update': () =>
    keysOfWrites([
      {
        table: 'campaigns',
        kind: 'update',
        rows: [{ account_id: 'acc_0123456789abcdef', camp_id: 'spring-2024', title: 'Spring' }],
      },
    ]),
};

const step = process.env.STEP;
if (step !== undefined) {
  const run = STEPS[step];
  if (!run) throw new Error(`no step ${step}`);
  const calls = Number(process.env.HOT_PATH_CALLS ?? 0);
  // The step runs once before (so that both runs load and compile the same code), then `calls` times.
  run();
  for (let i = 0; i < calls; i++) run();
} else {
  const calls = Number(process.env.HOT_PATH_CALLS ?? 300_000);
  const dir = mkdtempSync(join(tmpdir(), 'hot-path-steps-'));
  /** Instructions of one run of the script under callgrind (the whole process). */
  const count = (name: string, n: number): number => {
    const out = join(dir, `callgrind.out.${n}.${Object.keys(STEPS).indexOf(name)}`);
    execFileSync(
      'valgrind',
      [
        '--tool=callgrind',
        '--smc-check=all-non-file',
        `--callgrind-out-file=${out}`,
        process.execPath,
        '--import',
        'tsx',
        join(import.meta.dirname, 'hot-path-steps.ts'),
      ],
      { env: { ...process.env, STEP: name, HOT_PATH_CALLS: String(n) }, stdio: 'ignore' },
    );
    const totals = /^totals:\s+(\d+)/m.exec(readFileSync(out, 'utf8'));
    return Number(totals?.[1] ?? 0);
  };
  console.log(`| step | instructions per call (${3 * calls} calls less ${calls}) |\n|---|---|`);
  for (const name of Object.keys(STEPS)) {
    const per = (count(name, 3 * calls) - count(name, calls)) / (2 * calls);
    console.log(`| ${name} | ${Math.round(per).toLocaleString('en-US')} |`);
  }
  if (readdirSync(dir).length > 0) rmSync(dir, { recursive: true, force: true });
}
