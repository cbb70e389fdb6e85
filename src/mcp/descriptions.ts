// What the MCP tools say about themselves (docs/mcp.md): written for an agent calling tools, not derived from the
// GraphQL schema's field descriptions, which speak of fields and doors the agent never sees. A tool's description is
// one sentence of what it does, then its arguments and what it answers, naming other tools by their tool names.
// A tool without a description here fails at start-up; test/mcp/tool-descriptions.test.ts refuses any description
// (of a tool, or inside its schemas) that names a REST path or operation, or a GraphQL field that is not a tool.

/** Per operation name (a tool's name is its operation's in snake_case). */
export const TOOL_DESCRIPTIONS: Readonly<Record<string, string>> = {
  CampaignList:
    'Lists your campaigns, newest first, without long texts (campaign_get has them). Arguments: `status`, ' +
    '`search` and `filter` narrow; `orderBy` sorts (CREATED_AT, UPDATED_AT, TITLE, STATUS, CALLS, SPEND); ' +
    '`first` (≤ 100) and `after` (nextCursor) page, even past a short page with hasMore.',
  CampaignGet:
    'Reads one campaign whole: its texts (script, systemPrompt, …), its voice and its text pipeline; null when you ' +
    'have no such campaign. Argument: `campId`.',
  CampaignMetrics:
    "Totals over a campaign's call logs as they are now: call time, number of calls, spend, average cost; null " +
    'when you have no such campaign. Argument: `campId`.',
  CampaignCreate:
    'Creates a campaign, PAUSED unless `input.status` is ACTIVE (real calls at once: the user is asked first if ' +
    'the client can). Arguments in `input`: the campaign (`voiceId` from voice_list); `campId` is generated when ' +
    'omitted, and one in use is CONFLICT. Answers the campaign without its long texts; campaign_resume starts it.',
  CampaignUpdate:
    'Changes the given fields of a campaign; a completed campaign cannot change (CONFLICT). Arguments in `input`: ' +
    '`campId` and the fields to change; not the status (campaign_pause, campaign_resume, campaign_complete). ' +
    'Answers the campaign without its long texts (campaign_get reads them).',
  CampaignDelete:
    'Deletes a campaign and everything that belongs to it, for good (the user is asked first where the client can ' +
    'ask). Argument: `input.campId`. Answers its ' +
    '`deletedId`.',
  CampaignPause:
    'Pauses an ACTIVE campaign: no new calls until campaign_resume; a paused one is answered as it is. Argument: ' +
    '`input.campId`.',
  CampaignResume:
    'Resumes a PAUSED campaign (ACTIVE again): it places real phone calls at once (the user is asked first where ' +
    'the client can ask); an active one is answered as it is. Argument: `input.campId`.',
  CampaignComplete:
    'Completes an ACTIVE or PAUSED campaign, for good (the user is asked first where the client can ask): it ' +
    'cannot change afterwards; a completed one is answered as ' +
    'it is. Argument: `input.campId`.',
  VoiceList:
    'Lists the voice catalogue: the voiceIds campaign_create and campaign_update take. Argument: `language`, a tag ' +
    '(`en-US`) or a primary language (`en`).',
  TextPipelineSet:
    "Sets (replaces) a campaign's text pipeline; campaign_get reads it. Arguments in `input`: `campId` and " +
    '`pipeline`.',
  TextPipelineDelete:
    "Deletes a campaign's text pipeline; its follow-up posts not yet sent are cancelled. Argument: `input.campId`.",
  IntegrationList:
    'Lists every integration kind of your account, connected or not, secrets masked. No arguments; the ' +
    '<kind>_connect and <kind>_disconnect tools change them.',
  TelephonyConnect:
    'Connects (or replaces) the telephony integration. Arguments in `input`: the credentials. Answers it with its ' +
    'secrets masked.',
  TelephonyDisconnect: 'Deletes the stored telephony credentials; NOT_FOUND when there are none. No arguments.',
  BoardConnect:
    'Connects (or replaces) the board integration. Arguments in `input`: the credentials. Answers it with its ' +
    'secrets masked.',
  BoardDisconnect: 'Deletes the stored board credentials; NOT_FOUND when there are none. No arguments.',
  CalendarConnect:
    'Connects (or replaces) the calendar integration, which meeting_book needs. Arguments in `input`: the ' +
    'credentials. Answers it with its secrets masked.',
  CalendarDisconnect: 'Deletes the stored calendar credentials; NOT_FOUND when there are none. No arguments.',
  ErpConnect:
    'Connects (or replaces) the ERP integration. Arguments in `input`: the credentials. Answers it with its secrets ' +
    'masked.',
  ErpDisconnect: 'Deletes the stored ERP credentials; NOT_FOUND when there are none. No arguments.',
  SocialConnect:
    'Connects (or replaces) the social integration. Arguments in `input`: the credentials. Answers it with its ' +
    'secrets masked.',
  SocialDisconnect: 'Deletes the stored social credentials; NOT_FOUND when there are none. No arguments.',
  ChatConnect:
    'Connects (or replaces) the chat integration. Arguments in `input`: the credentials. Answers it with its ' +
    'secrets masked.',
  ChatDisconnect: 'Deletes the stored chat credentials; NOT_FOUND when there are none. No arguments.',
  CallLogList:
    'Lists your call logs, newest first; an unknown campId is NOT_FOUND. Arguments: `campId`, `status`, ' +
    '`since`/`until` (inclusive) and `filter` narrow; `orderBy` sorts (STARTED_AT, DURATION, COST, STATUS); ' +
    '`first` (≤ 100) and `after` page, even past a short page; `withTexts` adds the long texts.',
  CallStats:
    'Calls per hour, day, week or month of a span, in a time zone: by outcome, with spend, and totals. Arguments: ' +
    '`from`, `to` (excluded), `bucket` (DAY by default; at most 400 buckets), `timeZone` (IANA; UTC by default), ' +
    '`campIds` (all when omitted).',
  MeetingUpcomingList:
    'Lists your scheduled meetings that have not ended, the soonest first. Argument: `limit` (1–200, 50 when ' +
    'omitted).',
  MeetingGet: 'Reads one meeting; null when you have no such meeting. Argument: `meetingId`.',
  MeetingBook:
    'Books a meeting for a campaign; calendar_connect must have run, and a meeting overlapping another scheduled ' +
    'one is CONFLICT. Arguments in `input`: `campId`, `title`, `startsAt` and `endsAt` (after startsAt, at most 24 ' +
    'hours later), `participants` (each a name and an email or phone) and `timeZone`.',
  MeetingCancel: 'Cancels a scheduled meeting; one already canceled is answered as it is. Argument: `input.meetingId`.',
  WebhookList: 'Lists your webhooks, oldest first. No arguments.',
  WebhookGet: 'Reads one webhook; null when you have no such webhook. Argument: `webhookId`.',
  WebhookDeliveryList:
    "Lists a webhook's deliveries, newest first; null when you have no such webhook. Arguments: `webhookId`; " +
    '`first` (at most 100) and `after` page.',
  WebhookCreate:
    'Registers a webhook; webhook_attach then sends it the events of a campaign. Arguments in `input`: `url`, ' +
    '`eventTypes` (none: all), `description`, and `idempotencyKey`: a retry with the same key answers the first ' +
    'webhook instead of making another. Its signing secret is not answered here.',
  WebhookUpdate:
    'Changes the given fields of a webhook. Arguments in `input`: `webhookId` and the fields to change; `enabled: ' +
    'true` re-enables a disabled one.',
  WebhookDelete:
    'Deletes a webhook, its attachments and its deliveries, for good. Argument: `input.webhookId`. Answers its ' +
    '`deletedId`.',
  WebhookAttach:
    "Sends a campaign's events to a webhook from now on; attaching twice changes nothing. Arguments in `input`: " +
    '`webhookId` and `campId`.',
  WebhookDetach:
    "Stops sending a campaign's events to a webhook; detaching twice changes nothing. Arguments in `input`: " +
    '`webhookId` and `campId`.',
  WebhookDeliveryRedeliver:
    'Queues a finished delivery again (same body), sent on the retry schedule; one still pending is CONFLICT. ' +
    'Argument: `input.deliveryId` (from webhook_delivery_list).',
};

