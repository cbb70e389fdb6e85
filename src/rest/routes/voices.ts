// GET /get_supported_voices: the catalogue as a bare array.
import type { Voice } from '../../domain/voices.js';
import { defineRoute } from '../route.js';

export const voiceRoutes = [
  defineRoute<undefined, undefined, { voices: Voice[] }>({
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
    variables: () => ({}),
    respond: ({ voices }) => voices,
  }),
];
