// The OpenAPI description's request schemas are exactly as strict as the server (issue 13, item 6). For every
// operation that takes input, a table of edge-case requests (padded strings at their length limit, padded e-mails,
// numeric strings and boolean words, out-of-range values, wrong enum values, aliases...) is sent to the server AND
// validated with Ajv against the operation's request schema in the served description (its path and query parameters
// and its body). A request the server takes (2xx, or 401/403/404 once past validation: a wrong password, signature or
// id) must be valid for the description; one it refuses as invalid (422) must be invalid, except the cases marked
// `looser`: rules JSON Schema cannot write (a voice of the catalogue, a URL the URL parser takes...), where the
// description is looser and says the rest in words; those cases check that it does. One kind is `stricter`: a
// campaign named by a deprecated alias alone, which the description refuses (it requires the main name) and says so. A second part holds the patterns the description uses for the
// lenient fields to the very functions the server runs, value by value.
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { emailField } from '../../src/domain/accounts.schema.js';
import {
  BOOLEAN_WORD_PATTERN,
  HTTP_URL_SHAPE_PATTERN,
  httpUrlPattern,
  integerStringPattern,
  trimmedLengthPattern,
} from '../../src/validation/input-patterns.js';
import { boolField, dateTimeField, httpUrlField, intField } from '../../src/validation/fields.js';
import { startApp, type TestApp } from '../helpers/app.js';
import { campaignModelData, createLegacyCampaign } from '../helpers/campaigns.js';
import { AUTH_TOKEN, connectTelephony, sign } from '../helpers/telephony.js';

type Json = Record<string, any>;

const PREFIX = '/api/v3';
const CAMP = 'req-camp';
const VERIFY_TOKEN = 'req-verify-token';
const PASSWORD = 'correct horse battery';

interface Fixtures {
  /** The main account: a campaign, telephony, calendar, social (no app secret), a meeting. */
  a: { token: string; apiKey: string; email: string };
  /** Accounts of their own for the integrations and the webhooks (their cases change what they hold). */
  integrations: string;
  webhooks: string;
  meetingId: string;
  /** A fresh webhook of the webhooks account, for a case that deletes or attaches one. */
  newWebhook(): Promise<string>;
  /** Sets the text pipeline of CAMP again, for a case that deletes it. */
  setPipeline(): Promise<void>;
}

interface Case {
  name: string;
  method: 'GET' | 'POST' | 'DELETE';
  /** Under /api/v3, with its query string. */
  url: string;
  token?: string;
  /** A JSON body. */
  json?: unknown;
  /** A form-encoded body (field order kept). */
  form?: Array<[string, string]>;
  /** A body sent as these exact bytes, as JSON. */
  raw?: string;
  /** Sign a telephony callback with AUTH_TOKEN (form or JSON fields). */
  signed?: boolean;
  /** What the server answers. */
  status: number;
  /**
   * The server refuses it (422) but the description cannot: it must accept it, and say this (matched in the
   * operation's or the document's description).
   */
  looser?: RegExp;
  /**
   * The server takes it but the description refuses it, and says so: a campaign named by an alias alone, since OpenAPI
   * cannot say "one of these parameters" and so describes the main name as required (docs/rest-compatibility.md).
   */
  stricter?: RegExp;
  before?: () => Promise<void>;
}

/** A campaign named by a deprecated alias alone: the server reads it, the description requires the main name. */
const aliasAlone = (c: Case): Case => {
  // Set on the case itself: a spread would read a `url` getter before its fixture exists.
  c.stricter = /Older clients may send .* instead \(deprecated\)/;
  return c;
};

