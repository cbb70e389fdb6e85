// GET /get_supported_voices: the catalogue as a bare array.
import { z } from 'zod';
import { voiceResponse } from '../responses/voices.js';
import { defineRoute } from '../route.js';
import { graphql } from '../typed-documents.js';

export const voiceRoutes = [
  defineRoute({
    method: 'GET',
    path: '/get_supported_voices',
    summary: 'The voices a campaign may use',
    tag: 'voices',
    auth: true,
    document: graphql(`
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
    `),
    response: z.array(voiceResponse),
    variables: () => ({}),
    respond: ({ voices }) => voices,
  }),
];
