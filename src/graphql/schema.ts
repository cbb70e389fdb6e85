// Imports every type module and builds the two graphs. Type modules never import this file.
import { GraphQLLiveDirective } from '@n1ru4l/graphql-live-query';
import { lexicographicSortSchema, printSchema, specifiedDirectives } from 'graphql';
import { builder } from './builder.js';
import './types/account.js';
import './types/access-token.js';
import './types/voice.js';
import './types/campaign.js';
import './types/campaign-mutations.js';
import './types/integrations.js';
import './types/integrations-deprecated.js';
import './types/pipeline.js';
import './types/call-log.js';
import './types/call-mutations.js';
import './types/meeting.js';
import './types/social.js';
import './types/webhook.js';
import './types/webhook-mutations.js';
import './types/webhook-deprecated.js';
import './types/campaign-events.js';

/**
 * The public API: what `/graphql` serves, introspects and shows in GraphiQL, with `@live` on queries
 * (src/graphql/live-queries.ts).
 */
export const schema = builder.toSchema({
  subGraph: 'public',
  directives: [...specifiedDirectives, GraphQLLiveDirective],
});

/**
 * The public API plus what only the legacy REST door uses (`INTERNAL_ONLY` fields): the REST router validates and
 * executes its prepared documents against this graph, on the same resolvers (docs/graphql.md#two-graphs).
 */
export const internalSchema = builder.toSchema({ subGraph: 'internal' });

export function printSortedSchema(): string {
  return `${printSchema(lexicographicSortSchema(schema))}\n`;
}
