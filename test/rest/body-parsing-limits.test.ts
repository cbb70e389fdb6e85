// Cheap checks before work, and parsers that stop at the limit (issue 52, item 2; docs/limits.md): a provider callback's
// key and signature header are checked before its body is read, form fields and JSON keys are counted on the text as
// it is read and refused past the limit with a 4xx that names it and echoes nothing of the input, so a hostile body
// of 100 000 fields is refused in milliseconds instead of seconds.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startApp, type TestApp } from '../helpers/app.js';
import { createLegacyCampaign } from '../helpers/campaigns.js';
import { connectTelephony, sendCallback } from '../helpers/telephony.js';
import { formFieldsOver, MAX_FORM_FIELDS } from '../../src/validation/form-fields.js';
import { jsonTooDeepAt, jsonValuesOverAt, MAX_JSON_VALUES } from '../../src/validation/json-limits.js';

/**
 * Before the limits these took 0.3–7 s on an idle machine; refused now they take milliseconds. The bound leaves
 * room for a loaded test machine (every test file runs in parallel) and still fails the old code by far.
 */
const QUICK_MS = 1500;

const FORM = 'application/x-www-form-urlencoded';
const fields = (count: number) => Array.from({ length: count }, (_, i) => `f${i}=x`).join('&');
const keys = (count: number) => Object.fromEntries(Array.from({ length: count }, (_, i) => [`k${i}`, 1]));
const HUGE_FORM = fields(100_000);

let t: TestApp;
let account: Awaited<ReturnType<TestApp['account']>>;
beforeAll(async () => {
  t = await startApp({}, [], { worker: false });
  account = await t.account();
  await connectTelephony(t, account.token);
  await createLegacyCampaign(t, account.token, 'spring');
});
afterAll(() => t.close());

async function timed<T>(work: () => Promise<T>): Promise<{ reply: T; ms: number }> {
  const started = performance.now();
  const reply = await work();
  return { reply, ms: performance.now() - started };
}

const post = (path: string, type: string, raw: string, headers: Record<string, string> = {}) =>
  t.request('POST', path, { raw, headers: { 'content-type': type, ...headers } });

describe('the telephony callback checks its key and signature header before it reads the body', () => {
  it('a made-up key with a 100 000-field form: 403 at once, nothing echoed', async () => {
    const { reply, ms } = await timed(() =>
      post('/api/v3/telephony_webhook/ck_made_up_key/anything', FORM, HUGE_FORM, { 'x-telephony-signature': 'x' }),
    );
    expect(reply.status, reply.text).toBe(403);
    expect(reply.body).toEqual({ detail: 'Invalid API key' });
    expect(ms).toBeLessThan(QUICK_MS);
  });

  it('a real key without a signature: 403 before the body is read', async () => {
    const { reply, ms } = await timed(() =>
      post(`/api/v3/telephony_webhook/${account.apiKey}/spring`, FORM, HUGE_FORM),
    );
    expect(reply.status, reply.text).toBe(403);
    expect(reply.body).toEqual({ detail: 'Invalid signature' });
    expect(ms).toBeLessThan(QUICK_MS);
  });

  it('a real key and a signature header with 100 000 fields: 422 naming the 100-field limit, echoing nothing', async () => {
    const { reply, ms } = await timed(() =>
      post(`/api/v3/telephony_webhook/${account.apiKey}/spring`, FORM, HUGE_FORM, { 'x-telephony-signature': 'x' }),
    );
    expect(reply.status, reply.text).toBe(422);
    expect(reply.body.detail).toEqual([
      {
        type: 'too_long',
        loc: ['body'],
        msg: 'A form may hold at most 100 fields',
        input: null,
        ctx: { max_length: 100 },
      },
    ]);
    expect(reply.text.length).toBeLessThan(300);
    expect(ms).toBeLessThan(QUICK_MS);
    // The same limit for a JSON body (the route takes both): keys counted before parsing.
    const json = await post(
      `/api/v3/telephony_webhook/${account.apiKey}/spring`,
      'application/json',
      JSON.stringify(keys(101)),
      {
        'x-telephony-signature': 'x',
      },
    );
    expect(json.status, json.text).toBe(422);
    expect(json.body.detail[0].msg).toMatch(/at most 100 object keys/);
    expect(json.text.length).toBeLessThan(300);
  });

  it('a correctly signed callback of 100 fields or fewer is still received', async () => {
    const reply = await sendCallback(t, account.apiKey, 'spring', { CallSid: 'CA1', CallStatus: 'completed' });
    expect(reply.status, reply.text).toBe(200);
    expect(reply.body).toEqual({ received: true });
  });
});

