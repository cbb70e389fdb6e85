// What the social channel's webhook answers the provider.
import { z } from 'zod';

export const socialHandshakeResponse = z.string().describe('The hub.challenge sent, as text');

export const socialReceivedResponse = z
  .object({ received: z.int().min(0).describe('How many of the messages were new (a retried delivery: 0)') })
  .meta({ id: 'SocialMessagesReceived' });
