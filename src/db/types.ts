// The Database interface Kysely checks queries against. Timestamps are ISO 8601 UTC text, booleans 0/1,
// JSON as text: the same representation on SQLite and PostgreSQL (row mappers in src/domain convert).
import type { Generated } from 'kysely';

export interface AccountsTable {
  id: string;
  email: string;
  password_hash: string;
  api_key_hash: string;
  api_key_hint: string;
  created_at: string;
  /** Bumped by API-key rotation and password changes: tokens of an older version are refused. */
  token_version: Generated<number>;
}

export interface AccessTokensTable {
  token_id: string;
  account_id: string;
  name: string;
  /** SHA-256 of the token, hex: the token itself is never stored. */
  token_hash: string;
  token_hint: string;
  /** 0/1: a read-only token cannot run mutations. */
  read_only: number;
  created_at: string;
  expires_at: string | null;
  /** 'mcp': issued through OAuth for /mcp and good there only; null: good on every door. */
  resource: TokenResource | null;
}

/** The one door a token is bound to (RFC 8707's resource, by the door's name). */
export type TokenResource = 'mcp';

export interface VoicesTable {
  voice_id: string;
  name: string;
  language: string;
  gender: string;
  accent: string;
  provider: string;
  preview_url: string;
  sort_order: number;
}

/**
 * The columns of the campaign's model fields, as stored (booleans as 0/1, JSON as text). Each is declared as a field in
 * src/domain/campaigns.schema.ts, and the compiler checks there that the two lists agree, column for column.
 */
export interface CampaignModelColumns {
  title: string;
  voice: string;
  language: string;
  script: string;
  purpose: string;
  knowledge_base: string;
  calendar: string;
  first_line: string;
  flow_name: string;
  system_prompt: string;
  tone: string;
  max_call_timeout: number;
  inactive_call_timeout: number;
  post_call_analysis: number;
  post_call_analysis_schema: string;
  time_zone: string;
  is_freeflow: number;
  public: number;
  sample_sid: string;
  description: string;
}

export type CampaignsTable = CampaignModelColumns & {
  account_id: string;
  camp_id: string;
  status: string;
  created_at: string;
  updated_at: string;
};

export interface PersistedQueriesTable {
  /** The SHA-256 of `query`, hex. */
  hash: string;
  query: string;
  created_at: string;
}

export interface TextPipelinesTable {
  account_id: string;
  camp_id: string;
  goal: string;
  message_delay: number;
  mex_retry: number;
  retry_delay: number;
  post_webhook: string | null;
  post_webhook_delay: number;
  updated_at: string;
}

export interface IntegrationsTable {
  account_id: string;
  kind: string;
  /** JSON object of the plain fields. */
  fields: string;
  /** AES-256-GCM envelope (src/security/secrets.ts) of a JSON object of the secret fields. */
  secrets: string;
  updated_at: string;
}

export interface CallLogsTable {
  account_id: string;
  call_id: string;
  camp_id: string;
  direction: string | null;
  from_number: string | null;
  to_number: string | null;
  status: string;
  status_rank: number;
  started_at: string;
  ended_at: string | null;
  duration_seconds: number | null;
  cost: number | null;
  recording_url: string | null;
  transcript: string | null;
  summary: string | null;
  analysis: string | null;
  /** The analysis's short top-level results, as src/db/analysis-results.ts writes them (migration 0022). */
  analysis_results: Generated<string | null>;
  created_at: string;
  updated_at: string;
}

/** The counters the call-stats triggers keep (migrations/0020_call_stats.ts); pg reads bigint as a string. */
export interface CallCounters {
  calls: number | string;
  answered: number | string;
  completed: number | string;
  failed: number | string;
  no_answer: number | string;
  busy: number | string;
  canceled: number | string;
  /** Seconds, summed over the calls that reported a duration. */
  seconds: number | string;
  /** How many calls reported a duration. */
  timed: number | string;
  /** Spend in millionths of the currency unit. */
  spent_micros: number | string;
  /** How many calls reported a cost. */
  costed: number | string;
}

/** One campaign's calls started in one UTC hour ('2026-12-03T11'). */
export interface CallStatsHoursTable extends CallCounters {
  account_id: string;
  camp_id: string;
  hour: string;
}

