// GET /get_supported_voices (docs/decisions.md §5; legacy-interface.md §4.1): the voice catalogue as a bare array.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startApp, type TestApp } from '../helpers/app.js';
import { campaignModelData } from '../helpers/campaigns.js';

interface LegacyVoice {
  voiceId: string;
  name: string;
  language: string;
  gender: string;
  accent: string;
  provider: string;
  previewUrl: string;
}

const VOICE_KEYS = ['accent', 'gender', 'language', 'name', 'previewUrl', 'provider', 'voiceId'];

let t: TestApp;

beforeEach(async () => {
  t = await startApp();
});

afterEach(async () => {
  await t.close();
});

describe('GET /get_supported_voices', () => {
  it('answers a bare array of at least 12 voices in several languages, each with exactly the legacy keys', async () => {
    const { token } = await t.account();
    const res = await t.rest('GET', '/get_supported_voices', { token });
    expect(res.status, res.text).toBe(200);
    expect(res.headers.get('content-type')).toContain('application/json');
    expect(Array.isArray(res.body)).toBe(true);

    const voices = res.body as LegacyVoice[];
    expect(voices.length).toBeGreaterThanOrEqual(12);
    for (const voice of voices) {
      expect(Object.keys(voice).sort()).toEqual(VOICE_KEYS);
      for (const key of VOICE_KEYS) {
        expect(typeof voice[key as keyof LegacyVoice], `${voice.voiceId}.${key}`).toBe('string');
      }
      expect(voice.voiceId).not.toBe('');
      expect(voice.name).not.toBe('');
      expect(voice.language).toMatch(/^[a-z]{2,3}(-[A-Za-z0-9]{1,8})*$/);
    }

    const ids = voices.map((v) => v.voiceId);
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids).toContain('en-US-aria');

    const primaries = new Set(voices.map((v) => v.language.split('-')[0]));
    expect(primaries.size).toBeGreaterThanOrEqual(4);
  });

  it('lists only voices a campaign accepts', async () => {
    const { token } = await t.account();
    const voices = (await t.rest('GET', '/get_supported_voices', { token })).body as LegacyVoice[];
    const last = voices.at(-1);
    expect(last).toBeDefined();
    const res = await t.rest('POST', '/update_campaign', {
      token,
      body: {
        campId: 'voice-check',
        campaignModelData: campaignModelData({ voice: last?.voiceId, language: last?.language }),
      },
    });
    expect(res.status, res.text).toBe(200);
    expect(res.body.voice).toBe(last?.voiceId);
  });

  it('needs a bearer token', async () => {
    const res = await t.rest('GET', '/get_supported_voices');
    expect(res.status, res.text).toBe(401);
    expect(res.body).toEqual({ detail: expect.any(String) });
    expect(res.headers.get('www-authenticate')).toBe('Bearer');
  });

  it('rejects an invalid bearer token', async () => {
    const res = await t.rest('GET', '/get_supported_voices', { token: 'not-a-token' });
    expect(res.status, res.text).toBe(401);
    expect(res.body).toEqual({ detail: expect.any(String) });
  });
});
