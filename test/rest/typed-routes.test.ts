// A REST route's result and variables are typed from its document (src/rest/typed-documents.ts: gql.tada over the
// internal graph), not restated by hand. `npm run typecheck` covers this file: the @ts-expect-error lines are routes
// the compiler must refuse, so a route that reads what its document does not select, or sends variables its document
// does not declare, cannot be written.
import { readFileSync } from 'node:fs';
import { z } from 'zod';
import { expect, it } from 'vitest';
import { defineRoute } from '../../src/rest/route.js';
import { graphql, type ResultOf, type VariablesOf } from '../../src/rest/typed-documents.js';
import { INTERNAL_GRAPH_TYPES_FILE, internalGraphTypes } from '../../scripts/internal-graph-types.js';

const CAMPAIGN = graphql(`
  query TypedRouteProbe($campId: String!) {
    campaign(campId: $campId) {
      campId
      status
      creationDate: createdAt
    }
  }
`);

it('src/rest/internal-graph-env.d.ts is what gql.tada makes of the internal graph (npm run schema)', () => {
  expect(readFileSync(INTERNAL_GRAPH_TYPES_FILE, 'utf8'), 'stale: run `npm run schema`').toBe(internalGraphTypes());
});

it('a document types its result and variables: internal-only fields, aliases and enums included', () => {
  const result: ResultOf<typeof CAMPAIGN> = {
    campaign: { campId: 'c1', status: 'ACTIVE', creationDate: '2026-01-01T00:00:00.000Z' },
  };
  // @ts-expect-error the status is the CampaignStatus enum: its GraphQL names, not the legacy words
  const legacyWord: ResultOf<typeof CAMPAIGN> = { campaign: { ...result.campaign!, status: 'active' } };
  const variables: VariablesOf<typeof CAMPAIGN> = { campId: 'c1' };
  // @ts-expect-error $campId is String!
  const missing: VariablesOf<typeof CAMPAIGN> = {};
  const internalOnly = graphql(`
    query TypedRouteInternal {
      callLogList(limit: 1, offset: 0) {
        direction: providerDirection
      }
    }
  `);
  const direction: ResultOf<typeof internalOnly>['callLogList'][number]['direction'] = null;
  expect([legacyWord, variables, missing, direction, internalOnly]).toHaveLength(5);
});

it('defineRoute refuses a respond that reads what is not selected, and variables that are not declared', () => {
  const response = z.object({ campId: z.string() });
  const common = {
    method: 'GET',
    path: '/probe',
    summary: 'probe',
    tag: 'probe',
    auth: true,
    document: CAMPAIGN,
    response,
  } as const;
  const good = defineRoute({
    ...common,
    variables: () => ({ campId: 'c1' }),
    respond: ({ campaign }) => (campaign ? { campId: campaign.campId } : null),
  });
  defineRoute({
    ...common,
    variables: () => ({ campId: 'c1' }),
    // @ts-expect-error `title` is not selected by the document
    respond: ({ campaign }) => (campaign ? { campId: campaign.title } : null),
  });
  defineRoute({
    ...common,
    // @ts-expect-error the document declares $campId, not $id
    variables: () => ({ id: 'c1' }),
    respond: () => null,
  });
  defineRoute({
    ...common,
    // @ts-expect-error $campId is a String: the document's type wins, not what `variables` happens to return
    variables: () => ({ campId: 5 }),
    respond: () => null,
  });
  expect(good.document).toMatch(/^query TypedRouteProbe/);
});
