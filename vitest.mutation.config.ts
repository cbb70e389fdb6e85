// The tests `npm run mutation` (stryker.config.json, docs/mutation-testing.md) runs against each mutant of the guards:
// those that reach src/security/, src/authentication.ts and src/db/credential-check.ts, and no others, so that a run
// fits on a small machine. Everything else is the project's own vitest configuration.
import { defineConfig } from 'vitest/config';
import base from './vitest.config.js';

export default defineConfig({
  ...base,
  test: {
    ...base.test,
    include: [
      'test/security/**/*.test.ts',
      'test/domain/tokens.test.ts',
      'test/domain/webhook-targets.test.ts',
      'test/domain/hub-signature.test.ts',
      'test/domain/telephony-signature.test.ts',
      'test/domain/secrets.test.ts',
      'test/domain/reusable-query.test.ts',
      'test/domain/credential-check.test.ts',
      'test/graphql/auth.test.ts',
      'test/graphql/token-revocation.test.ts',
      'test/graphql/access-tokens.test.ts',
      'test/http/provisional-credentials.test.ts',
      'test/rest/token-expiry.test.ts',
      'test/rest/client-throttles.test.ts',
      'test/http/limits.test.ts',
    ],
  },
});
