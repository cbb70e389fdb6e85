// Voices of the catalogue; Campaign.voice resolves through this type's dataloader.
import { z } from 'zod';
import { getVoicesByIds, listVoices, type Voice } from '../../../domain/voices.js';
import { builder } from '../builder.js';

export const VoiceRef = builder.loadableNode('Voice', {
  description: 'A voice of the catalogue (the same for every account).',
  id: { resolve: (voice: Voice) => voice.voiceId },
  load: (voiceIds: string[], context) => getVoicesByIds(context.db, voiceIds),
  sort: (voice: Voice) => voice.voiceId,
  fields: (t) => ({
    voiceId: t.exposeString('voiceId', {
      description: 'The catalogue key a campaign names as its voiceId (`en-US-aria`).',
    }),
    name: t.exposeString('name', { description: 'A display name (`Aria`).' }),
    language: t.exposeString('language', { description: 'BCP 47 tag.' }),
    gender: t.exposeString('gender', { description: 'As the catalogue gives it (`female`, `male`).' }),
    accent: t.exposeString('accent', { description: 'The accent, in English (`American`, `British`).' }),
    provider: t.exposeString('provider', { description: 'The speech engine that renders it (`neural`).' }),
    previewUrl: t.exposeString('previewUrl', { description: 'URL of an audio sample of the voice.' }),
  }),
});

builder.queryField('voices', (t) =>
  t.field({
    type: [VoiceRef],
    description: 'The voice catalogue; `language` is a tag (`en-US`) or a primary language (`en`).',
    args: {
      language: t.arg.string({
        description:
          'A BCP 47 tag (`en-US`) or a primary language (`en`: every English voice); all voices when omitted.',
        validate: z
          .string()
          .regex(/^[A-Za-z]{2,3}(-[A-Za-z0-9]{1,8})*$/)
          .nullish(),
      }),
    },
    resolve: (_root, args, context) => listVoices(context.db, args.language),
  }),
);
