/* global process, console */
// `npm run mcp:inspect -- <url> …`: the MCP Inspector's CLI mode (@modelcontextprotocol/inspector --cli), with the
// bearer token taken from MCP_TOKEN when it is set. npm prints a script's command line before running it, so a
// token passed as `--header "Authorization: Bearer …"` would be printed on the terminal; this way it is not.
import { spawn } from 'node:child_process';

const args = ['--cli', ...process.argv.slice(2)];
const token = process.env.MCP_TOKEN?.trim();
if (token) args.push('--header', `Authorization: Bearer ${token}`);
// npm run puts node_modules/.bin on PATH.
const child = spawn('mcp-inspector', args, { stdio: 'inherit' });
for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => child.kill(signal));
child.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
child.on('error', (error) => {
  console.error(`mcp:inspect: could not start the MCP Inspector (${error.message}); run npm ci`);
  process.exit(1);
});
