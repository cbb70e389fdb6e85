// The route table: every legacy /api/v3 path, each a prepared GraphQL operation.
import type { RestRoute } from './route.js';
import { accountRoutes } from './routes/accounts.js';
import { callLogRoutes } from './routes/call-logs.js';
import { campaignRoutes } from './routes/campaigns.js';
import { integrationRoutes } from './routes/integrations.js';
import { meetingRoutes } from './routes/meetings.js';
import { pipelineRoutes } from './routes/pipelines.js';
import { socialRoutes } from './routes/social.js';
import { voiceRoutes } from './routes/voices.js';
import { webhookRoutes } from './routes/webhooks.js';

export const routes: readonly RestRoute[] = [
  ...accountRoutes,
  ...campaignRoutes,
  ...voiceRoutes,
  ...pipelineRoutes,
  ...integrationRoutes,
  ...callLogRoutes,
  ...meetingRoutes,
  ...socialRoutes,
  ...webhookRoutes,
];
