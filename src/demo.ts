// `npm run seed:demo`: a demo account to explore with — campaigns in every state, call logs with costs, a text
// pipeline, telephony and calendar integrations, upcoming meetings and a webhook, created paused (its URL is an
// example's: enabled, every retry of every delivery would fail and be logged). Running it again starts the demo
// account over (its old data is deleted), so its API key is new each time.
import type { Kysely } from 'kysely';
import type { Config } from './core/config.js';
import type { Database } from './db/types.js';
import { deleteAccountByEmail, signUp } from './domain/accounts.js';
import { applyCallStatus } from './domain/call-logs.js';
import type { CallStatus } from './domain/call-logs.schema.js';
import { createCampaign, transitionCampaign } from './domain/campaigns.js';
import { connectIntegration } from './domain/integrations.js';
import { calendar, telephony } from './domain/integrations.schema.js';
import { bookMeeting } from './domain/meetings.js';
import { setTextPipeline } from './domain/pipelines.js';
import { attachWebhook, createWebhook, updateWebhook } from './domain/webhooks.js';
import { createSecretBox } from './security/secrets.js';

export const DEMO_EMAIL = 'demo@example.com';
export const DEMO_PASSWORD = 'demo-password';
/** The demo's telephony auth token: what signs its call-status callbacks (seed:demo prints it, callback:send uses it). */
export const DEMO_TELEPHONY_TOKEN = 'demo-telephony-auth-token';

const CAMPAIGNS = [
  {
    campId: 'spring-outreach',
    title: 'Spring outreach',
    voice: 'en-US-aria',
    language: 'en-US',
    purpose: 'Confirm dental check-up appointments',
    status: 'active',
  },
  {
    campId: 'renewal-reminders',
    title: 'Renewal reminders',
    voice: 'en-GB-ryan',
    language: 'en-GB',
    purpose: 'Remind customers that their contract renews next month',
    status: 'paused',
  },
  {
    campId: 'winter-survey',
    title: 'Winter satisfaction survey',
    voice: 'fr-FR-denise',
    language: 'fr-FR',
    purpose: 'Ask three questions about last winter’s service',
    status: 'completed',
  },
  {
    campId: 'webinar-invites',
    title: 'Webinar invitations',
    voice: 'es-ES-elvira',
    language: 'es-ES',
    purpose: 'Invite leads to the product webinar',
    status: 'active',
  },
] as const;

const OUTCOMES: CallStatus[] = ['completed', 'completed', 'completed', 'no-answer', 'busy', 'completed', 'failed'];

export interface DemoAccount {
  email: string;
  password: string;
  apiKey: string;
  telephonyAuthToken: string;
  campaigns: number;
  callLogs: number;
  meetings: number;
}

