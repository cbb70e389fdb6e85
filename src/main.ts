// Entry point: config → database → migrations → HTTP server and delivery worker. On SIGTERM/SIGINT it drains:
// no new connections, live streams end, in-flight requests finish, the worker stops, the database closes — within 5 s.
import './node-version.js';
import { createApp } from './app.js';
import { loadConfig, reachableUrl } from './core/config.js';
import { createHttpServer, listen } from './http/server.js';
import { exitOnStartupFailure, type StartupSettings } from './startup-errors.js';
import { startTracing } from './core/tracing.js';
import { writeAfterLogs } from './core/logger.js';

/** SIGTERM to exit: in-flight requests are answered, live streams closed, the worker stopped (docs/limits.md "Shutdown"). */
const SHUTDOWN_TIMEOUT_MS = 5000;

/** What start-up was given, for its failure messages (src/startup-errors.ts). */
let settings: StartupSettings = {};

async function main(): Promise<void> {
  // Before anything else, so that every span has a provider (off unless the OTEL_* variables ask for it).
  const tracing = await startTracing();
  const config = loadConfig();
  settings = config;
  const app = await createApp(config);
  const { server, shutdown } = createHttpServer(app, {
    headersMs: config.HTTP_HEADERS_TIMEOUT_SECONDS * 1000,
    requestMs: config.HTTP_REQUEST_TIMEOUT_SECONDS * 1000,
    keepAliveMs: config.HTTP_KEEP_ALIVE_TIMEOUT_SECONDS * 1000,
  });

  // Installed before the server listens (and says so): a SIGTERM sent as soon as the address is printed must find
  // them, or the default action would kill the process mid-start.
  const stop = (signal: NodeJS.Signals) => {
    console.log(`${signal}: shutting down`);
    // The app's own timeout leaves a margin inside SHUTDOWN_TIMEOUT_MS for closing the database.
    shutdown(SHUTDOWN_TIMEOUT_MS - 2000)
      .then(async (clean) => {
        await tracing?.shutdown().catch(() => undefined);
        process.exit(clean ? 0 : 1);
      })
      .catch(() => process.exit(1));
    setTimeout(() => process.exit(1), SHUTDOWN_TIMEOUT_MS).unref();
  };
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);

  const { port } = await listen(server, config.PORT, config.HOST);
  const base = `http://${config.HOST}:${port}`;
  // After the log lines written so far (migrations applied, settings that degrade a feature), on the same stream.
  writeAfterLogs(
    app.logger,
    [
      `Campaign gateway listening on ${base}`,
      // The line the README's examples start from: with PORT=4100 they all follow it (and HOST=0.0.0.0 is reached on
      // loopback).
      `  export GATEWAY=${reachableUrl(config.HOST, port)}`,
      `  GraphiQL  ${base}/graphql`,
      `  REST      ${base}/api/v3`,
      `  REST docs ${base}/api/v3/docs  (OpenAPI: ${base}/api/v3/openapi.json)`,
      `  health    ${base}/healthz  ${base}/readyz`,
      '',
    ].join('\n'),
  );
}

// A rejection nobody handled is a bug to log, not a reason to drop every request in flight.
process.on('unhandledRejection', (reason) => {
  console.error('unhandled rejection:', reason);
});

main().catch((error: unknown) => exitOnStartupFailure(error, settings));
