import { execFileSync } from 'node:child_process';
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { offlineSpeech, type SpeechSetup } from '../../src/app.ts';
import { silentLogger } from '../../src/core/index.ts';
import { POCKETSPHINX_INSTALL, pocketSphinxAvailable } from '../../src/providers/index.ts';
import { createToolCallingLLM, recognize, testAudioDir } from '../../src/providers/testing/index.ts';
import { storeTargets } from '../../src/store/testing/index.ts';
import { createTestApi, type TestApi } from '../helpers.ts';
import { callApi } from './call-api.ts';
import { agentSideOf, bridgedPart } from './recording.ts';
import { hasCommands, runSipp } from './sipp.ts';

// Real SIP calls between Parley (the SIP carrier, RTP media, the offline speech, the whole call
// path) and sipp as the far end: a caller who speaks flite speech over RTP and presses a key, the
// built-in uac_pcap caller (PCMA audio and an RFC 4733 digit), a callee that echoes our RTP, and
// callees that answer busy or decline. Every outcome is read back from the API's call record.
//
// PocketSphinx, flite, sox and sipp are system packages (CI installs them, .ci/run): missing in CI
// this fails; elsewhere it skips, saying so.

const available = (await pocketSphinxAvailable()) && hasCommands('sipp', 'flite', 'sox');
const runHere = available || Boolean(process.env.CI);
if (!runHere)
  console.warn(
    `SIP call tests skipped: sipp, flite or PocketSphinx missing (${POCKETSPHINX_INSTALL} sip-tester)`,
  );

const OUR_NUMBER = '+14155550199';
const GREETING = 'Hello, thank you for calling. How can I help you today?';
const CALLER_LINE = 'I would like to book an appointment for tomorrow morning.';
const CALLER_WORDS = ['would', 'like', 'book', 'appointment', 'tomorrow', 'morning'];
const TRANSFER_TOOL = 'Front_desk';

