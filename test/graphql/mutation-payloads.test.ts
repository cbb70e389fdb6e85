// The mutation convention (docs/graphql.md#mutations): every mutation that is not deprecated takes one `input:`
// argument (or none) and answers `<Mutation>Payload`; the verb-first mutations are deprecated aliases that still work.
// Each new mutation is run here once, through /graphql, and its payload read back.
import { getNamedType, isNonNullType, type GraphQLObjectType } from 'graphql';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { schema } from '../../src/graphql/schema/schema.js';
import { startApp, type TestApp } from '../helpers/app.js';
import { campaignInput } from '../helpers/campaigns.js';
import { AUTH_TOKEN, sendCallback } from '../helpers/telephony.js';

describe('the schema', () => {
  it('every mutation that is not deprecated takes input: <Mutation>Input (or nothing) and answers <Mutation>Payload', () => {
    const mutation = schema.getMutationType() as GraphQLObjectType;
    const current = Object.values(mutation.getFields()).filter((field) => !field.deprecationReason);
    expect(current.length).toBeGreaterThanOrEqual(34);
    for (const field of current) {
      expect(
        field.args.map((arg) => arg.name),
        field.name,
      ).toEqual(field.args.length === 0 ? [] : ['input']);
      const stem = `${field.name.charAt(0).toUpperCase()}${field.name.slice(1)}`;
      if (field.args[0]) {
        expect(isNonNullType(field.args[0].type), field.name).toBe(true);
        expect(getNamedType(field.args[0].type).name, field.name).toBe(`${stem}Input`);
      }
      expect(isNonNullType(field.type), field.name).toBe(true);
      expect(getNamedType(field.type).name, field.name).toBe(`${stem}Payload`);
    }
  });

  it('the account mutations follow it too: signUp, login, rotateApiKey and changePassword are deprecated', () => {
    const fields = (schema.getMutationType() as GraphQLObjectType).getFields();
    for (const [old, replacement] of [
      ['signUp', 'accountSignUp'],
      ['login', 'accountLogin'],
      ['rotateApiKey', 'accountApiKeyRotate'],
      ['changePassword', 'accountPasswordChange'],
    ] as const) {
      expect(fields[old]?.deprecationReason, old).toMatch(new RegExp(`^Use ${replacement} `));
    }
  });

  it('every deprecated mutation names its replacement, which exists', () => {
    const fields = (schema.getMutationType() as GraphQLObjectType).getFields();
    const deprecated = Object.values(fields).filter((field) => field.deprecationReason);
    expect(deprecated.length).toBeGreaterThanOrEqual(30);
    for (const field of deprecated) {
      const replacement = /^Use (\w+) /.exec(field.deprecationReason ?? '')?.[1];
      expect(replacement && fields[replacement], `${field.name}: ${field.deprecationReason}`).toBeTruthy();
    }
  });
});