const pad = (value: string) => ` \t${value}\n `;
const text = (n: number, c = 'x') => c.repeat(n);
const EMOJI = '😀';
/** A query string in the order given, every value percent-encoded. */
const qs = (params: Record<string, string>) =>
  `?${Object.entries(params)
    .map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(v)}`)
    .join('&')}`;
/** An http(s) URL of exactly `n` characters. */
const urlOf = (n: number, base = 'https://example.com/') => base + text(n - base.length, 'p');

const SUBSCRIBE = { 'hub.mode': 'subscribe', 'hub.verify_token': VERIFY_TOKEN };
const callLogQuery = (extra: Record<string, string>) => qs({ campId: CAMP, ...extra });

/** The cases of each operation with input, by `METHOD /path` as the description names it. */
const TABLE: Record<string, (f: Fixtures) => Case[]> = {
  'POST /signup': () => {
    let n = 0;
    const email = () => `signup-${++n}@example.com`;
    const signup = (name: string, body: Json, status: number, looser?: RegExp): Case => ({
      name,
      method: 'POST',
      url: '/signup',
      json: body,
      status,
      ...(looser ? { looser } : {}),
    });
    const long254 = () => `${text(242, 'a')}${++n % 10}@example.com`.slice(-254);
    return [
      signup('valid', { email: email(), password: PASSWORD }, 200),
      signup('padded, mixed-case e-mail', { email: pad(email().toUpperCase()), password: PASSWORD }, 200),
      signup('e-mail of 254 characters', { email: long254(), password: PASSWORD }, 200),
      signup('e-mail of 254 characters, padded', { email: pad(long254()), password: PASSWORD }, 200),
      signup('e-mail of 255 characters', { email: `a${long254()}`, password: PASSWORD }, 422),
      signup(
        'e-mail whose domain label ends in a hyphen (not RFC, zod takes it)',
        { email: `x${++n}@b-.com`, password: PASSWORD },
        200,
      ),
      signup('e-mail with a space inside', { email: `a b${++n}@example.com`, password: PASSWORD }, 422),
      signup('not an e-mail', { email: 'not-an-email', password: PASSWORD }, 422),
      signup('blank e-mail', { email: '   ', password: PASSWORD }, 422),
      signup('extra field ignored', { email: email(), password: PASSWORD, role: 'admin' }, 200),
      signup('password of 7 characters', { email: email(), password: text(7) }, 422),
      signup('password of 8 characters', { email: email(), password: text(8) }, 200),
      signup('password of 128 characters', { email: email(), password: text(128) }, 200),
      signup('password of 129 characters', { email: email(), password: text(129) }, 422),
      // Lengths count code points on both sides: an emoji (two UTF-16 code units) is one character.
      signup('password of 8 emoji', { email: email(), password: EMOJI.repeat(8) }, 200),
      signup('password of 7 emoji', { email: email(), password: EMOJI.repeat(7) }, 422),
      signup('password of 128 emoji', { email: email(), password: EMOJI.repeat(128) }, 200),
      signup('password of 129 emoji', { email: email(), password: EMOJI.repeat(129) }, 422),
      signup('password missing', { email: email() }, 422),
      signup('password a number', { email: email(), password: 12345678 }, 422),
    ];
  },
  'POST /login': (f) => {
    const login = (name: string, body: Json | Array<[string, string]>, status: number): Case => ({
      name,
      method: 'POST',
      url: '/login',
      ...(Array.isArray(body) ? { form: body } : { json: body }),
      status,
    });
    const { email } = f.a;
    return [
      login('username and password', { username: email, password: PASSWORD }, 200),
      login('email instead of username', { email, password: PASSWORD }, 200),
      login('username wins over a bad email', { username: email, email: 42, password: PASSWORD }, 200),
      login('email not a string, no username', { email: 42, password: PASSWORD }, 422),
      login('neither username nor email', { password: PASSWORD }, 422),
      login('padded, upper-case username', { username: pad(email.toUpperCase()), password: PASSWORD }, 200),
      login('grant_type password', { username: email, password: PASSWORD, grant_type: 'password' }, 200),
      login('grant_type Password', { username: email, password: PASSWORD, grant_type: 'Password' }, 422),
      login('username of 254 characters (no such account)', { username: text(254), password: PASSWORD }, 401),
      login('username of 255 characters', { username: text(255), password: PASSWORD }, 422),
      login('password of 129 characters', { username: email, password: text(129) }, 422),
      login(
        'form',
        [
          ['username', email],
          ['password', PASSWORD],
          ['grant_type', 'password'],
        ],
        200,
      ),
      login(
        'form with email',
        [
          ['email', email],
          ['password', PASSWORD],
        ],
        200,
      ),
      login('form without password', [['username', email]], 422),
    ];
  },
  'POST /update_campaign': (f) => {
    const update = (name: string, fields: Json, status: number, looser?: RegExp, campId = CAMP): Case => ({
      name,
      method: 'POST',
      url: '/update_campaign',
      token: f.a.token,
      json: { campId, campaignModelData: campaignModelData(fields) },
      status,
      ...(looser ? { looser } : {}),
    });
    return [
      update('valid', {}, 200),
      update('maxCallTimeout 120', { maxCallTimeout: 120 }, 200),
      update('maxCallTimeout 121', { maxCallTimeout: 121 }, 422),
      update('maxCallTimeout "120"', { maxCallTimeout: '120' }, 200),
      update('maxCallTimeout " +007 "', { maxCallTimeout: ' +007 ' }, 200),
      update('maxCallTimeout "121"', { maxCallTimeout: '121' }, 422),
      update('maxCallTimeout "1.0"', { maxCallTimeout: '1.0' }, 422),
      update('maxCallTimeout 2.5', { maxCallTimeout: 2.5 }, 422),
      update('maxCallTimeout ""', { maxCallTimeout: '' }, 422),
      update('maxCallTimeout true', { maxCallTimeout: true }, 422),
      update('inactiveCallTimeout "600"', { inactiveCallTimeout: '600' }, 200),
      update('inactiveCallTimeout "-0"', { inactiveCallTimeout: '-0' }, 422),
      update('inactiveCallTimeout "0x10"', { inactiveCallTimeout: '0x10' }, 422),
      update('postCallAnalysis "yes"', { postCallAnalysis: 'yes' }, 200),
      update('postCallAnalysis " OFF "', { postCallAnalysis: ' OFF ' }, 200),
      update('postCallAnalysis 1', { postCallAnalysis: 1 }, 200),
      update('postCallAnalysis 0', { postCallAnalysis: 0 }, 200),
      update('postCallAnalysis 2', { postCallAnalysis: 2 }, 422),
      update('postCallAnalysis "maybe"', { postCallAnalysis: 'maybe' }, 422),
      update('postCallAnalysis null', { postCallAnalysis: null }, 422),
      update('isFreeflow "N"', { isFreeflow: 'N' }, 200),
      update('public "True"', { public: 'True' }, 200),
      update('totalCallTime "12.5"', { totalCallTime: '12.5' }, 200),
      update('totalSpent " -3e2 "', { totalSpent: ' -3e2 ' }, 200),
      update('averageCallCost "abc"', { averageCallCost: 'abc' }, 422),
      update('totalNumCall "1e999" (not finite)', { totalNumCall: '1e999' }, 422, /finite/),
      update('totalNumCall null', { totalNumCall: null }, 422),
      update('title of 200 characters', { title: text(200) }, 200),
      update('title of 201 characters', { title: text(201) }, 422),
      update('title of 200 emoji', { title: EMOJI.repeat(200) }, 200),
      update('title of 201 emoji', { title: EMOJI.repeat(201) }, 422),
      update('title empty', { title: '' }, 422),
      update('voice not in the catalogue', { voice: 'no-such-voice' }, 422, /catalogue/),
      update('language "EN-us"', { language: 'EN-us' }, 200),
      update('language "en_US"', { language: 'en_US' }, 422),
      update('language "en-x" (not a tag Intl takes)', { language: 'en-x' }, 422, /Intl\.getCanonicalLocales/),
      update('timeZone "europe/paris"', { timeZone: 'europe/paris' }, 200),
      update('timeZone " UTC"', { timeZone: ' UTC' }, 422),
      update('timeZone "+02:00"', { timeZone: '+02:00' }, 422),
      update('timeZone "Mars/Olympus"', { timeZone: 'Mars/Olympus' }, 422, /time-zone database/),
      update('flowName omitted', { flowName: undefined }, 200),
      update('postCallAnalysisSchema a list', { postCallAnalysisSchema: [] }, 422),
      update('campId of 64 characters', {}, 200, undefined, text(64, 'c')),
      update('campId of 65 characters', {}, 422, undefined, text(65, 'c')),
      update('campId padded', {}, 422, undefined, ` ${CAMP}`),
    ];
  },
  'GET /get_campaigns': (f) => {
    const list = (name: string, params: Record<string, string>, status: number): Case => ({
      name,
      method: 'GET',
      url: `/get_campaigns${qs(params)}`,
      token: f.a.token,
      status,
    });
    return [
      list('no parameters', {}, 200),
      list('limit "1000"', { limit: '1000' }, 200),
      list('limit "1001"', { limit: '1001' }, 422),
      list('limit " 10 "', { limit: ' 10 ' }, 200),
      list('limit "+5"', { limit: '+5' }, 200),
      list('limit "007"', { limit: '007' }, 200),
      list('limit "0"', { limit: '0' }, 422),
      list('limit "-0"', { limit: '-0' }, 422),
      list('limit "1e2"', { limit: '1e2' }, 422),
      list('limit "5.0"', { limit: '5.0' }, 422),
      list('limit ""', { limit: '' }, 422),
      list('limit "ten"', { limit: 'ten' }, 422),
      list('offset "1000000"', { offset: '1000000' }, 200),
      list('offset "1000001"', { offset: '1000001' }, 422),
      list('offset "-0"', { offset: '-0' }, 200),
      list('offset "-1"', { offset: '-1' }, 422),
      list('unknown parameter ignored', { page: '2' }, 200),
    ];
  },
  'GET /get_campaign': (f) => {
    const get = (name: string, query: string, status: number): Case => ({
      name,
      method: 'GET',
      url: `/get_campaign${query}`,
      token: f.a.token,
      status,
    });
    return [
      get('its campId', qs({ campId: CAMP }), 200),
      get('an unknown campId of 64 characters', qs({ campId: text(64, 'z') }), 404),
      get('campId padded', qs({ campId: ` ${CAMP}` }), 422),
      get('campId "bad!"', qs({ campId: 'bad!' }), 422),
      get('campId missing', '', 422),
    ];
  },
  'POST /text_pipeline_configuration': (f) => {
    const set = (name: string, query: Record<string, string>, body: Json, status: number, looser?: RegExp): Case => ({
      name,
      method: 'POST',
      url: `/text_pipeline_configuration${qs(query)}`,
      token: f.a.token,
      json: body,
      status,
      ...(looser ? { looser } : {}),
    });
    const camp = { campId: CAMP };
    return [
      set('valid', camp, { goal: 'Book a demo' }, 200),
      aliasAlone(set('camp_id instead of campId', { camp_id: CAMP }, { goal: 'g' }, 200)),
      aliasAlone(set('campaignId instead of campId', { campaignId: CAMP }, { goal: 'g' }, 200)),
      set('campId wins over a bad camp_id', { campId: CAMP, camp_id: 'bad!' }, { goal: 'g' }, 200),
      set('campId "bad!"', { campId: 'bad!' }, { goal: 'g' }, 422),
      set('camp_id "bad!" alone', { camp_id: 'bad!' }, { goal: 'g' }, 422),
      set('no campId at all', {}, { goal: 'g' }, 422),
      set('messageDelay "10"', camp, { goal: 'g', messageDelay: '10' }, 200),
      set('messageDelay "11"', camp, { goal: 'g', messageDelay: '11' }, 422),
      set('mexRetry " 5 "', camp, { goal: 'g', mexRetry: ' 5 ' }, 200),
      set('retryDelay 0', camp, { goal: 'g', retryDelay: 0 }, 422),
      set('postWebhookDelay "3600"', camp, { goal: 'g', postWebhookDelay: '3600' }, 200),
      set('postWebhookDelay "3601"', camp, { goal: 'g', postWebhookDelay: '3601' }, 422),
      set('postWebhook null', camp, { goal: 'g', postWebhook: null }, 200),
      set('postWebhook padded, upper-case scheme', camp, { goal: 'g', postWebhook: pad('HTTPS://example.com/x') }, 200),
      set('postWebhook of 2048 characters', camp, { goal: 'g', postWebhook: urlOf(2048) }, 200),
      set('postWebhook of 2048 characters, padded', camp, { goal: 'g', postWebhook: pad(urlOf(2048)) }, 200),
      set(
        'postWebhook of 2048 characters and tabs and newlines inside',
        camp,
        { goal: 'g', postWebhook: `https://example.com/\t\n${urlOf(2048).slice(20, -2)}\r\npp` },
        200,
      ),
      set('postWebhook of 2049 characters', camp, { goal: 'g', postWebhook: urlOf(2049) }, 422),
      set('postWebhook "http:example.com"', camp, { goal: 'g', postWebhook: 'http:example.com' }, 422),
      set('postWebhook "ftp://example.com"', camp, { goal: 'g', postWebhook: 'ftp://example.com' }, 422),
      // A space in the host: the URL's shape pattern refuses it (issue 42); one percent-encoded is the parser's to say.
      set('postWebhook with a space in its host', camp, { goal: 'g', postWebhook: 'http://exa mple.com/' }, 422),
      set('postWebhook that does not parse', camp, { goal: 'g', postWebhook: 'http://exa%20mple.com/' }, 422, /WHATWG/),
      set('postWebhook on loopback', camp, { goal: 'g', postWebhook: 'http://127.0.0.1/x' }, 422, /ALLOW_PRIVATE/),
      set('goal empty', camp, { goal: '' }, 422),
      set('goal of 2000 characters', camp, { goal: text(2000) }, 200),
      set('goal missing', camp, {}, 422),
    ];
  },
  'GET /text_pipeline_configuration': (f) => {
    const get = (name: string, query: Record<string, string>, status: number, looser?: RegExp): Case => ({
      name,
      method: 'GET',
      url: `/text_pipeline_configuration${qs(query)}`,
      token: f.a.token,
      status,
      before: f.setPipeline,
      ...(looser ? { looser } : {}),
    });
    return [
      get('campId', { campId: CAMP }, 200),
      aliasAlone(get('camp_id', { camp_id: CAMP }, 200)),
      aliasAlone(get('campaignId', { campaignId: CAMP }, 200)),
      get('campId "bad!"', { campId: 'bad!' }, 422),
      get('campaignId "bad!" alone', { campaignId: 'bad!' }, 422),
      get('none', {}, 422),
    ];
  },
  'DELETE /text_pipeline_configuration': (f) => {
    const del = (name: string, query: Record<string, string>, status: number): Case => ({
      name,
      method: 'DELETE',
      url: `/text_pipeline_configuration${qs(query)}`,
      token: f.a.token,
      status,
      before: f.setPipeline,
    });
    return [
      del('campId', { campId: CAMP }, 200),
      aliasAlone(del('camp_id', { camp_id: CAMP }, 200)),
      del('campId padded', { campId: pad(CAMP) }, 422),
    ];
  },
  'POST /update_telephony': (f) => {
    const valid = {
      telephonyAccountSid: 'AC0123',
      telephonyAuthToken: AUTH_TOKEN,
      telephonyPhoneNumber: '+14155550100',
    };
    const put = (name: string, fields: Json, status: number): Case => ({
      name,
      method: 'POST',
      url: '/update_telephony',
      token: f.integrations,
      json: { ...valid, ...fields },
      status,
    });
    return [
      put('valid', {}, 200),
      put('telephonyAccountSid of 128 characters, padded', { telephonyAccountSid: pad(text(128, 'A')) }, 200),
      put('telephonyAccountSid of 129 characters', { telephonyAccountSid: text(129, 'A') }, 422),
      put(
        'telephonyAccountSid of 129 characters with one inner space',
        { telephonyAccountSid: `${text(64, 'A')} ${text(64, 'A')}` },
        422,
      ),
      put('telephonyAuthToken blank', { telephonyAuthToken: ' \n ' }, 422),
      put('telephonyAuthToken of 256 characters, padded', { telephonyAuthToken: pad(text(256, 'T')) }, 200),
      put('telephonyPhoneNumber padded', { telephonyPhoneNumber: ' +14155550100' }, 422),
      put('voiceProvider "telephony"', { voiceProvider: 'telephony' }, 422),
      put('voiceProvider null', { voiceProvider: null }, 422),
      put('voiceProvider "TELEPHONY"', { voiceProvider: 'TELEPHONY' }, 200),
    ];
  },
  'POST /add_board_info': (f) => {
    const add = (name: string, body: Json, status: number): Case => ({
      name,
      method: 'POST',
      url: '/add_board_info',
      token: f.integrations,
      json: { apiKey: 'board-key', boardId: 'b1', ...body },
      status,
    });
    return [
      add('valid', {}, 200),
      add('apiKey of 512 characters, padded', { apiKey: pad(text(512, 'k')) }, 200),
      add('apiKey of 513 characters', { apiKey: text(513, 'k') }, 422),
      add('workspace null', { workspace: null }, 200),
      add('workspace blank', { workspace: '   ' }, 422),
      add('boardId missing', { boardId: undefined }, 422),
    ];
  },
  'POST /add_calendar_info': (f) => {
    const add = (name: string, body: Json, status: number): Case => ({
      name,
      method: 'POST',
      url: '/add_calendar_info',
      token: f.integrations,
      json: { apiKey: 'cal-key', schedulingUrl: 'https://cal.example.com/me', ...body },
      status,
    });
    return [
      add('valid', {}, 200),
      add('schedulingUrl padded', { schedulingUrl: pad('https://cal.example.com/me') }, 200),
      add('schedulingUrl "mailto:"', { schedulingUrl: 'mailto:me@example.com' }, 422),
      add('eventTypeId of 128 characters, padded', { eventTypeId: pad(text(128, 'e')) }, 200),
      add('eventTypeId of 129 characters', { eventTypeId: text(129, 'e') }, 422),
    ];
  },
  'POST /add_erp_info': (f) => {
    const add = (name: string, body: Json, status: number): Case => ({
      name,
      method: 'POST',
      url: '/add_erp_info',
      token: f.integrations,
      json: { erpUrl: 'https://erp.example.com', apiKey: 'erp-key', secret: 'erp-secret', ...body },
      status,
    });
    return [
      add('valid', {}, 200),
      add('erpUrl upper case', { erpUrl: 'HTTP://ERP.EXAMPLE.COM/' }, 200),
      add('secret padded', { secret: ' s ' }, 200),
      add('secret of 512 characters, padded', { secret: pad(text(512, 's')) }, 200),
      add('secret of 513 characters', { secret: text(513, 's') }, 422),
      add('secret empty', { secret: '' }, 422),
      add('erpUrl missing', { erpUrl: undefined }, 422),
    ];
  },
  'POST /add_social_info': (f) => {
    const add = (name: string, body: Json, status: number): Case => ({
      name,
      method: 'POST',
      url: '/add_social_info',
      token: f.integrations,
      json: { pageId: 'page-1', accessToken: 'access', verifyToken: 'verify', ...body },
      status,
    });
    return [
      add('valid', {}, 200),
      add('accessToken of 1024 characters, padded', { accessToken: pad(text(1024, 'a')) }, 200),
      add('accessToken of 1025 characters', { accessToken: text(1025, 'a') }, 422),
      add('appSecret null', { appSecret: null }, 200),
      add('appSecret blank', { appSecret: '\u00a0' }, 422),
    ];
  },
  'POST /add_chat_info': (f) => {
    const add = (name: string, body: Json, status: number): Case => ({
      name,
      method: 'POST',
      url: '/add_chat_info',
      token: f.integrations,
      json: { botToken: 'bot', channelId: 'C1', ...body },
      status,
    });
    return [
      add('valid', {}, 200),
      add('channelId of 128 characters, padded with U+3000', { channelId: `\u3000${text(128, 'c')}\u3000` }, 200),
      add('channelId of 129 characters', { channelId: text(129, 'c') }, 422),
      add('botToken a number', { botToken: 5 }, 422),
    ];
  },
  'GET /get_call_logs_for_campaign': (f) => {
    const list = (name: string, query: string, status: number, looser?: RegExp): Case => ({
      name,
      method: 'GET',
      url: `/get_call_logs_for_campaign${query}`,
      token: f.a.token,
      status,
      ...(looser ? { looser } : {}),
    });
    return [
      list('campId only', callLogQuery({}), 200),
      list('campId missing', qs({}), 422),
      list('limit "1000"', callLogQuery({ limit: '1000' }), 200),
      list('limit "1001"', callLogQuery({ limit: '1001' }), 422),
      list('offset "10000000"', callLogQuery({ offset: '10000000' }), 200),
      list('offset "10000001"', callLogQuery({ offset: '10000001' }), 422),
      list('status "completed"', callLogQuery({ status: 'completed' }), 200),
      list('status "COMPLETED"', callLogQuery({ status: 'COMPLETED' }), 422),
      list('since a date', callLogQuery({ since: '2026-11-01' }), 200),
      list('since 2026-02-31 (no such day)', callLogQuery({ since: '2026-02-31' }), 422, /2026-02-31/),
      list('since 2028-02-29 (a leap day)', callLogQuery({ since: '2028-02-29' }), 200),
      list('since 2026-04-31 09:00', callLogQuery({ since: '2026-04-31T09:00Z' }), 422, /2026-02-31/),
      list('since 2026-13-01', callLogQuery({ since: '2026-13-01' }), 422),
      list('since 24:00', callLogQuery({ since: '2026-11-01T24:00' }), 200),
      list('since 24:01', callLogQuery({ since: '2026-11-01T24:01' }), 422),
      list('since 09:60', callLogQuery({ since: '2026-11-01T09:60' }), 422),
      list('since with a space, fraction and offset', callLogQuery({ since: '2026-11-01 09:00:00.5+02:00' }), 200),
      list('since offset +24:00', callLogQuery({ since: '2026-11-01T09:00+24:00' }), 422),
      list('until lower-case t and z', callLogQuery({ until: '2026-11-01t09:00z' }), 200),
      list('since "now"', callLogQuery({ since: 'now' }), 422),
      list('since before the year 0000 in UTC', callLogQuery({ since: '0000-01-01T00:00+01:00' }), 422, /0000–9999/),
    ];
  },
  'GET /get_call_logs_for_user': (f) => {
    const list = (name: string, query: Record<string, string>, status: number): Case => ({
      name,
      method: 'GET',
      url: `/get_call_logs_for_user${qs(query)}`,
      token: f.a.token,
      status,
    });
    return [
      list('no parameters', {}, 200),
      list('campId', { campId: CAMP }, 200),
      list('campId "bad!"', { campId: 'bad!' }, 422),
      list('limit " 5 "', { limit: ' 5 ' }, 200),
      list('limit "0"', { limit: '0' }, 422),
      list('status "no-answer"', { status: 'no-answer' }, 200),
      list('status "no_answer"', { status: 'no_answer' }, 422),
    ];
  },
  'POST /telephony_webhook/{apiKey}/{campId}': (f) => {
    let n = 0;
    const url = (apiKey = f.a.apiKey) => `/telephony_webhook/${encodeURIComponent(apiKey)}/${CAMP}`;
    const callback = (name: string, fields: Record<string, string>, status: number, looser?: RegExp): Case => ({
      name,
      method: 'POST',
      url: url(),
      form: Object.entries({ CallSid: `CA-req-${++n}`, CallStatus: 'completed', ...fields }),
      signed: true,
      status,
      ...(looser ? { looser } : {}),
    });
    return [
      callback('valid', {}, 200),
      callback('CallSid of 64 characters, padded', { CallSid: pad(text(64, 'S')) }, 200),
      callback('CallSid of 65 characters', { CallSid: text(65, 'S') }, 422),
      callback('CallSid blank', { CallSid: '  ' }, 422),
      callback('CallStatus "COMPLETED"', { CallStatus: 'COMPLETED' }, 422),
      callback('CallDuration "604800"', { CallDuration: '604800' }, 200),
      callback('CallDuration " 30 "', { CallDuration: ' 30 ' }, 200),
      callback('CallDuration "604801"', { CallDuration: '604801' }, 422),
      callback('CallDuration "30s"', { CallDuration: '30s' }, 422),
      callback('Price "-0.05"', { Price: '-0.05' }, 200),
      callback('Price "1000001"', { Price: '1000001' }, 422, /at most 1000000/),
      callback('Price "1e3"', { Price: '1e3' }, 422),
      callback('RecordingUrl padded', { RecordingUrl: pad('https://rec.example.com/1.mp3') }, 200),
      callback('RecordingUrl "ftp://"', { RecordingUrl: 'ftp://rec.example.com/1.mp3' }, 422),
      callback('From of 65 characters', { From: text(65, '1') }, 422),
      callback('an unknown field', { AccountSid: 'AC1' }, 200),
      callback('101 fields', Object.fromEntries(Array.from({ length: 99 }, (_, i) => [`Extra${i}`, 'x'])), 422),
      callback('100 fields', Object.fromEntries(Array.from({ length: 98 }, (_, i) => [`Extra${i}`, 'x'])), 200),
      callback('a field name of 257 characters', { [text(257, 'N')]: 'x' }, 422),
      callback('a field value of 10 001 characters', { Extra: text(10_001) }, 422),
      callback('a field value of 10 000 characters', { Extra: text(10_000) }, 200),
      {
        name: 'a JSON object of strings',
        method: 'POST',
        url: url(),
        json: { CallSid: `CA-req-json-${++n}`, CallStatus: 'ringing', CallDuration: '5' },
        signed: true,
        status: 200,
      },
      {
        name: 'a JSON number for CallDuration',
        method: 'POST',
        url: url(),
        json: { CallSid: `CA-req-json-${++n}`, CallStatus: 'ringing', CallDuration: 5 },
        signed: true,
        status: 422,
      },
      { ...callback('an unknown API key', {}, 403), url: url('no-such-key') },
    ];
  },
  'GET /meetings/get_calendar_info': (f) => {
    const get = (name: string, query: string, status: number): Case => ({
      name,
      method: 'GET',
      url: `/meetings/get_calendar_info${query}`,
      token: f.a.token,
      status,
    });
    return [
      get('its meeting_id', qs({ meeting_id: f.meetingId }), 200),
      get('an unknown meeting_id of 64 characters', qs({ meeting_id: text(64, 'm') }), 404),
      get('meeting_id of 65 characters', qs({ meeting_id: text(65, 'm') }), 422),
      get('meeting_id empty', qs({ meeting_id: '' }), 422),
      get('meeting_id missing', '', 422),
    ];
  },
  'GET /social_webhook/{apiKey}/{campId}': (f) => {
    const handshake = (name: string, query: Record<string, string>, status: number): Case => ({
      name,
      method: 'GET',
      url: `/social_webhook/${f.a.apiKey}/${CAMP}${qs({ ...SUBSCRIBE, ...query })}`,
      status,
    });
    return [
      handshake('valid', { 'hub.challenge': '1187' }, 200),
      handshake('hub.challenge of 512 characters', { 'hub.challenge': text(512, '7') }, 200),
      handshake('hub.challenge of 513 characters', { 'hub.challenge': text(513, '7') }, 422),
      handshake('hub.mode of 65 characters', { 'hub.mode': text(65, 'm'), 'hub.challenge': '1' }, 422),
      handshake('a wrong verify token', { 'hub.verify_token': 'wrong', 'hub.challenge': '1' }, 403),
    ];
  },
  'POST /social_webhook/{apiKey}/{campId}': (f) => {
    let n = 0;
    const message = (fields: Json = {}) => ({ id: `wamid.req.${++n}`, from: '15551234567', ...fields });
    const envelope = (messages: unknown[]) => ({
      object: 'whatsapp_business_account',
      entry: [{ changes: [{ value: { messages } }] }],
    });
    const post = (name: string, body: unknown, status: number, looser?: RegExp): Case => ({
      name,
      method: 'POST',
      url: `/social_webhook/${f.a.apiKey}/${CAMP}`,
      raw: typeof body === 'string' ? body : JSON.stringify(body),
      status,
      ...(looser ? { looser } : {}),
    });
    return [
      post('valid', envelope([message({ timestamp: '1700000000', text: { body: 'Hi' } })]), 200),
      post('timestamp a number', envelope([message({ timestamp: 1700000000 })]), 200),
      post('timestamp "17e8"', envelope([message({ timestamp: '17e8' })]), 422),
      post('id empty', envelope([message({ id: '' })]), 422),
      post('text.body of 65 537 characters', envelope([message({ text: { body: text(65_537) } })]), 422),
      post('entry missing', { object: 'page' }, 422),
      post('entry empty', { object: 'page', entry: [] }, 200),
      post('a messaging event without sender', { entry: [{ messaging: [{ message: { mid: 'm1' } }] }] }, 422),
      post('not JSON', 'not json', 422),
      post(
        '1001 messages in two entries',
        {
          entry: [501, 500].map((count) => ({
            changes: [{ value: { messages: Array.from({ length: count }, () => message()) } }],
          })),
        },
        422,
        /at most 1000 messages in all its entries together/,
      ),
    ];
  },
  'POST /create_webhook': (f) => {
    const create = (name: string, body: Json, status: number, looser?: RegExp): Case => ({
      name,
      method: 'POST',
      url: '/create_webhook',
      token: f.webhooks,
      json: { url: 'https://hooks.example.com/in', ...body },
      status,
      ...(looser ? { looser } : {}),
    });
    return [
      create('valid', {}, 200),
      create('url padded', { url: pad('https://hooks.example.com/in') }, 200),
      create('url of 2048 characters, padded', { url: pad(urlOf(2048, 'https://hooks.example.com/')) }, 200),
      create('url of 2049 characters', { url: urlOf(2049, 'https://hooks.example.com/') }, 422),
      create('url on localhost', { url: 'http://localhost:8080/in' }, 422, /ALLOW_PRIVATE/),
      create('url "hooks.example.com"', { url: 'hooks.example.com' }, 422),
      create('events repeated', { events: ['call.ended', 'call.ended'] }, 200),
      create('21 events', { events: Array.from({ length: 21 }, () => 'call.ended') }, 422),
      create('an unknown event', { events: ['call.started'] }, 422),
      create('events null', { events: null }, 200),
      create('description of 500 characters', { description: text(500) }, 200),
      create('description of 501 characters', { description: text(501) }, 422),
      create('url missing', { url: undefined }, 422),
    ];
  },
  'DELETE /remove_webhook': (f) => {
    let id = '';
    const remove = (name: string, query: () => string, status: number, fresh = false): Case => ({
      name,
      method: 'DELETE',
      get url() {
        return `/remove_webhook${query()}`;
      },
      token: f.webhooks,
      status,
      ...(fresh
        ? {
            before: async () => {
              id = await f.newWebhook();
            },
          }
        : {}),
    });
    return [
      remove('its webhookId', () => qs({ webhookId: id }), 200, true),
      remove('an unknown webhookId of 64 characters', () => qs({ webhookId: text(64, 'w') }), 404),
      remove('webhookId of 65 characters', () => qs({ webhookId: text(65, 'w') }), 422),
      remove('webhookId empty', () => qs({ webhookId: '' }), 422),
      remove('webhookId missing', () => '', 422),
    ];
  },
  'POST /add_webhook_campaingn': (f) => {
    let id = '';
    const attach = (name: string, query: () => Record<string, string>, status: number, looser?: RegExp): Case => ({
      name,
      method: 'POST',
      get url() {
        return `/add_webhook_campaingn${qs(query())}`;
      },
      token: f.webhooks,
      status,
      before: async () => {
        id = await f.newWebhook();
      },
      ...(looser ? { looser } : {}),
    });
    return [
      attach('campaignId', () => ({ webhookId: id, campaignId: CAMP }), 200),
      aliasAlone(attach('campId instead', () => ({ webhookId: id, campId: CAMP }), 200)),
      aliasAlone(attach('camp_id instead', () => ({ webhookId: id, camp_id: CAMP }), 200)),
      attach('campaignId wins over a bad campId', () => ({ webhookId: id, campaignId: CAMP, campId: 'bad!' }), 200),
      attach('campaignId "bad!"', () => ({ webhookId: id, campaignId: 'bad!' }), 422),
      attach('campId "bad!" alone', () => ({ webhookId: id, campId: 'bad!' }), 422),
      attach('no campaign at all', () => ({ webhookId: id }), 422),
      attach('webhookId missing', () => ({ campaignId: CAMP }), 422),
    ];
  },
};

