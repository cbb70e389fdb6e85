// The MCP door's tools, declared once: each is a named operation on the public graph (current fields only), and
// everything else about the tool (its name, description, input and output schemas, annotations) is derived from the
// operation and the schema (src/mcp/tools.ts, docs/mcp.md). A tool's name is its operation's name in snake_case.
// Webhook signing secrets are not selected: an agent does not need them, and a model's context is no place for one.

/**
 * A campaign as lists and writes answer it: every field but the long texts (up to 50 000 characters each), which
 * campaign_get reads. A row is at most about 1.5 KB (docs/mcp.md, "Answer sizes").
 */
const CAMPAIGN_SUMMARY = /* GraphQL */ `
  fragment McpCampaignSummary on Campaign {
    campId
    status
    title
    language
    timeZone
    voiceId
    tone
    flowName
    sampleSid
    isFreeflow
    public
    maxCallTimeout
    inactiveCallTimeout
    postCallAnalysis
    createdAt
    updatedAt
  }
`;

/** A whole campaign, its long texts included (campaign_get only). */
const CAMPAIGN = /* GraphQL */ `
  fragment McpCampaign on Campaign {
    ...McpCampaignSummary
    description
    purpose
    script
    systemPrompt
    firstLine
    knowledgeBase
    calendar
    postCallAnalysisSchema
  }
  ${CAMPAIGN_SUMMARY}
`;

const PAGE_INFO = 'pageInfo { hasNextPage endCursor }';

const TEXT_PIPELINE = /* GraphQL */ `
  fragment McpTextPipeline on TextPipeline {
    campId
    goal
    messageDelay
    mexRetry
    retryDelay
    postWebhook
    postWebhookDelay
    updatedAt
  }
`;

const CALL_LOG = /* GraphQL */ `
  fragment McpCallLog on CallLog {
    callId
    campId
    status
    callDirection
    fromNumber
    toNumber
    startedAt
    endedAt
    durationSeconds
    cost
    recordingUrl
    summary @include(if: $withTexts)
    analysis @include(if: $withTexts)
    transcript @include(if: $withTexts)
  }
`;

const MEETING = /* GraphQL */ `
  fragment McpMeeting on Meeting {
    meetingId
    campId
    title
    status
    startsAt
    endsAt
    timeZone
    participants {
      name
      email
      phone
    }
  }
`;

const WEBHOOK = /* GraphQL */ `
  fragment McpWebhook on Webhook {
    webhookId
    url
    eventTypes
    description
    enabled
    disabledReason
    createdAt
    updatedAt
  }
`;

const DELIVERY = /* GraphQL */ `
  fragment McpDelivery on WebhookDelivery {
    deliveryId
    webhookId
    campId
    eventId
    eventType
    status
    attempts
    lastResponseCode
    lastError
    nextAttemptAt
    createdAt
  }
`;

const INTEGRATIONS = /* GraphQL */ `
  fragment McpIntegrations on Integrations {
    telephony {
      connected
      telephonyAccountSid
      telephonyAuthToken
      telephonyPhoneNumber
      voiceProvider
      updatedAt
    }
    board {
      connected
      workspace
      boardId
      apiKey
      updatedAt
    }
    calendar {
      connected
      schedulingUrl
      eventTypeId
      apiKey
      updatedAt
    }
    erp {
      connected
      erpUrl
      apiKey
      secret
      updatedAt
    }
    social {
      connected
      pageId
      accessToken
      appSecret
      verifyToken
      updatedAt
    }
    chat {
      connected
      workspace
      channelId
      botToken
      updatedAt
    }
  }
`;

/**
 * A mutation of the convention (docs/graphql.md#mutations): `<field>(input: $input)` with `$input: <Operation>Input!`,
 * the field being the operation's name in lowerCamelCase (CampaignPause → campaignPause(input: CampaignPauseInput!)).
 */
const conventionMutation = (operation: string, payload: string, ...fragments: string[]) => /* GraphQL */ `
  mutation ${operation}($input: ${operation}Input!) {
    ${operation.charAt(0).toLowerCase()}${operation.slice(1)}(input: $input) {
      ${payload}
    }
  }
  ${fragments.join('\n')}
`;

const CAMPAIGN_PAYLOAD = 'campaign { ...McpCampaignSummary }';
/** A change of status answers what changed. */
const CAMPAIGN_STATUS_PAYLOAD = 'campaign { campId title status updatedAt }';
const WEBHOOK_PAYLOAD = 'webhook { ...McpWebhook }';
const MEETING_PAYLOAD = 'meeting { ...McpMeeting }';

/** An integration kind's connect and disconnect mutations (its fields as `integration`; secrets masked). */
const integrationMutations = (kind: string, fields: string) => [
  conventionMutation(`${kind}Connect`, `integration { connected ${fields} updatedAt }`),
  /* GraphQL */ `
    mutation ${kind}Disconnect {
      ${kind.toLowerCase()}Disconnect {
        integration {
          connected
        }
      }
    }
  `,
];

