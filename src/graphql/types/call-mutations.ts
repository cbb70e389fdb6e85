// Mutations that feed call logs: the provider's status callbacks (through the REST door) and call outcomes.
import { z } from 'zod';
import { receiveCallStatus } from '../../domain/call-callbacks.js';
import { recordCallOutcome } from '../../domain/call-outcomes.js';
import { builder, viewerOf } from '../builder.js';
import { CallLogRef } from './call-log.js';

builder.mutationFields((t) => ({
  receiveCallStatusCallback: t.field({
    type: CallLogRef,
    skipTypeScopes: true,
    description:
      'A call-status callback of the telephony provider (POST /api/v3/telephony_webhook/{apiKey}/{campId} runs this). ' +
      'No bearer token: the API key names the account and `signature` must be the provider signature of `url` and ' +
      "`params` made with the stored auth token, where `url` is this campaign's callback URL (its path ends in " +
      '/telephony_webhook/{apiKey}/{campId}); FORBIDDEN otherwise. Idempotent per CallSid.',
    args: {
      apiKey: t.arg.string({ required: true }),
      campId: t.arg.string({ required: true }),
      url: t.arg.string({ required: true }),
      params: t.arg({ type: 'JSONObject', required: true }),
      signature: t.arg.string(),
    },
    resolve: async (_root, args, context) => {
      const params = Object.fromEntries(Object.entries(args.params).map(([name, value]) => [name, String(value)]));
      const { log } = await receiveCallStatus(context.db, context.secrets, { ...args, params });
      return log;
    },
  }),
  recordCallOutcome: t.field({
    type: CallLogRef,
    description:
      "Attaches the AI engine's results to a call. When the campaign has postCallAnalysis, `analysis` must satisfy " +
      'its postCallAnalysisSchema (BAD_USER_INPUT lists every failure).',
    args: {
      callId: t.arg.string({ required: true }),
      transcript: t.arg.string({ validate: z.string().max(500_000).nullish() }),
      summary: t.arg.string({ validate: z.string().max(20_000).nullish() }),
      analysis: t.arg({ type: 'JSON' }),
    },
    resolve: (_root, args, context) => recordCallOutcome(context.db, viewerOf(context).id, args),
  }),
}));
