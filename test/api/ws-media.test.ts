import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, expect, it } from 'vitest';
import WebSocket from 'ws';
import {
  createDataSpeechReader,
  dataSpeechFrames,
  l16Decode,
  l16Encode,
  mulawDecode,
  type AudioFrame,
} from '../../src/media/index.ts';
import { createFakeSTT, createFakeTTS, createFakeVAD, monoWav } from '../../src/providers/testing/index.ts';
import { createTestApi, forEachStore, type TestApi } from '../helpers.ts';
import { freePort, receive, until } from './ws-media-helpers.ts';

// The WebSocket media test call over a real socket against the real server on a free port
// (WIRE.md section 10): the client is the far end, speaks data speech that the fake STT reads,
// and hears the agent's greeting (the fake TTS's data speech) through the codec it chose.

const GREETING = 'Hello from Parley';

/** What the client heard, read back as data speech (payload framing). */
function heardText(binaries: Uint8Array[], codec: 'pcmu' | 'l16'): string {
  const reader = createDataSpeechReader();
  for (const bytes of binaries) {
    const frame: AudioFrame =
      codec === 'l16'
        ? { samples: l16Decode(bytes), sampleRate: 16000, at: 0 }
        : { samples: mulawDecode(bytes), sampleRate: 8000, at: 0 };
    reader.push(frame);
  }
  return reader.text;
}

