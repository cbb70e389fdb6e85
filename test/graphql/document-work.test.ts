// The work a document may cost before it runs (src/graphql/server/document-work.ts; issue 41): worst cases within the token
// limit are refused at once with a clear error, documents within the limits still run, and @stream keeps its merging
// check. The time each worst case costs is measured by `npm run bench:documents`, not here.
import { GraphQLError, OverlappingFieldsCanBeMergedRule, parse, type ValidationRule } from 'graphql';
import { describe, expect, it } from 'vitest';
import { EXPENSIVE_DOCUMENTS } from '../../bench/expensive-documents.js';
import {
  documentWorkLimits,
  MAX_EXPANDED_SELECTIONS,
  MAX_FRAGMENTS,
  MAX_OPERATIONS,
  MAX_SAME_RESPONSE_NAME,
  MAX_SPREADS_PER_SELECTION,
  mergingProblem,
} from '../../src/graphql/server/document-work.js';
import { appsClosedAfterEach } from '../helpers/started-apps.js';

const start = appsClosedAfterEach();

const times = (n: number, unit: (i: number) => string) => Array.from({ length: n }, (_, i) => unit(i)).join(' ');

describe('the merging pre-check', () => {
  it('refuses a response name repeated past the limit, and accepts it at the limit', () => {
    expect(mergingProblem(parse(`{ viewer { ${times(MAX_SAME_RESPONSE_NAME, () => 'email')} } }`))).toBeNull();
    expect(mergingProblem(parse(`{ viewer { ${times(MAX_SAME_RESPONSE_NAME + 1, () => 'email')} } }`))).toMatch(
      /"email" is selected more than 15 times/,
    );
  });

  it('merges the sub-selections of fields of one name, as execution does', () => {
    // 4 campaigns × 4 edges each: 16 fields "edges" in the one merged selection of "campaigns".
    const nested = `{ ${times(4, () => `campaigns { ${times(4, () => 'edges { cursor }')} }`)} }`;
    expect(mergingProblem(parse(nested))).toMatch(/"edges" is selected more than/);
    const inline = `{ viewer { ${times(16, () => '... on Account { email }')} } }`;
    expect(mergingProblem(parse(inline))).toMatch(/"email"/);
  });

  it('counts fragments where they are spread, and bounds spreads, fragments, operations and the expansion', () => {
    const spread = (n: number) =>
      `{ viewer { ${times(n, (i) => `...F${i}`)} } } ${times(n, (i) => `fragment F${i} on Account { id }`)}`;
    expect(mergingProblem(parse(spread(MAX_SPREADS_PER_SELECTION)))).toBeNull();
    expect(mergingProblem(parse(spread(MAX_SPREADS_PER_SELECTION + 1)))).toMatch(/spreads more than 15 fragments/);
    const fragments = `{ viewer { id } } ${times(MAX_FRAGMENTS + 1, (i) => `fragment F${i} on Account { id }`)}`;
    expect(mergingProblem(parse(fragments))).toMatch(/at most 100 fragments/);
    const operations = times(MAX_OPERATIONS + 1, (i) => `query Q${i} { viewer { id } }`);
    expect(mergingProblem(parse(operations))).toMatch(/at most 100 operations/);
    // Each fragment spreads the next twice: 2^40 paths, cut at the expansion bound (or a spread count) at once.
    const doubling = `{ viewer { ...F0 } } ${times(40, (i) => (i === 39 ? `fragment F${i} on Account { email }` : `fragment F${i} on Account { a${i}: id ...F${i + 1} } fragment G${i} on Account { ...F${i + 1} }`))}`;
    const problem = mergingProblem(parse(doubling));
    expect(problem === null || /expanded|spreads/.test(problem)).toBe(true);
    // 200 aliases of viewer, each spreading a fragment of 200 aliased fields: 40 000 selections once expanded.
    const wide = `{ ${times(200, (i) => `v${i}: viewer { ...F }`)} } fragment F on Account { ${times(200, (k) => `e${k}: email`)} }`;
    expect(mergingProblem(parse(wide))).toMatch(new RegExp(`over ${MAX_EXPANDED_SELECTIONS} selections`));
  });

  it('ignores unknown fragments and cycles (validation reports those)', () => {
    expect(mergingProblem(parse('{ viewer { ...Nope } }'))).toBeNull();
    expect(
      mergingProblem(parse('{ viewer { ...A } } fragment A on Account { ...B } fragment B on Account { ...A }')),
    ).toBeNull();
  });

  it('turns graphql-js\'s "Validation aborted." into a message and a code', () => {
    const rules: ValidationRule[] = [];
    let replaced: readonly GraphQLError[] | undefined;
    const after = documentWorkLimits.onValidate!({
      params: { documentAST: parse('{ viewer { id } }'), rules },
      setResult: () => undefined,
    } as never) as (payload: unknown) => void;
    after({
      result: [new GraphQLError('Validation aborted.')],
      setResult: (r: readonly GraphQLError[]) => (replaced = r),
    });
    expect(replaced?.[0]?.message).toMatch(/too costly to validate/);
    expect(replaced?.[0]?.extensions.code).toBe('GRAPHQL_VALIDATION_FAILED');
  });
});

