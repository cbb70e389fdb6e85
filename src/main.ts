// Entry point: config → database → migrations → HTTP server and delivery worker. On SIGTERM/SIGINT it drains:
// no new connections, live streams end, in-flight requests finish, the worker stops, the database closes — within 5 s.
import './node-version.js';
import { createApp } from './app.js';
import { type Config, databaseLabel, databaseNamed, loadConfig, reachableUrl } from './core/config.js';
import { createHttpServer, listen } from './http/server.js';
import { exitOnStartupFailure, type StartupSettings } from './startup-errors.js';
import { startTracing } from './core/tracing.js';
import { jsonLine, plainTextOn, processLine, writeAfterLogs } from './core/logger.js';

/** SIGTERM to exit: in-flight requests are answered, live streams closed, the worker stopped (docs/limits.md "Shutdown"). */
const SHUTDOWN_TIMEOUT_MS = 5000;

/** What start-up was given, for its failure messages (src/startup-errors.ts). */
let settings: StartupSettings = {};

async function main(): Promise<void> {
  // Before anything else, so that every span has a provider (off unless the OTEL_* variables ask for it).
  const tracing = await startTracing();
  // The settings' warnings (a lookalike name, secrets generated) follow the first line, which names the database.
  const warnings: string[] = [];
  const warnAll = () => warnings.splice(0).forEach((warning) => processLine('warn', warning));
  let config: Config;
  try {
    config = loadConfig(process.env, (warning) => warnings.push(warning));
  } catch (error) {
    warnAll();
    throw error;
  }
  settings = config;
  const database = databaseNamed(config.DATABASE_URL);
  // The first line: which database this instance is about to open (never its password).
  if (!plainTextOn(process.stdout)) processLine('info', `Starting on ${databaseLabel(database)}`, { database });
  warnAll();
  const app = await createApp(config);
  const { server, shutdown } = createHttpServer(app, {
    headersMs: config.HTTP_HEADERS_TIMEOUT_SECONDS * 1000,
    requestMs: config.HTTP_REQUEST_TIMEOUT_SECONDS * 1000,
    keepAliveMs: config.HTTP_KEEP_ALIVE_TIMEOUT_SECONDS * 1000,
  });

  // Installed before the server listens (and says so): a SIGTERM sent as soon as the address is printed must find
  // them, or the default action would kill the process mid-start.
  const stop = (signal: NodeJS.Signals) => {
    processLine('info', `${signal}: shutting down`, { signal });
    // The app's own timeout leaves a margin inside SHUTDOWN_TIMEOUT_MS for closing the database.
    const deadline = performance.now() + SHUTDOWN_TIMEOUT_MS;
    shutdown(SHUTDOWN_TIMEOUT_MS - 2000)
      .then(async (clean) => {
        // The last spans get what is left of the 5 s (at most OTEL_SHUTDOWN_TIMEOUT_MS): a collector that does not
        // answer never changes the exit code.
        await tracing?.shutdown(Math.max(0, deadline - performance.now() - 200)).catch(() => undefined);
        process.exit(clean ? 0 : 1);
      })
      .catch(() => process.exit(1));
    setTimeout(() => process.exit(1), SHUTDOWN_TIMEOUT_MS).unref();
  };
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);

  const { port } = await listen(server, config.PORT, config.HOST);
  const base = `http://${config.HOST}:${port}`;
  const urls = {
    // The line the README's examples start from: with PORT=4100 they all follow it (and HOST=0.0.0.0 is reached on
    // loopback).
    gateway: reachableUrl(config.HOST, port),
    graphiql: `${base}/graphql`,
    rest: `${base}/api/v3`,
    restDocs: `${base}/api/v3/docs`,
    openapi: `${base}/api/v3/openapi.json`,
    health: `${base}/healthz`,
    ready: `${base}/readyz`,
  };
  // After the log lines written so far (migrations applied, settings that degrade a feature), on the same stream;
  // whatever LOG_LEVEL, as the banner on a terminal.
  if (!plainTextOn(process.stdout)) {
    writeAfterLogs(
      app.logger,
      jsonLine('info', `Campaign gateway listening on ${base}`, { address: base, ...urls, database }),
    );
    return;
  }
  writeAfterLogs(
    app.logger,
    [
      `Campaign gateway listening on ${base}`,
      `  export GATEWAY=${urls.gateway}`,
      `  GraphiQL  ${urls.graphiql}`,
      `  REST      ${urls.rest}`,
      `  REST docs ${urls.restDocs}  (OpenAPI: ${urls.openapi})`,
      `  database  ${databaseLabel(database)}`,
      `  health    ${urls.health}  ${urls.ready}`,
      '',
    ].join('\n'),
  );
}

// A rejection nobody handled is a bug to log, not a reason to drop every request in flight.
process.on('unhandledRejection', (reason) => {
  processLine('error', 'unhandled rejection', { err: reason });
});

main().catch((error: unknown) => exitOnStartupFailure(error, settings));
