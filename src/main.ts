// Entry point: config → database → migrations → HTTP server; stops cleanly on SIGTERM/SIGINT.
import { createApp } from './app.js';
import { ConfigError, loadConfig } from './config.js';
import { createHttpServer, listen } from './http/server.js';

async function main(): Promise<void> {
  const config = loadConfig();
  const app = await createApp(config);
  const server = createHttpServer(app);
  const { port } = await listen(server, config.PORT, config.HOST);
  const base = `http://${config.HOST}:${port}`;
  console.log(`Campaign gateway listening on ${base}`);
  console.log(`  GraphiQL  ${base}/graphql`);
  console.log(`  REST      ${base}/api/v3`);

  const stop = () => {
    server.close(() => {
      void app.close().then(() => process.exit(0));
    });
    setTimeout(() => process.exit(1), 10_000).unref();
  };
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
}

main().catch((error: unknown) => {
  console.error(error instanceof ConfigError ? error.message : error);
  process.exit(1);
});
