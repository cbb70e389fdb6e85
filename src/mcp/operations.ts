// The MCP door's tools, declared once: each is a named operation on the public graph (current fields only), and
// everything else about the tool (its name, description, input and output schemas, annotations) is derived from the
// operation and the schema (src/mcp/tools.ts, docs/mcp.md). A tool's name is its operation's name in snake_case.
// Webhook signing secrets are not selected: an agent does not need them, and a model's context is no place for one.

const CAMPAIGN = /* GraphQL */ `
  fragment McpCampaign on Campaign {
    id
    campId
    status
    title
    description
    purpose
    tone
    language
    timeZone
    voiceId
    script
    systemPrompt
    firstLine
    knowledgeBase
    calendar
    flowName
    sampleSid
    isFreeflow
    public
    maxCallTimeout
    inactiveCallTimeout
    postCallAnalysis
    postCallAnalysisSchema
    createdAt
    updatedAt
  }
`;

const PAGE_INFO = 'pageInfo { hasNextPage endCursor }';

const TEXT_PIPELINE = /* GraphQL */ `
  fragment McpTextPipeline on TextPipeline {
    id
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
    id
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
    summary
    analysis
    recordingUrl
  }
`;

const MEETING = /* GraphQL */ `
  fragment McpMeeting on Meeting {
    id
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
    id
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
    id
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

/** A campaign mutation of the convention that takes `input: { campId }` and answers the campaign. */
const campaignByIdMutation = (operation: string, field: string, input: string) => /* GraphQL */ `
  mutation ${operation}($input: ${input}!) {
    ${field}(input: $input) {
      campaign {
        ...McpCampaign
      }
    }
  }
  ${CAMPAIGN}
`;

/** An integration kind's connect and disconnect mutations (its fields as `integration`; secrets masked). */
const integrationMutations = (kind: string, fields: string) => [
  /* GraphQL */ `
    mutation ${kind}Connect($input: ${kind}ConnectInput!) {
      ${kind.toLowerCase()}Connect(input: $input) {
        integration {
          connected
          ${fields}
          updatedAt
        }
      }
    }
  `,
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
    query CampaignList($first: Int, $after: String, $status: CampaignStatus, $search: String) {
      campaigns(first: $first, after: $after, status: $status, search: $search) {
        edges {
          cursor
          node {
            ...McpCampaign
          }
        }
        ${PAGE_INFO}
      }
    }
    ${CAMPAIGN}
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
  /* GraphQL */ `
    mutation CampaignCreate($input: CampaignCreateInput!) {
      campaignCreate(input: $input) {
        campaign {
          ...McpCampaign
        }
      }
    }
    ${CAMPAIGN}
  `,
  /* GraphQL */ `
    mutation CampaignUpdate($input: CampaignUpdateInput!) {
      campaignUpdate(input: $input) {
        campaign {
          ...McpCampaign
        }
      }
    }
    ${CAMPAIGN}
  `,
  /* GraphQL */ `
    mutation CampaignDelete($input: CampaignDeleteInput!) {
      campaignDelete(input: $input) {
        deletedId
        campaign {
          campId
          title
        }
      }
    }
  `,
  campaignByIdMutation('CampaignPause', 'campaignPause', 'CampaignPauseInput'),
  campaignByIdMutation('CampaignResume', 'campaignResume', 'CampaignResumeInput'),
  campaignByIdMutation('CampaignComplete', 'campaignComplete', 'CampaignCompleteInput'),

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
  /* GraphQL */ `
    mutation TextPipelineSet($input: TextPipelineSetInput!) {
      textPipelineSet(input: $input) {
        textPipeline {
          ...McpTextPipeline
        }
      }
    }
    ${TEXT_PIPELINE}
  `,
  /* GraphQL */ `
    mutation TextPipelineDelete($input: TextPipelineDeleteInput!) {
      textPipelineDelete(input: $input) {
        deletedId
        textPipeline {
          campId
        }
      }
    }
  `,

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
    ) {
      callLogs(first: $first, after: $after, campId: $campId, status: $status, since: $since, until: $until) {
        edges {
          cursor
          node {
            ...McpCallLog
          }
        }
        ${PAGE_INFO}
      }
    }
    ${CALL_LOG}
  `,
  /* GraphQL */ `
    query CampaignCallLogList(
      $campId: String!
      $first: Int
      $after: String
      $status: CallStatus
      $since: DateTime
      $until: DateTime
    ) {
      campaign(campId: $campId) {
        callLogs(first: $first, after: $after, status: $status, since: $since, until: $until) {
          edges {
            cursor
            node {
              ...McpCallLog
              transcript
            }
          }
          ${PAGE_INFO}
        }
      }
    }
    ${CALL_LOG}
  `,

  // Meetings
  /* GraphQL */ `
    query MeetingUpcomingList($limit: Int!) {
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
  /* GraphQL */ `
    mutation MeetingBook($input: MeetingBookInput!) {
      meetingBook(input: $input) {
        meeting {
          ...McpMeeting
        }
      }
    }
    ${MEETING}
  `,
  /* GraphQL */ `
    mutation MeetingCancel($input: MeetingCancelInput!) {
      meetingCancel(input: $input) {
        meeting {
          ...McpMeeting
        }
      }
    }
    ${MEETING}
  `,

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
            cursor
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
  /* GraphQL */ `
    mutation WebhookCreate($input: WebhookCreateInput!) {
      webhookCreate(input: $input) {
        webhook {
          ...McpWebhook
        }
      }
    }
    ${WEBHOOK}
  `,
  /* GraphQL */ `
    mutation WebhookUpdate($input: WebhookUpdateInput!) {
      webhookUpdate(input: $input) {
        webhook {
          ...McpWebhook
        }
      }
    }
    ${WEBHOOK}
  `,
  /* GraphQL */ `
    mutation WebhookDelete($input: WebhookDeleteInput!) {
      webhookDelete(input: $input) {
        deletedId
        webhook {
          webhookId
          url
        }
      }
    }
  `,
  /* GraphQL */ `
    mutation WebhookAttach($input: WebhookAttachInput!) {
      webhookAttach(input: $input) {
        webhook {
          ...McpWebhook
        }
      }
    }
    ${WEBHOOK}
  `,
  /* GraphQL */ `
    mutation WebhookDetach($input: WebhookDetachInput!) {
      webhookDetach(input: $input) {
        webhook {
          ...McpWebhook
        }
      }
    }
    ${WEBHOOK}
  `,
  /* GraphQL */ `
    mutation WebhookDeliveryRedeliver($input: WebhookDeliveryRedeliverInput!) {
      webhookDeliveryRedeliver(input: $input) {
        delivery {
          ...McpDelivery
        }
      }
    }
    ${DELIVERY}
  `,
];
