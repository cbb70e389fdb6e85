// Every deprecated mutation of the public schema against the mutation that replaces it (docs/graphql.md#mutations).
//
// TABLE lists each deprecated Mutation field with its replacement and a scenario; the first test fails when the
// schema deprecates a mutation the table does not list (or the reason names another replacement). Each scenario runs
// on two fresh accounts of one app, through its public doors: the same starting state is made on both, then the
// deprecated mutation runs on one and its replacement on the other. Both must answer the same object (the deprecated
// one bare, the replacement inside its payload; a deprecated Boolean answers true) and leave the same state behind,
// read back by queries of everything an account holds. ERRORS does the same for one failure per family: the same
// error code and message through both.
//
// What differs between two accounts by nature is replaced by placeholders before comparing, numbered in order of
// appearance so that "the same id in two places" still shows: generated ids (acc_, wh_, mtg_, msg_, ck_, whsec_…),
// access tokens, e-mail addresses, global ids (decoded, then the same), and times within an hour of now. Enum values
// compare as the values they stand for (the replacement's tokenType BEARER is the deprecated one's "bearer").
// Selections are every field of a type that needs no argument, two levels deep, read from the schema: a field added
// later is compared too.
import { randomBytes } from 'node:crypto';
import {
  getNamedType,
  type GraphQLField,
  type GraphQLObjectType,
  type GraphQLOutputType,
  isEnumType,
  isLeafType,
  isListType,
  isNonNullType,
  isObjectType,
} from 'graphql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { schema } from '../../src/graphql/schema/schema.js';
import { startApp, type TestApp } from '../helpers/app.js';
import { eventually } from '../helpers/eventually.js';
import { type Receiver, startReceiver } from '../helpers/receiver.js';
import { AUTH_TOKEN, sendCallback } from '../helpers/telephony.js';

// ---- The starting states and the arguments ---------------------------------------------------------------------

/** One account, signed up and logged in; `names` holds its placeholders. */
interface Side {
  token: string;
  apiKey: string;
  email: string;
  names: Map<string, string>;
}
type Given = Record<string, any>;
/** Makes (part of) a starting state for one side, after `given`; answers what the arguments need (ids it made). */
type Setup = (side: Side, given: Given) => Promise<Given>;
type Args = Record<string, unknown>;
type ArgsOf = Args | ((given: Given) => Args);
/** After the mutation: more tokens to read the state with (a mutation that signs someone in, or out). */
type After = (side: Side, answer: any, given: Given) => Promise<string[]>;

/** The password test/helpers/app.ts signs its accounts up with. */
const PASSWORD = 'correct horse battery';
const NEW_PASSWORD = 'a new long password';

/** A campaign with its required fields, in the vocabulary of the new inputs. */
const CAMPAIGN = {
  campId: 'spring',
  title: 'Spring outreach',
  voiceId: 'en-US-aria',
  language: 'en-US',
  script: 'Hello, this is Aria calling about your appointment.',
  purpose: 'Confirm appointments',
  knowledgeBase: 'https://example.com/kb',
  calendar: 'cal-1',
  firstLine: 'Hi, do you have a minute?',
  tone: 'friendly',
  postCallAnalysisSchema: { type: 'object', properties: { confirmed: { type: 'boolean' } } },
};
/** Every optional field too, none at its default. */
const EVERY_FIELD = {
  ...CAMPAIGN,
  flowName: 'main',
  systemPrompt: 'Be brief.',
  maxCallTimeout: 5,
  inactiveCallTimeout: 30,
  postCallAnalysis: true,
  timeZone: 'Europe/Madrid',
  isFreeflow: false,
  public: true,
  sampleSid: 'S1',
  description: 'Spring',
};
const CHANGES = { title: 'Renamed', voiceId: 'en-GB-ryan', maxCallTimeout: 3, timeZone: 'Europe/Paris' };
/** The deprecated campaign inputs name the voice `voice` (docs/graphql.md#one-vocabulary). */
const legacy = ({ voiceId, ...rest }: Args): Args => (voiceId === undefined ? rest : { ...rest, voice: voiceId });
const withoutCampId = ({ campId: _, ...rest }: Args): Args => rest;
const SPRING = { campId: 'spring' };

