// The MCP door's `account_get` tool (issue 53: "which account am I acting for?"): the account the connection acts
// for, read through the public graph like every tool's data (`viewer`), and what its token may do — read-only or read
// and write (an OAuth token's scope, or a named token's), and until when.
import type { CallToolResult } from '@modelcontextprotocol/server';
import { parse } from 'graphql';
import type { RunOperation } from './text-tool.js';
import { type Caller, toolResult } from './tool-results.js';

const VIEWER = parse('query AccountGet { viewer { accountId email createdAt } }');

export const ACCOUNT_GET_TOOL = {
  name: 'account_get',
  title: 'Which account am I acting for',
  description:
    'Which account you act for (`accountId`, `email`) and what your token may do. `access` is READ_ONLY (the read ' +
    'tools only) or READ_WRITE; `tokenExpiresAt` is when the token stops working. No arguments.',
  inputSchema: { type: 'object', properties: {}, additionalProperties: false },
  outputSchema: {
    type: 'object',
    properties: {
      accountId: { type: 'string', description: 'The account id (`acc_…`).' },
      email: { type: 'string', description: 'The e-mail the account signs in with.' },
      createdAt: { type: 'string', description: 'When the account was created.' },
      access: { type: 'string', enum: ['READ_ONLY', 'READ_WRITE'], description: 'What the token may do.' },
      tokenExpiresAt: {
        anyOf: [{ type: 'string' }, { type: 'null' }],
        description: 'When the token stops working (RFC 3339); null when it does not expire.',
      },
    },
    required: ['accountId', 'email', 'createdAt', 'access', 'tokenExpiresAt'],
    additionalProperties: false,
  },
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
};

export async function accountGetResult(
  caller: Caller,
  run: RunOperation,
  budgetBytes: number,
): Promise<CallToolResult> {
  const result = await run(VIEWER, {});
  if (result.errors?.length) return toolResult(result, budgetBytes);
  const viewer = (result.data as { viewer: { accountId: string; email: string; createdAt: string } }).viewer;
  const expires = caller.auth.tokenExpiresAt;
  return toolResult(
    {
      data: {
        ...viewer,
        access: caller.auth.readOnly ? 'READ_ONLY' : 'READ_WRITE',
        tokenExpiresAt: expires === undefined || !Number.isFinite(expires) ? null : new Date(expires).toISOString(),
      },
    },
    budgetBytes,
    { omitNulls: false },
  );
}
