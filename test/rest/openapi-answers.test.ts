// The answer checker every REST test runs through (test/helpers/openapi-answers.ts, called by test/helpers/app.ts
// for each /api/v3 answer of a test app): it passes what the description allows and names what it does not. The
// last test shows it at work on real answers: a server whose result is spoiled fails the test that called it.
import { isAsyncIterable, type Plugin } from 'graphql-yoga';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type AnswerChecker, answerChecker, type RestAnswer, servedAnswerChecker } from '../helpers/openapi-answers.js';
import { startApp, type TestApp } from '../helpers/app.js';

let check: AnswerChecker;
beforeAll(async () => {
  check = await servedAnswerChecker();
});

const VOICE = {
  voiceId: 'en-US-aria',
  name: 'Aria',
  language: 'en-US',
  gender: 'female',
  accent: 'American',
  provider: 'telephony',
  previewUrl: 'https://voices.invalid/previews/en-US-aria.mp3',
};

function answer(
  method: string,
  url: string,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): RestAnswer {
  return {
    method,
    url,
    status,
    text: typeof body === 'string' ? body : JSON.stringify(body),
    headers: new Headers({
      'content-type': typeof body === 'string' ? 'text/plain; charset=utf-8' : 'application/json',
      'x-request-id': 'req-1',
      ...headers,
    }),
  };
}

describe('what the description allows passes', () => {
  it('a success body of the declared shape, an error of a documented status, the docs pages', () => {
    expect(check(answer('GET', '/api/v3/get_supported_voices', 200, [VOICE]))).toEqual([]);
    expect(check(answer('GET', '/api/v3/get_campaign?campId=x', 404, { detail: 'Campaign not found' }))).toEqual([]);
    const unauthorized = answer(
      'GET',
      '/api/v3/get_campaigns',
      401,
      { detail: 'Not authenticated' },
      {
        'www-authenticate': 'Bearer',
      },
    );
    expect(check(unauthorized)).toEqual([]);
    const invalid = { detail: [{ type: 'missing', loc: ['query', 'campId'], msg: 'Field required', input: null }] };
    expect(check(answer('GET', '/api/v3/get_campaign', 422, invalid))).toEqual([]);
    expect(check(answer('GET', '/api/v3/social_webhook/k/c?hub.challenge=x', 200, 'x'))).toEqual([]);
    expect(check(answer('GET', '/api/v3/openapi.json', 200, {}))).toEqual([]);
    expect(check(answer('POST', '/graphql', 200, { data: null }))).toEqual([]);
  });

  it('paths that are not operations: 404 anywhere, 405 with the path’s methods in Allow', () => {
    expect(check(answer('GET', '/api/v3/nowhere', 404, { detail: 'Not Found' }))).toEqual([]);
    const methods = { allow: 'POST, GET, DELETE' };
    const put = answer('PUT', '/api/v3/text_pipeline_configuration', 405, { detail: 'Method Not Allowed' }, methods);
    expect(check(put)).toEqual([]);
    const limited = answer('GET', '/api/v3/nowhere', 429, { detail: 'Too many requests' }, { 'retry-after': '5' });
    expect(check(limited)).toEqual([]);
    // A HEAD or OPTIONS on a GET path is a 405 too, listed on the path's operations.
    const head = answer('HEAD', '/api/v3/get_campaigns', 405, { detail: 'Method Not Allowed' }, { allow: 'GET' });
    expect(check(head)).toEqual([]);
  });

  it('a 405 is documented only where the path’s operations list it', () => {
    const doc = structuredClone(check.doc);
    delete doc.paths['/get_campaigns'].get.responses['405'];
    const without = answerChecker(doc);
    const patch = answer('PATCH', '/api/v3/get_campaigns', 405, { detail: 'Method Not Allowed' }, { allow: 'GET' });
    expect(without(patch)).toEqual(['status 405 is not documented for PATCH on a path answering GET']);
  });
});

