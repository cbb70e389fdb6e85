// What the AI engine attaches to a call once it is over: transcript, summary and the post-call analysis,
// validated against the campaign's postCallAnalysisSchema when the campaign asks for analysis (DESIGN.md §7).
import { Ajv, type ErrorObject } from 'ajv';
import type { Kysely } from 'kysely';
import type { Database } from '../db/types.js';
import { type CallLog, getCallLog, saveCallOutcome } from './call-logs.js';
import { getCampaign } from './campaigns.js';
import { badInput, type InputIssue, notFound } from './errors.js';

function toIssues(errors: ErrorObject[]): InputIssue[] {
  return errors.map((error) => ({
    path: ['analysis', ...error.instancePath.split('/').filter(Boolean)],
    type: 'value_error',
    message: `${error.instancePath || 'analysis'} ${error.message ?? 'is invalid'}`,
  }));
}

export async function recordCallOutcome(
  db: Kysely<Database>,
  accountId: string,
  input: { callId: string; transcript?: string | null; summary?: string | null; analysis?: unknown },
): Promise<CallLog> {
  const call = await getCallLog(db, accountId, input.callId);
  if (!call) throw notFound('Call not found');
  const campaign = await getCampaign(db, accountId, call.campaignId);
  if (campaign?.postCallAnalysis && input.analysis !== undefined && input.analysis !== null) {
    let validate: ReturnType<Ajv['compile']>;
    try {
      // Non-strict: owners write these schemas by hand, so unknown keywords are ignored, not fatal. A fresh Ajv each
      // time, because Ajv caches every schema it compiles and these come from the database.
      validate = new Ajv({ strict: false, allErrors: true }).compile(campaign.postCallAnalysisSchema);
    } catch (error) {
      throw badInput([
        {
          path: ['analysis'],
          type: 'value_error',
          message: `the campaign's postCallAnalysisSchema is not a usable JSON Schema: ${(error as Error).message}`,
        },
      ]);
    }
    if (!validate(input.analysis)) throw badInput(toIssues(validate.errors ?? []));
  }
  return saveCallOutcome(db, accountId, input.callId, input);
}