const wordsOf = (text: string) => new Set(text.toLowerCase().match(/[a-z']+/g) ?? []);

describe.runIf(runHere)('SIP calls with sipp as the far end', () => {
  const target = storeTargets()[0];
  if (!target) throw new Error('no store target');
  let speech: SpeechSetup;
  let t: TestApi;
  let agentId = '';
  let dir = '';
  let callerWav: Buffer = Buffer.alloc(0);
  let slowRouter: Server;
  /** The agent the slow router picks. */
  let routedTo = '';

  const { api, finalCall } = callApi(() => t);

  async function lastCallId(type: 'inbound' | 'outbound'): Promise<string | null> {
    const page = await api<{ response: { calls: { call_id: string; type?: string }[] } }>(
      'GET',
      `/v2/calls?model_id=${agentId}&limit=1`,
    );
    const call = page.response.calls[0];
    return call && (call.type === undefined || call.type === type) ? call.call_id : null;
  }

  /** An agent with a number of its own on the SIP carrier; outbound numbers point at `port`. */
  async function agentWithNumber(
    number: string,
    options: { type?: 'inbound' | 'outbound'; port?: number; extra?: Record<string, unknown> } = {},
  ): Promise<string> {
    const created = await api<{ response: { model_id: string } }>('POST', '/v2/assistants', {
      type: options.type ?? 'inbound',
      name: `agent ${number}`,
      agent: { prompt: 'Be brief.', greeting_message: GREETING, greeting_message_mode: 'agent_static' },
      ...options.extra,
    });
    const id = created.response.model_id;
    await api('POST', '/v2/custom-numbers', {
      phone_number: number,
      provider: 'sip',
      sip: { host: '127.0.0.1', port: options.port ?? 5060 },
    });
    await api('PUT', `/v2/assistants/${id}/phone_numbers`, { phone_numbers: [number] });
    return id;
  }

  async function callsOf(model: string): Promise<Record<string, unknown>[]> {
    const page = await api<{ response: { calls: Record<string, unknown>[] } }>(
      'GET',
      `/v2/calls?model_id=${model}`,
    );
    return page.response.calls;
  }

  /** The agent's one call, once it is over and its after-call work is done. */
  async function onlyCall(model: string): Promise<Record<string, unknown>> {
    return finalCall(async () => {
      const calls = await callsOf(model);
      return calls.length === 1 ? String(calls[0]?.call_id) : null;
    });
  }

  /** Places a call from `from` (the agent's SIP number) to a number. */
  async function place(model: string, phone: string): Promise<string> {
    const body = await api<{ response: { call_id: string } }>('POST', '/v2/calls', {
      model_id: model,
      phone,
      name: 'Ann',
    });
    return body.response.call_id;
  }

  beforeAll(async () => {
    speech = await offlineSpeech({ logger: silentLogger(), simMode: 'text' });
    slowRouter = createServer((req, res) => {
      // An inbound webhook that takes its time: the caller gives up while it rings.
      setTimeout(
        () =>
          res
            .writeHead(200, { 'content-type': 'application/json' })
            .end(JSON.stringify({ call_inbound: { override_model_id: routedTo } })),
        1_500,
      );
    });
    await new Promise<void>((resolve) => slowRouter.listen(0, '127.0.0.1', resolve));
    // The model answers `OK.`, except that an agent with the transfer tool uses it on its first turn.
    const llm = createToolCallingLLM(TRANSFER_TOOL);
    t = await createTestApi(target, { speech, sip: {}, allowPrivateNetwork: true, llm });
    const created = await api<{ response: { model_id: string } }>('POST', '/v2/assistants', {
      type: 'inbound',
      name: 'sip agent',
      agent: { prompt: 'Be brief.', greeting_message: GREETING, greeting_message_mode: 'agent_static' },
    });
    agentId = created.response.model_id;
    await api('POST', '/v2/custom-numbers', {
      phone_number: OUR_NUMBER,
      provider: 'sip',
      sip: { host: '127.0.0.1', port: 5060 },
    });
    await api('PUT', `/v2/assistants/${agentId}/phone_numbers`, { phone_numbers: [OUR_NUMBER] });
    dir = testAudioDir();
    const wav = join(dir, 'caller.wav');
    execFileSync('flite', ['-voice', 'kal16', '-t', CALLER_LINE, '-o', join(dir, 'flite.wav')]);
    // 8 kHz mu-law WAV: sipp streams its samples as PCMU RTP.
    execFileSync('sox', [
      '-D',
      '-V1',
      join(dir, 'flite.wav'),
      '-r',
      '8000',
      '-c',
      '1',
      '-e',
      'mu-law',
      wav,
      'pad',
      '0.3',
      '0.5',
    ]);
    callerWav = readFileSync(wav);
  }, 120_000);

  afterAll(async () => {
    await t?.close();
    slowRouter?.close();
    await speech?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('answers an inbound caller who speaks and presses a key: the words and the key are in the transcript', async () => {
    const sipp = await runSipp({
      scenario: 'uac-speak.xml',
      target: `127.0.0.1:${t.sipPort}`,
      service: OUR_NUMBER.slice(1),
      audio: callerWav,
      timeoutMs: 60_000,
    });
    const result = await sipp.done;
    expect(result.code, result.out).toBe(0);
    const call = await finalCall(() => lastCallId('inbound'));
    expect(call).toMatchObject({ status: 'completed', phone_number_from: '+14155551234' });
    const transcript = String(call.transcript);
    expect(transcript).toContain('bot: Hello, thank you for calling.');
    const human = transcript
      .split('\n')
      .filter((line) => line.startsWith('human:'))
      .join(' ');
    const heard = CALLER_WORDS.filter((w) => wordsOf(human).has(w));
    expect(heard.length, `the caller's words in: ${transcript}`).toBeGreaterThanOrEqual(3);
    expect(transcript).toContain('[The caller pressed the keys: 1]');
  }, 90_000);

  it('answers a PCMA caller (the A-law pcap sipp ships) who presses a key as an RFC 4733 event', async () => {
    const number = '+14155550198';
    const model = await agentWithNumber(number);
    const sipp = await runSipp({
      scenario: 'uac-pcap-digit.xml',
      target: `127.0.0.1:${t.sipPort}`,
      service: number.slice(1),
      timeoutMs: 60_000,
    });
    const result = await sipp.done;
    expect(result.code, result.out).toBe(0);
    const call = await onlyCall(model);
    expect(call.status).toBe('completed');
    expect(String(call.transcript)).toContain('[The caller pressed the keys: 1]');
    const quality = call.quality as { link?: { codec?: string; frames_in?: number } } | undefined;
    expect(JSON.stringify(quality)).toContain('frames_in');
  }, 90_000);

  it('places an outbound call through the trunk; the callee echoes our audio and hangs up', async () => {
    const sipp = await runSipp({ scenario: 'uas-echo.xml', args: ['-rtp_echo'], timeoutMs: 40_000 });
    const number = '+14155550197';
    const model = await agentWithNumber(number, { type: 'outbound', port: sipp.port });
    const id = await place(model, '+14155557000');
    const result = await sipp.done;
    expect(result.code, result.out).toBe(0);
    const call = await finalCall(async () => id);
    expect(call).toMatchObject({ status: 'completed', phone_number_to: '+14155557000' });
    expect(String(call.transcript)).toContain('bot: Hello, thank you for calling.');
    // What we sent came back: the link counted frames both ways and lost none on loopback.
    const text = JSON.stringify(call.quality);
    expect(text).toMatch(/"frames_in":[1-9]/);
    expect(text).toMatch(/"frames_out":[1-9]/);
  }, 90_000);

  it.each([
    ['486', 'Busy Here', 'busy'],
    ['603', 'Decline', 'failed'],
  ])(
    'maps a callee that answers %s onto the call status',
    async (code, reason, status) => {
      const sipp = await runSipp({
        scenario: 'uas-refuse.xml',
        replace: { code, reason },
        timeoutMs: 30_000,
      });
      const number = code === '486' ? '+14155550196' : '+14155550195';
      const model = await agentWithNumber(number, { type: 'outbound', port: sipp.port });
      const id = await place(model, '+14155557001');
      const result = await sipp.done;
      expect(result.code, result.out).toBe(0);
      const call = await finalCall(async () => id);
      expect(call.status).toBe(status);
      if (status === 'failed') expect(String(call.error_message)).toContain('603');
    },
    60_000,
  );

  it('stops ringing a caller who cancels while the call is routed: 487, and the record says so', async () => {
    const number = '+14155550194';
    const hook = `http://127.0.0.1:${(slowRouter.address() as AddressInfo).port}/route`;
    const model = await agentWithNumber(number, { extra: { inbound_call_webhook_url: hook } });
    routedTo = model;
    const sipp = await runSipp({
      scenario: 'uac-cancel.xml',
      target: `127.0.0.1:${t.sipPort}`,
      service: number.slice(1),
      timeoutMs: 30_000,
    });
    const result = await sipp.done;
    expect(result.code, result.out).toBe(0);
    const call = await onlyCall(model);
    expect(call).toMatchObject({
      status: 'user-canceled',
      error_message: expect.stringContaining('hung up'),
    });
  }, 60_000);

  it('answers 404 for a number it does not hold and 403 to a caller off the trunk allow-list, never ringing', async () => {
    const number = '+14155550193';
    const model = await agentWithNumber(number);
    await api('PATCH', `/v2/numbers/${number.slice(1)}`, {
      sip: { host: '127.0.0.1', allowed_addresses: ['192.0.2.10'] },
    });
    for (const [service, status] of [
      ['14155559999', '404'],
      [number.slice(1), '403'],
    ] as const) {
      const sipp = await runSipp({
        scenario: 'uac-refused.xml',
        target: `127.0.0.1:${t.sipPort}`,
        service,
        replace: { status },
        timeoutMs: 20_000,
      });
      const result = await sipp.done;
      expect(result.code, result.out).toBe(0);
    }
    expect(await callsOf(model)).toEqual([]);
  }, 60_000);

  it('bridges a cold transfer the caller side refuses (603 to REFER): hold, the target dialed, both bridged and recorded', async () => {
    const number = '+14155550189';
    const targetNumber = '+14155559001';
    // The target echoes what it hears: once bridged, the caller's words come back to the caller.
    const targetSipp = await runSipp({
      scenario: 'uas-echo-until-bye.xml',
      args: ['-rtp_echo'],
      replace: { from_number: number.replace('+', '\\+') },
      timeoutMs: 90_000,
    });
    const model = await agentWithNumber(number, { port: targetSipp.port, extra: { is_recording: true } });
    const action = await api<{ response: { action_id?: string; id?: string } }>('POST', '/v2/actions', {
      LIVE_TRANSFER: {
        name: 'Front desk',
        phone: targetNumber,
        transfer_mode: 'cold_transfer',
        initiating_msg: 'Please hold while I connect you.',
        message_to_transfer_target: 'A caller would like to book an appointment.',
        enable_background_music: true,
        digits: '12',
        timeout: 20,
      },
    });
    await api('POST', '/v2/actions/attach', {
      model_id: model,
      actions: [action.response.action_id ?? action.response.id],
    });
    const caller = await runSipp({
      scenario: 'uac-refer-refused.xml',
      target: `127.0.0.1:${t.sipPort}`,
      service: number.slice(1),
      audio: callerWav,
      replace: { bridged_after_ms: '10000' },
      timeoutMs: 90_000,
    });
    const [callerResult, targetResult] = await Promise.all([caller.done, targetSipp.done]);
    expect(callerResult.code, callerResult.out).toBe(0);
    // The target got our INVITE from the agent's number, and our BYE once the caller hung up.
    expect(targetResult.code, targetResult.out).toBe(0);
    const call = await onlyCall(model);
    expect(call.status).toBe('completed');
    const timeline = call.action_execution_timeline as Record<string, unknown>[];
    const entry = timeline.find((e) => e.name === 'Front desk');
    expect(entry).toMatchObject({
      status: 'success',
      human_connected_at: expect.any(String),
      transfer: {
        target: targetNumber,
        mode: 'cold_transfer',
        outcome: 'connected',
        method: 'bridge',
        fell_back_from: 'refer',
        ended_by: 'caller',
        bridged_at: expect.any(String),
        ended_at: expect.any(String),
      },
    });
    // The recording goes on through the bridge: the agent's side (what the caller heard) holds
    // the caller's second sentence, echoed back by the target through the bridge.
    const transfer = entry?.transfer as { bridged_at: string; ended_at: string };
    const res = await t.call({ method: 'GET', url: `/v2/calls/${String(call.call_id)}/recording` });
    expect(res.statusCode).toBe(200);
    if (!('speech' in speech.choice)) throw new Error('no offline speech here');
    const heard = await recognize(
      speech.choice.speech.stt,
      bridgedPart(agentSideOf(res.rawPayload), transfer, 500),
      16000,
    );
    // Four G.711 passes and two resamplings later the recognizer still hears the sentence's end.
    const found = CALLER_WORDS.filter((w) => wordsOf(heard).has(w));
    expect(found.length, `the bridged audio heard as: ${heard}`).toBeGreaterThanOrEqual(2);
  }, 120_000);

  it('transfers a caller cold by REFER when the agent uses its LIVE_TRANSFER action', async () => {
    const number = '+14155550192';
    const model = await agentWithNumber(number);
    const action = await api<{ response: { action_id?: string; id?: string } }>('POST', '/v2/actions', {
      LIVE_TRANSFER: { name: 'Front desk', phone: '+14155559000', transfer_mode: 'cold_transfer' },
    });
    await api('POST', '/v2/actions/attach', {
      model_id: model,
      actions: [action.response.action_id ?? action.response.id],
    });
    const sipp = await runSipp({
      scenario: 'uac-transfer.xml',
      target: `127.0.0.1:${t.sipPort}`,
      service: number.slice(1),
      audio: callerWav,
      timeoutMs: 60_000,
    });
    const result = await sipp.done;
    // The scenario took a REFER to the target, said it answered, and got our BYE.
    expect(result.code, result.out).toBe(0);
    const call = await onlyCall(model);
    expect(call.status).toBe('completed');
    expect(JSON.stringify(call)).toContain('+14155559000');
  }, 90_000);
});
