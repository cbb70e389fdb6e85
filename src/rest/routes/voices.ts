// GET /get_supported_voices: the catalogue as a bare array.
import { defineRoute } from '../route.js';

interface VoiceData {
  voiceId: string;
  name: string;
  language: string;
  gender: string;
  accent: string;
  provider: string;
  previewUrl: string;
}

export const voiceRoutes = [
  defineRoute<undefined, undefined, { voices: VoiceData[] }>({
    method: 'GET',
    path: '/get_supported_voices',
    summary: 'The voices a campaign may use',
    tag: 'voices',
    auth: true,
    document: /* GraphQL */ `
      query LegacySupportedVoices {
        voices { voiceId name language gender accent provider previewUrl }
      }`,
    variables: () => ({}),
    respond: ({ voices }) => voices,
  }),
];
