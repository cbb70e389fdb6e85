// The user confirms before a tool places real calls or deletes for good (docs/mcp.md "Confirmations"; issue 53):
// campaign_resume, campaign_create with `status: ACTIVE`, campaign_complete, every *_delete and *_disconnect. Where the client can
// ask its user (it declares `elicitation` on the 2026-07-28 revision), the call is answered `input_required` with a
// form asking to go ahead, saying what will happen; the client retries the call with the user's answer, and only an
// accepted "go ahead" runs it. A client that cannot ask (no elicitation, or the 2025-11-25 revision, whose stateless
// door has no channel back to it) is not asked: the tool's description says plainly what the call does.
import { CLIENT_CAPABILITIES_META_KEY, inputRequired, inputResponse } from '@modelcontextprotocol/server';
import type { CallToolResult, InputRequiredResult } from '@modelcontextprotocol/server';
import { GraphQLError } from 'graphql';
import { toolResult } from './tool-results.js';

/** The key of the confirmation among a call's input requests, and the form's one field. */
const CONFIRM = 'confirm';
const GO_AHEAD = 'goAhead';

/** What the handler's context tells of the request (the SDK's `ctx.mcpReq`). */
export interface ConfirmationContext {
  envelope?: Record<string, unknown>;
  inputResponses?: Record<string, unknown>;
}

const campIdOf = (args: Record<string, unknown>): string => {
  const input = args.input as { campId?: unknown } | undefined;
  const campId = typeof input?.campId === 'string' ? input.campId : args.campId;
  return typeof campId === 'string' ? campId.slice(0, 64) : '';
};

/** What the call will do, when the user should confirm it first; null when it runs without asking. */
export function confirmationOf(toolName: string, args: Record<string, unknown>): string | null {
  const campId = campIdOf(args);
  if (toolName === 'campaign_resume') {
    return `Resume campaign "${campId}"? It becomes ACTIVE and starts placing real phone calls at once.`;
  }
  if (toolName === 'campaign_create' && (args.input as { status?: unknown } | undefined)?.status === 'ACTIVE') {
    return (
      `Create campaign "${campId || '(a new id)'}" as ACTIVE? It starts placing real phone calls at once ` +
      '(created PAUSED, it would wait for campaign_resume).'
    );
  }
  if (toolName === 'campaign_complete') {
    return `Complete campaign "${campId}"? It stops calling for good and can never change again.`;
  }
  if (toolName.endsWith('_disconnect')) {
    const what = toolName.slice(0, -'_disconnect'.length).replaceAll('_', ' ');
    return `Delete the stored ${what} credentials? They cannot be read back; connecting again needs them anew.`;
  }
  if (toolName.endsWith('_delete')) {
    const what = toolName.slice(0, -'_delete'.length).replaceAll('_', ' ');
    const which = JSON.stringify(args.input ?? args).slice(0, 200);
    return `Delete this ${what} (${which})? It cannot be undone.`;
  }
  return null;
}

/** Whether the client declared it can ask its user (form-mode elicitation) on this request. */
function canAsk(context: ConfirmationContext): boolean {
  const capabilities = context.envelope?.[CLIENT_CAPABILITIES_META_KEY] as { elicitation?: unknown } | undefined;
  const elicitation = capabilities?.elicitation;
  if (!elicitation || typeof elicitation !== 'object') return false;
  const modes = elicitation as { form?: unknown; url?: unknown };
  // `elicitation: {}` means form mode; a client that lists modes must list `form`.
  return (modes.form === undefined && modes.url === undefined) || modes.form !== undefined;
}

/**
 * Before a call that needs the user's confirmation (`question`): null to run it (confirmed, or the client cannot
 * ask), an `input_required` answer asking the user, or a tool error when the user declined.
 */
export function askFirst(question: string, context: ConfirmationContext): InputRequiredResult | CallToolResult | null {
  if (!canAsk(context)) return null;
  const answer = inputResponse(context.inputResponses, CONFIRM);
  if (answer.kind === 'elicit') {
    if (answer.action === 'accept' && answer.content?.[GO_AHEAD] === true) return null;
    return toolResult({
      errors: [
        new GraphQLError(`Not done: the user did not confirm. ${question}`, {
          extensions: { code: 'NOT_CONFIRMED' },
        }),
      ],
    });
  }
  return inputRequired({
    inputRequests: {
      [CONFIRM]: inputRequired.elicit({
        message: question,
        requestedSchema: {
          type: 'object',
          properties: {
            [GO_AHEAD]: { type: 'boolean', title: 'Go ahead', description: 'Check to let the agent do this.' },
          },
          required: [GO_AHEAD],
        },
      }),
    },
  });
}
