// The voice catalogue of GET /get_supported_voices.
import { z } from 'zod';

export const voiceResponse = z
  .object({
    voiceId: z.string().describe('What a campaign’s `voice` names'),
    name: z.string(),
    language: z.string().describe('A BCP 47 tag (en-US)'),
    gender: z.string(),
    accent: z.string(),
    provider: z.string(),
    previewUrl: z.string().describe('A sample of the voice'),
  })
  .meta({ id: 'Voice' });
