// Campaign fields and input rules (docs/decisions.md §5, "One declaration per field"). Each field of the legacy
// campaignModel is declared once, in CAMPAIGN_FIELDS: its legacy name (the key), column, kind, validation, default,
// description and GraphQL name. Everything else derives from it: the zod schemas of both doors, the row and column
// mappings (campaigns.ts), the campaigns table's column types (db/types.ts), the GraphQL Campaign type and inputs, the
// REST door's campaign fragment and response schema, and so the OpenAPI description. Adding a field is one entry here
// plus a migration that adds its column (docs/architecture.md "Adding a campaign field").
import { z } from 'zod';
import {
  anyNumberField,
  boolField,
  intField,
  boundedJsonObjectField,
  languageTagField,
  textField,
  timeZoneField,
} from '../validation/fields.js';
import { analysisSchemaProblem } from './analysis-schema.js';
import { isCatalogueVoice } from './voices.js';
import type { CampaignModelColumns } from '../db/types.js';
import type { ColumnsAgreement } from './columns-agree.js';

export const CAMP_ID_PATTERN = /^[A-Za-z0-9_-]{1,64}$/;
export const campIdField = z.string().regex(CAMP_ID_PATTERN);

/** How a kind of value is stored (both databases store booleans as 0/1 and JSON as text) and shown in GraphQL. */
export const FIELD_KINDS = {
  text: {
    graphql: 'String',
    output: z.string(),
    fromColumn: (value: unknown): string => String(value),
    toColumn: (value: string): string => value,
  },
  int: {
    graphql: 'Int',
    output: z.int(),
    fromColumn: (value: unknown): number => Number(value),
    toColumn: (value: number): number => value,
  },
  bool: {
    graphql: 'Boolean',
    output: z.boolean(),
    fromColumn: (value: unknown): boolean => Boolean(value),
    toColumn: (value: boolean): number => Number(value),
  },
  json: {
    graphql: 'JSONObject',
    output: z.record(z.string(), z.unknown()),
    fromColumn: (value: unknown): Record<string, unknown> => JSON.parse(String(value)) as Record<string, unknown>,
    toColumn: (value: Record<string, unknown>): string => JSON.stringify(value),
  },
} as const;

export type FieldKind = keyof typeof FIELD_KINDS;
/** The value of a kind, in the domain. */
export type ValueOf<K extends FieldKind> = ReturnType<(typeof FIELD_KINDS)[K]['fromColumn']>;
/** The value of a kind, as stored. */
export type ColumnOf<K extends FieldKind> = ReturnType<(typeof FIELD_KINDS)[K]['toColumn']>;

export interface CampaignField<K extends FieldKind = FieldKind, C extends string = string> {
  kind: K;
  column: C;
  schema: z.ZodType<ValueOf<K>>;
  /** For an optional field, the value it takes when omitted; a field without one is required. */
  default?: ValueOf<K>;
  /** What the value means, its unit and its range: shown in GraphQL and OpenAPI. */
  description: string;
  /** Its GraphQL name when that differs from the legacy one. */
  graphqlName?: string;
}

/** A declaration; its type keeps which options were given (a `default` makes the field optional). */
const field = <
  K extends FieldKind,
  const C extends string,
  const O extends { default?: ValueOf<K>; graphqlName?: string } = Record<never, never>,
>(
  kind: K,
  column: C,
  schema: z.ZodType<ValueOf<K>>,
  description: string,
  options?: O,
): CampaignField<K, C> & O => ({ kind, column, schema, description, ...(options ?? ({} as O)) });

const voiceField = z
  .string()
  .refine(
    isCatalogueVoice,
    'unknown voice; the voice catalogue lists the valid voiceIds (MCP voice_list, GraphQL voices, REST get_supported_voices)',
  )
  .describe('A voiceId of the voice catalogue: GET /get_supported_voices lists them');

/**
 * In the legacy model's order: the order of the REST door's campaign body (where a field with a GraphQL name of its
 * own, `voice`, comes after the others, as it always has) and of the GraphQL inputs.
 */