const INTEGRATIONS: Record<string, Args> = {
  telephony: {
    telephonyAccountSid: 'AC0123456789',
    telephonyAuthToken: AUTH_TOKEN,
    telephonyPhoneNumber: '+14155550100',
    voiceProvider: 'TELEPHONY',
  },
  board: { apiKey: 'board-key-1234', boardId: 'B1', workspace: 'Sales' },
  calendar: { apiKey: 'calendar-key-1234', schedulingUrl: 'https://cal.example.com/ana', eventTypeId: 'E1' },
  erp: { erpUrl: 'https://erp.example.com', apiKey: 'erp-key-1234', secret: 'erp-secret-5678' },
  social: { pageId: 'P1', accessToken: 'social-token-1234', verifyToken: 'verify-5678', appSecret: 'app-secret-9abc' },
  chat: { botToken: 'bot-token-1234', workspace: 'Sales', channelId: 'C1' },
};
const connectArgs = (kind: string) => ({ input: INTEGRATIONS[kind] });

const PIPELINE = { goal: 'Book a follow-up', messageDelay: 2, mexRetry: 3, retryDelay: 4, postWebhookDelay: 5 };
const OUTCOME = {
  callId: 'CA1',
  transcript: 'Hello? Yes, Tuesday works.',
  summary: 'Booked',
  analysis: { confirmed: true },
};
const MEETING = {
  campId: 'spring',
  title: 'Follow-up',
  startsAt: '2030-01-01T10:00:00.000Z',
  endsAt: '2030-01-01T10:30:00.000Z',
  timeZone: 'Europe/Madrid',
  participants: [{ name: 'Ana', email: 'ana@example.com', phone: '+14155550123' }],
};
let receiver: Receiver;
/** A webhook's fields; every webhook points at the test's receiver (only the delivery scenario lets one be sent). */
const hook = () => ({ url: receiver.url, eventTypes: ['CAMPAIGN_UPDATED', 'CALL_ENDED'], description: 'CRM' });
const HOOK_CHANGES = { eventTypes: ['CALL_ENDED'], description: 'Calls only', enabled: false };

const nothing: Setup = async () => ({});
const all =
  (...steps: Setup[]): Setup =>
  async (side) => {
    let given: Given = {};
    for (const step of steps) given = { ...given, ...(await step(side, given)) };
    return given;
  };
/** Runs a (current) mutation as a step of the starting state; answers `pick` of its payload. */
const step =
  (mutation: string, args: ArgsOf, pick: (payload: any) => Given = () => ({})): Setup =>
  async (side, given) =>
    pick(await ok(side, mutation, typeof args === 'function' ? args(given) : args));
