// The MCP tools' annotations (docs/mcp.md, "Retries"), derived from what each operation does rather than from its
// name. Every mutation the tools run declares its effect here; a mutation tool without one fails at start-up.
//   readOnlyHint     a query
//   destructiveHint  the mutation deletes, overwrites stored values, or makes a change that cannot be undone
//   idempotentHint   a query, or a mutation whose retry with the same arguments answers what the first call answered
//                    and changes nothing more (test/mcp/retries.test.ts calls every mutation tool twice)
//   openWorldHint    true for the mutations that reach outside this service: phone calls (a campaign created ACTIVE
//                    or resumed calls people) and HTTP requests to a third party (a redelivered webhook)
import { OperationTypeNode } from 'graphql';

/** What a mutation does to what is stored, and so what a retry with the same arguments does. */
export type MutationEffect =
  /** Makes a new record each call: a retry makes another one, or is CONFLICT. */
  | 'create'
  /** Sends (or queues for sending) again each call: a retry sends again, or is CONFLICT while one is pending. */
  | 'send'
  /** Overwrites stored values with the arguments: a retry writes them again (a new updatedAt, a new event). */
  | 'replace'
  /** Moves a record to a state it can leave again; a retry in that state answers the record unchanged. */
  | 'transition'
  /** Moves a record to a final state; a retry in that state answers the record unchanged. */
  | 'permanent-transition'
  /** Removes a record (credentials included): gone for good, and a retry is NOT_FOUND. */
  | 'delete'
  /** Adds or removes a link that the opposite tool restores; a retry answers the same and changes nothing. */
  | 'reversible';

/** The effect of each mutation field a tool runs (src/mcp/operations.ts), by the field's name. */
export const MUTATION_EFFECTS: Readonly<Record<string, MutationEffect>> = {
  campaignCreate: 'create',
  campaignUpdate: 'replace',
  campaignPause: 'transition',
  campaignResume: 'transition',
  campaignComplete: 'permanent-transition',
  campaignDelete: 'delete',
  textPipelineSet: 'replace',
  textPipelineDelete: 'delete',
  telephonyConnect: 'replace',
  telephonyDisconnect: 'delete',
  boardConnect: 'replace',
  boardDisconnect: 'delete',
  calendarConnect: 'replace',
  calendarDisconnect: 'delete',
  erpConnect: 'replace',
  erpDisconnect: 'delete',
  socialConnect: 'replace',
  socialDisconnect: 'delete',
  chatConnect: 'replace',
  chatDisconnect: 'delete',
  meetingBook: 'create',
  meetingCancel: 'permanent-transition',
  webhookCreate: 'create',
  webhookUpdate: 'replace',
  webhookDelete: 'delete',
  webhookAttach: 'reversible',
  webhookDetach: 'reversible',
  webhookDeliveryRedeliver: 'send',
};

/** The mutations that reach outside this service (openWorldHint). */
export const OPEN_WORLD: ReadonlySet<string> = new Set([
  'campaignCreate',
  'campaignResume',
  'webhookDeliveryRedeliver',
]);

const HINTS: Readonly<Record<MutationEffect, { destructiveHint: boolean; idempotentHint: boolean }>> = {
  create: { destructiveHint: false, idempotentHint: false },
  send: { destructiveHint: false, idempotentHint: false },
  replace: { destructiveHint: true, idempotentHint: false },
  transition: { destructiveHint: false, idempotentHint: true },
  'permanent-transition': { destructiveHint: true, idempotentHint: true },
  delete: { destructiveHint: true, idempotentHint: false },
  reversible: { destructiveHint: false, idempotentHint: true },
};

/** The hints (the tool's display name is its top-level `title`, not repeated here). */
export interface ToolAnnotations {
  readOnlyHint: boolean;
  destructiveHint: boolean;
  idempotentHint: boolean;
  openWorldHint: boolean;
}

/**
 * The annotations of a tool running `rootField` in an operation of `kind`: a query is read-only and idempotent; a
 * mutation's hints follow from its declared effect, and a mutation without one is refused.
 */
export function annotationsOf(operationName: string, kind: OperationTypeNode, rootField: string): ToolAnnotations {
  if (kind !== OperationTypeNode.MUTATION) {
    return { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false };
  }
  const effect = MUTATION_EFFECTS[rootField];
  if (!effect) {
    throw new Error(
      `MCP operation ${operationName}: declare the effect of ${rootField} in MUTATION_EFFECTS (src/mcp/annotations.ts)`,
    );
  }
  return { readOnlyHint: false, ...HINTS[effect], openWorldHint: OPEN_WORLD.has(rootField) };
}
