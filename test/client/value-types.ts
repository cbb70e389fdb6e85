// The public schema's object types without an identity: a normalised cache embeds them in the object that holds them
// (urql Graphcache `keys: { Type: () => null }`, Apollo `typePolicies: { Type: { keyFields: false } }`).
// Everything else is a Node, keyed by its global `id` (docs/graphql.md#global-ids). A test keeps this list exact.
export const VALUE_TYPES = [
  'AuthToken',
  'NewApiKey',
  'Integrations',
  'TelephonyIntegration',
  'BoardIntegration',
  'CalendarIntegration',
  'ErpIntegration',
  'SocialIntegration',
  'ChatIntegration',
  'CampaignMetrics',
  'Participant',
  'PageInfo',
  'CampaignConnection',
  'CampaignEdge',
  'CallLogConnection',
  'CallLogEdge',
  'SocialMessageConnection',
  'SocialMessageEdge',
  'WebhookDeliveryConnection',
  'WebhookDeliveryEdge',
  'MeetingConnection',
  'MeetingEdge',
] as const;
