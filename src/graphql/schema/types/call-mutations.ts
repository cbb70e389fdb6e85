// Mutations that feed call logs: the provider's status callbacks (through the REST door) and call outcomes.
import { z } from 'zod';
import { receiveCallStatus } from '../../../domain/call-callbacks.js';
import { recordCallOutcome } from '../../../domain/call-outcomes.js';
import { CALLBACK_FORM_LIMITS } from '../../../domain/call-logs.schema.js';
import { payloadType, replacedBy, rerooted } from '../payloads.js';
import { builder, INTERNAL_ONLY, viewerOf } from '../builder.js';
import { callbackAccepted } from '../callback-budget.js';
import { CallLogRef } from './call-log.js';

/**
 * The callback's form fields: a flat object of at most MAX_CALLBACK_FIELDS names, each value a string (a number or
 * boolean is read as its text). A nested object or list is a client mistake (BAD_USER_INPUT), never a crash.
 */
const { fields: MAX_CALLBACK_FIELDS, nameLength, valueLength } = CALLBACK_FORM_LIMITS;
const callbackFormSchema = z
  .record(z.string().max(nameLength), z.union([z.string().max(valueLength), z.number(), z.boolean()]))
  .refine((form) => Object.keys(form).length <= MAX_CALLBACK_FIELDS, {
    message: `at most ${MAX_CALLBACK_FIELDS} fields`,
  });

/** The outcome fields' descriptions, the same on recordCallOutcome and CallLogRecordOutcomeInput. */
const TRANSCRIPT = 'The transcript, at most 500 000 characters; when given, replaces the stored one (null clears it).';
const SUMMARY = 'The summary, at most 20 000 characters; when given, replaces the stored one (null clears it).';
const ANALYSIS =
  "The post-call analysis; checked against the campaign's postCallAnalysisSchema when its postCallAnalysis is true " +
  '(null clears it).';

builder.mutationFields((t) => ({
  receiveCallStatusCallback: t.field({
    type: CallLogRef,
    subGraphs: INTERNAL_ONLY,
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
      params: t.arg({ type: 'JSONObject', required: true, validate: callbackFormSchema }),
      signature: t.arg.string(),
    },
    resolve: async (_root, args, context) => {
      const params = Object.fromEntries(Object.entries(args.params).map(([name, value]) => [name, String(value)]));
      const accepted = callbackAccepted(context);
      const { log } = await receiveCallStatus(context.db, context.secrets, { ...args, params }, (accountId) =>
        accepted(accountId, true),
      );
      return log;
    },
  }),
  recordCallOutcome: t.field({
    type: CallLogRef,
    deprecationReason: replacedBy('callLogRecordOutcome'),
    description:
      "Attaches the AI engine's results to a call. When the campaign has postCallAnalysis, `analysis` must satisfy " +
      'its postCallAnalysisSchema (BAD_USER_INPUT lists every failure).',
    args: {
      callId: t.arg.string({
        required: true,
        validate: z.string().max(64),
        description: "The call: the provider's CallSid.",
      }),
      transcript: t.arg.string({
        validate: z.string().max(500_000).nullish(),
        description: TRANSCRIPT,
      }),
      summary: t.arg.string({
        validate: z.string().max(20_000).nullish(),
        description: SUMMARY,
      }),
      analysis: t.arg({
        type: 'JSON',
        description: ANALYSIS,
      }),
    },
    resolve: (_root, args, context) => recordCallOutcome(context.db, viewerOf(context).id, args),
  }),
}));

// The call mutation of the convention (docs/graphql.md#mutations); recordCallOutcome is its deprecated alias.
const CallLogRecordOutcomeInput = builder.inputType('CallLogRecordOutcomeInput', {
  description: "The call, and the AI engine's results to attach to it (each given field replaces the stored one).",
  fields: (t) => ({
    callId: t.string({
      required: true,
      validate: z.string().max(64),
      description: "The call: the provider's CallSid.",
    }),
    transcript: t.string({ validate: z.string().max(500_000).nullish(), description: TRANSCRIPT }),
    summary: t.string({ validate: z.string().max(20_000).nullish(), description: SUMMARY }),
    analysis: t.field({ type: 'JSON', description: ANALYSIS }),
  }),
});

builder.mutationField('callLogRecordOutcome', (t) =>
  t.field({
    type: payloadType('callLogRecordOutcome', 'callLog', CallLogRef, 'The call log with the results attached.'),
    description:
      "Attaches the AI engine's results to a call. When the campaign has postCallAnalysis, `analysis` must satisfy " +
      'its postCallAnalysisSchema (BAD_USER_INPUT lists every failure).',
    args: {
      input: t.arg({ type: CallLogRecordOutcomeInput, required: true, description: 'The call and the results.' }),
    },
    resolve: (_root, { input }, context) =>
      rerooted(recordCallOutcome(context.db, viewerOf(context).id, input), ['analysis'], ['input', 'analysis']),
  }),
);