const campaign = (fields: Args = CAMPAIGN) => step('campaignCreate', { input: fields });
const paused = all(campaign(), step('campaignPause', { input: SPRING }));
const connected = (kind: string) => step(`${kind}Connect`, connectArgs(kind));
const pipeline = all(campaign(), step('textPipelineSet', { input: { ...SPRING, pipeline: PIPELINE } }));
/** A call of campaign spring, reported by the provider through the REST door. */
const call = all(campaign({ ...CAMPAIGN, postCallAnalysis: true }), connected('telephony'), async (side) => {
  const params = { CallSid: 'CA1', CallStatus: 'completed', CallDuration: '42', From: '+14155550100' };
  const reply = await sendCallback(t, side.apiKey, 'spring', { ...params, To: '+14155550123' });
  expect(reply.status, reply.text).toBe(200);
  return {};
});
const calendar = all(campaign(), connected('calendar'));
const meeting = all(
  calendar,
  step('meetingBook', { input: MEETING }, (payload) => ({ meetingId: payload.meeting.meetingId })),
);
const webhook = all(
  campaign(),
  step(
    'webhookCreate',
    () => ({ input: hook() }),
    (payload) => ({ webhookId: payload.webhook.webhookId }),
  ),
);
const attached = all(
  webhook,
  step('webhookAttach', (g) => ({ input: { webhookId: g.webhookId, ...SPRING } })),
);
/** A campaign.updated delivery of an attached webhook, sent once (the worker runs only here) and SUCCEEDED. */
const delivered = all(attached, step('campaignUpdate', { input: { ...SPRING, title: 'Renamed' } }), async (side) => {
  worker.running = true;
  try {
    return await eventually(async () => {
      const reply = await t.gql(
        '{ webhooks { deliveries(first: 10) { edges { node { deliveryId status } } } } }',
        {},
        side.token,
      );
      const nodes = reply.body.data.webhooks.flatMap((w: any) => w.deliveries.edges.map((edge: any) => edge.node));
      expect(nodes, reply.text).toEqual([{ deliveryId: expect.any(String), status: 'SUCCEEDED' }]);
      return { deliveryId: nodes[0].deliveryId };
    });
  } finally {
    // A claim already under way uses a `now` from before the redelivery: it cannot pick the redelivered one up.
    worker.running = false;
  }
});
/** The side's own e-mail, and a new one (registered, so both sides number it alike). */
const me: Setup = async (side) => ({ email: side.email });
const newEmail: Setup = async (side) => {
  const email = `new-${randomBytes(4).toString('hex')}@example.com`;
  normalise(side, email);
  return { email };
};

/** Logs `email` in through the REST door; answers the token. */
async function logIn(email: string, password: string): Promise<string> {
  const reply = await t.rest('POST', '/login', { body: { username: email, password } });
  expect(reply.status, reply.text).toBe(200);
  return reply.body.access_token;
}

// ---- The table ---------------------------------------------------------------------------------------------------

/** The deprecated mutation's arguments, and the same under `input:` for its replacement. */
function underInput(args: ArgsOf): [ArgsOf, ArgsOf] {
  return typeof args === 'function' ? [args, (given) => ({ input: args(given) })] : [args, { input: args }];
}
/** The same arguments for both (the connect mutations, createWebhook, bookMeeting took `input:` already). */
const same = (args: ArgsOf): [ArgsOf, ArgsOf] => [args, args];
const theWebhook = (g: Given) => ({ webhookId: g.webhookId });
const theWebhookAndSpring = (g: Given) => ({ webhookId: g.webhookId, ...SPRING });
const ownLogin = (g: Given) => ({ email: g.email, password: PASSWORD });

const NEW_PASSWORD_ARGS = { currentPassword: PASSWORD, newPassword: NEW_PASSWORD };
const asTheNewAccount: After = async (_side, _answer, given) => [await logIn(given.email, PASSWORD)];
const withTheAnsweredToken: After = async (_side, answer) => [answer.accessToken];
const loggedInAgain: After = async (side) => [await logIn(side.email, PASSWORD)];
const withTheNewPassword: After = async (side, answer) => [answer.accessToken, await logIn(side.email, NEW_PASSWORD)];

/** Deprecated mutation, its replacement, the starting state, the arguments of each, what else to read the state as. */
type Row = [deprecated: string, replacement: string, given: Setup, old: ArgsOf, current: ArgsOf, after?: After];

