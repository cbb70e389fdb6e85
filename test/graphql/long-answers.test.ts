// Long answers serialised in pieces (issue 52; src/graphql/server/long-answers.ts): the text is exactly what
// JSON.stringify gives, the event loop is given back between long strings, and an answer of megabytes of transcripts
// reads the same through yoga and through the prepared lane.
import { describe, expect, it } from 'vitest';
import { longAnswerStats, stringifyInPieces, withData } from '../../src/graphql/server/long-answers.js';
import { startApp } from '../helpers/app.js';
import { createLegacyCampaign } from '../helpers/campaigns.js';
import { seedCallLogs } from '../helpers/columns-read.js';

const long = (seed: string, length: number) => seed.repeat(Math.ceil(length / seed.length)).slice(0, length);

describe('stringifyInPieces', () => {
  it('gives what JSON.stringify gives, long strings and all, and leaves the value as it was', async () => {
    const values: unknown[] = [
      { data: { callLogs: { edges: [{ node: { callId: 'a', transcript: long('say "hi"\n\t😀 é \\ ', 300_000) } }] } } },
      [long('x', 20_000), null, { a: undefined, b: long('\u0000\u001f\u2028 lone \ud800 ', 40_000) }, 1.5, true],
      { when: new Date(0), nested: [[long('ab', 17_000)]], empty: {}, list: [] },
      { short: 'only short strings', n: -0 },
      long('top level', 50_000),
    ];
    for (const value of values) {
      const before = structuredClone(value);
      expect(await stringifyInPieces(value)).toBe(JSON.stringify(value));
      expect(value).toEqual(before);
    }
  });

  it('gives the loop back between long strings', async () => {
    let yields = 0;
    const value = { texts: Array.from({ length: 6 }, (_, i) => long(`text ${i} `, 300_000)) };
    const text = await stringifyInPieces(value, async () => {
      yields += 1;
    });
    expect(text).toBe(JSON.stringify(value));
    // 1.8 M characters in pieces of at most 256 Ki and one more before the whole is joined.
    expect(yields).toBeGreaterThanOrEqual(6);
  });

  it('withData puts the serialised data where JSON.stringify puts data, errors and extensions as they are', () => {
    const data = { campaigns: { edges: [] } };
    for (const result of [
      { data, errors: [{ message: 'x', path: ['a'] }] },
      { errors: [{ message: '"data" \u0000' }], data, extensions: { cost: 3 } },
      { data },
    ]) {
      expect(withData(result, JSON.stringify(data))).toBe(JSON.stringify(result));
    }
  });
});

describe('an answer of megabytes of transcripts', () => {
  it('answers the same body through yoga and the prepared lane, within the text budget', async () => {
    const t = await startApp({}, [], { worker: false });
    try {
      const account = await t.account();
      await createLegacyCampaign(t, account.token, 'calls');
      // 6 × 300 000 characters with quotes, newlines and non-ASCII: past the 512 Ki from which data is serialised in
      // pieces, within the 4 Mi answer budget.
      const transcriptOf = (index: number) => long(`Olá "${index}"\n😀 `, 300_000);
      await seedCallLogs(t, account.id, 6, (index) => ({
        transcript: transcriptOf(index),
        summary: '',
        analysis: null,
      }));
      const query = '{ callLogs(first: 10) { edges { node { callId transcript summary } } } }';
      const bodies: string[] = [];
      const before = longAnswerStats.answers;
      // The first is yoga's (the document learnt), the second the lane's.
      for (let i = 0; i < 2; i++) {
        const response = await t.app.fetch(
          new Request('http://127.0.0.1/graphql', {
            method: 'POST',
            headers: { 'content-type': 'application/json', authorization: `Bearer ${account.token}` },
            body: JSON.stringify({ query }),
          }),
        );
        expect(response.status).toBe(200);
        bodies.push(await response.text());
      }
      expect(bodies[1]).toBe(bodies[0]);
      // Both were serialised in pieces (the suite's shadow copies of the lane's requests too).
      const serialised = longAnswerStats.answers - before;
      expect(serialised).toBeGreaterThanOrEqual(2);
      // A short answer is not: its summaries only.
      const short = await t.gql('{ callLogs(first: 10) { edges { node { callId summary } } } }', {}, account.token);
      expect(short.status).toBe(200);
      expect(longAnswerStats.answers - before).toBe(serialised);
      const answer = JSON.parse(bodies[0]!) as {
        data: { callLogs: { edges: Array<{ node: { callId: string; transcript: string } }> } };
      };
      expect(JSON.stringify(answer)).toBe(bodies[0]);
      const transcripts = answer.data.callLogs.edges.map((edge) => edge.node.transcript);
      expect(transcripts).toHaveLength(6);
      expect(transcripts.sort()).toEqual(Array.from({ length: 6 }, (_, i) => transcriptOf(i)).sort());

      // The REST door's answer of the same calls, in pieces too, and the text JSON.stringify gives.
      const restBefore = longAnswerStats.answers;
      const rest = await t.app.fetch(
        new Request('http://127.0.0.1/api/v3/get_call_logs_for_campaign?campId=calls', {
          headers: { authorization: `Bearer ${account.token}` },
        }),
      );
      expect(rest.status).toBe(200);
      expect(rest.headers.get('content-type')).toBe('application/json');
      const restText = await rest.text();
      const restBody = JSON.parse(restText) as Array<{ transcript: string }>;
      expect(JSON.stringify(restBody)).toBe(restText);
      expect(restBody.map((log) => log.transcript).sort()).toEqual(transcripts);
      expect(longAnswerStats.answers - restBefore).toBe(1);
    } finally {
      await t.close();
    }
  });
});
