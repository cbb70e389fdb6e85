// POST | GET | DELETE /text_pipeline_configuration?campId= (also campaignId or camp_id) — docs/decisions.md §6.
import { z } from 'zod';
import { campIdField } from '../../domain/campaigns.schema.js';
import { textPipelineSchema } from '../../domain/pipelines.schema.js';
import { documentAliases } from '../../validation/input-json-schema.js';
import { doneBody } from '../responses/common.js';
import { textPipelineResponse } from '../responses/pipelines.js';
import { defineRoute } from '../route.js';
import { graphql } from '../typed-documents.js';

const LegacyPipeline = graphql(`
  fragment LegacyPipeline on TextPipeline {
    campId
    goal
    messageDelay
    mexRetry
    retryDelay
    postWebhook
    postWebhookDelay
    updatedAt
  }
`);

/** The campaign is named by `campId`, or by the aliases older clients send. */
const campaignQuery = documentAliases(
  z.preprocess(
    (query) => {
      const q = (query ?? {}) as Record<string, unknown>;
      return { ...q, campId: q.campId ?? q.campaignId ?? q.camp_id };
    },
    z.object({ campId: campIdField.describe('The campaign’s campId (also accepted as campaignId or camp_id)') }),
  ),
  'campId',
  ['campaignId', 'camp_id'],
);
const deleted = doneBody('Text pipeline configuration deleted');

const path = '/text_pipeline_configuration';
const common = { path, tag: 'text pipeline', auth: true, query: campaignQuery } as const;

export const pipelineRoutes = [
  defineRoute({
    ...common,
    method: 'POST',
    summary: "Set (replace) a campaign's text pipeline configuration",
    document: graphql(
      `
        mutation LegacySetTextPipeline($input: TextPipelineSetInput!) {
          textPipelineSet(input: $input) {
            textPipeline {
              ...LegacyPipeline
            }
          }
        }
      `,
      [LegacyPipeline],
    ),
    body: textPipelineSchema,
    response: textPipelineResponse,
    variables: ({ body, query }) => ({ input: { campId: query.campId, pipeline: body } }),
    argLocs: { 'input.campId': ['query', 'campId'], 'input.pipeline': ['body'] },
    respond: ({ textPipelineSet }) => textPipelineSet.textPipeline,
  }),
  defineRoute({
    ...common,
    method: 'GET',
    summary: "A campaign's text pipeline configuration",
    document: graphql(
      `
        query LegacyGetTextPipeline($campId: String!) {
          campaign(campId: $campId) {
            textPipeline {
              ...LegacyPipeline
            }
          }
        }
      `,
      [LegacyPipeline],
    ),
    response: textPipelineResponse,
    variables: ({ query }) => query,
    argLocs: { campId: ['query', 'campId'] },
    respond: ({ campaign }) => campaign?.textPipeline ?? null,
    missing: ({ campaign }) => (campaign ? 'Text pipeline configuration not found' : 'Campaign not found'),
  }),
  defineRoute({
    ...common,
    method: 'DELETE',
    summary: "Delete a campaign's text pipeline configuration",
    document: graphql(`
      mutation LegacyDeleteTextPipeline($input: TextPipelineDeleteInput!) {
        textPipelineDelete(input: $input) {
          deletedId
        }
      }
    `),
    response: deleted,
    variables: ({ query }) => ({ input: query }),
    argLocs: { 'input.campId': ['query', 'campId'] },
    respond: () => ({ detail: 'Text pipeline configuration deleted' }),
  }),
];
