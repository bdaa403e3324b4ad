import { afterEach, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { createManualClock } from '../../core/index.ts';
import { dataSpeechFrames } from '../../media/index.ts';
import { startTwilioEndpoints } from '../../../test/twilio-server/endpoints.ts';
import {
  FAKE_ACCOUNT_SID,
  FAKE_AUTH_TOKEN,
  signTwilioWebhook,
  startFakeTwilio,
  type FakeCall,
  type FakeTwilio,
} from '../../../test/twilio-server/index.ts';
import { createScriptedCallee, createDataVoice } from '../testing/index.ts';
import type { CallLeg, IncomingCall } from '../types.ts';
import {
  TWILIO_ROUTE_WAIT_MS,
  TWILIO_STATUS_PATH,
  TWILIO_VOICE_PATH,
  createTwilioCarrier,
  type TwilioCarrierOptions,
} from './carrier.ts';
import { createTwilioRest } from './rest.ts';

// The Twilio carrier's own rules beyond the contract, against the fake Twilio: what it asks
// Twilio for, what it accepts from Twilio (signatures, tokens, order), marks and clear, keys,
// transfer, machine detection and the inbound Voice URL.

const FROM = '+14155550100';
const HUMAN = '+14155550123';
const OUR_NUMBER = '+14155550199';
const account = { accountSid: FAKE_ACCOUNT_SID, authToken: FAKE_AUTH_TOKEN };

/** Resolves once `check` holds, looking again after each turn of the event loop. */
async function until(check: () => boolean): Promise<void> {
  while (!check()) await new Promise((resolve) => setImmediate(resolve));
}

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function setup(extra: Partial<TwilioCarrierOptions> = {}, callee = true) {
  const endpoints = await startTwilioEndpoints();
  const fake: FakeTwilio = await startFakeTwilio({
    voice: {
      pauseScale: 0,
      ...(callee
        ? {
            callee: () => createScriptedCallee([(said) => `You said: ${said}`], { opening: '' }),
            voice: createDataVoice(),
          }
        : {}),
    },
  });
  const carrier = createTwilioCarrier({
    publicUrl: endpoints.publicUrl,
    rest: createTwilioRest({ baseUrl: fake.url }),
    directory: {
      accountForCall: async () => account,
      account: async (sid) => (sid === account.accountSid ? account : null),
      workspaceOf: async (to) => (to === OUR_NUMBER ? 'ws-1' : null),
    },
    ...extra,
  });
  endpoints.use(carrier);
  cleanups.push(async () => {
    await fake.close();
    await endpoints.close();
  });
  const onlyCall = (): FakeCall => {
    const [call] = [...fake.voice.calls.values()];
    if (!call) throw new Error('no call at the fake');
    return call;
  };
  /** Posts a form to one of Parley's endpoints, signed with `token` (or `signature` as given). */
  const post = async (path: string, form: Record<string, string>, signature?: string) => {
    const url = `${endpoints.publicUrl}${path}`;
    const response = await fetch(url, {
      method: 'POST',
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        ...(signature !== ''
          ? { 'x-twilio-signature': signature ?? signTwilioWebhook(FAKE_AUTH_TOKEN, url, form) }
          : {}),
      },
      body: new URLSearchParams(form).toString(),
    });
    return { status: response.status, text: await response.text() };
  };
  return { endpoints, fake, carrier, onlyCall, post };
}

async function answered(carrier: ReturnType<typeof createTwilioCarrier>, extra = {}): Promise<CallLeg> {
  const outcome = await carrier.dial({ callId: 'call-1', from: FROM, to: HUMAN, ...extra });
  if (outcome.kind !== 'answered') throw new Error(`expected an answer, got ${outcome.kind}`);
  return outcome.leg;
}