forEachStore('WebSocket media test call', (target) => {
  let t: TestApi;
  let port = 0;
  let agentId = '';

  beforeAll(async () => {
    port = await freePort();
    t = await createTestApi(target, {
      publicUrl: `http://127.0.0.1:${port}`,
      speech: {
        choice: { speech: { vad: createFakeVAD(), stt: createFakeSTT(), tts: createFakeTTS() } },
        farEnd: null,
        close: async () => undefined,
      },
    });
    await t.api.listen({ port, host: '127.0.0.1' });
    const created = await t.call({
      method: 'POST',
      url: '/v2/assistants',
      payload: {
        type: 'outbound',
        name: 'ws agent',
        agent: { prompt: 'Be brief.', greeting_message: GREETING, greeting_message_mode: 'agent_static' },
      },
    });
    expect(created.statusCode).toBe(200);
    agentId = created.json().response.model_id as string;
  });
  afterAll(async () => {
    await t.close();
  });

  const local = (url: string) => url.replace(/^wss?:\/\/[^/]+/, `ws://127.0.0.1:${port}`);

  it('legacy flow: the URL binds the call; the client hears the greeting in its codec', async () => {
    const started = await t.call({
      method: 'POST',
      url: '/v2/calls/outbound-test-ws-media',
      payload: { modelId: agentId, wsMediaCodec: 'l16', wsMediaFraming: 'payload', leadName: 'Ada' },
    });
    expect(started.statusCode).toBe(200);
    const body = started.json() as { callId: string; wsMediaUrl: string; sid: string };
    expect(body.sid).toBe('');
    expect(body.wsMediaUrl).toMatch(/^ws:\/\/.+\/v2\/calls\/ws-media\?sid=/);
    const socket = new WebSocket(local(body.wsMediaUrl));
    const got = receive(socket);
    await until(() => got.texts.length >= 2, 'server_info and call_info');
    expect(got.texts[0]).toEqual({ type: 'server_info', 'server-name': expect.any(String) });
    expect(got.texts[1]).toEqual({
      type: 'call_info',
      callId: body.callId,
      codec: 'l16',
      framing: 'payload',
      sampleRate: 16000,
      ptimeMs: 20,
    });
    await until(() => heardText(got.binaries, 'l16').includes(GREETING), 'the greeting');
    expect(got.binaries.every((b) => b.length === 640)).toBe(true);

    const call = await t.call({ method: 'GET', url: `/v2/calls/${body.callId}` });
    expect(call.statusCode).toBe(200);
    expect(call.json().response.calls[0]).toMatchObject({ type_of_call: 'web', status: 'in-progress' });

    // The transcript follows the call live: the greeting, then what the caller says (data speech
    // that the fake STT reads), then the agent's answer.
    await until(() => got.texts.some((m) => m.type === 'transcript'), 'the greeting transcript');
    expect(got.texts.find((m) => m.type === 'transcript')).toEqual({
      type: 'transcript',
      role: 'bot',
      text: GREETING,
    });
    for (const frame of dataSpeechFrames('Book a table')) socket.send(l16Encode(frame.samples));
    await until(() => got.texts.some((m) => m.role === 'human'), "the caller's transcript");
    expect(got.texts.find((m) => m.role === 'human')).toEqual({
      type: 'transcript',
      role: 'human',
      text: 'Book a table',
    });
    await until(() => got.texts.filter((m) => m.role === 'bot').length >= 2, "the agent's answer");

    // The caller hangs up: the call ends.
    socket.close(1000, 'bye');
    await got.closed;
    await expect
      .poll(
        async () =>
          (await t.call({ method: 'GET', url: `/v2/calls/${body.callId}` })).json().response.calls[0].status,
        { timeout: 10_000 },
      )
      .toBe('completed');
  });

  it('connect-then-bind: server_info on connect, call_info after the bind, pcmu', async () => {
    const base = await t.call({ method: 'GET', url: '/v2/calls/outbound-test-ws-media/base-url' });
    expect(base.statusCode).toBe(200);
    const socket = new WebSocket(local(base.json().wsMediaBaseUrl as string));
    const got = receive(socket);
    await until(() => got.texts.length >= 1, 'server_info');
    const serverName = got.texts[0]?.['server-name'] as string;
    const started = await t.call({
      method: 'POST',
      url: '/v2/calls/outbound-test-ws-media',
      payload: {
        modelId: agentId,
        wsMediaCodec: 'pcmu',
        wsMediaFraming: 'payload',
        wsMediaServerName: serverName,
      },
    });
    expect(started.statusCode).toBe(200);
    const { sid, callId } = started.json() as { sid: string; callId: string };
    expect(sid).not.toBe('');
    socket.send(JSON.stringify({ type: 'bind', sid }));
    await until(() => got.texts.some((m) => m.type === 'call_info'), 'call_info');
    expect(got.texts.find((m) => m.type === 'call_info')).toMatchObject({
      callId,
      codec: 'pcmu',
      sampleRate: 8000,
    });
    await until(() => heardText(got.binaries, 'pcmu').includes(GREETING), 'the greeting');
    expect(got.binaries.every((b) => b.length === 160)).toBe(true);

    // A second bind on the bound socket is refused and closes it.
    socket.send(JSON.stringify({ type: 'bind', sid }));
    const closed = await got.closed;
    expect(closed.code).toBe(4002);
    expect(got.texts.at(-1)).toMatchObject({ type: 'error' });
  });

  it('refuses audio before the bind, and an unknown session id', async () => {
    const base = (await t.call({ method: 'GET', url: '/v2/calls/outbound-test-ws-media/base-url' })).json()
      .wsMediaBaseUrl as string;
    const early = new WebSocket(local(base));
    const earlyGot = receive(early);
    await until(() => earlyGot.texts.length >= 1, 'server_info');
    early.send(new Uint8Array(160));
    expect((await earlyGot.closed).code).toBe(4003);

    const unknown = new WebSocket(local(base));
    const unknownGot = receive(unknown);
    await until(() => unknownGot.texts.length >= 1, 'server_info');
    unknown.send('not json at all');
    unknown.send(JSON.stringify({ type: 'hello' }));
    unknown.send(JSON.stringify({ type: 'bind', sid: 'no-such-session' }));
    expect((await unknownGot.closed).code).toBe(4001);
    expect(unknownGot.texts.at(-1)).toEqual({ type: 'error', error: 'unknown or expired session' });
  });

  it('names the field of a bad request (400) and a node it does not know (502)', async () => {
    const cases: [Record<string, unknown>, string][] = [
      [{ modelId: 'nope' }, 'modelId'],
      [{ modelId: agentId, wsMediaCodec: 'g729' }, 'wsMediaCodec'],
      [{ modelId: agentId, wsMediaFraming: 'raw' }, 'wsMediaFraming'],
      [{ modelId: agentId, toPhoneNumber: '12' }, 'toPhoneNumber'],
      [{ modelId: agentId, agentVersion: 'latest' }, 'agentVersion'],
    ];
    for (const [payload, field] of cases) {
      const res = await t.call({ method: 'POST', url: '/v2/calls/outbound-test-ws-media', payload });
      expect(res.statusCode, field).toBe(400);
      expect(JSON.stringify(res.json()), field).toContain(field);
    }
    const foreign = await t.call({
      method: 'POST',
      url: '/v2/calls/outbound-test-ws-media',
      payload: { modelId: agentId },
      key: t.other.key,
    });
    expect(foreign.statusCode).toBe(400);
    const elsewhere = await t.call({
      method: 'POST',
      url: '/v2/calls/outbound-test-ws-media',
      payload: { modelId: agentId, wsMediaServerName: 'some-other-node' },
    });
    expect(elsewhere.statusCode).toBe(502);
    expect(elsewhere.json()).toEqual({ error: expect.stringContaining('some-other-node') });
  });

  it('examples/ws-media-client.mjs plays a WAV into a call and saves what the agent said', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'parley-ws-example-'));
    const line = dataSpeechFrames('Can I book for two');
    const samples = new Int16Array((line.length + 50) * 320);
    line.forEach((frame, i) => samples.set(frame.samples, (i + 25) * 320));
    writeFileSync(join(dir, 'caller.wav'), monoWav(samples));
    const { stdout } = await promisify(execFile)(
      process.execPath,
      ['examples/ws-media-client.mjs', agentId, join(dir, 'caller.wav'), join(dir, 'agent.wav'), '3'],
      { env: { ...process.env, PARLEY_URL: `http://127.0.0.1:${port}`, PARLEY_API_KEY: t.ws.key } },
    );
    expect(stdout).toMatch(/^call [0-9a-f-]{36}$/m);
    const wav = readFileSync(join(dir, 'agent.wav'));
    expect(wav.readUInt32LE(24)).toBe(16000);
    const pcm = wav.subarray(44);
    const agent = new Int16Array(pcm.buffer.slice(pcm.byteOffset, pcm.byteOffset + pcm.length));
    const reader = createDataSpeechReader();
    for (let at = 0; at + 320 <= agent.length; at += 320)
      reader.push({ samples: agent.subarray(at, at + 320), sampleRate: 16000, at: 0 });
    expect(reader.text).toContain(GREETING);
  });

  it('answers 503 on both routes when WebSocket media is off', async () => {
    const off = await createTestApi(target, { wsMedia: false });
    try {
      const base = await off.call({ method: 'GET', url: '/v2/calls/outbound-test-ws-media/base-url' });
      expect(base.statusCode).toBe(503);
      const start = await off.call({
        method: 'POST',
        url: '/v2/calls/outbound-test-ws-media',
        payload: { modelId: agentId },
      });
      expect(start.statusCode).toBe(503);
      expect(JSON.stringify(start.json())).toContain('PARLEY_WS_MEDIA');
      expect(
        (await off.call({ method: 'GET', url: '/v2/calls/outbound-test-ws-media/base-url', key: null }))
          .statusCode,
      ).toBe(401);
    } finally {
      await off.close();
    }
  });

  it('drops frames that are wrong for the call, closes on an oversized one, and finishes the call', async () => {
    const started = await t.call({
      method: 'POST',
      url: '/v2/calls/outbound-test-ws-media',
      payload: { modelId: agentId, wsMediaCodec: 'pcmu', wsMediaFraming: 'rtp' },
    });
    const body = started.json() as { callId: string; wsMediaUrl: string };
    const socket = new WebSocket(local(body.wsMediaUrl));
    const got = receive(socket);
    await until(() => got.texts.some((m) => m.type === 'call_info'), 'call_info');
    // Wrong sizes, not RTP, the wrong payload type, text garbage, and a flood far faster than
    // real time: all dropped or ignored, the call goes on.
    socket.send(new Uint8Array(7));
    socket.send(new Uint8Array(172).fill(0x00));
    const wrongType = new Uint8Array(172);
    wrongType.set([0x80, 8, 0, 1, 0, 0, 0, 160, 0, 0, 0, 9]);
    socket.send(wrongType);
    socket.send('{"type":');
    for (let i = 0; i < 500; i += 1) {
      const packet = new Uint8Array(172);
      packet.set([0x80, 0, (i >> 8) & 0xff, i & 0xff, 0, 0, (i * 160) >> 8, (i * 160) & 0xff, 0, 0, 0, 7]);
      socket.send(packet);
    }
    await until(
      () =>
        heardText(
          got.binaries.map((b) => b.subarray(12)),
          'pcmu',
        ).includes(GREETING),
      'the greeting',
    );
    // What we send is RTP, read here by hand: version 2, payload type 0, one SSRC, sequence and
    // timestamp counting on, the marker on the first packet of the talkspurt.
    const headers = got.binaries.map((b) => ({
      version: (b[0] ?? 0) >> 6,
      marker: ((b[1] ?? 0) & 0x80) !== 0,
      payloadType: (b[1] ?? 0) & 0x7f,
      sequence: ((b[2] ?? 0) << 8) | (b[3] ?? 0),
      timestamp: new DataView(b.buffer, b.byteOffset).getUint32(4),
      ssrc: new DataView(b.buffer, b.byteOffset).getUint32(8),
      length: b.length,
    }));
    expect(headers.every((h) => h.version === 2 && h.payloadType === 0 && h.length === 172)).toBe(true);
    expect(new Set(headers.map((h) => h.ssrc)).size).toBe(1);
    expect(headers[0]?.marker).toBe(true);
    headers.slice(1).forEach((h, i) => {
      expect(h.sequence).toBe((headers[i]!.sequence + 1) % 65536);
      expect((h.timestamp - headers[i]!.timestamp) >>> 0).toBeGreaterThanOrEqual(160);
    });
    const during = (await t.call({ method: 'GET', url: `/v2/calls/${body.callId}` })).json().response
      .calls[0];
    expect(during.status).toBe('in-progress');

    // 64 KiB and more closes the socket (1009), which ends the call.
    socket.send(new Uint8Array(70_000));
    expect((await got.closed).code).toBe(1009);
    await expect
      .poll(
        async () =>
          (await t.call({ method: 'GET', url: `/v2/calls/${body.callId}` })).json().response.calls[0].status,
        { timeout: 10_000 },
      )
      .toBe('completed');
  });

  it('cuts off a client that vanished without a close (no pong), and finishes its call', async () => {
    const quickPort = await freePort();
    const quick = await createTestApi(target, {
      publicUrl: `http://127.0.0.1:${quickPort}`,
      wsMediaKeepAliveMs: 100,
      speech: {
        choice: { speech: { vad: createFakeVAD(), stt: createFakeSTT(), tts: createFakeTTS() } },
        farEnd: null,
        close: async () => undefined,
      },
    });
    try {
      await quick.api.listen({ port: quickPort, host: '127.0.0.1' });
      const agent = await quick.call({
        method: 'POST',
        url: '/v2/assistants',
        payload: { type: 'outbound', name: 'a', agent: { prompt: 'Be brief.', greeting_message: GREETING } },
      });
      const started = await quick.call({
        method: 'POST',
        url: '/v2/calls/outbound-test-ws-media',
        payload: { modelId: agent.json().response.model_id, wsMediaCodec: 'pcmu', wsMediaFraming: 'payload' },
      });
      const { callId, wsMediaUrl } = started.json() as { callId: string; wsMediaUrl: string };
      // A raw client: it opens the WebSocket, then never answers again (bytes are read and dropped).
      const raw = connect(quickPort, '127.0.0.1');
      raw.resume();
      const path = new URL(wsMediaUrl).pathname + new URL(wsMediaUrl).search;
      raw.write(
        `GET ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n` +
          'Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n',
      );
      const cutOff = new Promise<void>((resolve) => raw.once('close', () => resolve()));
      await cutOff;
      await expect
        .poll(
          async () =>
            (await quick.call({ method: 'GET', url: `/v2/calls/${callId}` })).json().response.calls[0].status,
          { timeout: 10_000 },
        )
        .toBe('completed');
    } finally {
      await quick.close();
    }
  });
});
