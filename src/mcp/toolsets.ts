// Fewer tools in every conversation (issue 53; docs/mcp.md "Toolsets"): `tools/list` is part of every prompt an agent's
// model sees, so a client chooses, when it connects, the areas it needs — `?toolsets=campaigns,webhooks` on the MCP
// URL or an `X-MCP-Toolsets` header — and may ask for the read tools only (`?readonly=true`, `X-MCP-Readonly: true`).
// Without a choice the list holds the default areas (campaigns, calls, the account), not every tool; `all` lists
// every one. The choice narrows the list only: a tool outside it still answers when called by its name (an agent
// that learnt it elsewhere is not broken), except that a read-only connection refuses writes.

/** Each area and the tools it holds, by name. Every tool is in at least one (test/mcp/toolsets.test.ts). */
export const TOOLSETS: Readonly<Record<string, RegExp>> = {
  campaigns: /^(campaign_|text_pipeline_|voice_list$|text_read$)/,
  calls: /^(call_log_|call_stats$|text_read$)/,
  integrations: /^(integration_list|[a-z]+_connect|[a-z]+_disconnect)$/,
  meetings: /^meeting_/,
  webhooks: /^webhook_/,
  account: /^account_get$/,
};

/** The areas listed when the client names none. */
export const DEFAULT_TOOLSETS: readonly string[] = ['campaigns', 'calls', 'account'];

/** At most this many names are read from a choice (there are six areas). */
const MAX_NAMES = 16;

export interface ToolChoice {
  /** Whether a tool of this name is listed. */
  lists(name: string): boolean;
  /** The read tools only, by the client's choice. */
  readOnly: boolean;
}

/** What the client chose when it connected, or why the choice is refused (an unknown area: named, with the others). */
export function toolChoiceOf(request: Request): ToolChoice | { problem: string } {
  const url = URL.parse(request.url);
  // An empty choice (`?toolsets=`) is no choice: the default areas.
  const named = url?.searchParams.get('toolsets') || request.headers.get('x-mcp-toolsets') || null;
  const readOnlyWord = (url?.searchParams.get('readonly') ?? request.headers.get('x-mcp-readonly') ?? '').trim();
  const readOnly = /^(true|1|yes)$/i.test(readOnlyWord);
  if (readOnlyWord !== '' && !readOnly && !/^(false|0|no)$/i.test(readOnlyWord)) {
    return { problem: `readonly is true or false, not ${JSON.stringify(readOnlyWord.slice(0, 20))}` };
  }
  const names = (named ?? DEFAULT_TOOLSETS.join(','))
    .split(',')
    .map((name) => name.trim().toLowerCase())
    .filter(Boolean)
    .slice(0, MAX_NAMES);
  if (names.includes('all')) return { lists: () => true, readOnly };
  const unknown = names.filter((name) => !Object.hasOwn(TOOLSETS, name));
  if (unknown.length > 0) {
    return {
      problem:
        `unknown toolset ${unknown.map((name) => JSON.stringify(name.slice(0, 40))).join(', ')}; the toolsets are ` +
        `${Object.keys(TOOLSETS).join(', ')} and all`,
    };
  }
  const chosen = names.map((name) => TOOLSETS[name]!);
  return { lists: (tool) => chosen.some((pattern) => pattern.test(tool)), readOnly };
}
