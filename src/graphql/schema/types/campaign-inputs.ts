// Campaign input types. All three share the legacy interface's fields; zod schemas from the domain validate them.
import type { InputFieldBuilder } from '@pothos/core';
import {
  CAMPAIGN_FIELD_NAMES,
  CAMPAIGN_FIELDS,
  type CampaignDataInput as DomainCampaignData,
  type CampaignField,
  campaignDataSchema,
  campaignGraphqlDataSchema,
  type CampaignPatch,
  campaignPatchSchema,
  campIdField,
  createCampaignSchema,
  fromGraphqlNames,
  graphqlNameOf,
} from '../../../domain/campaigns.schema.js';
import { z } from 'zod';
import { builder } from '../builder.js';
import { CampaignStartStatusEnum } from './campaign.js';

type InputFields = InputFieldBuilder<typeof builder.$inferSchemaTypes, 'InputObject'>;

/**
 * A campaign's fields as input fields, from their declarations (src/domain/campaigns.schema.ts): `full` gives the
 * required fields non-null and the optional ones their defaults; `patch` makes every field optional with no default.
 * `names` picks the legacy names (`voice`) of the older inputs or the GraphQL names (`voiceId`).
 */
export function campaignFields(t: InputFields, mode: 'full' | 'patch', names: 'legacy' | 'graphql' = 'legacy') {
  const full = mode === 'full';
  return Object.fromEntries(
    CAMPAIGN_FIELD_NAMES.map((name) => {
      const declared: CampaignField = CAMPAIGN_FIELDS[name];
      const options = { required: full, description: declared.description };
      // A default makes the field optional to send while it stays non-null: `flowName: String! = ""`.
      const withDefault = <T>(value: T | undefined) => (full && value !== undefined ? { defaultValue: value } : {});
      const key = names === 'graphql' ? graphqlNameOf(name) : name;
      switch (declared.kind) {
        case 'text':
          return [key, t.string({ ...options, ...withDefault(declared.default as string | undefined) })];
        case 'int':
          return [key, t.int({ ...options, ...withDefault(declared.default as number | undefined) })];
        case 'bool':
          return [key, t.boolean({ ...options, ...withDefault(declared.default as boolean | undefined) })];
        case 'json':
          return [key, t.field({ type: 'JSONObject', ...options })];
      }
    }),
  );
}

export const CampaignDataInput = builder
  .inputType('CampaignDataInput', {
    description: "A whole campaign: omitted optional fields take the legacy interface's defaults.",
    fields: (t) => campaignFields(t, 'full'),
  })
  .validate(campaignDataSchema);

export const CreateCampaignInput = builder
  .inputType('CreateCampaignInput', {
    description: 'A new campaign: the legacy campaign fields with their defaults, and an optional campId.',
    fields: (t) => ({
      campId: t.string({ description: '1–64 of [A-Za-z0-9_-]; generated (camp_…) when omitted.' }),
      ...campaignFields(t, 'full'),
    }),
  })
  .validate(createCampaignSchema);

export const UpdateCampaignInput = builder
  .inputType('UpdateCampaignInput', {
    description: 'A partial change: only the fields given change.',
    fields: (t) => campaignFields(t, 'patch'),
  })
  .validate(campaignPatchSchema);

// The inputs of the campaign mutations that follow the convention (docs/graphql.md#mutations): the fields under
// their GraphQL names (`voiceId`, as on Campaign, where `voice` is the Voice object), validated under those names and
// handed to the domain under the legacy ones.
const campIdRequired = (t: InputFieldBuilder<typeof builder.$inferSchemaTypes, 'InputObject'>) =>
  t.string({ required: true, description: 'The campaign: its campId.' });

export const CampaignCreateInput = builder
  .inputType('CampaignCreateInput', {
    description:
      'A new campaign: every field of a campaign, optional ones with their defaults, and an optional campId.',
    fields: (t) => ({
      campId: t.string({ description: '1–64 of [A-Za-z0-9_-]; generated (camp_…) when omitted.' }),
      status: t.field({
        type: CampaignStartStatusEnum,
        description:
          'ACTIVE (when omitted) calls from the start; PAUSED waits for `campaignResume`, so that the campaign can ' +
          'be set up first.',
      }),
      ...campaignFields(t, 'full', 'graphql'),
    }),
  })
  .validate(
    campaignGraphqlDataSchema
      .extend({ campId: campIdField.optional(), status: z.enum(['active', 'paused']).nullish() })
      .transform(
        ({ status, ...input }) =>
          ({ ...fromGraphqlNames(input), status }) as DomainCampaignData & {
            campId?: string | undefined;
            status?: 'active' | 'paused' | null | undefined;
          },
      ),
  );

export const CampaignUpdateInput = builder
  .inputType('CampaignUpdateInput', {
    description: 'Which campaign, and the fields to change: only the fields given change.',
    fields: (t) => ({ campId: campIdRequired(t), ...campaignFields(t, 'patch', 'graphql') }),
  })
  .validate(
    campaignGraphqlDataSchema
      .partial()
      .extend({ campId: campIdField })
      .transform((input) => fromGraphqlNames(input) as CampaignPatch & { campId: string }),
  );

export const CampaignUpsertInput = builder
  .inputType('CampaignUpsertInput', {
    description: 'A whole campaign under a campId: created, or every field replaced (omitted ones take the defaults).',
    fields: (t) => ({
      campId: campIdRequired(t),
      status: t.field({
        type: CampaignStartStatusEnum,
        description:
          'When it creates the campaign: ACTIVE (when omitted) calls from the start, PAUSED waits for ' +
          '`campaignResume`. An existing campaign keeps its status (campaignPause and campaignResume change it).',
      }),
      ...campaignFields(t, 'full', 'graphql'),
    }),
  })
  .validate(
    campaignGraphqlDataSchema.extend({ campId: campIdField, status: z.enum(['active', 'paused']).nullish() }).transform(
      ({ status, ...input }) =>
        ({ ...fromGraphqlNames(input), status }) as DomainCampaignData & {
          campId: string;
          status?: 'active' | 'paused' | null | undefined;
        },
    ),
  );