// ---------------------------------------------------------------------------------------------------------------
// The description's side: the request schemas of an operation, applied to a request with Ajv (JSON Schema 2020-12).

class RequestCheck {
  private readonly ajv = new Ajv2020({ allErrors: true, strict: false });
  private readonly compiled = new Map<string, ValidateFunction>();

  constructor(readonly doc: Json) {}

  /** The described path and operation a request URL (under /api/v3) calls, with its path parameters. */
  operation(method: string, url: string): { template: string; op: Json; path: Record<string, string> } {
    const segments = new URL(url, 'http://test').pathname.split('/').filter(Boolean);
    for (const [template, ops] of Object.entries<Json>(this.doc.paths)) {
      const parts = template.split('/').filter(Boolean);
      if (parts.length !== segments.length || !ops[method.toLowerCase()]) continue;
      const path: Record<string, string> = {};
      const matches = parts.every((part, i) => {
        const segment = decodeURIComponent(segments[i] ?? '');
        if (part.startsWith('{')) path[part.slice(1, -1)] = segment;
        return part.startsWith('{') || part === segment;
      });
      if (matches) return { template, op: ops[method.toLowerCase()], path };
    }
    throw new Error(`no described operation for ${method} ${url}`);
  }

  private problems(schema: Json, value: unknown): string[] {
    const key = JSON.stringify(schema);
    let validate = this.compiled.get(key);
    if (!validate) {
      const relinked = (json: string) => JSON.parse(json.replaceAll('"#/components/schemas/', '"#/$defs/')) as Json;
      validate = this.ajv.compile({ ...relinked(key), $defs: relinked(JSON.stringify(this.doc.components.schemas)) });
      this.compiled.set(key, validate);
    }
    return validate(value) ? [] : (validate.errors ?? []).map((e) => `${e.instancePath || '(value)'} ${e.message}`);
  }