export async function seedDemo(db: Kysely<Database>, config: Config): Promise<DemoAccount> {
  const box = createSecretBox(config.SECRETS_KEY);
  await deleteAccountByEmail(db, DEMO_EMAIL);
  const { account, apiKey } = await signUp(
    db,
    { email: DEMO_EMAIL, password: DEMO_PASSWORD },
    { allowSignup: true, passwordCost: config.PASSWORD_HASH_COST },
  );
  const accountId = account.id;

  for (const [index, c] of CAMPAIGNS.entries()) {
    await createCampaign(db, accountId, {
      campId: c.campId,
      title: c.title,
      voice: c.voice,
      language: c.language,
      script: `Hello, this is an automated call from Demo Dental. ${c.purpose}.`,
      purpose: c.purpose,
      knowledgeBase: 'https://example.com/kb/demo',
      calendar: 'demo-calendar',
      firstLine: 'Hi, do you have a minute?',
      tone: index % 2 === 0 ? 'friendly' : 'professional',
      postCallAnalysisSchema: {
        type: 'object',
        properties: { confirmed: { type: 'boolean' }, callback: { type: 'string' } },
      },
      postCallAnalysis: index === 0,
      description: `Demo campaign ${index + 1}`,
    });
  }

  // Two weeks of calls, oldest first; each goes ringing → its outcome, as the provider's callbacks would.
  let callLogs = 0;
  const now = Date.now();
  for (const [index, c] of CAMPAIGNS.entries()) {
    for (let n = 0; n < 12 - index * 2; n += 1) {
      const callId = `CA${c.campId.replace(/-/g, '').slice(0, 10)}${String(n).padStart(4, '0')}`;
      const startedAt = now - (14 * 24 - n * 20 - index * 3) * 3600_000;
      const status = OUTCOMES[(n + index) % OUTCOMES.length] ?? 'completed';
      const duration = status === 'completed' ? 45 + ((n * 37 + index * 11) % 240) : 0;
      const common = { callId, direction: 'outbound-api', from: '+14155550100', to: `+1415555${String(2000 + n)}` };
      await applyCallStatus(db, accountId, c.campId, {
        ...common,
        status: 'ringing',
        receivedAt: new Date(startedAt).toISOString(),
      });
      await applyCallStatus(db, accountId, c.campId, {
        ...common,
        status,
        durationSeconds: duration,
        cost: Math.round(duration * 0.0021 * 10000) / 10000,
        receivedAt: new Date(startedAt + (duration + 8) * 1000).toISOString(),
      });
      callLogs += 1;
    }
  }

  await setTextPipeline(
    db,
    accountId,
    'spring-outreach',
    {
      goal: 'Follow up by text with the booking link',
      messageDelay: 2,
      mexRetry: 2,
      retryDelay: 1,
      postWebhookDelay: 0,
    },
    { allowPrivate: false },
  );
  await connectIntegration(db, box, accountId, telephony, {
    telephonyAccountSid: 'AC00000000000000000000000000demo',
    telephonyAuthToken: DEMO_TELEPHONY_TOKEN,
    telephonyPhoneNumber: '+14155550100',
    voiceProvider: 'TELEPHONY',
  });
  await connectIntegration(db, box, accountId, calendar, {
    apiKey: 'demo-calendar-api-key',
    schedulingUrl: 'https://calendar.example.com/demo-dental',
  });
  const day = 24 * 3600_000;
  const startOfTomorrow = Math.ceil(now / day) * day;
  const meetings = [
    { title: 'Check-up: Ana Lima', at: startOfTomorrow + 9 * 3600_000, who: 'Ana Lima', email: 'ana@example.com' },
    { title: 'Check-up: Ben Ode', at: startOfTomorrow + 10 * 3600_000, who: 'Ben Ode', email: 'ben@example.com' },
    {
      title: 'Webinar demo: Chen Wu',
      at: startOfTomorrow + day + 15 * 3600_000,
      who: 'Chen Wu',
      email: 'chen@example.com',
    },
  ];
  for (const [index, m] of meetings.entries()) {
    await bookMeeting(db, accountId, {
      campId: index < 2 ? 'spring-outreach' : 'webinar-invites',
      title: m.title,
      startsAt: new Date(m.at).toISOString(),
      endsAt: new Date(m.at + 30 * 60_000).toISOString(),
      timeZone: 'Europe/Lisbon',
      participants: [{ name: m.who, email: m.email }],
    });
  }

  // States last (a completed campaign can no longer change); the webhook last, so seeding sends it nothing, and
  // paused: hooks.example.com answers nobody, so an enabled one would log a failed delivery on every retry.
  for (const c of CAMPAIGNS) {
    if (c.status === 'paused') await transitionCampaign(db, accountId, c.campId, 'pause');
    if (c.status === 'completed') await transitionCampaign(db, accountId, c.campId, 'complete');
  }
  const webhook = await createWebhook(
    db,
    box,
    accountId,
    {
      url: 'https://hooks.example.com/demo',
      events: ['call.ended', 'meeting.booked'],
      description: 'Demo receiver: point it at yours, then enable it (webhookUpdate)',
    },
    { allowPrivate: false },
  );
  await updateWebhook(db, accountId, webhook.webhookId, { enabled: false }, { allowPrivate: false });
  await attachWebhook(db, accountId, webhook.webhookId, 'spring-outreach');

  return {
    email: DEMO_EMAIL,
    password: DEMO_PASSWORD,
    apiKey,
    telephonyAuthToken: DEMO_TELEPHONY_TOKEN,
    campaigns: CAMPAIGNS.length,
    callLogs,
    meetings: meetings.length,
  };
}