describe('Twilio carrier: outbound', () => {
  it('creates the call with TwiML that connects the stream, callbacks and a ring timeout', async () => {
    const { fake, carrier, endpoints, onlyCall } = await setup({ ringTimeoutS: 25 });
    const leg = await answered(carrier);
    const create = fake.requests.find((r) => r.url.endsWith('/Calls.json'));
    expect(create?.auth).toEqual({ username: FAKE_ACCOUNT_SID, password: FAKE_AUTH_TOKEN });
    const form = create?.form ?? {};
    expect(form.To).toBe(HUMAN);
    expect(form.From).toBe(FROM);
    expect(form.Timeout).toBe('25');
    const wsUrl = `${endpoints.publicUrl.replace(/^http/, 'ws')}/v2/twilio/stream`;
    expect(form.Twiml).toMatch(
      new RegExp(
        `^<\\?xml[^>]*\\?><Response><Connect><Stream url="${wsUrl}"><Parameter name="parleyCallId" value="call-1"/><Parameter name="parleyToken" value="[\\w-]{32}"/></Stream></Connect></Response>$`,
      ),
    );
    expect(form.StatusCallback).toBe(`${endpoints.publicUrl}${TWILIO_STATUS_PATH}?call=call-1`);
    expect(new URLSearchParams(create?.rawBody).getAll('StatusCallbackEvent')).toEqual([
      'initiated',
      'ringing',
      'answered',
      'completed',
    ]);
    expect(form.MachineDetection).toBeUndefined();
    expect(leg.sid).toBe(onlyCall().sid);
    await leg.hangup();
    const hangup = fake.requests.find((r) => r.url.endsWith(`/Calls/${leg.sid}.json`));
    expect(hangup?.form).toEqual({ Status: 'completed' });
    expect(await onlyCall().ended).toBe('completed');
  });

  it('asks for machine detection when told to, and hands the verdict to the leg', async () => {
    const { fake, carrier } = await setup();
    const outcome = await carrier.dial({
      callId: 'call-1',
      from: FROM,
      to: '+14155553333',
      machineDetection: true,
    });
    if (outcome.kind !== 'answered') throw new Error('expected an answer');
    const verdict = await new Promise((resolve) => outcome.leg.onAnsweredBy?.(resolve));
    expect(verdict).toBe('machine');
    const form = fake.requests.find((r) => r.url.endsWith('/Calls.json'))?.form ?? {};
    expect(form).toMatchObject({ MachineDetection: 'Enable', AsyncAmd: 'true' });
    expect(form.AsyncAmdStatusCallback).toBe(form.StatusCallback);
    await outcome.leg.hangup();
  });

  it("fails the dial with Twilio's message when Twilio refuses the call", async () => {
    const { fake, carrier } = await setup();
    fake.respondNext({
      status: 400,
      body: { code: 21215, message: 'Geo permission not enabled', status: 400 },
    });
    expect(await carrier.dial({ callId: 'call-1', from: FROM, to: HUMAN })).toEqual({
      kind: 'failed',
      reason: 'Geo permission not enabled',
    });
  });

  it('ignores callbacks that are unsigned, wrongly signed, of unknown calls, or out of order', async () => {
    const { carrier, onlyCall, post } = await setup();
    let rang = 0;
    const leg = await answered(carrier, { onRinging: () => rang++ });
    const sid = onlyCall().sid;
    const path = `${TWILIO_STATUS_PATH}?call=call-1`;
    const form = { AccountSid: FAKE_ACCOUNT_SID, CallSid: sid, CallStatus: 'completed' };
    expect((await post(path, form, '')).status).toBe(403);
    expect((await post(path, form, 'bm90IGEgc2lnbmF0dXJl')).status).toBe(403);
    const otherToken = signTwilioWebhook('another-token', `http://x${path}`, form);
    expect((await post(path, form, otherToken)).status).toBe(403);
    // A call sid that is not this call's, and a call id Parley does not know: 200, nothing changes.
    expect((await post(path, { ...form, CallSid: `CA${'f'.repeat(32)}` })).status).toBe(200);
    expect((await post(`${TWILIO_STATUS_PATH}?call=nobody`, form)).status).toBe(200);
    expect((await post(path, { ...form, CallStatus: 'ringing' })).status).toBe(200);
    expect(rang).toBe(1);
    let ended = false;
    void leg.ended.then(() => (ended = true));
    leg.play(dataSpeechFrames('x')[0]!);
    await leg.drained(); // the leg still plays: nothing above ended it
    expect(ended).toBe(false);
    expect((await post(path, form)).status).toBe(200);
    expect(await leg.ended).toBe('remote_hangup');
    // After the end, a late `ringing` finds no call.
    expect((await post(path, { ...form, CallStatus: 'ringing' })).status).toBe(200);
    expect(rang).toBe(1);
  });

  it('refuses a stream whose token is wrong or spent; the call keeps its own', async () => {
    const { carrier, endpoints, onlyCall } = await setup();
    const leg = await answered(carrier);
    const call = onlyCall();
    const token = /parleyToken" value="([^"]+)"/.exec(call.form.Twiml ?? '')?.[1] ?? '';
    const stranger = async (parleyToken: string) => {
      const ws = new WebSocket(`${endpoints.publicUrl.replace(/^http/, 'ws')}/v2/twilio/stream`);
      await new Promise((resolve) => ws.once('open', resolve));
      ws.send(
        JSON.stringify({
          event: 'start',
          streamSid: 'MZ1',
          start: {
            accountSid: FAKE_ACCOUNT_SID,
            streamSid: 'MZ1',
            callSid: call.sid,
            customParameters: { parleyCallId: 'call-1', parleyToken },
            mediaFormat: { encoding: 'audio/x-mulaw', sampleRate: 8000, channels: 1 },
          },
        }),
      );
      return new Promise<number>((resolve) => ws.once('close', resolve));
    };
    expect(await stranger('guessed')).toBe(1008);
    expect(await stranger(token)).toBe(1008); // single use: the fake's stream spent it
    let ended = false;
    void leg.ended.then(() => (ended = true));
    expect(ended).toBe(false);
    await leg.hangup();
  });

  it('counts as played only what Twilio confirms with marks; clear drops the rest', async () => {
    const { carrier, onlyCall } = await setup({ markEveryFrames: 2 });
    const leg = await answered(carrier);
    const call = onlyCall();
    const frames = dataSpeechFrames('a line long enough to be cut off halfway');
    for (const frame of frames) leg.play(frame);
    expect(leg.playedMs).toBe(0);
    await until(() => call.marksEchoed.length >= 2);
    expect(leg.playedMs).toBe(call.marksEchoed.length * 40);
    leg.clear();
    const played = leg.playedMs;
    expect(leg.queuedMs).toBe(0);
    await until(() => call.streamMessages.some((m) => m.event === 'clear'));
    await leg.drained();
    // The marks Twilio sends back for the dropped audio count for nothing.
    await until(
      () => call.marksEchoed.length >= call.streamMessages.filter((m) => m.event === 'mark').length,
    );
    expect(leg.playedMs).toBe(played);
    expect(played).toBeLessThan(frames.length * 20);
    await leg.hangup();
  });

  it('hears keys from dtmf events and sends keys as in-band tones', async () => {
    const { carrier, onlyCall } = await setup();
    const leg = await answered(carrier);
    const keys: string[] = [];
    leg.receive({ audio() {}, dtmf: (digit) => keys.push(digit) });
    onlyCall().pressKey('5');
    onlyCall().pressKey('#');
    await until(() => keys.length === 2);
    expect(keys).toEqual(['5', '#']);
    const before = onlyCall().mediaIn;
    await leg.sendDtmf('1');
    expect(onlyCall().mediaIn - before).toBe(10); // a 100 ms tone and a 100 ms gap
    await leg.hangup();
  });

  it('transfers by updating the call with <Dial>: the stream ends, the leg ends local_hangup', async () => {
    const { fake, carrier, onlyCall } = await setup();
    const leg = await answered(carrier);
    await leg.transfer('+14155550999');
    expect(await leg.ended).toBe('local_hangup');
    const update = fake.requests.find((r) => r.url.endsWith(`/Calls/${leg.sid}.json`));
    expect(update?.form.Twiml).toMatch(/<Response><Dial>\+14155550999<\/Dial><\/Response>$/);
    expect(onlyCall().status).toBe('in-progress');
  });
});

describe('Twilio carrier: inbound Voice URL', () => {
  it('answers TwiML that connects the stream once the inbound path answers', async () => {
    const { fake, carrier, endpoints } = await setup({}, false);
    let incoming: IncomingCall | null = null;
    let leg: Promise<CallLeg> | null = null;
    carrier.onIncoming((call) => {
      incoming = call;
      leg = call.answer('call-in');
      return Promise.resolve({ callId: 'call-in', status: 'registered' });
    });
    const call = await fake.voice.incoming({
      voiceUrl: `${endpoints.publicUrl}${TWILIO_VOICE_PATH}`,
      from: HUMAN,
      to: OUR_NUMBER,
    });
    expect(incoming).toMatchObject({ from: HUMAN, to: OUR_NUMBER, workspaceId: 'ws-1' });
    expect(call.twiml[0]).toMatch(
      /<Connect><Stream url="ws:[^"]+\/v2\/twilio\/stream"><Parameter name="parleyCallId" value="call-in"\/>/,
    );
    const connected = await leg!;
    expect(connected.sid).toBe(call.sid);
    await connected.hangup();
  });

  it('rejects an unknown number, a busy workspace, and a request without a valid signature', async () => {
    const { fake, carrier, endpoints, post } = await setup({}, false);
    let offered = 0;
    carrier.onIncoming((call) => {
      offered += 1;
      call.reject('busy');
      return Promise.resolve({ callId: 'call-in', status: 'busy' });
    });
    const voiceUrl = `${endpoints.publicUrl}${TWILIO_VOICE_PATH}`;
    const unknown = await fake.voice.incoming({ voiceUrl, from: HUMAN, to: '+14155550777' });
    expect(unknown.twiml[0]).toMatch(/<Reject reason="rejected"\/>/);
    expect(offered).toBe(0);
    const busy = await fake.voice.incoming({ voiceUrl, from: HUMAN, to: OUR_NUMBER });
    expect(busy.twiml[0]).toMatch(/<Reject reason="busy"\/>/);
    expect(busy.status).toBe('busy');
    const form = {
      AccountSid: FAKE_ACCOUNT_SID,
      CallSid: `CA${'1'.repeat(32)}`,
      From: HUMAN,
      To: OUR_NUMBER,
    };
    expect((await post(TWILIO_VOICE_PATH, form, '')).status).toBe(403);
    expect((await post(TWILIO_VOICE_PATH, form, 'AAAA')).status).toBe(403);
    expect((await post(TWILIO_VOICE_PATH, { ...form, AccountSid: `AC${'9'.repeat(32)}` })).status).toBe(403);
    expect(offered).toBe(1);
  });

  it('a routing slower than the Voice URL allows: pause and redirect, then connect', async () => {
    const clock = createManualClock();
    const { fake, carrier, endpoints } = await setup({ clock }, false);
    let incoming: IncomingCall | null = null;
    carrier.onIncoming((call) => {
      incoming = call;
      return Promise.resolve({ callId: 'call-in', status: 'registered' });
    });
    const voiceUrl = `${endpoints.publicUrl}${TWILIO_VOICE_PATH}`;
    const placed = fake.voice.incoming({ voiceUrl, from: HUMAN, to: OUR_NUMBER });
    await until(() => incoming !== null && clock.pendingSleeps > 0);
    await clock.tick(TWILIO_ROUTE_WAIT_MS);
    const call = [...fake.voice.calls.values()][0]!;
    await until(() => call.twiml.length === 1 && clock.pendingSleeps > 0);
    expect(call.twiml[0]).toMatch(
      new RegExp(`<Pause length="2"/><Redirect method="POST">${voiceUrl}</Redirect>`),
    );
    const leg = incoming!.answer('call-in');
    await placed;
    expect(call.twiml[1]).toMatch(/<Connect><Stream/);
    expect((await leg).sid).toBe(call.sid);
    await (await leg).hangup();
  });

  it('a call answered by a pause and then turned away is hung up', async () => {
    const clock = createManualClock();
    const { fake, carrier, endpoints } = await setup({ clock }, false);
    let incoming: IncomingCall | null = null;
    carrier.onIncoming((call) => {
      incoming = call;
      return Promise.resolve({ callId: 'call-in', status: 'registered' });
    });
    const placed = fake.voice.incoming({
      voiceUrl: `${endpoints.publicUrl}${TWILIO_VOICE_PATH}`,
      from: HUMAN,
      to: OUR_NUMBER,
    });
    await until(() => incoming !== null && clock.pendingSleeps > 0);
    await clock.tick(TWILIO_ROUTE_WAIT_MS);
    const call = [...fake.voice.calls.values()][0]!;
    await until(() => call.twiml.length === 1 && clock.pendingSleeps > 0);
    incoming!.reject('unavailable');
    await placed;
    expect(call.twiml[1]).toMatch(/<Hangup\/>/);
  });

  it('a caller who hangs up while the call is routed: the status callback ends it, answer() fails', async () => {
    const clock = createManualClock();
    const { fake, carrier, endpoints, post } = await setup({ clock }, false);
    let incoming: IncomingCall | null = null;
    carrier.onIncoming((call) => {
      incoming = call;
      return Promise.resolve({ callId: 'call-in', status: 'registered' });
    });
    const placed = fake.voice.incoming({
      voiceUrl: `${endpoints.publicUrl}${TWILIO_VOICE_PATH}`,
      from: HUMAN,
      to: OUR_NUMBER,
    });
    await until(() => incoming !== null);
    const call = [...fake.voice.calls.values()][0]!;
    const form = { AccountSid: FAKE_ACCOUNT_SID, CallSid: call.sid, CallStatus: 'canceled' };
    expect((await post(TWILIO_STATUS_PATH, form)).status).toBe(200);
    await expect(incoming!.answer('call-in')).rejects.toThrow(/hung up/);
    expect(carrier.calls).toBe(0);
    await placed;
    expect(call.twiml).toHaveLength(1);
  });
});