describe('forms and JSON bodies are counted as they are read', () => {
  it('login with 100 000 form fields: 422 naming the 1000-field limit, quick', async () => {
    const { reply, ms } = await timed(() => post('/api/v3/login', FORM, HUGE_FORM));
    expect(reply.status, reply.text).toBe(422);
    expect(reply.body.detail).toEqual([
      {
        type: 'too_long',
        loc: ['body'],
        msg: `A form may hold at most ${MAX_FORM_FIELDS} fields`,
        input: null,
        ctx: { max_length: MAX_FORM_FIELDS },
      },
    ]);
    expect(ms).toBeLessThan(QUICK_MS);
  });

  it('login with 1000 fields is read as before (extra fields are ignored)', async () => {
    const form = `username=${encodeURIComponent(account.email)}&password=${encodeURIComponent('correct horse battery')}&${fields(998)}`;
    const reply = await post('/api/v3/login', FORM, form);
    expect(reply.status, reply.text).toBe(200);
  });

  it('signup with a JSON body of 60 000 keys: 422 naming the limit, quick, nothing echoed', async () => {
    const body = JSON.stringify({ email: 'a@example.com', password: 'x', ...keys(60_000) });
    const { reply, ms } = await timed(() => post('/api/v3/signup', 'application/json', body));
    expect(reply.status, reply.text).toBe(422);
    expect(reply.body.detail).toEqual([
      {
        type: 'too_long',
        loc: ['body'],
        msg: `A JSON body may hold at most ${MAX_JSON_VALUES} object keys and list items in all`,
        input: null,
        ctx: { max_length: MAX_JSON_VALUES },
      },
    ]);
    expect(ms).toBeLessThan(QUICK_MS);
  });

  it('a body of thousands of keys missing its fields: the 422 does not echo it once per missing field', async () => {
    const many = Object.fromEntries(Array.from({ length: 9000 }, (_, i) => [`k${i}`, 'x'.repeat(100)]));
    const reply = await post('/api/v3/signup', 'application/json', JSON.stringify(many));
    expect(reply.status, reply.text).toBe(422);
    expect(reply.body.detail.map((d: { loc: unknown }) => d.loc)).toEqual([
      ['body', 'email'],
      ['body', 'password'],
    ]);
    expect(reply.body.detail[0].input).toBeNull();
    expect(reply.text.length).toBeLessThan(500);
    // A small body is echoed as FastAPI echoes it.
    const small = await post('/api/v3/signup', 'application/json', JSON.stringify({ k: 'v' }));
    expect(small.body.detail[0].input).toEqual({ k: 'v' });
  });

  it('signup with a 100 000-field form (a JSON-only route): refused quickly, nothing echoed', async () => {
    const { reply, ms } = await timed(() => post('/api/v3/signup', FORM, HUGE_FORM));
    expect(reply.status, reply.text).toBe(422);
    expect(reply.text.length).toBeLessThan(300);
    expect(ms).toBeLessThan(QUICK_MS);
  });

  it('an MCP message of 60 000 keys: 400 naming the limit, quick', async () => {
    const message = { jsonrpc: '2.0', id: 1, method: 'tools/list', params: keys(60_000) };
    const raw = JSON.stringify(message);
    const { reply, ms } = await timed(() =>
      t.request('POST', '/mcp', {
        raw,
        token: account.token,
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      }),
    );
    expect(reply.status, reply.text).toBe(400);
    expect(reply.body.error.message).toMatch(new RegExp(`at most ${MAX_JSON_VALUES} object keys`));
    expect(reply.text.length).toBeLessThan(300);
    expect(ms).toBeLessThan(QUICK_MS);
  });
});

