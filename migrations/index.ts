// Every migration, by name; names sort in the order they run. Migrations are frozen once shipped.
import type { Migration } from 'kysely';
import * as m0001 from './0001_accounts.js';
import * as m0002 from './0002_voices.js';
import * as m0003 from './0003_campaigns.js';
import * as m0004 from './0004_text_pipelines.js';
import * as m0005 from './0005_integrations.js';
import * as m0006 from './0006_call_logs.js';
import * as m0007 from './0007_meetings.js';
import * as m0008 from './0008_social_messages.js';
import * as m0009 from './0009_webhooks.js';
import * as m0010 from './0010_token_version.js';
import * as m0011 from './0011_persisted_queries.js';
import * as m0012 from './0012_voice_provider.js';
import * as m0013 from './0013_access_tokens.js';
import * as m0014 from './0014_oauth_artifacts.js';
import * as m0015 from './0015_access_token_resource.js';
import * as m0016 from './0016_idempotency_keys.js';
import * as m0017 from './0017_fan_out_slices.js';
import * as m0018 from './0018_oauth_pending_clients.js';
import * as m0019 from './0019_event_trace_parent.js';
import * as m0020 from './0020_call_stats.js';
import * as m0021 from './0021_list_orders.js';
import * as m0022 from './0022_list_filters.js';

export const migrations: Record<string, Migration> = {
  '0001_accounts': m0001,
  '0002_voices': m0002,
  '0003_campaigns': m0003,
  '0004_text_pipelines': m0004,
  '0005_integrations': m0005,
  '0006_call_logs': m0006,
  '0007_meetings': m0007,
  '0008_social_messages': m0008,
  '0009_webhooks': m0009,
  '0010_token_version': m0010,
  '0011_persisted_queries': m0011,
  '0012_voice_provider': m0012,
  '0013_access_tokens': m0013,
  '0014_oauth_artifacts': m0014,
  '0015_access_token_resource': m0015,
  '0016_idempotency_keys': m0016,
  '0017_fan_out_slices': m0017,
  '0018_oauth_pending_clients': m0018,
  '0019_event_trace_parent': m0019,
  '0020_call_stats': m0020,
  '0021_list_orders': m0021,
  '0022_list_filters': m0022,
};