const TABLE: Row[] = [
  // Campaigns.
  ['createCampaign', 'campaignCreate', nothing, { input: legacy(EVERY_FIELD) }, { input: EVERY_FIELD }],
  [
    'updateCampaign',
    'campaignUpdate',
    campaign(),
    { ...SPRING, patch: legacy(CHANGES) },
    { input: { ...SPRING, ...CHANGES } },
  ],
  [
    'upsertCampaign',
    'campaignUpsert',
    campaign(EVERY_FIELD),
    { ...SPRING, data: legacy(withoutCampId(CAMPAIGN)) },
    { input: CAMPAIGN },
  ],
  ['deleteCampaign', 'campaignDelete', pipeline, ...underInput(SPRING)],
  ['pauseCampaign', 'campaignPause', campaign(), ...underInput(SPRING)],
  ['resumeCampaign', 'campaignResume', paused, ...underInput(SPRING)],
  ['completeCampaign', 'campaignComplete', paused, ...underInput(SPRING)],
  // Text pipelines.
  [
    'setTextPipeline',
    'textPipelineSet',
    campaign(),
    { ...SPRING, input: PIPELINE },
    { input: { ...SPRING, pipeline: PIPELINE } },
  ],
  ['deleteTextPipeline', 'textPipelineDelete', pipeline, ...underInput(SPRING)],
  // Integrations.
  ['updateTelephony', 'telephonyConnect', nothing, ...same(connectArgs('telephony'))],
  ['connectBoard', 'boardConnect', nothing, ...same(connectArgs('board'))],
  ['connectCalendar', 'calendarConnect', nothing, ...same(connectArgs('calendar'))],
  ['connectErp', 'erpConnect', nothing, ...same(connectArgs('erp'))],
  ['connectSocial', 'socialConnect', nothing, ...same(connectArgs('social'))],
  ['connectChat', 'chatConnect', nothing, ...same(connectArgs('chat'))],
  ['disconnectTelephony', 'telephonyDisconnect', connected('telephony'), ...same({})],
  ['disconnectBoard', 'boardDisconnect', connected('board'), ...same({})],
  ['disconnectCalendar', 'calendarDisconnect', connected('calendar'), ...same({})],
  ['disconnectErp', 'erpDisconnect', connected('erp'), ...same({})],
  ['disconnectSocial', 'socialDisconnect', connected('social'), ...same({})],
  ['disconnectChat', 'chatDisconnect', connected('chat'), ...same({})],
  // Calls and meetings.
  ['recordCallOutcome', 'callLogRecordOutcome', call, ...underInput(OUTCOME)],
  ['bookMeeting', 'meetingBook', calendar, ...same({ input: MEETING })],
  ['cancelMeeting', 'meetingCancel', meeting, ...underInput((g) => ({ meetingId: g.meetingId }))],
  // Webhooks.
  ['createWebhook', 'webhookCreate', nothing, ...same(() => ({ input: hook() }))],
  [
    'updateWebhook',
    'webhookUpdate',
    webhook,
    (g) => ({ ...theWebhook(g), patch: HOOK_CHANGES }),
    (g) => ({ input: { ...theWebhook(g), ...HOOK_CHANGES } }),
  ],
  ['deleteWebhook', 'webhookDelete', attached, ...underInput(theWebhook)],
  ['attachWebhook', 'webhookAttach', webhook, ...underInput(theWebhookAndSpring)],
  ['detachWebhook', 'webhookDetach', attached, ...underInput(theWebhookAndSpring)],
  [
    'redeliverWebhookDelivery',
    'webhookDeliveryRedeliver',
    delivered,
    ...underInput((g) => ({ deliveryId: g.deliveryId })),
  ],
  // The account: the state is read again as whoever the mutation signed in (the old token may be revoked).
  ['signUp', 'accountSignUp', newEmail, ...underInput(ownLogin), asTheNewAccount],
  ['login', 'accountLogin', me, ...underInput(ownLogin), withTheAnsweredToken],
  ['rotateApiKey', 'accountApiKeyRotate', nothing, ...same({}), loggedInAgain],
  ['changePassword', 'accountPasswordChange', nothing, ...underInput(NEW_PASSWORD_ARGS), withTheNewPassword],
];

/** One failure per family: deprecated mutation, replacement, the error code expected, starting state, arguments. */
type ErrorRow = [deprecated: string, replacement: string, code: string, given: Setup, old: ArgsOf, current: ArgsOf];

