// Imports every type module and builds the schema. Type modules never import this file.
import { lexicographicSortSchema, printSchema } from 'graphql';
import { builder } from './builder.js';
import './types/account.js';
import './types/voice.js';
import './types/campaign.js';
import './types/campaign-mutations.js';
import './types/integrations.js';
import './types/pipeline.js';
import './types/call-log.js';
import './types/call-mutations.js';
import './types/meeting.js';
import './types/social.js';
import './types/webhook.js';
import './types/campaign-events.js';

export const schema = builder.toSchema();

export function printSortedSchema(): string {
  return `${printSchema(lexicographicSortSchema(schema))}\n`;
}