export const CAMPAIGN_FIELDS = {
  title: field('text', 'title', textField(1, 200), 'The campaign’s name, 1–200 characters.'),
  voice: field(
    'text',
    'voice',
    voiceField,
    'The voice of the calls: a voiceId of the catalogue (GraphQL `voices`, REST `get_supported_voices`).',
    {
      graphqlName: 'voiceId',
    },
  ),
  language: field(
    'text',
    'language',
    languageTagField,
    'The language of the calls: a BCP 47 tag such as "en-US", one Intl.getCanonicalLocales accepts.',
  ),
  script: field('text', 'script', textField(0, 50_000), 'The dialogue the AI follows, at most 50 000 characters.'),
  purpose: field('text', 'purpose', textField(0, 5_000), 'The goal of the campaign, at most 5 000 characters.'),
  knowledgeBase: field(
    'text',
    'knowledge_base',
    textField(0, 2_000),
    'A link to information the AI can use, at most 2 000 characters.',
  ),
  calendar: field(
    'text',
    'calendar',
    textField(0, 2_000),
    'The scheduling integration reference (free text), at most 2 000 characters.',
  ),
  firstLine: field(
    'text',
    'first_line',
    textField(0, 2_000),
    'The opening greeting of every call, at most 2 000 characters.',
  ),
  flowName: field(
    'text',
    'flow_name',
    textField(0, 200),
    'The call flow’s name, at most 200 characters; empty when none.',
    { default: '' },
  ),
  systemPrompt: field(
    'text',
    'system_prompt',
    textField(0, 20_000),
    'Extra instructions for the AI, at most 20 000 characters; empty when none.',
    {
      default: '',
    },
  ),
  tone: field(
    'text',
    'tone',
    textField(0, 200),
    'The emotional tone of the voice ("friendly", "formal", ...), at most 200 characters.',
  ),
  maxCallTimeout: field(
    'int',
    'max_call_timeout',
    intField(1, 120),
    'The longest a call may last, in minutes (1–120).',
    {
      default: 1,
    },
  ),
  inactiveCallTimeout: field(
    'int',
    'inactive_call_timeout',
    intField(1, 600),
    'Hang up after this many seconds of silence (1–600).',
    { default: 15 },
  ),
  postCallAnalysis: field(
    'bool',
    'post_call_analysis',
    boolField,
    'Whether calls get a post-call analysis: a call outcome’s `analysis` is then checked against postCallAnalysisSchema.',
    { default: false },
  ),
  postCallAnalysisSchema: field(
    'json',
    'post_call_analysis_schema',
    boundedJsonObjectField(50_000).superRefine((schema, context) => {
      const problem = analysisSchemaProblem(schema);
      if (problem) context.addIssue({ code: 'custom', message: problem.message, path: problem.path });
    }),
    'The JSON Schema (a JSON object, at most 50 000 characters as JSON) a call’s analysis must satisfy when ' +
      'postCallAnalysis is true.',
  ),
  timeZone: field(
    'text',
    'time_zone',
    timeZoneField,
    'An IANA time zone such as "Europe/Paris", known to the server’s time-zone database.',
    {
      default: 'UTC',
    },
  ),
  isFreeflow: field('bool', 'is_freeflow', boolField, 'Whether the AI may deviate from the script.', {
    default: true,
  }),
  public: field(
    'bool',
    'public',
    boolField,
    'The legacy visibility flag, stored as given (only your account sees a campaign).',
    { default: false },
  ),
  sampleSid: field(
    'text',
    'sample_sid',
    textField(0, 200),
    'A sample reference, at most 200 characters; empty when none.',
    { default: '' },
  ),
  description: field(
    'text',
    'description',
    textField(0, 5_000),
    'A free description, at most 5 000 characters; empty when none.',
    {
      default: '',
    },
  ),
};

type Fields = typeof CAMPAIGN_FIELDS;
export type CampaignFieldName = keyof Fields;
type RequiredName = { [K in CampaignFieldName]: Fields[K] extends { default: unknown } ? never : K }[CampaignFieldName];
type OptionalName = Exclude<CampaignFieldName, RequiredName>;

export const CAMPAIGN_FIELD_NAMES = Object.keys(CAMPAIGN_FIELDS) as CampaignFieldName[];

/** Every field of a stored campaign, with its domain value. */
export type CampaignData = { -readonly [K in CampaignFieldName]: ValueOf<Fields[K]['kind']> };

/** The campaigns table's model columns, with their stored types. */
export type CampaignColumns = { [K in CampaignFieldName as Fields[K]['column']]: ColumnOf<Fields[K]['kind']> };

/**
 * The declarations and the database's column list (src/db/types.ts) agree, column for column and type for type: a field
 * declared here without its column there (or the reverse, or with another kind) does not compile, and the error names
 * the column.
 */
const columnsAgree: ColumnsAgreement<CampaignColumns, CampaignModelColumns> = 'the columns agree';
void columnsAgree;

/** A whole campaign as a client sends it: the required fields, and the optional ones that may be omitted. */
type DataShape = { [K in RequiredName]: Fields[K]['schema'] } & {
  [K in OptionalName]: z.ZodOptional<Fields[K]['schema']>;
};

