// GET /get_supported_voices: the catalogue as a bare array.
import { z } from 'zod';
import type { Voice } from '../../domain/voices.js';
import { voiceResponse } from '../responses/voices.js';
import { defineRoute } from '../route.js';

export const voiceRoutes = [
  defineRoute<undefined, undefined, { voices: Voice[] }, z.ZodArray<typeof voiceResponse>>({
    method: 'GET',
    path: '/get_supported_voices',
    summary: 'The voices a campaign may use',
    tag: 'voices',
    auth: true,
    document: /* GraphQL */ `
      query LegacySupportedVoices {
        voices {
          voiceId
          name
          language
          gender
          accent
          provider
          previewUrl
        }
      }
    `,
    response: z.array(voiceResponse),
    variables: () => ({}),
    respond: ({ voices }) => voices,
  }),
];
