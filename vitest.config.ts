import { defineConfig } from 'vitest/config';

export default defineConfig({
  // graphql 16 ships CJS and ESM copies; pin one so every package shares the same GraphQLSchema class.
  resolve: { alias: { graphql: 'graphql/index.js' } },
  test: {
    include: ['test/**/*.test.ts'],
    globalSetup: ['test/global-setup.ts'],
    // Test files share a worker's modules (the schema is built once per worker); every test still gets its own
    // app on a fresh database, so nothing else is shared.
    isolate: false,
    // The servers tests start in processes of their own check the prepared lane against yoga too (test/helpers/app.ts).
    env: { GRAPHQL_PREPARED_LANE: 'shadow' },
    testTimeout: 20_000,
    hookTimeout: 30_000,
  },
});
