// Test set-up for webhook deliveries: a new webhook for `url`, attached to an existing campaign.
import { expect } from 'vitest';
import type { TestApp } from './app.js';

export async function attachNewWebhook(t: TestApp, token: string, campId: string, url: string): Promise<string> {
  const created = await t.gql(
    'mutation ($url: String!) { webhookCreate(input: { url: $url }) { webhook { webhookId } } }',
    { url },
    token,
  );
  expect(created.body.errors, created.text).toBeUndefined();
  const webhookId: string = created.body.data.webhookCreate.webhook.webhookId;
  const attached = await t.gql(
    'mutation ($id: String!, $campId: String!) { webhookAttach(input: { webhookId: $id, campId: $campId }) { webhook { id } } }',
    { id: webhookId, campId },
    token,
  );
  expect(attached.body.errors, attached.text).toBeUndefined();
  return webhookId;
}