const ERRORS: ErrorRow[] = [
  ['pauseCampaign', 'campaignPause', 'NOT_FOUND', nothing, ...underInput({ campId: 'nope' })],
  ['createCampaign', 'campaignCreate', 'CONFLICT', campaign(), { input: legacy(CAMPAIGN) }, { input: CAMPAIGN }],
  [
    'updateCampaign',
    'campaignUpdate',
    'BAD_USER_INPUT',
    campaign(),
    { ...SPRING, patch: { maxCallTimeout: 0 } },
    { input: { ...SPRING, maxCallTimeout: 0 } },
  ],
  ['deleteTextPipeline', 'textPipelineDelete', 'NOT_FOUND', campaign(), ...underInput(SPRING)],
  ['disconnectTelephony', 'telephonyDisconnect', 'NOT_FOUND', nothing, ...same({})],
  ['recordCallOutcome', 'callLogRecordOutcome', 'NOT_FOUND', campaign(), ...underInput({ callId: 'CA404' })],
  ['bookMeeting', 'meetingBook', 'CONFLICT', campaign(), ...same({ input: MEETING })], // no calendar connected
  ['cancelMeeting', 'meetingCancel', 'NOT_FOUND', nothing, ...underInput({ meetingId: 'mtg_nope' })],
  ['deleteWebhook', 'webhookDelete', 'NOT_FOUND', nothing, ...underInput({ webhookId: 'wh_nope' })],
  [
    'redeliverWebhookDelivery',
    'webhookDeliveryRedeliver',
    'NOT_FOUND',
    nothing,
    ...underInput({ deliveryId: 'msg_nope' }),
  ],
  [
    'login',
    'accountLogin',
    'UNAUTHENTICATED',
    me,
    ...underInput((g) => ({ email: g.email, password: 'wrong password' })),
  ],
];

// ---- Documents, from the schema ----------------------------------------------------------------------------------

const mutationType = schema.getMutationType() as GraphQLObjectType;

function mutationField(name: string): GraphQLField<unknown, unknown> {
  const field = mutationType.getFields()[name];
  if (!field) throw new Error(`the public schema has no Mutation.${name}`);
  return field;
}

/** Every field of `typeName` that needs no argument: its leaves and, `depth` > 1, its objects' such fields. */
function selectionOf(typeName: string, depth = 2, onlyFieldsOf?: string): string {
  const type = schema.getType(typeName);
  if (!isObjectType(type)) throw new Error(`${typeName} is not an object type`);
  const only = onlyFieldsOf === undefined ? undefined : schema.getType(onlyFieldsOf);
  return (
    Object.values(type.getFields())
      .filter((field) => field.args.every((arg) => !isNonNullType(arg.type) || arg.defaultValue !== undefined))
      // A payload that is the object itself may hold more (an account payload's `account`): compare what both have.
      .filter((field) => !isObjectType(only) || field.name in only.getFields())
      .map((field) => {
        const named = getNamedType(field.type);
        if (isLeafType(named)) return field.name;
        const inner = depth > 1 && isObjectType(named) ? selectionOf(named.name, depth - 1) : '';
        return inner && `${field.name} { ${inner} }`;
      })
      .filter(Boolean)
      .join(' ')
  );
}

/** `mutation ($a: T!) { name(a: $a) selection }`, the variables typed as the schema types the arguments. */
function documentOf(name: string, args: Args, selection: string): string {
  const field = mutationField(name);
  const typeOf = (arg: string) => {
    const declared = field.args.find((candidate) => candidate.name === arg);
    if (!declared) throw new Error(`Mutation.${name} has no argument ${arg}`);
    return String(declared.type);
  };
  const names = Object.keys(args);
  const definitions = names.length ? `(${names.map((arg) => `$${arg}: ${typeOf(arg)}`).join(', ')})` : '';
  const call = names.length ? `(${names.map((arg) => `${arg}: $${arg}`).join(', ')})` : '';
  return `mutation${definitions} { ${name}${call} ${selection} }`;
}

/** How to read a mutation's answer: what to select, and where the object is in it (its type, to read enums). */
interface Reading {
  selection: string;
  holder: string | null;
  type: GraphQLOutputType;
}

