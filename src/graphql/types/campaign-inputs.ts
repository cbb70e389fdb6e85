// Campaign input types. All three share the legacy interface's fields; zod schemas from the domain validate them.
import type { InputFieldBuilder } from '@pothos/core';
import {
  CAMPAIGN_DEFAULTS,
  type CampaignData,
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
/** What each campaign field means, its unit and range: the same on Campaign and on every campaign input. */
export const CAMPAIGN_FIELD_DESCRIPTIONS = {
  title: 'The campaign’s name, 1–200 characters.',
  voice: 'The voice of the calls: a voiceId of the catalogue (Query.voices).',
  language: 'The language of the calls: a BCP 47 tag such as "en-US".',
  script: 'The dialogue the AI follows, at most 50 000 characters.',
  purpose: 'The goal of the campaign, at most 5 000 characters.',
  knowledgeBase: 'A link to information the AI can use, at most 2 000 characters.',
  calendar: 'The scheduling integration reference (free text), at most 2 000 characters.',
  firstLine: 'The opening greeting of every call, at most 2 000 characters.',
  tone: 'The emotional tone of the voice ("friendly", "formal", ...), at most 200 characters.',
  postCallAnalysisSchema:
    'The JSON Schema (a JSON object) a call’s analysis must satisfy when postCallAnalysis is true.',
  flowName: 'The call flow’s name, at most 200 characters; empty when none.',
  systemPrompt: 'Extra instructions for the AI, at most 20 000 characters; empty when none.',
  maxCallTimeout: 'The longest a call may last, in minutes (1–120).',
  inactiveCallTimeout: 'Hang up after this many seconds of silence (1–600).',
  postCallAnalysis:
    'Whether calls get a post-call analysis: callLogRecordOutcome then checks `analysis` against postCallAnalysisSchema.',
  timeZone: 'An IANA time zone such as "Europe/Paris".',
  isFreeflow: 'Whether the AI may deviate from the script.',
  public: 'The visibility flag of the legacy interface, stored as given: only your account ever sees a campaign.',
  sampleSid: 'A sample reference, at most 200 characters; empty when none.',
  description: 'A free description, at most 5 000 characters; empty when none.',
} satisfies Record<keyof CampaignData, string>;
const DESCRIPTIONS: Record<string, string> = CAMPAIGN_FIELD_DESCRIPTIONS;

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
    flowName: t.string({ ...opt(d.flowName), description: DESCRIPTIONS.flowName }),
    systemPrompt: t.string({ ...opt(d.systemPrompt), description: DESCRIPTIONS.systemPrompt }),
    maxCallTimeout: t.int({ ...opt<number>(d.maxCallTimeout), description: DESCRIPTIONS.maxCallTimeout }),
    inactiveCallTimeout: t.int({
      ...opt<number>(d.inactiveCallTimeout),
      description: DESCRIPTIONS.inactiveCallTimeout,
    }),
    postCallAnalysis: t.boolean({ ...opt<boolean>(d.postCallAnalysis), description: DESCRIPTIONS.postCallAnalysis }),
    timeZone: t.string({ ...opt<string>(d.timeZone), description: DESCRIPTIONS.timeZone }),
    isFreeflow: t.boolean({ ...opt<boolean>(d.isFreeflow), description: DESCRIPTIONS.isFreeflow }),
    public: t.boolean({ ...opt<boolean>(d.public), description: DESCRIPTIONS.public }),
    sampleSid: t.string({ ...opt(d.sampleSid), description: DESCRIPTIONS.sampleSid }),
    description: t.string({ ...opt(d.description), description: DESCRIPTIONS.description }),
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
