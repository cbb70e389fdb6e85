// Voices of the catalogue; Campaign.voice resolves through this type's dataloader.
import { z } from 'zod';
import { getVoicesByIds, listVoices, type Voice } from '../../domain/voices.js';
import { builder } from '../builder.js';

export const VoiceRef = builder.loadableNode('Voice', {
  description: 'A voice of the catalogue (the same for every account).',
  id: { resolve: (voice: Voice) => voice.voiceId },
  load: (voiceIds: string[], context) => getVoicesByIds(context.db, voiceIds),
  sort: (voice: Voice) => voice.voiceId,
  fields: (t) => ({
    voiceId: t.exposeString('voiceId'),
    name: t.exposeString('name'),
    language: t.exposeString('language', { description: 'BCP 47 tag.' }),
    gender: t.exposeString('gender'),
    accent: t.exposeString('accent'),
    provider: t.exposeString('provider'),
    previewUrl: t.exposeString('previewUrl'),
  }),
});

builder.queryField('voices', (t) =>
  t.field({
    type: [VoiceRef],
    description: 'The voice catalogue; `language` is a tag (`en-US`) or a primary language (`en`).',
    args: {
      language: t.arg.string({
        validate: z
          .string()
          .regex(/^[A-Za-z]{2,3}(-[A-Za-z0-9]{1,8})*$/)
          .nullish(),
      }),
    },
    resolve: (_root, args, context) => listVoices(context.db, args.language),
  }),
);