describe('what it does not allow is named', () => {
  it('a success body with a field of the wrong type, a field too many, or one missing', () => {
    expect(check(answer('GET', '/api/v3/get_supported_voices', 200, [{ ...VOICE, name: 42 }]))).toEqual([
      expect.stringMatching(/200: \/0\/name must be string/),
    ]);
    expect(check(answer('GET', '/api/v3/get_supported_voices', 200, [{ ...VOICE, extra: true }]))).toEqual([
      expect.stringMatching(/must NOT have additional properties.*extra/),
    ]);
    const { previewUrl: _, ...partial } = VOICE;
    expect(check(answer('GET', '/api/v3/get_supported_voices', 200, [partial]))).toEqual([
      expect.stringMatching(/must have required property 'previewUrl'/),
    ]);
  });

  it('a status the operation does not document, or an error body that is not FastAPI’s', () => {
    expect(check(answer('GET', '/api/v3/get_campaigns', 409, { detail: 'Conflict' }))).toEqual([
      'status 409 is not documented for GET /get_campaigns',
    ]);
    expect(check(answer('GET', '/api/v3/get_campaigns', 200, { detail: 'not a list' }))).toEqual([
      expect.stringMatching(/must be array/),
    ]);
    expect(check(answer('GET', '/api/v3/get_campaign?campId=x', 404, { error: 'Campaign not found' }))).toEqual([
      expect.stringMatching(/required property 'detail'/),
      expect.stringMatching(/additional properties/),
    ]);
    expect(check(answer('GET', '/api/v3/nowhere', 405, { detail: 'Method Not Allowed' }))).toEqual([
      'status 405 is not documented for a path not described',
    ]);
  });

  it('a required header missing or wrong, a wrong Allow, a wrong Content-Type', () => {
    expect(check(answer('GET', '/api/v3/get_campaigns', 401, { detail: 'Not authenticated' }))).toEqual([
      expect.stringMatching(/header WWW-Authenticate is missing/),
    ]);
    expect(check(answer('GET', '/api/v3/get_campaigns', 429, { detail: 'Slow down' }))).toEqual([
      expect.stringMatching(/header Retry-After is missing/),
    ]);
    const badWait = answer('GET', '/api/v3/get_campaigns', 503, { detail: 'Down' }, { 'retry-after': 'soon' });
    expect(check(badWait)).toEqual([expect.stringMatching(/header Retry-After: .*must be integer/)]);
    const allow = answer('PUT', '/api/v3/get_campaigns', 405, { detail: 'Method Not Allowed' }, { allow: 'POST' });
    expect(check(allow)).toEqual([expect.stringMatching(/Allow is POST, not GET/)]);
    const text = answer('GET', '/api/v3/get_supported_voices', 200, 'hello');
    expect(check(text)).toEqual([expect.stringMatching(/Content-Type text\/plain.* is not one of application\/json/)]);
    const noId = answer('GET', '/api/v3/get_supported_voices', 200, []);
    noId.headers.delete('x-request-id');
    expect(check(noId)).toEqual([expect.stringMatching(/header X-Request-Id is missing/)]);
  });
});

describe('in the test helpers', () => {
  let t: TestApp | undefined;
  afterEach(() => t?.close());

  it('fails the test that receives an answer the description does not allow', async () => {
    // A plugin spoils the voices' names after the operation ran, as a bug in a resolver or in `respond` would.
    const spoil: Plugin = {
      onExecute: () => ({
        onExecuteDone({ result, setResult }) {
          if (isAsyncIterable(result) || !result.data?.voices) return;
          const voices = result.data.voices as Array<Record<string, unknown>>;
          setResult({ ...result, data: { voices: voices.map((voice) => ({ ...voice, name: null })) } });
        },
      }),
    };
    t = await startApp({}, [spoil], { worker: false });
    const { token } = await t.account();
    await expect(t.rest('GET', '/get_supported_voices', { token })).rejects.toThrow(
      /GET \/api\/v3\/get_supported_voices answered 200 .*\n.*does not allow:\n- GET \/get_supported_voices 200: \/0\/name must be string/,
    );
    // A test's own call of app.fetch is checked as well.
    const own = new Request('http://127.0.0.1/api/v3/get_supported_voices', {
      headers: { authorization: `Bearer ${token}` },
    });
    await expect(t.app.fetch(own)).rejects.toThrow(/\/0\/name must be string/);
    // The other doors are not REST answers: GraphQL is not checked against the REST description.
    expect((await t.gql('{ voices { name } }', {}, token)).status).toBe(200);
  });
});
