// Legacy campaign paths: update_campaign (upsert, full replacement), get_campaigns, get_campaign (docs/decisions.md §5).
// The two that answer a whole campaign select its model fields from their declarations (LEGACY_CAMPAIGN), so their
// results are typed from the declarations (defineDeclaredRoute); get_campaigns' document is typed by gql.tada.
import { z } from 'zod';
import {
  CAMPAIGN_DEFAULTS,
  CAMPAIGN_FIELD_NAMES,
  CAMPAIGN_FIELDS,
  type CampaignGraphqlData,
  campIdField,
  fromGraphqlNames,
  graphqlNameOf,
  legacyUpdateCampaignSchema,
  toGraphqlNames,
} from '../../domain/campaigns.schema.js';
import { intField } from '../../validation/fields.js';
import { documentInput, type JsonSchema, note } from '../../validation/input-json-schema.js';
import { lowerCase } from '../responses/common.js';
import { campaignListEntryResponse, legacyCampaignResponse } from '../responses/campaigns.js';
import { defineDeclaredRoute, defineRoute } from '../route.js';
import { graphql } from '../typed-documents.js';

/** The campaign as the legacy door shows it: every declared model field (src/domain/campaigns.schema.ts). */
const LEGACY_CAMPAIGN = /* GraphQL */ `
  fragment LegacyCampaign on Campaign {
    campId
    status
    creationDate: createdAt
    updatedAt
    ${CAMPAIGN_FIELD_NAMES.map(graphqlNameOf).join('\n    ')}
    metrics {
      totalCallTime
      totalNumCall
      totalSpent
      averageCallCost
    }
  }
`;

type LegacyCampaign = z.output<typeof legacyCampaignResponse>;
type Metric = 'totalCallTime' | 'totalNumCall' | 'totalSpent' | 'averageCallCost';
/** What LEGACY_CAMPAIGN selects: the model fields under their GraphQL names, GraphQL's enum values. */
type CampaignData = CampaignGraphqlData & {
  campId: string;
  status: Uppercase<LegacyCampaign['status']>;
  creationDate: string;
  updatedAt: string;
  metrics: Pick<LegacyCampaign, Metric>;
};

/** The fields whose GraphQL name is not the legacy one (voiceId → voice): where their input issues came from. */
const RENAMED = CAMPAIGN_FIELD_NAMES.filter((name) => graphqlNameOf(name) !== name);

/**
 * The stored campaign as the legacy service returned it: model fields, status, dates, derived metrics. The renamed
 * fields and the status come after the others, as they always have (the body is byte for byte what it was).
 */
function legacyCampaign({ status, metrics, ...fields }: CampaignData): LegacyCampaign {
  return { ...fromGraphqlNames(fields), status: lowerCase(status), ...metrics } as LegacyCampaign;
}

const listQuery = z.object({
  limit: intField(1, 1000).default(1000).describe('At most this many, newest first (1000 when omitted)'),
  offset: intField(0, 1_000_000).default(0).describe('Skip this many first (0 when omitted)'),
});

/**
 * update_campaign's body: the legacy one, and an optional `status` a new campaign is created in (issue 42: a campaign
 * can be set up before it calls). An existing campaign keeps its status; without it, a new one is active, as before.
 */
const updateCampaignBody = legacyUpdateCampaignSchema.extend({
  status: z
    .enum(['active', 'paused'])
    .optional()
    .describe(
      'Optional: the status the campaign is created in (active when omitted; paused places no call). An existing ' +
        'campaign keeps its status.',
    ),
});