describe('the counting scans (on the bytes, before the body is decoded)', () => {
  const utf8 = (text: string) => Buffer.from(text, 'utf8');

  it('count form fields as URLSearchParams does, stopping at the limit', () => {
    expect(formFieldsOver(utf8('a=1&&b=2&'), 2)).toBe(false);
    expect(formFieldsOver(utf8('a=1&b=2&c'), 2)).toBe(true);
    expect(formFieldsOver(utf8(''), 0)).toBe(false);
    expect(formFieldsOver(utf8('é=ü&ß=1'), 1)).toBe(true);
    expect([...new URLSearchParams('a=1&&b=2&')].length).toBe(2);
  });

  it('never count fewer JSON keys and items than the parsed value holds; brackets and commas in strings do not count', () => {
    expect(jsonValuesOverAt(utf8('{"a":1,"b":[1,2,3]}'), 5)).toBe(-1);
    expect(jsonValuesOverAt(utf8('{"a":1,"b":[1,2,3]}'), 4)).toBeGreaterThan(0);
    expect(jsonValuesOverAt(utf8('["a,b:c[{", "d"]'), 2)).toBe(-1);
    expect(jsonValuesOverAt(utf8('["a,b:c[{", "d"]'), 1)).toBeGreaterThan(0);
    expect(jsonValuesOverAt(utf8(JSON.stringify(keys(MAX_JSON_VALUES))))).toBe(-1);
    expect(jsonValuesOverAt(utf8(JSON.stringify(keys(MAX_JSON_VALUES + 1))))).toBeGreaterThan(0);
  });

  it('nesting is counted outside strings, on the bytes', () => {
    expect(jsonTooDeepAt(utf8('[[["]]]]]"]]]'), 3)).toBe(-1);
    expect(jsonTooDeepAt(utf8('[[[[1]]]]'), 3)).toBe(3);
    expect(jsonTooDeepAt(utf8(String.raw`["\"[[[[", [[1]]]`), 3)).toBe(-1);
    expect(jsonTooDeepAt(utf8(String.raw`["\\", [[[1]]]]`), 3)).toBe(9);
    // A string that never ends hides what follows; an ü before the limit moves the byte offset by one.
    expect(jsonTooDeepAt(utf8('["[[[[[['), 3)).toBe(-1);
    expect(jsonTooDeepAt(utf8('["ü",[[[1]]]]'), 3)).toBe(8);
  });

  it('escaped quotes stay inside their string, an even run of backslashes ends it', () => {
    // ["a\",:[", "b"]: one string holding a quote, then a second item: 2 values ([ and one comma).
    expect(jsonValuesOverAt(utf8(String.raw`["a\",:[", "b"]`), 2)).toBe(-1);
    expect(jsonValuesOverAt(utf8(String.raw`["a\",:[", "b"]`), 1)).toBeGreaterThan(0);
    // ["a\\", "b", "c"]: the string ends after two backslashes: 3 values.
    expect(jsonValuesOverAt(utf8(String.raw`["a\\", "b", "c"]`), 3)).toBe(-1);
    expect(jsonValuesOverAt(utf8(String.raw`["a\\", "b", "c"]`), 2)).toBeGreaterThan(0);
    // A string that never ends counts nothing after its quote.
    expect(jsonValuesOverAt(utf8('[1,2,"3,4,5,6'), 3)).toBe(-1);
  });

  it('count multi-byte text as its decoded JSON: every value a parse finds, no byte of a character taken for syntax', () => {
    const values = (value: unknown): number =>
      value === null || typeof value !== 'object'
        ? 0
        : Object.values(value).reduce<number>((sum, child) => sum + 1 + values(child), 0);
    const samples = [
      { ключ: ['значение', 'ü,', '"[é]"'], 名前: { '🙂': '😀:😀', 'x\\': '\\"' } },
      ['\u2028', '\u0000', 'ʼ', { 'a"b': [[], {}, ['🙂']] }],
    ];
    for (const sample of samples) {
      const text = JSON.stringify(sample);
      const found = values(JSON.parse(text));
      expect(jsonValuesOverAt(utf8(text), found + 2)).toBe(-1);
      expect(jsonValuesOverAt(utf8(text), Math.max(0, found - 1))).toBeGreaterThan(0);
    }
  });
});
