// The answer budget's fitting (src/mcp/answer-budget.ts), as a pure function: the worst page the server can read — 100
// calls with 500 000-character transcripts, 50 MB of text — is fitted without serialising much more than the answer
// can hold, and the execution's result is left as it was.
import { describe, expect, it } from 'vitest';
import { answerBytes, fitAnswer } from '../../src/mcp/answer-budget.js';

const BUDGET = 64 * 1024;

function page(rows: number, transcript: string) {
  return {
    callLogs: {
      edges: Array.from({ length: rows }, (_, index) => ({
        _mcpCursor: `cursor-${index}`,
        node: { callId: `CA${index}`, campId: 'c', status: 'COMPLETED', summary: null, transcript },
      })),
      pageInfo: { hasNextPage: false, endCursor: `cursor-${rows - 1}` },
    },
  };
}

describe('fitting an answer to its budget', () => {
  it('fits 50 MB of transcripts within the budget in bounded work, and leaves the result it was given alone', () => {
    const transcript = 't'.repeat(500_000);
    const data = page(100, transcript);
    let serialised = 0;
    const stringify = JSON.stringify;
    JSON.stringify = ((...args: Parameters<typeof JSON.stringify>) => {
      const text = stringify(...args);
      serialised += text.length;
      return text;
    }) as typeof JSON.stringify;
    let fitted: ReturnType<typeof fitAnswer>;
    try {
      fitted = fitAnswer(data, BUDGET);
    } finally {
      JSON.stringify = stringify;
    }
    expect('data' in fitted).toBe(true);
    const answer = (fitted as { data: Record<string, any> }).data;
    expect(answerBytes(answer)).toBeLessThanOrEqual(BUDGET);
    expect(answer.callLogs.pageInfo.hasNextPage).toBe(true);
    expect(answer.callLogs.edges[0].node.transcript).toMatch(/…\[cut: \d+ of 500000 characters shown/);
    expect(answer.callLogs.edges[0]).not.toHaveProperty('_mcpCursor');
    expect(answer.callLogs.edges[0].node).not.toHaveProperty('summary');
    // Serialised: some twenty times the budget at most (each trial holds at most the budget of text), never the 50 MB
    // (the first version serialised 144 MB here, in 0.5 s).
    expect(serialised).toBeLessThan(20 * BUDGET);
    // The execution's result is untouched.
    expect(data.callLogs.edges[0]!.node.transcript).toBe(transcript);
    expect(data.callLogs.edges).toHaveLength(100);
  });

  it('answers what fits as it is (null fields below the root left out)', () => {
    const data = { campaign: { campId: 'c', title: 't', textPipeline: null }, other: null };
    const fitted = { campaign: { campId: 'c', title: 't' }, other: null };
    // The data, and its text copy serialised once.
    expect(fitAnswer(data, BUDGET)).toEqual({ data: fitted, text: JSON.stringify(fitted) });
    expect(fitAnswer(data, BUDGET, { omitNulls: false })).toEqual({ data, text: JSON.stringify(data) });
  });
});
