// Campaign input rules (docs/decisions.md §5): the legacy interface's campaignModel fields, their defaults and the decided ranges.
// GraphQL input types validate with these schemas; the REST door validates legacy bodies with them too.
import { z } from 'zod';
import {
  anyNumberField,
  boolField,
  intField,
  jsonObjectField,
  languageTagField,
  textField,
  timeZoneField,
} from '../validation/fields.js';
import { isCatalogueVoice } from './voices.js';

export const CAMP_ID_PATTERN = /^[A-Za-z0-9_-]{1,64}$/;
export const campIdField = z.string().regex(CAMP_ID_PATTERN);

const voiceField = z
  .string()
  .refine(isCatalogueVoice, 'unknown voice; get_supported_voices (GraphQL: voices) lists the valid voiceIds')
  .describe('A voiceId of the voice catalogue: GET /get_supported_voices lists them');

/** Every model field; required ones first. Optional fields get their defaults in CAMPAIGN_DEFAULTS. */
export const campaignFieldSchemas = {
  title: textField(1, 200),
  voice: voiceField,
  language: languageTagField,
  script: textField(0, 50_000),
  purpose: textField(0, 5_000),
  knowledgeBase: textField(0, 2_000),
  calendar: textField(0, 2_000),
  firstLine: textField(0, 2_000),
  tone: textField(0, 200),
  postCallAnalysisSchema: jsonObjectField,
  flowName: textField(0, 200),
  systemPrompt: textField(0, 20_000),
  maxCallTimeout: intField(1, 120),
  inactiveCallTimeout: intField(1, 600),
  postCallAnalysis: boolField,
  timeZone: timeZoneField,
  isFreeflow: boolField,
  public: boolField,
  sampleSid: textField(0, 200),
  description: textField(0, 5_000),
};

export const CAMPAIGN_DEFAULTS = {
  flowName: '',
  systemPrompt: '',
  maxCallTimeout: 1,
  inactiveCallTimeout: 15,
  postCallAnalysis: false,
  timeZone: 'UTC',
  isFreeflow: true,
  public: false,
  sampleSid: '',
  description: '',
} as const;

const s = campaignFieldSchemas;

/** A whole campaign as a client sends it; omitted optional fields take their defaults. */
export const campaignDataSchema = z.object({
  title: s.title,
  voice: s.voice,
  language: s.language,
  script: s.script,
  purpose: s.purpose,
  knowledgeBase: s.knowledgeBase,
  calendar: s.calendar,
  firstLine: s.firstLine,
  tone: s.tone,
  postCallAnalysisSchema: s.postCallAnalysisSchema,
  flowName: s.flowName.optional(),
  systemPrompt: s.systemPrompt.optional(),
  maxCallTimeout: s.maxCallTimeout.optional(),
  inactiveCallTimeout: s.inactiveCallTimeout.optional(),
  postCallAnalysis: s.postCallAnalysis.optional(),
  timeZone: s.timeZone.optional(),
  isFreeflow: s.isFreeflow.optional(),
  public: s.public.optional(),
  sampleSid: s.sampleSid.optional(),
  description: s.description.optional(),
});

export type CampaignDataInput = z.infer<typeof campaignDataSchema>;
export type CampaignData = Required<CampaignDataInput>;
export type CampaignPatch = Partial<CampaignData>;

/** A partial change: only the fields given change. */
export const campaignPatchSchema = campaignDataSchema.partial();

export const createCampaignSchema = campaignDataSchema.extend({ campId: campIdField.optional() });

/** The legacy body of POST /update_campaign: the metrics are required there, and ignored (they are derived). */
export const legacyUpdateCampaignSchema = z.object({
  campId: campIdField,
  campaignModelData: campaignDataSchema.extend({
    totalCallTime: anyNumberField,
    totalNumCall: anyNumberField,
    totalSpent: anyNumberField,
    averageCallCost: anyNumberField,
  }),
});

export function withDefaults(input: CampaignDataInput): CampaignData {
  const given = Object.fromEntries(Object.entries(input).filter(([, value]) => value !== undefined));
  return { ...CAMPAIGN_DEFAULTS, ...given } as CampaignData;
}
