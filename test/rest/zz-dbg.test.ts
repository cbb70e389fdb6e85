import { it } from 'vitest';
import { startApp } from '../helpers/app.js';
import { campaignModelData } from '../helpers/campaigns.js';
import { connectTelephony, sendCallback } from '../helpers/telephony.js';
it('dbg', async () => {
  const t = await startApp();
  const a = await t.account();
  await connectTelephony(t, a.token);
  await t.rest('POST', '/update_campaign', { token: a.token, body: { campId: 'c1', campaignModelData: campaignModelData() } });
  for (const p of [{ CallStatus: 'weird', CallSid: 'x' }, { CallStatus: 'ringing' }, { CallStatus: 'weird', CallDuration: 'long', Price: 'abc', RecordingUrl: 'ftp://x' }]) {
    const r = await sendCallback(t, a.apiKey, 'c1', p);
    console.log(r.status, r.text);
  }
  console.log((await sendCallback(t, 'bad', 'c1', { CallSid: 'x', CallStatus: 'ringing' })).text);
  console.log((await sendCallback(t, a.apiKey, 'c1', { CallSid: 'x', CallStatus: 'ringing' }, { signature: 'x' })).text);
  await t.close();
});