/**
 * How to read each mutation: the deprecated one answers the object bare (or a Boolean); the replacement's payload
 * holds it in its field of the same type, or is that object itself (the account payloads).
 */
function readingsOf(deprecated: string, replacement: string): { old: Reading; new: Reading } {
  const oldType = mutationField(deprecated).type;
  const named = getNamedType(oldType);
  const newType = mutationField(replacement).type;
  const payload = getNamedType(newType) as GraphQLObjectType;
  if (isLeafType(named)) {
    const wholePayload: Reading = { selection: `{ ${selectionOf(payload.name)} }`, holder: null, type: newType };
    return { old: { selection: '', holder: null, type: oldType }, new: wholePayload };
  }
  const wholePayload: Reading = {
    selection: `{ ${selectionOf(payload.name, 2, named.name)} }`,
    holder: null,
    type: newType,
  };
  const holders = Object.values(payload.getFields()).filter((field) => getNamedType(field.type) === named);
  if (holders.length > 1) throw new Error(`${payload.name} has ${holders.length} fields of type ${named.name}`);
  const selection = `{ ${selectionOf(named.name)} }`;
  const holder = holders[0];
  return {
    old: { selection, holder: null, type: oldType },
    new: holder
      ? { selection: `{ ${holder.name} ${selection} }`, holder: holder.name, type: holder.type }
      : wholePayload,
  };
}

/**
 * Everything an account holds, one query per part (the cost limit counts a connection's fields `first` times, and a
 * scenario holds a few objects at most: hasNextPage says so).
 */
const STATE = {
  viewer: `{ viewer { ${selectionOf('Account')} integrations { ${selectionOf('Integrations')} } } }`,
  campaigns: `{ campaigns(first: 10) { edges { node { ${selectionOf('Campaign')} } } pageInfo { hasNextPage } } }`,
  callLogs: `{ callLogs(first: 10) { edges { node { ${selectionOf('CallLog')} } } pageInfo { hasNextPage } } }`,
  upcomingMeetings: `{ upcomingMeetings { ${selectionOf('Meeting')} } }`,
  webhooks: `{ webhooks { ${selectionOf('Webhook')}
    deliveries(first: 10) { edges { node { ${selectionOf('WebhookDelivery')} } } pageInfo { hasNextPage } } } }`,
};

// ---- Normalising ------------------------------------------------------------------------------------------------

const GENERATED =
  /whsec_[A-Za-z0-9+/=]+|\b(?:acc|evt|msg|camp|mtg|wh|ck)_[\w-]+|eyJ[\w-]*\.[\w-]*\.[\w-]*|[\w.+-]+@example\.com/g;
const ISO_TIME = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$/;
const HOUR = 3_600_000;

/** The side's placeholder for a generated value: `<prefix>#<n>`, n counting that prefix in order of appearance. */
function placeholder(side: Side, value: string): string {
  let name = side.names.get(value);
  if (!name) {
    const prefix = value.startsWith('eyJ') ? 'jwt' : value.includes('@') ? 'email' : value.split('_')[0];
    const count = [...side.names.values()].filter((known) => known.startsWith(`${prefix}#`)).length;
    name = `${prefix}#${count + 1}`;
    side.names.set(value, name);
  }
  return name;
}

function normaliseText(side: Side, text: string): string {
  if (ISO_TIME.test(text) && Math.abs(Date.parse(text) - Date.now()) < HOUR) return '<now>';
  // Account.apiKeyHint: "****" and the last 4 characters of a key seen before.
  const hint = /^\*{4}(.{4})$/.exec(text)?.[1];
  const hinted = hint && [...side.names].find(([value]) => value.startsWith('ck_') && value.endsWith(hint));
  if (hinted) return `hint(${hinted[1]})`;
  const decoded = Buffer.from(text, 'base64').toString('utf8');
  if (/^[A-Z]\w*:\S+$/.test(decoded) && Buffer.from(decoded).toString('base64') === text) {
    return `id(${normaliseText(side, decoded)})`;
  }
  return text.replace(GENERATED, (value) => placeholder(side, value));
}

