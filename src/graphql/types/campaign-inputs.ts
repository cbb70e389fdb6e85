// Campaign input types. All three share the legacy interface's fields; zod schemas from the domain validate them.
import type { InputFieldBuilder } from '@pothos/core';
import {
  CAMPAIGN_DEFAULTS,
  campIdField,
  campaignDataSchema,
  campaignPatchSchema,
  createCampaignSchema,
} from '../../domain/campaigns.schema.js';
import { builder } from '../builder.js';

const REQUIRED_TEXT = [
  'title',
  'voice',
  'language',
  'script',
  'purpose',
  'knowledgeBase',
  'calendar',
  'firstLine',
  'tone',
] as const;
const DESCRIPTIONS: Record<string, string> = {
  voice: 'A voiceId of the catalogue (Query.voices).',
  language: 'BCP 47 tag, e.g. "en-US".',
  knowledgeBase: 'Link to information the AI can use.',
  calendar: 'Scheduling integration reference.',
  maxCallTimeout: 'Maximum call duration, minutes (1–120).',
  inactiveCallTimeout: 'Hang up after this many silent seconds (1–600).',
  timeZone: 'IANA time zone, e.g. "Europe/Paris".',
  isFreeflow: 'Whether the AI may deviate from the script.',
  postCallAnalysisSchema: 'JSON Schema of the post-call analysis.',
};

/** `full`: required fields non-null, optional ones defaulted. `patch`: every field optional, nothing defaulted. */
export function campaignFields(
  t: InputFieldBuilder<typeof builder.$inferSchemaTypes, 'InputObject'>,
  mode: 'full' | 'patch',
) {
  const full = mode === 'full';
  const text = (name: string) => t.string({ required: full, description: DESCRIPTIONS[name] });
  const d = CAMPAIGN_DEFAULTS;
  const opt = <T>(value: T) => (full ? { required: true as const, defaultValue: value } : { required: false as const });
  return {
    ...(Object.fromEntries(REQUIRED_TEXT.map((name) => [name, text(name)])) as Record<
      (typeof REQUIRED_TEXT)[number],
      ReturnType<typeof text>
    >),
    postCallAnalysisSchema: t.field({
      type: 'JSONObject',
      required: full,
      description: DESCRIPTIONS.postCallAnalysisSchema,
    }),
    flowName: t.string({ ...opt(d.flowName) }),
    systemPrompt: t.string({ ...opt(d.systemPrompt), description: 'Extra instructions for the AI.' }),
    maxCallTimeout: t.int({ ...opt<number>(d.maxCallTimeout), description: DESCRIPTIONS.maxCallTimeout }),
    inactiveCallTimeout: t.int({
      ...opt<number>(d.inactiveCallTimeout),
      description: DESCRIPTIONS.inactiveCallTimeout,
    }),
    postCallAnalysis: t.boolean({ ...opt<boolean>(d.postCallAnalysis) }),
    timeZone: t.string({ ...opt<string>(d.timeZone), description: DESCRIPTIONS.timeZone }),
    isFreeflow: t.boolean({ ...opt<boolean>(d.isFreeflow), description: DESCRIPTIONS.isFreeflow }),
    public: t.boolean({ ...opt<boolean>(d.public) }),
    sampleSid: t.string({ ...opt(d.sampleSid) }),
    description: t.string({ ...opt(d.description) }),
  };
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

// The inputs of the campaign mutations that follow the convention (docs/graphql.md#mutations). The voice is
// `voiceId`, as on Campaign (where `voice` is the Voice object).

/** The legacy fields with `voiceId` for `voice`. */
function withVoiceId(t: InputFieldBuilder<typeof builder.$inferSchemaTypes, 'InputObject'>, mode: 'full' | 'patch') {
  const { voice: _voice, ...fields } = campaignFields(t, mode);
  return { ...fields, voiceId: t.string({ required: mode === 'full', description: DESCRIPTIONS.voice }) };
}

/** The domain's campaign schema with `voice` spelled `voiceId`: validated under that name, handed on as `voice`. */
const withVoiceIdSchema = campaignDataSchema.omit({ voice: true }).extend({ voiceId: campaignDataSchema.shape.voice });
const voiceAsDomain = <T extends { voiceId: string }>({ voiceId, ...rest }: T) => ({ ...rest, voice: voiceId });
const patchVoiceAsDomain = <T extends { voiceId?: string | undefined }>({ voiceId, ...rest }: T) => ({
  ...rest,
  ...(voiceId === undefined ? {} : { voice: voiceId }),
});

const campIdRequired = (t: InputFieldBuilder<typeof builder.$inferSchemaTypes, 'InputObject'>) =>
  t.string({ required: true, description: 'The campaign: its campId.' });

export const CampaignCreateInput = builder
  .inputType('CampaignCreateInput', {
    description:
      'A new campaign: every field of a campaign, optional ones with their defaults, and an optional campId.',
    fields: (t) => ({
      campId: t.string({ description: '1–64 of [A-Za-z0-9_-]; generated (camp_…) when omitted.' }),
      ...withVoiceId(t, 'full'),
    }),
  })
  .validate(withVoiceIdSchema.extend({ campId: campIdField.optional() }).transform(voiceAsDomain));

export const CampaignUpdateInput = builder
  .inputType('CampaignUpdateInput', {
    description: 'Which campaign, and the fields to change: only the fields given change.',
    fields: (t) => ({ campId: campIdRequired(t), ...withVoiceId(t, 'patch') }),
  })
  .validate(withVoiceIdSchema.partial().extend({ campId: campIdField }).transform(patchVoiceAsDomain));

export const CampaignUpsertInput = builder
  .inputType('CampaignUpsertInput', {
    description: 'A whole campaign under a campId: created, or every field replaced (omitted ones take the defaults).',
    fields: (t) => ({ campId: campIdRequired(t), ...withVoiceId(t, 'full') }),
  })
  .validate(withVoiceIdSchema.extend({ campId: campIdField }).transform(voiceAsDomain));