describe('the mutations, through /graphql', () => {
  let t: TestApp;
  let token: string;
  let apiKey: string;
  beforeEach(async () => {
    t = await startApp({ ALLOW_PRIVATE_WEBHOOK_TARGETS: 'true' }, [], { worker: false });
    ({ token, apiKey } = await t.account());
  });
  afterEach(() => t.close());

  async function ok(query: string, variables: Record<string, unknown> = {}) {
    const reply = await t.gql(query, variables, token);
    expect(reply.body.errors, reply.text).toBeUndefined();
    return reply.body.data;
  }

  /** campaignInput in the new vocabulary: `voiceId` for `voice`. */
  const newCampaign = (overrides: Record<string, unknown> = {}) => {
    const { voice, ...rest } = campaignInput();
    return { ...rest, voiceId: voice, ...overrides };
  };

  it('campaigns: create, update, upsert, pause, resume, complete, delete', async () => {
    const created = await ok(
      `mutation ($input: CampaignCreateInput!) { campaignCreate(input: $input) { campaign { id campId status voiceId voice { id } } } }`,
      { input: newCampaign({ campId: 'spring' }) },
    );
    expect(created.campaignCreate.campaign).toMatchObject({
      campId: 'spring',
      status: 'ACTIVE',
      voiceId: 'en-US-aria',
    });

    const updated = await ok(
      `mutation { campaignUpdate(input: { campId: "spring", title: "Renamed", voiceId: "en-GB-ryan" }) { campaign { id title voiceId script } } }`,
    );
    expect(updated.campaignUpdate.campaign).toMatchObject({
      id: created.campaignCreate.campaign.id,
      title: 'Renamed',
      voiceId: 'en-GB-ryan',
      script: campaignInput().script,
    });

    const upserted = await ok(
      `mutation ($input: CampaignUpsertInput!) { campaignUpsert(input: $input) { campaign { campId title timeZone } } }`,
      { input: { ...newCampaign({ title: 'Whole' }), campId: 'autumn' } },
    );
    expect(upserted.campaignUpsert.campaign).toEqual({ campId: 'autumn', title: 'Whole', timeZone: 'UTC' });

    for (const [mutation, status] of [
      ['campaignPause', 'PAUSED'],
      ['campaignResume', 'ACTIVE'],
      ['campaignComplete', 'COMPLETED'],
    ]) {
      const data = await ok(`mutation { ${mutation}(input: { campId: "spring" }) { campaign { campId status } } }`);
      expect(data[mutation!].campaign).toEqual({ campId: 'spring', status });
    }
    const autumnId = (await ok('{ campaign(campId: "autumn") { id } }')).campaign.id;
    const deleted = await ok(
      `mutation { campaignDelete(input: { campId: "autumn" }) { campaign { id campId } deletedId } }`,
    );
    expect(deleted.campaignDelete.campaign.campId).toBe('autumn');
    // deletedId is the global id the campaign had: what a normalised cache removes.
    expect(deleted.campaignDelete.deletedId).toBe(autumnId);
    expect(deleted.campaignDelete.campaign.id).toBe(autumnId);
    expect((await ok('{ campaign(campId: "autumn") { campId } }')).campaign).toBeNull();
  });

  it('input problems are BAD_USER_INPUT at their path under input', async () => {
    const reply = await t.gql(
      `mutation ($input: CampaignCreateInput!) { campaignCreate(input: $input) { campaign { id } } }`,
      { input: newCampaign({ voiceId: 'no-such-voice', maxCallTimeout: 0 }) },
      token,
    );
    const [error] = reply.body.errors ?? [];
    expect(error?.extensions.code, reply.text).toBe('BAD_USER_INPUT');
    const paths = error.extensions.issues.map((issue: { path: unknown[] }) => issue.path.join('.'));
    expect(paths).toEqual(expect.arrayContaining(['input.voiceId', 'input.maxCallTimeout']));
    const unknownCampaign = await t.gql(
      'mutation { campaignPause(input: { campId: "nope" }) { campaign { id } } }',
      {},
      token,
    );
    expect(unknownCampaign.body.errors?.[0].extensions.code).toBe('NOT_FOUND');
  });

  it('problems the domain finds are located under input too', async () => {
    const strict = await startApp({}, [], { worker: false });
    try {
      const { token: strictToken } = await strict.account();
      const gql = async (query: string) => {
        const reply = await strict.gql(query, {}, strictToken);
        const issues = reply.body.errors?.[0]?.extensions?.issues;
        expect(issues, reply.text).toBeDefined();
        return issues.map((issue: { path: unknown[] }) => issue.path.join('.'));
      };
      await strict.gql(
        `mutation ($input: CampaignCreateInput!) { campaignCreate(input: $input) { campaign { id } } }`,
        {
          input: newCampaign({
            campId: 'spring',
            postCallAnalysis: true,
            postCallAnalysisSchema: { type: 'object', required: ['ok'] },
          }),
        },
        strictToken,
      );
      const created = await strict.gql(
        'mutation { webhookCreate(input: { url: "https://hooks.example.com/a" }) { webhook { webhookId } } }',
        {},
        strictToken,
      );
      const webhookId = created.body.data.webhookCreate.webhook.webhookId;
      expect(
        await gql(
          `mutation { webhookUpdate(input: { webhookId: "${webhookId}", url: "http://127.0.0.1/x" }) { webhook { id } } }`,
        ),
      ).toEqual(['input.url']);
      expect(
        await gql(
          'mutation { textPipelineSet(input: { campId: "spring", pipeline: { goal: "Book", postWebhook: "http://127.0.0.1/x" } }) { textPipeline { id } } }',
        ),
      ).toEqual(['input.pipeline.postWebhook']);
    } finally {
      await strict.close();
    }
  });

  it('text pipeline, integrations (disconnect answers the new state), meetings, call outcomes', async () => {
    await ok(`mutation ($input: CampaignCreateInput!) { campaignCreate(input: $input) { campaign { id } } }`, {
      input: newCampaign({ campId: 'spring' }),
    });
    const pipeline = await ok(
      `mutation { textPipelineSet(input: { campId: "spring", pipeline: { goal: "Book a follow-up", messageDelay: 2 } }) { textPipeline { id goal } } }`,
    );
    expect(pipeline.textPipelineSet.textPipeline.goal).toBe('Book a follow-up');
    const removed = await ok(
      `mutation { textPipelineDelete(input: { campId: "spring" }) { textPipeline { goal } deletedId } }`,
    );
    expect(removed.textPipelineDelete.textPipeline.goal).toBe('Book a follow-up');
    expect(removed.textPipelineDelete.deletedId).toBe(pipeline.textPipelineSet.textPipeline.id);

    // The new mutation's input is TelephonyConnectInput, where the closed set voiceProvider is its enum.
    const connected = await ok(
      `mutation ($input: TelephonyConnectInput!) { telephonyConnect(input: $input) { integration { connected telephonyAuthToken voiceProvider } account { id integrations { telephony { connected } } } } }`,
      {
        input: {
          telephonyAccountSid: 'AC123',
          telephonyAuthToken: AUTH_TOKEN,
          telephonyPhoneNumber: '+14155550100',
          voiceProvider: 'TELEPHONY',
        },
      },
    );
    expect(connected.telephonyConnect.integration).toEqual({
      connected: true,
      telephonyAuthToken: '****cdef',
      voiceProvider: 'TELEPHONY',
    });
    // The payload holds the account, so a cache sees the account's integrations change in the same answer.
    const viewerId = (await ok('{ viewer { id } }')).viewer.id;
    expect(connected.telephonyConnect.account).toEqual({
      id: viewerId,
      integrations: { telephony: { connected: true } },
    });
    const notInSet = await t.gql(
      'mutation { telephonyConnect(input: { telephonyAccountSid: "AC1", telephonyAuthToken: "t0ken", telephonyPhoneNumber: "+14155550100", voiceProvider: OTHER }) { integration { connected } } }',
      {},
      token,
    );
    expect(notInSet.body.errors?.[0].extensions).toEqual({
      code: 'BAD_USER_INPUT',
      issues: [{ path: ['input', 'voiceProvider'], type: 'enum', message: "Input should be 'TELEPHONY'" }],
    });

    // A call, reported by the provider, then its outcome attached.
    const callback = await sendCallback(t, apiKey, 'spring', { CallSid: 'CA1', CallStatus: 'completed' });
    expect(callback.status, callback.text).toBe(200);
    const outcome = await ok(
      `mutation { callLogRecordOutcome(input: { callId: "CA1", summary: "Booked" }) { callLog { id callId summary } } }`,
    );
    expect(outcome.callLogRecordOutcome.callLog).toMatchObject({ callId: 'CA1', summary: 'Booked' });
    // With postCallAnalysis, a failing analysis is located under input.analysis.
    await ok(
      'mutation { campaignUpdate(input: { campId: "spring", postCallAnalysis: true, postCallAnalysisSchema: { type: "object", required: ["ok"] } }) { campaign { id } } }',
    );
    const badAnalysis = await t.gql(
      'mutation { callLogRecordOutcome(input: { callId: "CA1", analysis: { other: 1 } }) { callLog { id } } }',
      {},
      token,
    );
    expect(badAnalysis.body.errors?.[0].extensions.issues.map((i: { path: unknown[] }) => i.path.join('.'))).toEqual([
      'input.analysis',
    ]);

    const disconnected = await ok(
      'mutation { telephonyDisconnect { integration { connected telephonyAccountSid updatedAt } account { id integrations { telephony { connected } } } } }',
    );
    expect(disconnected.telephonyDisconnect.integration).toEqual({
      connected: false,
      telephonyAccountSid: null,
      updatedAt: null,
    });
    expect(disconnected.telephonyDisconnect.account).toEqual({
      id: viewerId,
      integrations: { telephony: { connected: false } },
    });
    const again = await t.gql('mutation { telephonyDisconnect { integration { connected } } }', {}, token);
    expect(again.body.errors?.[0].extensions.code).toBe('NOT_FOUND');

    await ok(
      'mutation { calendarConnect(input: { apiKey: "cal-key-1234", schedulingUrl: "https://cal.example.com/x" }) { integration { connected } } }',
    );
    const booked = await ok(
      `mutation ($input: MeetingBookInput!) { meetingBook(input: $input) { meeting { id meetingId status } } }`,
      {
        input: {
          campId: 'spring',
          title: 'Follow-up',
          startsAt: '2030-01-01T10:00:00Z',
          endsAt: '2030-01-01T10:30:00Z',
          participants: [{ name: 'Ana', email: 'ana@example.com' }],
        },
      },
    );
    const meetingId = booked.meetingBook.meeting.meetingId;
    const canceled = await ok(
      `mutation ($id: String!) { meetingCancel(input: { meetingId: $id }) { meeting { meetingId status } } }`,
      { id: meetingId },
    );
    expect(canceled.meetingCancel.meeting).toEqual({ meetingId, status: 'CANCELED' });
  });

  it('webhooks: create, update, attach, detach, delete, redeliver', async () => {
    await ok(`mutation ($input: CampaignCreateInput!) { campaignCreate(input: $input) { campaign { id } } }`, {
      input: newCampaign({ campId: 'spring' }),
    });
    const created = await ok(
      'mutation { webhookCreate(input: { url: "http://127.0.0.1:9/hook", eventTypes: [CALL_ENDED] }) { webhook { webhookId eventTypes secret } } }',
    );
    const { webhookId } = created.webhookCreate.webhook;
    expect(created.webhookCreate.webhook.eventTypes).toEqual(['CALL_ENDED']);
    expect(created.webhookCreate.webhook.secret).toMatch(/^whsec_/);

    const updated = await ok(
      `mutation ($id: String!) { webhookUpdate(input: { webhookId: $id, description: "CRM", enabled: false }) { webhook { description enabled } } }`,
      { id: webhookId },
    );
    expect(updated.webhookUpdate.webhook).toEqual({ description: 'CRM', enabled: false });
    const badUrl = await t.gql(
      `mutation ($id: String!) { webhookUpdate(input: { webhookId: $id, url: "ftp://x" }) { webhook { url } } }`,
      { id: webhookId },
      token,
    );
    expect(badUrl.body.errors?.[0].extensions.code).toBe('BAD_USER_INPUT');

    const attached = await ok(
      `mutation ($id: String!) { webhookAttach(input: { webhookId: $id, campId: "spring" }) { webhook { campaigns { campId } } } }`,
      { id: webhookId },
    );
    expect(attached.webhookAttach.webhook.campaigns).toEqual([{ campId: 'spring' }]);
    const detached = await ok(
      `mutation ($id: String!) { webhookDetach(input: { webhookId: $id, campId: "spring" }) { webhook { campaigns { campId } } } }`,
      { id: webhookId },
    );
    expect(detached.webhookDetach.webhook.campaigns).toEqual([]);

    const redeliver = await t.gql(
      'mutation { webhookDeliveryRedeliver(input: { deliveryId: "dlv_nope" }) { delivery { id } } }',
      {},
      token,
    );
    expect(redeliver.body.errors?.[0].extensions.code).toBe('NOT_FOUND');

    const deleted = await ok(
      `mutation ($id: String!) { webhookDelete(input: { webhookId: $id }) { webhook { id webhookId } deletedId } }`,
      { id: webhookId },
    );
    expect(deleted.webhookDelete.webhook.webhookId).toBe(webhookId);
    expect(deleted.webhookDelete.deletedId).toBe(deleted.webhookDelete.webhook.id);
    expect((await ok('{ webhooks { webhookId } }')).webhooks).toEqual([]);
  });

  it('account: sign up, log in, rotate the API key, change the password', async () => {
    const anonymous = async (query: string, variables: Record<string, unknown> = {}) => t.gql(query, variables);
    const signedUp = await anonymous(
      'mutation ($input: AccountSignUpInput!) { accountSignUp(input: $input) { account { id email } apiKey } }',
      { input: { email: '  Ana@Example.com ', password: 'correct horse' } },
    );
    expect(signedUp.body.errors, signedUp.text).toBeUndefined();
    expect(signedUp.body.data.accountSignUp.account.email).toBe('ana@example.com');
    expect(signedUp.body.data.accountSignUp.apiKey).toMatch(/^ck_/);
    const badEmail = await anonymous(
      'mutation { accountSignUp(input: { email: "not-an-address", password: "correct horse" }) { apiKey } }',
    );
    expect(badEmail.body.errors?.[0].extensions.code).toBe('BAD_USER_INPUT');
    expect(badEmail.body.errors?.[0].extensions.issues[0].path).toEqual(['input', 'email']);

    const logIn = (password: string) =>
      anonymous(
        'mutation ($input: AccountLoginInput!) { accountLogin(input: $input) { accessToken tokenType expiresIn account { id email } } }',
        { input: { email: 'ANA@example.com', password } },
      );
    const wrong = await logIn('wrong password');
    expect(wrong.body.errors?.[0].extensions.code).toBe('UNAUTHENTICATED');
    const loggedIn = await logIn('correct horse');
    expect(loggedIn.body.errors, loggedIn.text).toBeUndefined();
    const issued = loggedIn.body.data.accountLogin;
    expect(issued.tokenType).toBe('BEARER');
    expect(issued.account).toEqual({ id: signedUp.body.data.accountSignUp.account.id, email: 'ana@example.com' });
    expect(issued.expiresIn).toBeGreaterThan(0);
    const ana = (query: string) => t.gql(query, {}, issued.accessToken);
    expect((await ana('{ viewer { email } }')).body.data.viewer.email).toBe('ana@example.com');

    const rotated = await ana('mutation { accountApiKeyRotate { account { email apiKeyHint } apiKey } }');
    expect(rotated.body.errors, rotated.text).toBeUndefined();
    const { apiKey: newKey, account } = rotated.body.data.accountApiKeyRotate;
    expect(newKey).not.toBe(signedUp.body.data.accountSignUp.apiKey);
    expect(account.apiKeyHint).toBe(`****${newKey.slice(-4)}`);
    // Rotating revokes the tokens issued before it.
    expect((await ana('{ viewer { email } }')).body.errors?.[0].extensions.code).toBe('UNAUTHENTICATED');

    const fresh = (await logIn('correct horse')).body.data.accountLogin.accessToken;
    const change = (input: Record<string, string>) =>
      t.gql(
        'mutation ($input: AccountPasswordChangeInput!) { accountPasswordChange(input: $input) { accessToken tokenType account { email } } }',
        { input },
        fresh,
      );
    const tooShort = await change({ currentPassword: 'correct horse', newPassword: 'short' });
    expect(tooShort.body.errors?.[0].extensions.code).toBe('BAD_USER_INPUT');
    const notCurrent = await change({ currentPassword: 'not it', newPassword: 'battery staple' });
    expect(notCurrent.body.errors?.[0].extensions.code).toBe('UNAUTHENTICATED');
    const changed = await change({ currentPassword: 'correct horse', newPassword: 'battery staple' });
    expect(changed.body.errors, changed.text).toBeUndefined();
    expect(changed.body.data.accountPasswordChange.tokenType).toBe('BEARER');
    expect(changed.body.data.accountPasswordChange.account).toEqual({ email: 'ana@example.com' });
    const viewer = await t.gql('{ viewer { email } }', {}, changed.body.data.accountPasswordChange.accessToken);
    expect(viewer.body.data.viewer.email).toBe('ana@example.com');
    expect((await logIn('correct horse')).body.errors?.[0].extensions.code).toBe('UNAUTHENTICATED');
  });

  it('the deprecated aliases still answer as before', async () => {
    const data = await ok(`mutation ($input: CreateCampaignInput!) { createCampaign(input: $input) { campId } }`, {
      input: campaignInput({ campId: 'old-way' }),
    });
    expect(data.createCampaign.campId).toBe('old-way');
    expect((await ok('mutation { pauseCampaign(campId: "old-way") { status } }')).pauseCampaign.status).toBe('PAUSED');
  });
});