  /** Why the description refuses the request: none when its parameters and body are valid. */
  check(request: { method: string; url: string; mediaType?: string; body?: unknown }): string[] {
    const { op, path } = this.operation(request.method, request.url);
    const query = Object.fromEntries(new URL(request.url, 'http://test').searchParams);
    const found: string[] = [];
    for (const parameter of (op.parameters ?? []) as Json[]) {
      const values: Record<string, string> = parameter.in === 'path' ? path : parameter.in === 'query' ? query : {};
      const value = values[parameter.name];
      if (value === undefined) {
        if (parameter.required) found.push(`${parameter.in} ${parameter.name} is required`);
        continue;
      }
      found.push(...this.problems(parameter.schema, value).map((p) => `${parameter.in} ${parameter.name}: ${p}`));
    }
    const requestBody = op.requestBody as Json | undefined;
    if (requestBody && request.mediaType === undefined) {
      if (requestBody.required) found.push('a body is required');
    } else if (requestBody) {
      const media = requestBody.content[request.mediaType!];
      if (!media) found.push(`${request.mediaType} is not a described media type`);
      else if (request.body === NOT_JSON) found.push('the body is not JSON');
      else found.push(...this.problems(media.schema, request.body).map((p) => `body ${p}`));
    }
    return found;
  }
}

