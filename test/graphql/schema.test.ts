// schema/schema.graphql is the printed schema, checked in; it must match the code.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  type ASTNode,
  buildClientSchema,
  getIntrospectionQuery,
  type IntrospectionQuery,
  lexicographicSortSchema,
  parse,
  print,
  printSchema,
  visit,
} from 'graphql';
import { expect, test } from 'vitest';
import { printSortedSchema } from '../../src/graphql/schema/schema.js';
import { startApp } from '../helpers/app.js';

const COMMITTED = () => readFileSync(join(import.meta.dirname, '../../schema/schema.graphql'), 'utf8');

test('schema/schema.graphql is up to date (regenerate with `npm run schema`)', () => {
  expect(COMMITTED()).toBe(printSortedSchema());
});

test('schema/schema.graphql is byte for byte what introspection of /graphql prints, directives included', async () => {
  const t = await startApp({}, [], { worker: false });
  try {
    const reply = await t.gql(
      getIntrospectionQuery({
        descriptions: true,
        directiveIsRepeatable: true,
        inputValueDeprecation: true,
        specifiedByUrl: true,
      }),
    );
    expect(reply.body.errors).toBeUndefined();
    const served = buildClientSchema(reply.body.data as IntrospectionQuery);
    expect(served.getDirective('defer')).toBeDefined();
    expect(served.getDirective('stream')).toBeDefined();
    expect(served.getDirective('live')).toBeDefined();
    expect(`${printSchema(lexicographicSortSchema(served))}\n`).toBe(COMMITTED());
  } finally {
    await t.close();
  }
});

/** The SDL without its descriptions, so that every field and its arguments print on one line. */
function signatures(sdl: string): string {
  return print(
    visit(parse(sdl), {
      enter: (node: ASTNode) =>
        'description' in node && node.description ? { ...node, description: undefined } : undefined,
    }),
  );
}

test('the schema names the surface frontends rely on (docs/graphql.md)', () => {
  const sdl = signatures(printSortedSchema());
  for (const field of [
    'viewer: Account!',
    'campaign(campId: String!): Campaign',
    'node(id: ID!): Node',
    'voices(language: String): [Voice!]!',
  ]) {
    expect(sdl).toContain(field);
  }
  // The mutations of the convention (docs/graphql.md#mutations), with their signatures.
  for (const signature of [
    'accountSignUp(input: AccountSignUpInput!): AccountSignUpPayload!',
    'accountLogin(input: AccountLoginInput!): AccountLoginPayload!',
    'accountApiKeyRotate: AccountApiKeyRotatePayload!',
    'accountPasswordChange(input: AccountPasswordChangeInput!): AccountPasswordChangePayload!',
    'campaignCreate(input: CampaignCreateInput!): CampaignCreatePayload!',
    'campaignUpdate(input: CampaignUpdateInput!): CampaignUpdatePayload!',
    'campaignDelete(input: CampaignDeleteInput!): CampaignDeletePayload!',
    'telephonyConnect(input: TelephonyConnectInput!): TelephonyConnectPayload!',
    'telephonyDisconnect: TelephonyDisconnectPayload!',
    'meetingBook(input: MeetingBookInput!): MeetingBookPayload!',
    'webhookCreate(input: WebhookCreateInput!): WebhookCreatePayload!',
    'meetings(limit: Int! = 200): [Meeting!]!',
    'deletedId: ID!',
    'voiceProvider: VoiceProvider',
    'tokenType: TokenType!',
  ]) {
    expect(sdl).toContain(signature);
  }
  // The names of before, still there (deprecated).
  for (const mutation of [
    'signUp',
    'login',
    'rotateApiKey',
    'changePassword',
    'createCampaign',
    'updateCampaign',
    'upsertCampaign',
    'deleteCampaign',
    'pauseCampaign',
    'resumeCampaign',
    'completeCampaign',
  ]) {
    expect(sdl).toMatch(new RegExp(`\\n  ${mutation}\\(|\\n  ${mutation}:`));
  }
});
