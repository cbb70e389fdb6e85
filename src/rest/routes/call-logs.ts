// Call logs by the legacy door, and the telephony provider's call-status callbacks (docs/decisions.md §7).
import { z } from 'zod';
import {
  CALLBACK_FORM_LIMITS,
  callbackParamsSchema,
  type CallStatus,
  callLogListQuerySchema,
} from '../../domain/call-logs.schema.js';
import { campIdField } from '../../domain/campaigns.schema.js';
import { callbackReceivedResponse, callLogResponse } from '../responses/call-logs.js';
import { defineRoute } from '../route.js';
import { graphql, type ResultOf } from '../typed-documents.js';

// The legacy names, as aliases of the current fields (and of the internal graph's providerDirection).
const LegacyCallLog = graphql(`
  fragment LegacyCallLog on CallLog {
    callId
    campaignId: campId
    direction: providerDirection
    fromNumber
    toNumber
    status
    startedAt
    endedAt
    durationSeconds
    cost
    recordingUrl
    transcript
    summary
    analysis
    createdAt
    updatedAt
  }
`);

/** A page of call logs, a campaign's or all of the account's (both list routes). */
const CALL_LOG_LIST = graphql(
  `
    query LegacyCallLogs(
      $campId: String
      $status: CallStatus
      $since: DateTime
      $until: DateTime
      $limit: Int!
      $offset: Int!
    ) {
      callLogList(campId: $campId, status: $status, since: $since, until: $until, limit: $limit, offset: $offset) {
        ...LegacyCallLog
      }
    }
  `,
  [LegacyCallLog],
);

type ListQuery = z.infer<typeof callLogListQuerySchema>;
/** GraphQL's name of a provider's status: in-progress → IN_PROGRESS. */
type EnumName<S extends string> = Uppercase<S extends `${infer A}-${infer B}` ? `${A}_${B}` : S>;
type CallLogData = ResultOf<typeof LegacyCallLog>;
const callLogsResponse = z.array(callLogResponse);

/** Legacy statuses are the provider's words (in-progress); GraphQL's enum names are IN_PROGRESS. */
const toEnum = (status: CallStatus | undefined) => status?.toUpperCase().replace('-', '_') as EnumName<CallStatus>;
const fromEnum = (status: EnumName<CallStatus>) => status.toLowerCase().replace('_', '-') as CallStatus;

const listVariables = ({ query }: { query: ListQuery }) => ({ ...query, status: toEnum(query.status) });
const listLocs = Object.fromEntries(
  ['campId', 'status', 'since', 'until', 'limit', 'offset'].map((name) => [name, ['query', name]]),
);
const respondList = ({ callLogList }: { callLogList: CallLogData[] }) =>
  callLogList.map((call) => ({ ...call, status: fromEnum(call.status) }));

/**
 * The callback's form as it reaches the resolver, for OpenAPI: the router takes only string values (form fields are;
 * a JSON body must be an object of strings), and receiveCallStatusCallback checks its `params` before anything else
 * (callbackFormSchema in src/graphql/schema/types/call-mutations.ts, with the domain's CALLBACK_FORM_LIMITS).
 * test/rest/openapi-requests.test.ts holds these limits to the server's answers.
 */
const callbackForm = z
  .record(z.string().max(CALLBACK_FORM_LIMITS.nameLength), z.string().max(CALLBACK_FORM_LIMITS.valueLength))
  .meta({ maxProperties: CALLBACK_FORM_LIMITS.fields });

/** A page whose transcripts and summaries pass the answer's text budget (src/graphql/schema/field-costs.ts). */
const LIST_ERRORS = {
  400: "The page's transcripts and summaries hold more than the answer's text budget: ask for a smaller limit",
};

export const callLogRoutes = [
  defineRoute({
    method: 'GET',
    path: '/get_call_logs_for_campaign',
    summary: "A campaign's call logs, newest first (status, since, until, limit ≤ 1000, offset)",
    tag: 'call logs',
    auth: true,
    document: CALL_LOG_LIST,
    query: callLogListQuerySchema.extend({ campId: campIdField }),
    response: callLogsResponse,
    variables: listVariables,
    argLocs: listLocs,
    respond: respondList,
    errors: LIST_ERRORS,
  }),
  defineRoute({
    method: 'GET',
    path: '/get_call_logs_for_user',
    summary: 'All your call logs, newest first (campId, status, since, until, limit ≤ 1000, offset)',
    tag: 'call logs',
    auth: true,
    document: CALL_LOG_LIST,
    query: callLogListQuerySchema,
    response: callLogsResponse,
    variables: listVariables,
    argLocs: listLocs,
    respond: respondList,
    errors: LIST_ERRORS,
  }),
  defineRoute({
    method: 'POST',
    path: '/telephony_webhook/{apiKey}/{campId}',
    summary: "The telephony provider's call-status callback (form-encoded, signed with X-Telephony-Signature)",
    tag: 'provider webhooks',
    errors: { 403: 'Unknown API key, or a missing or wrong X-Telephony-Signature' },
    auth: false,
    form: true,
    // The key (one indexed lookup) and the signature header are checked before the body is read, and the body is
    // counted as it is read: a made-up key or a 100 000-field form costs nothing more (docs/limits.md).
    maxFields: CALLBACK_FORM_LIMITS.fields,
    precheck: async ({ path, headers, services }) => {
      const refusal = await services.callbackRefusedEarly(path.apiKey ?? '', headers.get('x-telephony-signature'));
      return refusal ? { status: 403, detail: refusal } : null;
    },
    document: graphql(`
      mutation LegacyTelephonyCallback(
        $apiKey: String!
        $campId: String!
        $url: String!
        $params: JSONObject!
        $signature: String
      ) {
        receiveCallStatusCallback(apiKey: $apiKey, campId: $campId, url: $url, params: $params, signature: $signature) {
          callId
        }
      }
    `),
    body: z.record(z.string(), z.string()).default({}),
    // Only a flat object of strings here; the resolver checks the parameters themselves (after the signature).
    documentedBody: z.intersection(callbackForm, callbackParamsSchema),
    response: callbackReceivedResponse,
    variables: ({ body, path, headers, publicUrl }) => ({
      // The router matched the path's template: both parameters are there.
      apiKey: path.apiKey as string,
      campId: path.campId as string,
      url: publicUrl,
      params: body,
      signature: headers.get('x-telephony-signature'),
    }),
    argLocs: { params: ['body'] },
    respond: () => ({ received: true as const }),
  }),
];