export const MCP_OPERATIONS: readonly string[] = [
  // Campaigns
  /* GraphQL */ `
    query CampaignList(
      $first: Int
      $after: String
      $status: CampaignStatus
      $search: String
      $orderBy: CampaignOrder
      $filter: CampaignFilter
    ) {
      campaigns(first: $first, after: $after, status: $status, search: $search, orderBy: $orderBy, filter: $filter) {
        edges {
          _mcpCursor: cursor
          node {
            ...McpCampaignSummary
          }
        }
        ${PAGE_INFO}
      }
    }
    ${CAMPAIGN_SUMMARY}
  `,
  /* GraphQL */ `
    query CampaignGet($campId: String!) {
      campaign(campId: $campId) {
        ...McpCampaign
        voice {
          voiceId
          name
          language
          gender
        }
        textPipeline {
          ...McpTextPipeline
        }
      }
    }
    ${CAMPAIGN}
    ${TEXT_PIPELINE}
  `,
  /* GraphQL */ `
    query CampaignMetrics($campId: String!) {
      campaign(campId: $campId) {
        metrics {
          totalCallTime
          totalNumCall
          totalSpent
          averageCallCost
        }
      }
    }
  `,
  conventionMutation('CampaignCreate', CAMPAIGN_PAYLOAD, CAMPAIGN_SUMMARY),
  conventionMutation('CampaignUpdate', CAMPAIGN_PAYLOAD, CAMPAIGN_SUMMARY),
  conventionMutation('CampaignDelete', 'deletedId campaign { campId title }'),
  conventionMutation('CampaignPause', CAMPAIGN_STATUS_PAYLOAD),
  conventionMutation('CampaignResume', CAMPAIGN_STATUS_PAYLOAD),
  conventionMutation('CampaignComplete', CAMPAIGN_STATUS_PAYLOAD),

  // Voices
  /* GraphQL */ `
    query VoiceList($language: String) {
      voices(language: $language) {
        voiceId
        name
        language
        gender
        accent
        provider
        previewUrl
      }
    }
  `,

  // Text pipeline
  conventionMutation('TextPipelineSet', 'textPipeline { ...McpTextPipeline }', TEXT_PIPELINE),
  conventionMutation('TextPipelineDelete', 'deletedId textPipeline { campId }'),

  // Integrations (secrets masked, as everywhere)
  /* GraphQL */ `
    query IntegrationList {
      viewer {
        integrations {
          ...McpIntegrations
        }
      }
    }
    ${INTEGRATIONS}
  `,
  ...integrationMutations('Telephony', 'telephonyAccountSid telephonyAuthToken telephonyPhoneNumber voiceProvider'),
  ...integrationMutations('Board', 'workspace boardId apiKey'),
  ...integrationMutations('Calendar', 'schedulingUrl eventTypeId apiKey'),
  ...integrationMutations('Erp', 'erpUrl apiKey secret'),
  ...integrationMutations('Social', 'pageId accessToken appSecret verifyToken'),
  ...integrationMutations('Chat', 'workspace channelId botToken'),

  // Call logs
  /* GraphQL */ `
    query CallLogList(
      $first: Int
      $after: String
      $campId: String
      $status: CallStatus
      $since: DateTime
      $until: DateTime
      $orderBy: CallLogOrder
      $filter: CallLogFilter
      $withTexts: Boolean = false
    ) {
      callLogs(
        first: $first
        after: $after
        campId: $campId
        status: $status
        since: $since
        until: $until
        orderBy: $orderBy
        filter: $filter
      ) {
        edges {
          _mcpCursor: cursor
          node {
            ...McpCallLog
          }
        }
        ${PAGE_INFO}
      }
    }
    ${CALL_LOG}
  `,

  // Call statistics over time: each bucket's calls, answered calls and spend (a year of days fits the answer budget,
  // test/mcp/answer-sizes.test.ts); the totals carry every counter
  /* GraphQL */ `
    query CallStats(
      $campIds: [String!]
      $from: DateTime!
      $to: DateTime!
      $bucket: CallStatsBucketSize = DAY
      $timeZone: String = "UTC"
    ) {
      callStats(campIds: $campIds, from: $from, to: $to, bucket: $bucket, timeZone: $timeZone) {
        bucket
        timeZone
        buckets {
          localStart
          calls
          answered
          spend
        }
        totals {
          calls
          answered
          completed
          failed
          noAnswer
          busy
          canceled
          ongoing
          totalDurationSeconds
          averageDurationSeconds
          spend
          averageCost
        }
      }
    }
  `,

  // Meetings
  /* GraphQL */ `
    query MeetingUpcomingList($limit: Int = 50) {
      upcomingMeetings(limit: $limit) {
        ...McpMeeting
      }
    }
    ${MEETING}
  `,
  /* GraphQL */ `
    query MeetingGet($meetingId: String!) {
      meeting(meetingId: $meetingId) {
        ...McpMeeting
      }
    }
    ${MEETING}
  `,
  conventionMutation('MeetingBook', MEETING_PAYLOAD, MEETING),
  conventionMutation('MeetingCancel', MEETING_PAYLOAD, MEETING),

  // Webhooks and their deliveries
  /* GraphQL */ `
    query WebhookList {
      webhooks {
        ...McpWebhook
      }
    }
    ${WEBHOOK}
  `,
  /* GraphQL */ `
    query WebhookGet($webhookId: String!) {
      webhook(webhookId: $webhookId) {
        ...McpWebhook
      }
    }
    ${WEBHOOK}
  `,
  /* GraphQL */ `
    query WebhookDeliveryList($webhookId: String!, $first: Int, $after: String) {
      webhook(webhookId: $webhookId) {
        deliveries(first: $first, after: $after) {
          edges {
            _mcpCursor: cursor
            node {
              ...McpDelivery
            }
          }
          ${PAGE_INFO}
        }
      }
    }
    ${DELIVERY}
  `,
  conventionMutation('WebhookCreate', WEBHOOK_PAYLOAD, WEBHOOK),
  conventionMutation('WebhookUpdate', WEBHOOK_PAYLOAD, WEBHOOK),
  conventionMutation('WebhookDelete', 'deletedId webhook { webhookId url }'),
  conventionMutation('WebhookAttach', WEBHOOK_PAYLOAD, WEBHOOK),
  conventionMutation('WebhookDetach', WEBHOOK_PAYLOAD, WEBHOOK),
  conventionMutation('WebhookDeliveryRedeliver', 'delivery { ...McpDelivery }', DELIVERY),
];