describe('worst-case documents over HTTP', () => {
  it('each shape of the benchmark is answered with a clear error or a result, never a 5xx', async () => {
    const t = await start();
    for (const shape of EXPENSIVE_DOCUMENTS) {
      const query = shape.document('t');
      const reply = await t.request('POST', '/graphql', {
        raw: JSON.stringify({ query, operationName: /query (\w+)/.exec(query)?.[1] }),
        headers: { 'content-type': 'application/json', accept: 'application/graphql-response+json' },
      });
      expect(reply.status, shape.name).toBeLessThan(500);
      const error = reply.body.errors?.[0];
      expect(error?.message, shape.name).not.toBe('Validation aborted.');
      expect(error?.message, shape.name).not.toBe('Unexpected error.');
    }
  });

  it('a repeated field is refused with GRAPHQL_VALIDATION_FAILED (400 under application/graphql-response+json)', async () => {
    const t = await start();
    const { token } = await t.account();
    const reply = await t.request('POST', '/graphql', {
      raw: JSON.stringify({ query: `{ viewer { ${times(300, () => 'email id')} } }` }),
      headers: { 'content-type': 'application/json', accept: 'application/graphql-response+json' },
      token,
    });
    expect(reply.status).toBe(400);
    expect(reply.body.errors[0].extensions.code).toBe('GRAPHQL_VALIDATION_FAILED');
    expect(reply.body.errors[0].message).toMatch(/"email" is selected more than 15 times/);
    // Within the limit: answered.
    const within = await t.gql(`{ viewer { ${times(MAX_SAME_RESPONSE_NAME, () => 'email')} } }`, undefined, token);
    expect(within.body.errors).toBeUndefined();
    expect(within.body.data.viewer.email).toMatch(/@example.com$/);
  });

  it('a caller without a valid token may send at most 1 000 tokens; a signed-in one 5 000, the same document', async () => {
    const t = await start();
    const { token } = await t.account();
    // ~1 500 tokens within every merging limit: 91 operations, each spreading a fragment of its own.
    const fragments = times(100, (i) => `fragment F${i} on Account { email id accountId createdAt apiKeyHint }`);
    const operations = times(90, (i) => `query Q${i + 10} { viewer { ...F${i + 10} } }`);
    const query = `query Big { viewer { ${times(10, (i) => `...F${i}`)} } } ${operations} ${fragments}`;
    const anonymous = await t.request('POST', '/graphql', { body: { query, operationName: 'Big' } });
    expect(anonymous.body.errors?.[0]?.extensions.code).toBe('GRAPHQL_PARSE_FAILED');
    expect(anonymous.body.errors?.[0]?.message).toMatch(/without a valid token may hold at most 1000 tokens/);
    const signedIn = await t.request('POST', '/graphql', { body: { query, operationName: 'Big' }, token });
    expect(signedIn.body.errors, signedIn.text).toBeUndefined();
    // Known to the prepared lane now: still refused without a token (yoga's answer: the lane declines).
    const again = await t.request('POST', '/graphql', { body: { query, operationName: 'Big' } });
    expect(again.body.errors?.[0]?.extensions.code).toBe('GRAPHQL_PARSE_FAILED');
  });

  it("graphql-js's merging rule still refuses conflicts, and @stream differing on merged fields is still refused", async () => {
    const t = await start();
    const { token } = await t.account();
    const conflict = await t.gql('{ viewer { a: email a: id } }', undefined, token);
    expect(conflict.body.errors?.[0]?.message).toMatch(/Fields "a" conflict/);
    const stream = await t.gql(
      '{ voices(language: "en") @stream(initialCount: 1) { voiceId } voices(language: "en") { voiceId } }',
      undefined,
      token,
    );
    expect(stream.body.errors?.[0]?.message).toMatch(/differing stream directives/);
  });

  it("takes yoga's copy of the merging rule out of documents without @stream", () => {
    const copy: ValidationRule = Object.defineProperty(() => ({}), 'name', {
      value: OverlappingFieldsCanBeMergedRule.name,
    });
    const rules: ValidationRule[] = [OverlappingFieldsCanBeMergedRule, copy];
    documentWorkLimits.onValidate!({
      params: { documentAST: parse('{ viewer { id } }'), rules },
      setResult: () => undefined,
    } as never);
    expect(rules).toEqual([OverlappingFieldsCanBeMergedRule]);
    const streaming: ValidationRule[] = [OverlappingFieldsCanBeMergedRule, copy];
    documentWorkLimits.onValidate!({
      params: { documentAST: parse('{ voices @stream { voiceId } }'), rules: streaming },
      setResult: () => undefined,
    } as never);
    expect(streaming).toEqual([OverlappingFieldsCanBeMergedRule, copy]);
  });
});