/** One account's calls (every campaign) started in one UTC hour. */
export interface AccountCallStatsHoursTable extends CallCounters {
  account_id: string;
  hour: string;
}

/** One campaign's calls, all time. */
export interface CampaignCallTotalsTable extends CallCounters {
  account_id: string;
  camp_id: string;
}

export interface MeetingsTable {
  account_id: string;
  meeting_id: string;
  camp_id: string;
  title: string;
  starts_at: string;
  ends_at: string;
  time_zone: string;
  /** JSON array of {name, email, phone}. */
  participants: string;
  status: string;
  created_at: string;
  updated_at: string;
}

export interface SocialMessagesTable {
  account_id: string;
  message_id: string;
  camp_id: string;
  sender: string;
  text: string | null;
  received_at: string;
  created_at: string;
}

export interface WebhooksTable {
  webhook_id: string;
  account_id: string;
  url: string;
  /** JSON array of event types; empty means all. */
  events: string;
  description: string | null;
  enabled: number;
  disabled_reason: string | null;
  secret_sealed: string;
  created_at: string;
  updated_at: string;
}

export interface WebhookCampaignsTable {
  webhook_id: string;
  account_id: string;
  camp_id: string;
  created_at: string;
}

export interface EventsTable {
  event_id: string;
  account_id: string;
  camp_id: string;
  type: string;
  /** The JSON body sent to receivers, byte for byte. */
  payload: string;
  created_at: string;
  /** The fan-out that has yet to write this event's delivery rows (migration 0017), else null. */
  fan_out_id: string | null;
  /**
   * The W3C traceparent of the span that wrote the event, which its delivery attempts link to (migration 0019); null
   * when the write was not traced.
   */
  trace_parent: string | null;
}

/** A fan-out to expand into delivery rows a slice at a time (src/domain/fan-outs.ts, migration 0017). */
export interface FanOutsTable {
  fan_out_id: string;
  account_id: string;
  camp_id: string;
  /** JSON array of FanOutTarget. */
  targets: string;
  turn_at: string;
  created_at: string;
}

export interface WebhookDeliveriesTable {
  delivery_id: string;
  account_id: string;
  camp_id: string;
  event_id: string;
  webhook_id: string | null;
  target_url: string | null;
  /** JSON array of seconds, or null for WEBHOOK_RETRY_SCHEDULE. */
  retry_delays: string | null;
  status: string;
  attempts: number;
  retries: number;
  next_attempt_at: string | null;
  lease_owner: string | null;
  last_response_code: number | null;
  last_error: string | null;
  created_at: string;
  updated_at: string;
}

/** oidc-provider's artefacts (src/domain/oauth-artifacts.ts): one row per model and id. */
export interface OAuthArtifactsTable {
  model: string;
  id: string;
  payload: string;
  grant_id: string | null;
  uid: string | null;
  expires_at: string | null;
  consumed_at: string | null;
  /** A registration not yet used to authorise: the address (IPv6: /64) it came from (migration 0018). */
  pending_address: string | null;
}

/** Idempotency keys of the create operations without a natural key (migration 0016). */
export interface IdempotencyKeysTable {
  account_id: string;
  scope: string;
  key_digest: string;
  input_digest: string;
  result_id: string;
  expires_at: string;
}

export interface Database {
  accounts: AccountsTable;
  access_tokens: AccessTokensTable;
  voices: VoicesTable;
  campaigns: CampaignsTable;
  text_pipelines: TextPipelinesTable;
  integrations: IntegrationsTable;
  call_logs: CallLogsTable;
  call_stats_hours: CallStatsHoursTable;
  account_call_stats_hours: AccountCallStatsHoursTable;
  campaign_call_totals: CampaignCallTotalsTable;
  meetings: MeetingsTable;
  social_messages: SocialMessagesTable;
  webhooks: WebhooksTable;
  webhook_campaigns: WebhookCampaignsTable;
  events: EventsTable;
  fan_outs: FanOutsTable;
  webhook_deliveries: WebhookDeliveriesTable;
  persisted_queries: PersistedQueriesTable;
  oauth_artifacts: OAuthArtifactsTable;
  idempotency_keys: IdempotencyKeysTable;
}