/**
 * Required fields first, then the optional ones, each in declaration order: the order a 422 lists the problems of a
 * body in, kept as the REST door has always answered.
 */
const VALIDATION_ORDER = [
  ...CAMPAIGN_FIELD_NAMES.filter((name) => (CAMPAIGN_FIELDS[name] as CampaignField).default === undefined),
  ...CAMPAIGN_FIELD_NAMES.filter((name) => (CAMPAIGN_FIELDS[name] as CampaignField).default !== undefined),
];

function dataShape(): DataShape {
  return Object.fromEntries(
    VALIDATION_ORDER.map((name) => {
      const declared: CampaignField = CAMPAIGN_FIELDS[name];
      const schema = declared.schema.describe(declared.description);
      return [name, declared.default === undefined ? schema : schema.optional()];
    }),
  ) as DataShape;
}

export const campaignDataSchema = z.object(dataShape());

/** The values omitted optional fields take. */
export const CAMPAIGN_DEFAULTS = Object.fromEntries(
  CAMPAIGN_FIELD_NAMES.flatMap((name) => {
    const declared: CampaignField = CAMPAIGN_FIELDS[name];
    return declared.default === undefined ? [] : [[name, declared.default]];
  }),
) as { [K in OptionalName]: ValueOf<Fields[K]['kind']> };

type GraphqlName<K extends CampaignFieldName> = Fields[K] extends { graphqlName: infer G extends string } ? G : K;

/** The GraphQL name of a field. */
export const graphqlNameOf = <K extends CampaignFieldName>(name: K): GraphqlName<K> => {
  const declared: CampaignField = CAMPAIGN_FIELDS[name];
  return (declared.graphqlName ?? name) as GraphqlName<K>;
};

/** A campaign's model fields under their GraphQL names. */
export type CampaignGraphqlData = { [K in CampaignFieldName as GraphqlName<K>]: CampaignData[K] };

/** Each field as an answer shows it (a schema of its kind, with its description): for response schemas. */
export const campaignOutputFields = Object.fromEntries(
  CAMPAIGN_FIELD_NAMES.map((name): [string, z.ZodType] => {
    const { kind, description } = CAMPAIGN_FIELDS[name];
    return [name, FIELD_KINDS[kind].output.describe(description)];
  }),
) as { [K in CampaignFieldName]: z.ZodType<CampaignData[K]> };

/** The same shape under the GraphQL names (`voiceId`), in the same order: the newer GraphQL inputs validate with it. */
type GraphqlDataShape = { [K in RequiredName as GraphqlName<K>]: Fields[K]['schema'] } & {
  [K in OptionalName as GraphqlName<K>]: z.ZodOptional<Fields[K]['schema']>;
};

export const campaignGraphqlDataSchema = z.object(
  Object.fromEntries(
    VALIDATION_ORDER.map((name) => {
      const declared: CampaignField = CAMPAIGN_FIELDS[name];
      const schema = declared.schema.describe(declared.description);
      return [graphqlNameOf(name), declared.default === undefined ? schema : schema.optional()];
    }),
  ) as GraphqlDataShape,
);

/** The fields whose GraphQL name is not the legacy one (voice ↔ voiceId), as [legacy, GraphQL] pairs. */
const RENAMED_FIELDS = CAMPAIGN_FIELD_NAMES.map((name) => [name, graphqlNameOf(name)] as const).filter(
  ([name, graphqlName]) => name !== graphqlName,
);

/** `input` with each key `from` names moved to the name `to` gives it (other keys, like campId, stay). */
function renamed(input: Record<string, unknown>, pairs: ReadonlyArray<readonly [string, string]>) {
  const output: Record<string, unknown> = { ...input };
  for (const [from, to] of pairs) {
    if (!(from in output)) continue;
    output[to] = output[from];
    delete output[from];
  }
  return output;
}

/** Fields under their GraphQL names → under their legacy names, for the domain (other keys, like campId, stay). */
export const fromGraphqlNames = (input: Record<string, unknown>): Record<string, unknown> =>
  renamed(
    input,
    RENAMED_FIELDS.map(([name, graphqlName]) => [graphqlName, name] as const),
  );

/** Fields under their legacy names → under their GraphQL names (the REST door's body, for the current inputs). */
export const toGraphqlNames = (input: Record<string, unknown>): Record<string, unknown> =>
  renamed(input, RENAMED_FIELDS);

/** A whole campaign as a client sends it, before defaults. */
export type CampaignDataInput = z.infer<typeof campaignDataSchema>;
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