/**
 * Descriptions of schema places rewritten for the tools, by coordinate: `Type.field`, `Type.field(argument)`, a
 * type's name, or `*.field` / `*(argument)` for every type. Absent: the schema's own description.
 */
const REWRITTEN: Readonly<Record<string, string>> = {
  '*.voiceId': 'The voice of the calls: a voiceId voice_list answers (another is refused).',
  '*(after)': 'nextCursor of the page before (another value is refused).',
  '@include(if)': 'true: each call log also carries its summary, analysis and transcript (long: ask for a few).',
  '*(first)': 'At most this many (0–100), after `after`; 20 when omitted.',
  'PageInfo.hasNextPage': 'Whether more follow this page.',
  'PageInfo.endCursor': 'Pass it as `after` for the next page; on an empty page, the `after` given, or null.',
  '*.postCallAnalysis': 'Whether calls get a post-call analysis, checked against postCallAnalysisSchema.',
  'WebhookDelivery.eventId': 'The event it carries (evt_…): the id in the delivered body.',
  'CallLog.summary': 'The summary the AI engine attached after the call; null until then.',
  'CallLog.analysis': 'The post-call analysis the AI engine attached after the call; null until then.',
  'CallLog.transcript': 'The transcript the AI engine attached after the call; null until then.',
  'WebhookCreatePayload.webhook': 'The new webhook.',
  'Query.campaign(campId)': 'The campaign: its campId.',
};

