// The MCP door's prompts (issue 53; docs/mcp.md "Prompts and completions"): the work agents do here, written once —
// setting up a campaign, reviewing a campaign's recent calls, a weekly report — each a user message naming the tools
// to use and what to ask the user first, with the prompt's arguments checked (bounded, in words) and filled in. The
// arguments that name the caller's own records (a campId) are completed from the caller's campaigns only.
import { parse } from 'graphql';
import type { RunOperation } from './text-tool.js';

/** What `prompts/list` answers for one prompt. */
export interface PromptDefinition {
  name: string;
  title: string;
  description: string;
  arguments: Array<{ name: string; description: string; required: boolean }>;
}

/** A prompt argument's rule: a refusal in words, or null when the value is taken. */
type Rule = (value: string) => string | null;

const CAMP_ID = /^[A-Za-z0-9_-]{1,64}$/;
const campIdRule: Rule = (value) =>
  CAMP_ID.test(value) ? null : "a campId is 1 to 64 letters, digits, '_' or '-' (campaign_list lists yours)";
const textRule =
  (max: number): Rule =>
  (value) =>
    value.trim() === '' ? 'it is empty' : value.length > max ? `it has more than ${max} characters` : null;
const LANGUAGE = /^[A-Za-z]{2,3}(-[A-Za-z0-9]{1,8})*$/;
const languageRule: Rule = (value) =>
  LANGUAGE.test(value) && value.length <= 35 ? null : 'a language tag such as "en-US" or "pt-BR"';
const countRule: Rule = (value) =>
  /^\d{1,3}$/.test(value) && Number(value) >= 1 && Number(value) <= 100 ? null : 'a whole number from 1 to 100';

/** Languages offered when completing a `language` argument (any tag voice_list knows is taken). */
export const COMMON_LANGUAGES = [
  'en-US',
  'en-GB',
  'en-AU',
  'es-ES',
  'es-MX',
  'fr-FR',
  'fr-CA',
  'de-DE',
  'it-IT',
  'pt-BR',
  'pt-PT',
  'nl-NL',
  'sv-SE',
  'pl-PL',
  'tr-TR',
  'ja-JP',
  'ko-KR',
  'zh-CN',
  'hi-IN',
  'ar-SA',
];

interface Prompt extends PromptDefinition {
  rules: Record<string, Rule>;
  /** The user message, from the checked arguments. */
  text(args: Record<string, string>): string;
}

const PROMPTS: readonly Prompt[] = [
  {
    name: 'campaign_setup',
    title: 'Set up a calling campaign',
    description: 'Sets up a new campaign for a goal, created paused; asks before it starts calling.',
    arguments: [
      { name: 'goal', description: 'What the calls are for, in a sentence or two.', required: true },
      { name: 'language', description: 'The calls’ language, a tag such as "en-US" (default en-US).', required: false },
    ],
    rules: { goal: textRule(500), language: languageRule },
    text: ({ goal, language = 'en-US' }) =>
      `Set up a new AI calling campaign for this goal: ${goal}\n\n` +
      `1. Choose a voice: voice_list with language "${language}"; pick one that suits the goal.\n` +
      '2. Write a short title, a purpose, a first line and a script for the calls (plain, polite, under a minute ' +
      'to read), and choose a time zone for the people called.\n' +
      `3. Create it with campaign_create (language "${language}"): it is created PAUSED and places no calls.\n` +
      '4. Show me the campaign (campaign_get) and ask me before campaign_resume: resuming starts placing real ' +
      'phone calls.',
  },
  {
    name: 'calls_review',
    title: "Review a campaign's recent calls",
    description: "Reads a campaign's latest calls and their transcripts and says what went well and what to change.",
    arguments: [
      { name: 'campId', description: 'The campaign (campaign_list lists yours).', required: true },
      { name: 'count', description: 'How many of the latest calls, 1 to 100 (default 20).', required: false },
    ],
    rules: { campId: campIdRule, count: countRule },
    text: ({ campId, count = '20' }) =>
      `Review the latest ${count} calls of campaign "${campId}".\n\n` +
      `1. call_log_list with campId "${campId}", first ${count} and withTexts true; where a transcript or summary ` +
      'is cut, read the rest with text_read.\n' +
      '2. campaign_get shows the campaign’s script, first line and purpose.\n' +
      '3. Tell me how the calls went (outcomes, durations, costs), the objections and questions that came up, and ' +
      'what you would change in the script or first line, quoting the calls.\n' +
      'Change nothing yourself: ask me before campaign_update.',
  },
  {
    name: 'weekly_report',
    title: 'Weekly report of the calling campaigns',
    description: "A report of the last seven days' calls: every campaign, or one.",
    arguments: [{ name: 'campId', description: 'Only this campaign (default: every campaign).', required: false }],
    rules: { campId: campIdRule },
    text: ({ campId }) =>
      `Write a weekly report of ${campId ? `campaign "${campId}"` : 'my calling campaigns'} for the last seven ` +
      'days.\n\n' +
      (campId ? '' : '1. campaign_list lists the campaigns and their status.\n') +
      `${campId ? '1' : '2'}. campaign_metrics gives each campaign's totals (calls, call time, spend); ` +
      'call_log_list (with campId, newest first) gives the calls of the week.\n' +
      `${campId ? '2' : '3'}. Report per campaign: calls made, reached and not, average duration and cost, ` +
      'meetings booked (meeting_upcoming_list), and anything unusual — in a short table, then three sentences of ' +
      'what to do next week. Read only: change nothing.',
  },
];

