// `npm start &` then `kill $!` stops the server: the PID a shell gets is npm's, and the signal npm passes on must
// reach the server itself (the start script execs node), leaving no orphan serving the port. The signal goes as soon
// as the first line of the banner appears: the handlers must be in place by then (they are installed before listen).
import { spawn } from 'node:child_process';
import { connect } from 'node:net';
import { expect, it } from 'vitest';
import { ROOT } from '../helpers/server-process.js';

const accepts = (port: number) =>
  new Promise<boolean>((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });

it('SIGTERM to the PID of `npm start` stops the server and frees its port', async () => {
  const npm = spawn('npm', ['start'], {
    cwd: ROOT,
    env: {
      ...process.env,
      PORT: '0',
      DATABASE_URL: 'sqlite::memory:',
      LOG_LEVEL: 'silent',
      JWT_SECRET: 'npm-start-secret-npm-start-secret-0123',
      SECRETS_KEY: Buffer.alloc(32, 5).toString('base64'),
    },
  });
  let output = '';
  const port = await new Promise<number>((resolve, reject) => {
    npm.stdout.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      const found = /listening on http:\/\/[^:\s]+:(\d+)/.exec(output);
      if (found) resolve(Number(found[1]));
    });
    npm.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    npm.once('exit', (code) => reject(new Error(`npm start exited with ${code}: ${output}`)));
  });
  expect(await accepts(port)).toBe(true);

  const exited = new Promise<number | null>((resolve) => npm.once('exit', (code) => resolve(code)));
  npm.kill('SIGTERM');
  expect(await exited, output).toBe(0);
  expect(output).toContain('SIGTERM: shutting down');
  expect(await accepts(port), 'something still serves the port after npm exited').toBe(false);
}, 60_000);
