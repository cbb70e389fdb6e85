// Lint rules: ESLint's and typescript-eslint's recommended sets; Prettier owns formatting. The printed public schema
// (schema/schema.graphql) is linted by graphql-eslint: schema-recommended plus the relay rules (docs/graphql.md).
import js from '@eslint/js';
import graphql from '@graphql-eslint/eslint-plugin';
import tseslint from 'typescript-eslint';

const SCHEMA = 'schema/schema.graphql';
/** The JavaScript and TypeScript rules apply to code only (a config object without `files` would reach the schema). */
const CODE = ['**/*.{js,mjs,cjs,ts,tsx,mts,cts}'];
const forCode = (config) => ({ ...config, files: config.files ?? CODE });

export default tseslint.config(
  {
    ignores: [
      'node_modules/',
      '.tools/',
      'data/',
      'scratch/',
      'test-results/',
      'dist/',
      'examples/*/dist/',
      'src/rest/internal-graph-env.d.ts',
      '.stryker-tmp/',
      'reports/mutation/',
    ],
  },
  forCode(js.configs.recommended),
  ...tseslint.configs.recommended.map(forCode),
  {
    files: CODE,
    rules: {
      '@typescript-eslint/no-unused-vars': [
        'error',
        {
          argsIgnorePattern: '^_',
          varsIgnorePattern: '^_',
          destructuredArrayIgnorePattern: '^_',
          ignoreRestSiblings: true,
        },
      ],
    },
  },
  {
    // Answers are made with the server adapter's Response, never Node's built-in one (docs/decisions.md §14).
    files: ['src/**/*.ts'],
    ignores: ['src/core/fetch-api.ts'],
    rules: {
      'no-restricted-globals': [
        'error',
        { name: 'Response', message: 'Import { Response } from src/core/fetch-api.ts (docs/decisions.md §14).' },
      ],
    },
  },
  {
    // Migrations are typed against no schema (Kysely<any>), and tests read loosely typed JSON replies.
    files: ['migrations/**', 'test/**', 'src/db/migrate.ts'],
    rules: { '@typescript-eslint/no-explicit-any': 'off' },
  },
  {
    files: [SCHEMA],
    languageOptions: { parser: graphql.parser, parserOptions: { graphQLConfig: { schema: SCHEMA } } },
    plugins: { '@graphql-eslint': graphql },
    rules: {
      ...graphql.configs['flat/schema-recommended'].rules,
      ...graphql.configs['flat/schema-relay'].rules,
      // Stricter than the preset (types and root fields): every field, argument, input field and enum value too.
      '@graphql-eslint/require-description': [
        'error',
        {
          types: true,
          rootField: true,
          DirectiveDefinition: true,
          FieldDefinition: true,
          InputValueDefinition: true,
          EnumValueDefinition: true,
        },
      ],
      // Every object with an identity is a Node with `id: ID!` (docs/graphql.md#global-ids). The exceptions are the
      // value types without one (test/client/value-types.ts: tokens, integration settings, metrics, connections,
      // edges, PageInfo), mutation payloads, and CampaignEvent, whose `id: String!` is the event id of webhook
      // bodies (a stream item, not refetchable; retyping it would break clients).
      '@graphql-eslint/strict-id-in-types': [
        'error',
        {
          exceptions: {
            suffixes: ['Payload', 'Connection', 'Edge', 'Integration'],
            types: [
              'AuthToken',
              'NewApiKey',
              'Integrations',
              'CampaignMetrics',
              'Participant',
              'PageInfo',
              'CampaignEvent',
              // Call statistics: values computed for a span, not things with an identity.
              'CallCounts',
              'CallStats',
              'CallStatsBucket',
            ],
          },
        },
      ],
      // Off: `accountId`, `meetingId`, `voiceId` and `webhookId` repeat their type's name because they are the keys
      // the legacy REST interface and its clients use (beside the global `id`); renaming them would break clients.
      '@graphql-eslint/no-typename-prefix': 'off',
      // Short, bounded lists stay plain lists: a campaign's meetings and a webhook's campaigns (each `limit` ≤ 200),
      // a campaign's webhooks (≤ 50 per account), `upcomingMeetings(limit)`, a meeting's participants (≤ 50), the
      // voice catalogue, a webhook's event types, `nodes(ids:)` (≤ 100); only unbounded ones are connections. The
      // rest of the rule (Edge suffix, `node` and `cursor` fields) stays on.
      '@graphql-eslint/relay-edge-types': ['error', { listTypeCanWrapOnlyEdgeType: false }],
    },
  },
);
