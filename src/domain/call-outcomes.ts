// What the AI engine attaches to a call once it is over: transcript, summary and the post-call analysis,
// validated against the campaign's postCallAnalysisSchema when the campaign asks for analysis (docs/decisions.md §7).
import type { ErrorObject } from 'ajv';
import type { Kysely } from 'kysely';
import type { Database } from '../db/types.js';
import { analysisValidator } from './analysis-schema.js';
import { type CallLog, getCallLog, saveCallOutcome } from './call-logs.js';
import { getCampaign } from './campaigns.js';
import { badInput, type InputIssue, notFound } from '../core/errors.js';

/** At most this many failures are listed (allErrors would otherwise list one per item of a long array). */
const MAX_ISSUES = 50;

function toIssues(errors: ErrorObject[]): InputIssue[] {
  return errors.slice(0, MAX_ISSUES).map((error) => ({
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
    const validate = analysisValidator(campaign.postCallAnalysisSchema);
    if (!validate(input.analysis)) throw badInput(toIssues(validate.errors ?? []));
  }
  return saveCallOutcome(db, accountId, input.callId, input);
}