const NOT_JSON = Symbol('not JSON');

/** What the description says in words, where a looser case must find its rule. */
/** What an operation says of itself: its own text and that of the component schemas it refers to (not the intro). */
const wordsOf = (doc: Json, op: Json) => {
  const text = JSON.stringify(op);
  const refs = [...text.matchAll(/#\/components\/schemas\/([^"]+)/g)].map((match) => match[1] as string);
  return [text, ...refs.map((name) => JSON.stringify(doc.components.schemas[name]))].join('\n');
};

let t: TestApp;
let checker: RequestCheck;
const fixtures = {} as Fixtures;

beforeAll(async () => {
  // Hundreds of requests on few accounts: the rate limits are not what this is about.
  t = await startApp({ RATE_LIMIT_PER_MINUTE: '100000', LOGIN_MAX_FAILURES: '1000' });
  const reply = await t.request('GET', `${PREFIX}/openapi.json`);
  expect(reply.status).toBe(200);
  checker = new RequestCheck(reply.body as Json);

  const a = await t.account('requests-a@example.com');
  await createLegacyCampaign(t, a.token, CAMP);
  await connectTelephony(t, a.token);
  const social = await t.rest('POST', '/add_social_info', {
    token: a.token,
    body: { pageId: 'page-req', accessToken: 'access-token', verifyToken: VERIFY_TOKEN },
  });
  expect(social.status, social.text).toBe(200);
  const calendar = await t.rest('POST', '/add_calendar_info', {
    token: a.token,
    body: { apiKey: 'cal-key', schedulingUrl: 'https://cal.example.com/a' },
  });
  expect(calendar.status, calendar.text).toBe(200);
  const booked = await t.gql<{ meetingBook: { meeting: { meetingId: string } } }>(
    `mutation ($input: MeetingBookInput!) { meetingBook(input: $input) { meeting { meetingId } } }`,
    {
      input: {
        campId: CAMP,
        title: 'Demo',
        startsAt: '2099-01-01T09:00:00Z',
        endsAt: '2099-01-01T10:00:00Z',
        participants: [{ name: 'Ada', email: 'ada@example.com' }],
      },
    },
    a.token,
  );
  expect(booked.body.errors, booked.text).toBeUndefined();

  const webhooks = await t.account('requests-webhooks@example.com');
  await createLegacyCampaign(t, webhooks.token, CAMP);
  Object.assign(fixtures, {
    a: { token: a.token, apiKey: a.apiKey, email: a.email },
    integrations: (await t.account('requests-integrations@example.com')).token,
    webhooks: webhooks.token,
    meetingId: booked.body.data!.meetingBook.meeting.meetingId,
    async newWebhook() {
      const created = await t.rest('POST', '/create_webhook', {
        token: webhooks.token,
        body: { url: 'https://hooks.example.com/fresh' },
      });
      expect(created.status, created.text).toBe(200);
      return created.body.webhookId as string;
    },
    async setPipeline() {
      const set = await t.rest('POST', `/text_pipeline_configuration?campId=${CAMP}`, {
        token: a.token,
        body: { goal: 'Book a demo' },
      });
      expect(set.status, set.text).toBe(200);
    },
  } satisfies Fixtures);
});
afterAll(() => t.close());

/** Sends a case; returns the server's status and what the description says of the same request. */
async function run(c: Case): Promise<{ status: number; text: string; problems: string[] }> {
  await c.before?.();
  const headers: Record<string, string> = {};
  let raw: string | undefined;
  let mediaType: string | undefined;
  let body: unknown;
  if (c.form) {
    mediaType = 'application/x-www-form-urlencoded';
    raw = new URLSearchParams(c.form).toString();
    body = Object.fromEntries(new URLSearchParams(raw));
  } else if (c.json !== undefined) {
    mediaType = 'application/json';
    raw = JSON.stringify(c.json);
    body = JSON.parse(raw);
  } else if (c.raw !== undefined) {
    mediaType = 'application/json';
    raw = c.raw;
    try {
      body = JSON.parse(raw);
    } catch {
      body = NOT_JSON;
    }
  }
  if (mediaType) headers['content-type'] = mediaType;
  if (c.signed) headers['x-telephony-signature'] = sign(AUTH_TOKEN, `http://127.0.0.1${PREFIX}${c.url}`, body as Json);
  const reply = await t.request(c.method, `${PREFIX}${c.url}`, {
    headers,
    ...(raw !== undefined ? { raw } : {}),
    ...(c.token ? { token: c.token } : {}),
  });
  const problems = checker.check({ method: c.method, url: c.url, ...(mediaType ? { mediaType, body } : {}) });
  return { status: reply.status, text: reply.text, problems };
}

describe('each request schema accepts exactly what the server accepts', () => {
  for (const [operation, build] of Object.entries(TABLE)) {
    it(operation, async () => {
      const cases = build(fixtures);
      const mismatches: string[] = [];
      for (const c of cases) {
        const { status, text, problems } = await run(c);
        const label = `${c.name}: server ${status} ${text.slice(0, 160)}`;
        const { template, op } = checker.operation(c.method, c.url);
        expect(`${c.method} ${template}`).toBe(operation);
        if (status !== c.status) mismatches.push(`${label} (expected ${c.status})`);
        if (c.stricter) {
          if (status === 422 || problems.length === 0)
            mismatches.push(`${label}, described as stricter, but the server refuses it or the schema accepts it`);
          if (!c.stricter.test(wordsOf(checker.doc, op)))
            mismatches.push(`${label}: no description says ${c.stricter}`);
        } else if (c.looser) {
          if (problems.length > 0)
            mismatches.push(`${label}, described as looser, but the schema refuses: ${problems.join('; ')}`);
          if (!c.looser.test(wordsOf(checker.doc, op))) mismatches.push(`${label}: no description says ${c.looser}`);
        } else if (status === 422 && problems.length === 0) {
          mismatches.push(`${label}, yet the schema accepts it`);
        } else if (status !== 422 && problems.length > 0) {
          mismatches.push(`${label}, yet the schema refuses it: ${problems.join('; ')}`);
        }
      }
      expect(mismatches).toEqual([]);
      // Each operation's table shows both sides: something the server takes and something it refuses.
      expect(cases.some((c) => c.status !== 422)).toBe(true);
      expect(cases.some((c) => c.status === 422)).toBe(true);
    });
  }

  it('the table covers every operation that takes input; no request schema asserts a format or looks around', () => {
    const withInput = Object.entries<Json>(checker.doc.paths).flatMap(([path, ops]) =>
      Object.entries<Json>(ops)
        .filter(([, op]) => (op.parameters ?? []).length > 0 || op.requestBody)
        .map(([method]) => `${method.toUpperCase()} ${path}`),
    );
    expect(Object.keys(TABLE).sort()).toEqual(withInput.sort());
    const requestSchemas = JSON.stringify(
      Object.values<Json>(checker.doc.paths).flatMap((ops) =>
        Object.values<Json>(ops).map((op) => [op.parameters, op.requestBody]),
      ),
    );
    expect(requestSchemas).not.toMatch(/"format":/);
    // Patterns keep to JSON Schema's recommended regular expressions: no lookaround.
    expect(requestSchemas).not.toMatch(/\(\?<?[=!]/);
  });
});

// ---------------------------------------------------------------------------------------------------------------
// The patterns, value by value against the functions the server runs.

/** A small deterministic generator, so a failure replays. */
function random(seed: number) {
  let state = seed;
  return (n: number) => {
    state = (state * 1_103_515_245 + 12_345) % 2_147_483_648;
    return state % n;
  };
}

const WHITESPACE = [
  ' ',
  '\t',
  '\n',
  '\r',
  '\v',
  '\f',
  '\u00a0',
  '\u1680',
  '\u2003',
  '\u2028',
  '\u2029',
  '\u202f',
  '\u3000',
  '\ufeff',
];
const matches = (pattern: string, value: string) => new RegExp(pattern, 'u').test(value);

describe('the patterns of the lenient fields', () => {
  it('numeric strings: exactly what intField(min, max) takes', () => {
    const next = random(13);
    for (const [min, max] of [
      [1, 120],
      [1, 600],
      [1, 1000],
      [0, 1_000_000],
      [0, 10_000_000],
      [0, 604_800],
      [1, 10],
      [1, 5],
      [0, 3600],
      [7, 7],
      [95, 1005],
    ] as const) {
      const field = intField(min, max);
      const pattern = integerStringPattern(min, max);
      const numbers = [min - 1, min, min + 1, max - 1, max, max + 1, 0, 9, 10, 99, 100, 999, 1000];
      for (let i = 0; i < 300; i++) numbers.push(next(max * 2 + 2));
      for (const n of numbers) {
        for (const form of [
          String(n),
          `+${n}`,
          `-${n}`,
          `00${n}`,
          `${WHITESPACE[next(WHITESPACE.length)]}${n}${WHITESPACE[next(WHITESPACE.length)]}`,
          `${n}.0`,
          `${n}e0`,
          ` ${n} 1`,
          `${n}\u0660`,
          `0x${n}`,
        ]) {
          const server = field.safeParse(form).success;
          expect(matches(pattern, form), `${min}..${max}: ${JSON.stringify(form)}`).toBe(server);
        }
      }
      for (const odd of ['', ' ', '+', '-', '-0', '+0', '-00', '+-1', '٣', '1_0']) {
        expect(matches(pattern, odd), `${min}..${max}: ${JSON.stringify(odd)}`).toBe(field.safeParse(odd).success);
      }
    }
  });

  it('boolean words: exactly what boolField takes as a string, any case, padded', () => {
    const next = random(7);
    const words = [
      'true',
      'false',
      '1',
      '0',
      'yes',
      'no',
      'on',
      'off',
      't',
      'f',
      'y',
      'n',
      'tru',
      'nope',
      '2',
      '',
      'oui',
    ];
    for (const word of words) {
      for (let i = 0; i < 20; i++) {
        const cased = [...word].map((c) => (next(2) ? c.toUpperCase() : c)).join('');
        const value = next(2)
          ? `${WHITESPACE[next(WHITESPACE.length)]}${cased}${WHITESPACE[next(WHITESPACE.length)]}`
          : cased;
        expect(matches(BOOLEAN_WORD_PATTERN, value), JSON.stringify(value)).toBe(boolField.safeParse(value).success);
      }
    }
    // toLowerCase could turn another character into a word's letter (U+212A KELVIN SIGN → k): none is in a word.
    const letters = new Set('truefalsyesnoof');
    const turned: string[] = [];
    for (let code = 0x80; code <= 0x10ffff; code++) {
      if ([...String.fromCodePoint(code).toLowerCase()].some((l) => letters.has(l))) turned.push(code.toString(16));
    }
    expect(turned).toEqual([]);
  });

  it('trimmed lengths: exactly what z.string().trim().min(1).max(n) takes (an emoji is one character)', () => {
    const next = random(29);
    for (const max of [1, 2, 5, 64]) {
      const field = z.string().trim().min(1).max(max);
      const pattern = trimmedLengthPattern(1, max);
      for (let i = 0; i < 3000; i++) {
        const length = next(max + 6);
        const value = Array.from({ length }, () =>
          next(3) ? WHITESPACE[next(WHITESPACE.length)] : ['a', '-', EMOJI][next(3)],
        ).join('');
        expect(matches(pattern, value!), `${max}: ${JSON.stringify(value)}`).toBe(field.safeParse(value).success);
      }
    }
  });

  it('http(s) URLs: the pattern takes every URL the server takes, and refuses only what it refuses', () => {
    const pattern = httpUrlPattern(2048);
    const next = random(31);
    const pieces = [
      'h',
      't',
      'p',
      's',
      'H',
      'T',
      ':',
      '/',
      '//',
      'example.com',
      ' ',
      '\t',
      '\n',
      '\u00a0',
      'x',
      '%',
      '😀',
      'a b',
    ];
    const samples = [
      'https://example.com',
      'http:example.com',
      'http:/example.com',
      '\u0001https://example.com',
      ` https://example.com/${'p'.repeat(2028)}\t\n `,
      `https://example.com/${'p'.repeat(2029)}`,
    ];
    for (let i = 0; i < 5000; i++)
      samples.push(Array.from({ length: 1 + next(8) }, () => pieces[next(pieces.length)]).join(''));
    samples.push('http://', 'https://exa mple.com/', 'https://example.com:99999/', 'http://a:', 'http://[::1]:80/');
    for (const value of samples) {
      const server = httpUrlField.safeParse(value).success;
      if (server) expect(matches(pattern, value), JSON.stringify(value)).toBe(true);
      // The shape pattern beside it (an allOf) is never stricter either.
      if (server) expect(matches(HTTP_URL_SHAPE_PATTERN, value), JSON.stringify(value)).toBe(true);
      // Where the pattern takes a URL the server refuses, the URL parser is what refused it.
      if (!server && matches(pattern, value)) expect(URL.canParse(value.trim()), JSON.stringify(value)).toBe(false);
    }
  });

  it('e-mails: the signup pattern takes exactly what emailField takes', async () => {
    const { paths } = checker.doc;
    const { allOf } = paths['/signup'].post.requestBody.content['application/json'].schema.properties.email;
    const patterns: string[] = allOf.map((part: Json) => part.pattern);
    expect(patterns).toHaveLength(2);
    const next = random(37);
    const pieces = ['a', 'Z', '0', '.', '..', '@', '-', '_', "'", '+', 'example', 'com', ' ', '\u00a0', '\n', 'é'];
    const samples = ['a@b.co', ` ${'a'.repeat(242)}@example.com `, `${'a'.repeat(243)}@example.com`, 'a@b-.com'];
    for (let i = 0; i < 20_000; i++)
      samples.push(Array.from({ length: 2 + next(10) }, () => pieces[next(pieces.length)]).join(''));
    for (const value of samples) {
      const described = patterns.every((pattern) => matches(pattern, value));
      expect(described, JSON.stringify(value)).toBe(emailField.safeParse(value).success);
    }
  });

  it('dates and times: never stricter than dateTimeField, exact but for days a month lacks and the years 0001–0012', () => {
    /** 2026-02-30: a day the pattern (01–31) lets through that the server refuses, as the description says. */
    const noSuchDay = (value: string) => {
      const [year, month, day] = value.slice(0, 10).split('-').map(Number) as [number, number, number];
      if (month < 1 || month > 12 || day < 1 || day > 31) return false;
      const calendar = new Date(0);
      calendar.setUTCFullYear(year, month - 1, day);
      return calendar.getUTCMonth() !== month - 1;
    };
    const { paths } = checker.doc;
    const parameter = paths['/get_call_logs_for_user'].get.parameters.find((p: Json) => p.name === 'since');
    const pattern: string = parameter.schema.pattern;
    const two = (n: number) => String(n).padStart(2, '0');
    const samples: string[] = [];
    for (const year of ['0000', '0001', '0012', '0013', '2024', '9999'])
      for (let m = 0; m < 100; m += 1)
        for (const d of [0, 1, 28, 29, 30, 31, 32, 99]) samples.push(`${year}-${two(m)}-${two(d)}`);
    for (let h = 0; h < 100; h += 1)
      for (const mi of [0, 1, 59, 60, 99])
        for (const rest of ['', ':00', ':59', ':60', ':00.0', ':00.001', ':00.123456789'])
          for (const offset of ['', 'Z', 'z', '+00:00', '-2359', '+24:00', '+12:60'])
            for (const sep of ['T', 't', ' ']) samples.push(`2026-02-28${sep}${two(h)}:${two(mi)}${rest}${offset}`);
    for (const value of samples) {
      const server = dateTimeField.safeParse(value).success;
      const described = matches(pattern, value);
      if (server) expect(described, value).toBe(true);
      else if (!/^00(0[1-9]|1[0-2])-/.test(value) && !noSuchDay(value)) expect(described, value).toBe(false);
    }
  });
});