/** What `prompts/list` answers. */
export const PROMPT_DEFINITIONS: readonly PromptDefinition[] = PROMPTS.map(
  ({ name, title, description, arguments: args }) => ({ name, title, description, arguments: args }),
);

/** The prompt's message, or why its arguments are refused (every mistake, in words). */
export function promptMessage(
  name: string,
  given: Record<string, string> | undefined,
): { description: string; text: string } | { problem: string } {
  const prompt = PROMPTS.find((candidate) => candidate.name === name);
  if (!prompt) {
    return {
      problem: `unknown prompt ${JSON.stringify(name.slice(0, 64))}; the prompts are ${PROMPTS.map((p) => p.name).join(', ')}`,
    };
  }
  const args = given ?? {};
  const problems: string[] = [];
  for (const key of Object.keys(args).slice(0, 20)) {
    if (!Object.hasOwn(prompt.rules, key)) problems.push(`${key.slice(0, 64)}: ${name} takes no such argument`);
  }
  for (const argument of prompt.arguments) {
    const value = args[argument.name];
    if (value === undefined || value === '') {
      if (argument.required) problems.push(`${argument.name}: required`);
      continue;
    }
    const problem = prompt.rules[argument.name]!(String(value));
    if (problem) problems.push(`${argument.name}: ${problem}`);
  }
  if (problems.length > 0) return { problem: `The arguments are refused: ${problems.join('; ')}` };
  const filled = Object.fromEntries(Object.entries(args).filter(([, value]) => value !== ''));
  return { description: prompt.description, text: prompt.text(filled) };
}

/** The argument a completion asks about names the caller's campaigns (`campId`) or a language. */
export function completedArgument(promptName: string, argument: string): 'campId' | 'language' | null {
  const prompt = PROMPTS.find((candidate) => candidate.name === promptName);
  if (!prompt?.arguments.some((candidate) => candidate.name === argument)) return null;
  return argument === 'campId' || argument === 'language' ? argument : null;
}

/** What a completion can complete: the caller's campIds or callIds, or a language tag. */
export type Completed = 'campId' | 'callId' | 'language';

/** The caller's newest campaigns and calls, through the public graph (the caller's own only, as every tool reads). */
const NEWEST = {
  campId: parse(
    'query CampIdCompletion { page: campaigns(first: 100) { edges { node { id: campId } } pageInfo { hasNextPage } } }',
  ),
  callId: parse(
    'query CallIdCompletion { page: callLogs(first: 100) { edges { node { id: callId } } pageInfo { hasNextPage } } }',
  ),
};

/** At most this many values in one completion (the MCP specification's own limit). */
const MAX_COMPLETIONS = 100;

/** The values that complete `prefix` for an argument: the caller's own ids among its newest 100, or common tags. */
export async function completionValues(
  which: Completed,
  prefix: string,
  run: RunOperation,
): Promise<{ values: string[]; hasMore: boolean }> {
  const starts = (value: string) => value.toLowerCase().startsWith(prefix.slice(0, 64).toLowerCase());
  if (which === 'language') {
    const values = COMMON_LANGUAGES.filter(starts);
    return { values, hasMore: false };
  }
  const result = await run(NEWEST[which], {});
  const page = (
    result.data as { page?: { edges: Array<{ node: { id: string } }>; pageInfo: { hasNextPage: boolean } } }
  )?.page;
  const values = (page?.edges ?? []).map((edge) => edge.node.id).filter(starts);
  return { values: values.slice(0, MAX_COMPLETIONS), hasMore: page?.pageInfo.hasNextPage === true };
}