/**
 * `value` with the side's generated values replaced, keys visited in sorted order (the same on both sides). A first
 * pass numbers the values, so that a hint met before its key (account.apiKeyHint, then apiKey) names it.
 */
function normalise(side: Side, value: unknown): unknown {
  const walk = (item: unknown): unknown => {
    if (typeof item === 'string') return normaliseText(side, item);
    if (Array.isArray(item)) return item.map(walk);
    if (item && typeof item === 'object') {
      return Object.fromEntries(
        Object.keys(item)
          .sort()
          .map((key) => [key, walk((item as Args)[key])]),
      );
    }
    return item;
  };
  walk(value);
  return walk(value);
}

/** Enum values as the values they stand for (BEARER as "bearer"), so an enum compares with the String it replaced. */
function stored(value: unknown, type: GraphQLOutputType): unknown {
  if (value === null || value === undefined) return value;
  if (isNonNullType(type)) return stored(value, type.ofType);
  if (isListType(type)) return (value as unknown[]).map((item) => stored(item, type.ofType));
  if (isEnumType(type)) return type.parseValue(value);
  if (isObjectType(type)) {
    const fields = type.getFields();
    return Object.fromEntries(Object.entries(value as Args).map(([key, v]) => [key, stored(v, fields[key]!.type)]));
  }
  return value;
}

const errorsOf = (side: Side, errors: any[]) =>
  errors.map((error) => ({
    code: error.extensions?.code,
    // Input problems are located under each mutation's own argument (patch.x, input.x, input.pipeline.x), also in
    // the message ("patch.maxCallTimeout: …"): compared by the field and the problem.
    message: normaliseText(side, error.message).replace(/^[\w.]*\.(\w+): /, '$1: '),
    issues: error.extensions?.issues?.map((issue: any) => ({
      field: issue.path.at(-1),
      type: issue.type,
      message: issue.message,
    })),
  }));

// ---- The runner -------------------------------------------------------------------------------------------------

let t: TestApp;
/** The delivery worker looks for due deliveries only while `running` (its clock stands at 1970 otherwise). */
const worker = { running: false };

async function newSide(): Promise<Side> {
  const account = await t.account();
  const side: Side = { token: account.token, apiKey: account.apiKey, email: account.email, names: new Map() };
  for (const value of [account.email, account.apiKey, account.id]) normalise(side, value);
  return side;
}

/** Runs a mutation for a starting state; answers its payload (every field, two levels deep). */
async function ok(side: Side, mutation: string, args: Args): Promise<any> {
  const selection = `{ ${selectionOf(getNamedType(mutationField(mutation).type).name)} }`;
  const reply = await t.gql(documentOf(mutation, args, selection), args, side.token);
  expect(reply.body.errors, reply.text).toBeUndefined();
  return reply.body.data[mutation];
}

/** The account's state read with `token`: each part's data, or its errors. */
async function stateOf(side: Side, token: string) {
  const state: Record<string, unknown> = {};
  for (const [part, query] of Object.entries(STATE)) {
    const reply = await t.gql(query, {}, token);
    state[part] = reply.body.errors ? { errors: errorsOf(side, reply.body.errors) } : normalise(side, reply.body.data);
  }
  return state;
}

interface Outcome {
  errors?: any[];
  /** The object it answered, as it came (the deprecated field's value; the replacement's payload field, or payload). */
  answer: any;
  /** The same, normalised; or its errors. */
  normalised: unknown;
  /** The state read back: with the side's token, then with each token `after` gave. */
  state: Record<string, unknown>[];
}