export const campaignRoutes = [
  defineDeclaredRoute<
    z.infer<typeof updateCampaignBody>,
    undefined,
    { campaignUpsert: { campaign: CampaignData } },
    typeof legacyCampaignResponse
  >({
    method: 'POST',
    path: '/update_campaign',
    summary: 'Create the campaign, or replace all of its fields (omitted optional fields reset to their defaults)',
    tag: 'campaigns',
    auth: true,
    errors: {
      409: 'The campaign is completed: it can no longer change (or another request created it at the same moment)',
    },
    document: /* GraphQL */ `
      mutation LegacyUpdateCampaign($input: CampaignUpsertInput!) {
        campaignUpsert(input: $input) {
          campaign {
            ...LegacyCampaign
          }
        }
      }
      ${LEGACY_CAMPAIGN}
    `,
    // The values omitted optional fields take (the domain applies them) are shown as the fields' defaults; a field
    // whose description replaces its rule's (language, timeZone) keeps what the rule says it checks beyond its pattern.
    body: documentInput(updateCampaignBody, (json) => {
      const data = (json.properties as Record<string, JsonSchema>).campaignModelData;
      const fields = data?.properties as Record<string, JsonSchema>;
      for (const name of CAMPAIGN_FIELD_NAMES) {
        const field = fields[name];
        if (!field) continue;
        const rule = z.globalRegistry.get(CAMPAIGN_FIELDS[name].schema)?.description;
        if (rule) note(field, rule);
        if (name in CAMPAIGN_DEFAULTS) field.default = CAMPAIGN_DEFAULTS[name as keyof typeof CAMPAIGN_DEFAULTS];
      }
    }),
    response: legacyCampaignResponse,
    variables: ({ body }) => {
      // The metrics are derived from call logs: accepted for compatibility, never stored.
      const { totalCallTime, totalNumCall, totalSpent, averageCallCost, ...data } = body.campaignModelData;
      const status = body.status ? { status: body.status === 'paused' ? 'PAUSED' : 'ACTIVE' } : {};
      return { input: { campId: body.campId, ...status, ...toGraphqlNames(data) } };
    },
    argLocs: {
      'input.campId': ['body', 'campId'],
      'input.status': ['body', 'status'],
      input: ['body', 'campaignModelData'],
      ...Object.fromEntries(
        RENAMED.map((name) => [`input.${graphqlNameOf(name)}`, ['body', 'campaignModelData', name]]),
      ),
    },
    respond: ({ campaignUpsert }) => legacyCampaign(campaignUpsert.campaign),
  }),
  defineRoute({
    method: 'GET',
    path: '/get_campaigns',
    summary: 'Your campaigns, newest first, as list entries',
    tag: 'campaigns',
    auth: true,
    document: graphql(`
      query LegacyCampaigns($limit: Int!, $offset: Int!) {
        campaignList(limit: $limit, offset: $offset) {
          campId
          title
          status
          creationDate: createdAt
          description
        }
      }
    `),
    query: listQuery,
    response: z.array(campaignListEntryResponse),
    variables: ({ query }) => query,
    argLocs: { limit: ['query', 'limit'], offset: ['query', 'offset'] },
    respond: ({ campaignList }) =>
      campaignList.map((c) => ({
        campaignId: c.campId,
        name: c.title,
        status: lowerCase(c.status),
        creationDate: c.creationDate,
        details: c.description === '' ? null : c.description,
      })),
  }),
  defineDeclaredRoute<undefined, { campId: string }, { campaign: CampaignData | null }, typeof legacyCampaignResponse>({
    method: 'GET',
    path: '/get_campaign',
    summary: 'One campaign with all its fields',
    tag: 'campaigns',
    auth: true,
    document: /* GraphQL */ `
      query LegacyCampaign($campId: String!) {
        campaign(campId: $campId) {
          ...LegacyCampaign
        }
      }
      ${LEGACY_CAMPAIGN}
    `,
    query: z.object({ campId: campIdField }),
    response: legacyCampaignResponse,
    variables: ({ query }) => query,
    argLocs: { campId: ['query', 'campId'] },
    respond: ({ campaign }) => (campaign ? legacyCampaign(campaign) : null),
    missing: 'Campaign not found',
  }),
];
