// `npm start` as a child process: node itself with tsx's loader (not the tsx CLI, which would run the server in a
// grandchild that a signal to the child misses), on a free port. Resolves once the server has printed its URLs.
import { type ChildProcess, spawn } from 'node:child_process';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

export const ROOT = join(import.meta.dirname, '../..');
/** Named by path, so the server may run with any working directory. */
export const TSX_LOADER = pathToFileURL(join(ROOT, 'node_modules/tsx/dist/loader.mjs')).href;

export interface ServerProcess {
  child: ChildProcess;
  /** http://127.0.0.1:<port> */
  base: string;
  port: number;
  /** Everything it printed up to start-up. */
  printed: string;
}

/**
 * `nodeArguments` go before the entry point (`--expose-gc`, another `--import`, …). A setting given as undefined is
 * removed from the inherited environment (DATABASE_URL: undefined, the default SQLite file of `cwd`).
 */
export function startServerProcess(
  env: Record<string, string | undefined>,
  cwd = ROOT,
  nodeArguments: string[] = [],
): Promise<ServerProcess> {
  const environment: NodeJS.ProcessEnv = { ...process.env, PORT: '0', LOG_LEVEL: 'silent', ...env };
  for (const [name, value] of Object.entries(environment)) if (value === undefined) delete environment[name];
  const child = spawn(process.execPath, ['--import', TSX_LOADER, ...nodeArguments, join(ROOT, 'src/main.ts')], {
    cwd,
    env: environment,
  });
  return new Promise((resolve, reject) => {
    let output = '';
    child.stdout?.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      // The last line of the start-up banner names the health checks; as a JSON line (no terminal), it ends there.
      const found = /listening on (http:\/\/[^:\s"]+:(\d+))(?:"[^\n]*\n|[\s\S]*health.*\n)/.exec(output);
      if (found?.[1]) resolve({ child, base: found[1], port: Number(found[2]), printed: output });
    });
    child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.once('exit', (code) => reject(new Error(`server exited with ${code}: ${output}`)));
  });
}

/** SIGKILL, resolved once the process is gone. */
export function kill(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve();
    child.once('exit', () => resolve());
    child.kill('SIGKILL');
  });
}