/** Runs `mutation` on a side in its starting state, and reads the state back. */
async function runSide(
  side: Side,
  given: Given,
  mutation: string,
  args: ArgsOf,
  reading: Reading,
  after?: After,
): Promise<Outcome> {
  const variables = typeof args === 'function' ? args(given) : args;
  const reply = await t.gql(documentOf(mutation, variables, reading.selection), variables, side.token);
  const { errors, data } = reply.body;
  const value = data?.[mutation];
  const answer = reading.holder && value ? value[reading.holder] : value;
  const normalised = errors ? { errors: errorsOf(side, errors) } : normalise(side, stored(answer, reading.type));
  const tokens = [side.token, ...(after && !errors ? await after(side, answer, given) : [])];
  const state = [];
  for (const token of tokens) state.push(await stateOf(side, token));
  return { errors, answer, normalised, state };
}

/** Both mutations from the same starting state, each on a fresh account of its own. */
async function runBoth(
  deprecated: string,
  replacement: string,
  given: Setup,
  old: ArgsOf,
  current: ArgsOf,
  after?: After,
): Promise<{ old: Outcome; new: Outcome }> {
  const readings = readingsOf(deprecated, replacement);
  const [a, b] = [await newSide(), await newSide()];
  const [givenA, givenB] = [await given(a, {}), await given(b, {})];
  return {
    old: await runSide(a, givenA, deprecated, old, readings.old, after),
    new: await runSide(b, givenB, replacement, current, readings.new, after),
  };
}

/** The state read last must be data: equal errors (a refused query, say) would prove nothing. */
function expectReadable(state: Record<string, unknown>[]) {
  for (const [part, value] of Object.entries(state.at(-1) ?? {})) expect(value, part).not.toHaveProperty('errors');
}

// ---- The tests --------------------------------------------------------------------------------------------------

describe('the table', () => {
  it('lists every deprecated mutation of the public schema, with the replacement its reason names', () => {
    const deprecated = Object.values(mutationType.getFields()).filter((field) => field.deprecationReason);
    const named = Object.fromEntries(
      deprecated.map((field) => [
        field.name,
        /^Use (\w+)\b/.exec(field.deprecationReason ?? '')?.[1] ?? field.deprecationReason,
      ]),
    );
    expect(Object.fromEntries(TABLE.map(([old, replacement]) => [old, replacement]))).toEqual(named);
    expect(new Set(TABLE.map(([old]) => old)).size).toBe(TABLE.length);
    for (const [old, replacement] of TABLE) expect(mutationField(replacement).deprecationReason, old).toBeFalsy();
    for (const [old, replacement] of ERRORS) expect(named[old], old).toBe(replacement);
  });
});

describe('each deprecated mutation does what its replacement does', () => {
  beforeAll(async () => {
    receiver = await startReceiver(() => 200);
    t = await startApp({ ALLOW_PRIVATE_WEBHOOK_TARGETS: 'true' }, [], {
      worker: { pollMs: 20, clock: () => (worker.running ? Date.now() : 0) },
    });
  });
  afterAll(async () => {
    await t?.close();
    await receiver?.close();
  });

  it.each(TABLE)('%s, as %s', async (deprecated, replacement, given, old, current, after) => {
    const run = await runBoth(deprecated, replacement, given, old, current, after);
    expect(run.old.errors, JSON.stringify(run.old.errors)).toBeUndefined();
    expect(run.new.errors, JSON.stringify(run.new.errors)).toBeUndefined();
    if (typeof run.old.answer === 'boolean') {
      // disconnectX: true, where the replacement answers its payload.
      expect(run.old.answer).toBe(true);
      expect(run.new.answer).toEqual(expect.any(Object));
    } else {
      expect(run.new.normalised).toEqual(run.old.normalised);
    }
    expectReadable(run.old.state);
    expect(run.new.state).toEqual(run.old.state);
  });

  it.each(ERRORS)('%s fails as %s does: %s', async (deprecated, replacement, code, given, old, current) => {
    const run = await runBoth(deprecated, replacement, given, old, current);
    expect(run.old.errors?.map((error) => error.extensions?.code)).toEqual([code]);
    expect(run.new.normalised).toEqual(run.old.normalised);
    expectReadable(run.old.state);
    expect(run.new.state).toEqual(run.old.state);
  });
});
