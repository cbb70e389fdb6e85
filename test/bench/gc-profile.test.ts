// The wall-clock bench's allocation and GC columns (bench/campaigns.ts, issue 43): a process preloaded with
// GC_PROFILE_PRELOAD starts V8's GC profiler on the first SIGUSR2 and prints what was allocated on the second.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { describe, expect, it } from 'vitest';
import { GC_PROFILE_PRELOAD, gcProfileOf } from '../../bench/support.js';

describe('the GC profile preload', () => {
  it('reports the bytes a process allocated between two SIGUSR2s, and its collections', async () => {
    // The child allocates 64 MB in arrays of 125 doubles (1 KB each) once told (on stdin), after the profiler started.
    const script = `
      process.stdin.once('data', () => {
        let kept = 0;
        for (let i = 0; i < 65536; i++) {
          const numbers = new Array(125);
          for (let j = 0; j < 125; j++) numbers[j] = j + i * 0.5;
          kept += numbers.length;
        }
        process.stdout.write('done ' + kept + '\\n');
      });
      process.stdout.write('ready\\n');
    `;
    const child = spawn(process.execPath, ['--import', GC_PROFILE_PRELOAD, '-e', script], {
      stdio: ['pipe', 'pipe', 'inherit'],
    });
    let output = '';
    const seen = (text: string) =>
      new Promise<void>((resolve) => {
        const check = () => (output.includes(text) ? resolve() : child.stdout.once('data', onData));
        const onData = (chunk: Buffer) => {
          output += chunk.toString();
          check();
        };
        check();
      });
    await seen('ready');
    child.kill('SIGUSR2');
    // The profiler starts synchronously in the signal handler, before stdin's data is read.
    await new Promise((resolve) => setTimeout(resolve, 100));
    child.stdin.write('go\n');
    await seen('done');
    child.kill('SIGUSR2');
    await seen('gc-profile');
    child.kill();
    await once(child, 'exit');
    const profile = gcProfileOf(output);
    expect(profile).not.toBeNull();
    expect(profile?.allocated).toBeGreaterThan(60 * 1024 * 1024);
    expect(profile?.allocated).toBeLessThan(400 * 1024 * 1024);
    expect(profile?.collections).toBeGreaterThan(0);
  });
});