/** The description of a tool's operation; a tool without one is a mistake found at start-up. */
/** Each tool's title, written for the person who sees it in a client's tool list or confirmation (issue 53). */
const TOOL_TITLES: Record<string, string> = {
  BoardConnect: 'Connect the project board',
  BoardDisconnect: 'Disconnect the project board',
  CalendarConnect: 'Connect the calendar',
  CalendarDisconnect: 'Disconnect the calendar',
  CallLogList: 'List calls',
  CallStats: 'Call statistics over time',
  CampaignComplete: 'Complete a campaign',
  CampaignCreate: 'Create a campaign',
  CampaignDelete: 'Delete a campaign',
  CampaignGet: 'Read a campaign',
  CampaignList: 'List campaigns',
  CampaignMetrics: "A campaign's call totals",
  CampaignPause: 'Pause a campaign',
  CampaignResume: 'Resume a campaign (starts calling)',
  CampaignUpdate: 'Change a campaign',
  ChatConnect: 'Connect the chat channel',
  ChatDisconnect: 'Disconnect the chat channel',
  ErpConnect: 'Connect the ERP',
  ErpDisconnect: 'Disconnect the ERP',
  IntegrationList: 'List connected integrations',
  MeetingBook: 'Book a meeting',
  MeetingCancel: 'Cancel a meeting',
  MeetingGet: 'Read a meeting',
  MeetingUpcomingList: 'List upcoming meetings',
  SocialConnect: 'Connect the social channel',
  SocialDisconnect: 'Disconnect the social channel',
  TelephonyConnect: 'Connect telephony',
  TelephonyDisconnect: 'Disconnect telephony',
  TextPipelineDelete: "Remove a campaign's text pipeline",
  TextPipelineSet: "Set a campaign's text pipeline",
  VoiceList: 'List voices',
  WebhookAttach: "Send a campaign's events to a webhook",
  WebhookCreate: 'Create a webhook',
  WebhookDelete: 'Delete a webhook',
  WebhookDeliveryList: "List a webhook's deliveries",
  WebhookDeliveryRedeliver: 'Send a webhook delivery again',
  WebhookDetach: "Stop sending a campaign's events to a webhook",
  WebhookGet: 'Read a webhook',
  WebhookList: 'List webhooks',
  WebhookUpdate: 'Change a webhook',
};

export function toolTitle(operationName: string): string {
  const title = TOOL_TITLES[operationName];
  if (!title)
    throw new Error(`MCP operation ${operationName}: give the tool a title in TOOL_TITLES (src/mcp/descriptions.ts)`);
  return title;
}

export function toolDescription(operationName: string): string {
  const description = TOOL_DESCRIPTIONS[operationName];
  if (!description) {
    throw new Error(`MCP operation ${operationName}: describe the tool in TOOL_DESCRIPTIONS (src/mcp/descriptions.ts)`);
  }
  return description;
}

/**
 * The description of a schema place as a tool shows it: rewritten when REWRITTEN says so, else the schema's.
 * `coordinate` is `Type.field`, `Type.field(argument)`, `@directive(argument)` or a type's name.
 */
export function describedFor(coordinate: string, description: string | null | undefined): string | undefined {
  const field = /\.(\w+)$/.exec(coordinate)?.[1];
  const argument = /\((\w+)\)$/.exec(coordinate)?.[1];
  return (
    REWRITTEN[coordinate] ??
    (field ? REWRITTEN[`*.${field}`] : undefined) ??
    (argument ? REWRITTEN[`*(${argument})`] : undefined) ??
    description ??
    undefined
  );
}
