import { rmSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import {
  createParley,
  ParleyError,
  startWebCall,
  unwrap,
  WebCallError,
  type Parley,
  type WebCall,
  type WebCallCodec,
  type WebCallFraming,
  type WebCallLine,
  type WebCallOpusFactory,
} from '../../sdk/index.ts';
import { createOpusCodec, Resampler } from '../../src/media/index.ts';
import {
  POCKETSPHINX_INSTALL,
  createPocketSphinxSTT,
  pocketSphinxAvailable,
  type PocketSphinxSTT,
} from '../../src/providers/index.ts';
import { fliteClip, recognize, testAudioDir } from '../../src/providers/testing/index.ts';
import { until } from '../api/ws-media-helpers.ts';
import { startRealServer, type RealServer } from './real-server.ts';

// The SDK's WebSocket media client (sdk/ws-media.ts) against the real server in this process, with
// the role that runs calls and the real offline speech (energy VAD, PocketSphinx, flite): the call
// starts through the API, the agent's greeting comes back as audio that PocketSphinx understands
// (so the helper decoded it right), the caller says a flite sentence through `send`, and its words
// come back on the socket's transcript and are in the call's record.
//
// PocketSphinx is a system package (CI installs it): missing in CI this fails; elsewhere it skips.

const available = await pocketSphinxAvailable();
const runHere = available || Boolean(process.env.CI);
if (!runHere)
  console.warn(`WS media SDK tests skipped: PocketSphinx is not installed (${POCKETSPHINX_INSTALL})`);

const KEY = 'pk_sdk_ws_media_tests_0001';
// Words PocketSphinx gets right on flite's voice (test/api/ws-media-speech.test.ts).
const GREETING = 'Hello, thank you for calling. How can I help you today?';
const GREETING_WORDS = ['hello', 'thank', 'calling', 'can', 'help', 'today'];
const CALLER_LINE = 'I would like to book an appointment for tomorrow morning.';
const CALLER_WORDS = ['would', 'like', 'book', 'appointment', 'tomorrow', 'morning'];
const FINAL = new Set(['completed', 'failed', 'canceled']);

const wordsOf = (text: string) => new Set(text.toLowerCase().match(/[a-z']+/g) ?? []);
const found = (words: string[], text: string) => words.filter((w) => wordsOf(text).has(w));

/** 16 kHz to 8 kHz for the G.711 calls: the mean of each pair (flite's speech is under 4 kHz). */
function halve(samples: Int16Array): Int16Array {
  const out = new Int16Array(samples.length >> 1);
  for (let i = 0; i < out.length; i += 1) out[i] = (samples[2 * i]! + samples[2 * i + 1]!) >> 1;
  return out;
}

/** The whole of `samples` at another rate, through the server's own resampler. */
function resample(samples: Int16Array, from: 16000 | 48000, to: 16000 | 48000): Int16Array {
  const resampler = new Resampler(from, to);
  const out = new Int16Array(resampler.maxOutput(samples.length));
  return out.subarray(0, resampler.process(samples, out));
}

/** The SDK carries no Opus: in Node, a factory over an Opus library (here the server's, libopus). */
const nodeOpus: WebCallOpusFactory = (sinks) => {
  const codec = createOpusCodec({ sampleRate: 48000 });
  const out = new Int16Array(codec.maxPacketSamples);
  return {
    encode: (frame) => sinks.onPacket(codec.encode(frame)),
    decode: (packet) => {
      const samples = codec.decode(packet, out);
      if (samples > 0) sinks.onPcm(out.subarray(0, samples));
      else sinks.onError(new Error('not an Opus packet'));
    },
    close: () => codec.close(),
  };
};

/**
 * A microphone: one frame every 20 ms of the clock from its start, the queued speech when there is
 * some, else silence. The frame array is reused, as a capture callback's would be.
 */
class Microphone {
  private queue: Int16Array = new Int16Array(0);
  private at = 0;
  private running = true;
  private spoken: () => void = () => {};
  readonly done: Promise<void>;

  constructor(private readonly call: WebCall) {
    this.done = this.run();
  }

  say(samples: Int16Array): Promise<void> {
    this.queue = samples;
    this.at = 0;
    return new Promise((resolve) => (this.spoken = resolve));
  }

  async stop(): Promise<void> {
    this.running = false;
    await this.done;
  }

  private async run(): Promise<void> {
    const frame = new Int16Array(this.call.frameSamples);
    const start = performance.now();
    for (let slot = 0; this.running; slot += 1) {
      const wait = start + slot * 20 - performance.now();
      if (wait > 0) await sleep(wait); // real-time pacing, as a microphone delivers
      frame.fill(0);
      if (this.at < this.queue.length) {
        frame.set(this.queue.subarray(this.at, Math.min(this.at + frame.length, this.queue.length)));
        this.at += frame.length;
        if (this.at >= this.queue.length) this.spoken();
      }
      if (!this.call.send(frame)) return;
    }
  }
}

describe.runIf(runHere)('startWebCall (sdk/ws-media.ts) against the real server', () => {
  let server: RealServer;
  let parley: Parley;
  let audioDir = '';
  let agentId = '';
  let caller16k: Int16Array = new Int16Array(0);
  let wideband: PocketSphinxSTT;
  let telephone: PocketSphinxSTT;

  beforeAll(async () => {
    server = await startRealServer({ calls: true, key: KEY });
    const url = server.url;
    parley = createParley({ baseUrl: url, apiKey: KEY });
    const created = await unwrap(
      parley.api.POST('/v2/assistants', {
        body: {
          type: 'outbound',
          name: 'sdk ws agent',
          agent: {
            prompt: 'Be brief.',
            greeting_message: GREETING,
            greeting_message_mode: 'agent_static',
            voice_id: 'kal16',
          },
        },
      }),
    );
    agentId = created.model_id;
    audioDir = testAudioDir();
    caller16k = fliteClip(audioDir, CALLER_LINE, 'caller').samples;
    const ears = { utteranceTimeoutMs: 20_000, poolSize: 1 };
    wideband = await createPocketSphinxSTT({ ...ears, telephoneDecoders: 0 });
    telephone = await createPocketSphinxSTT({ ...ears, telephoneDecoders: 1 });
  }, 120_000);

  afterAll(async () => {
    await server?.close();
    await wideband?.close();
    await telephone?.close();
    if (audioDir) rmSync(audioDir, { recursive: true, force: true });
  });

  async function record(callId: string) {
    const r = await unwrap(parley.api.GET('/v2/calls/{call_id}', { params: { path: { call_id: callId } } }));
    return r.calls[0]!;
  }

  /** One call: the greeting heard, the caller's line said and transcribed, hung up; what it saw. */
  async function talk(codec: WebCallCodec, framing: WebCallFraming) {
    const lines: WebCallLine[] = [];
    const heard: Int16Array[] = [];
    let lastAudioAt = 0;
    const call = await startWebCall(parley, {
      modelId: agentId,
      codec,
      framing,
      WebSocket,
      ...(codec === 'opus' ? { opus: nodeOpus } : {}),
      onAudio: (pcm) => {
        heard.push(pcm.slice()); // the helper reuses its array
        lastAudioAt = performance.now();
      },
      onTranscript: (line) => lines.push(line),
    });
    const rate = codec === 'l16' ? 16000 : codec === 'opus' ? 48000 : 8000;
    expect(call).toMatchObject({ codec, framing, sampleRate: rate, frameSamples: rate / 50 });
    const microphone = new Microphone(call);
    try {
      // The greeting: its line, then its audio until the agent is quiet for half a second.
      await until(() => lines.some((l) => l.speaker === 'agent'), 'the greeting line', 20_000);
      await until(
        () => heard.length >= 50 && performance.now() - lastAudioAt > 500,
        'the end of the greeting audio',
        20_000,
      ).catch((err: unknown) => {
        throw new Error(
          `${String(err)}: ${heard.length} frames, ${JSON.stringify(call.stats)}, lines ${JSON.stringify(lines)}`,
        );
      });
      const greeting = heard.slice();
      await microphone.say(
        codec === 'l16' ? caller16k : codec === 'opus' ? resample(caller16k, 16000, 48000) : halve(caller16k),
      );
      await until(
        () => lines.some((l) => l.speaker === 'caller'),
        "the caller's line on the socket",
        20_000,
      ).catch(async (err: unknown) => {
        const now = await record(call.callId);
        throw new Error(
          `${String(err)}: ${heard.length} frames, ${JSON.stringify(call.stats)}, lines ${JSON.stringify(lines)}, call ${JSON.stringify({ status: now.status, transcript: now.transcript, error: now.error_message, reason: now.end_call_reason })}`,
        );
      });
      await microphone.stop();
      call.hangUp();
      const closed = await call.closed;
      const samples = new Int16Array(greeting.length * call.frameSamples);
      greeting.forEach((frame, i) => samples.set(frame, i * call.frameSamples));
      const understood =
        rate === 48000
          ? await recognize(wideband, resample(samples, 48000, 16000), 16000)
          : await recognize(rate === 8000 ? telephone : wideband, samples, rate);
      let final = await record(call.callId);
      await expect
        .poll(async () => FINAL.has((final = await record(call.callId)).status), { timeout: 20_000 })
        .toBe(true);
      return { call, lines, closed, understood, final };
    } finally {
      await microphone.stop();
      call.hangUp();
    }
  }

  for (const [codec, framing] of [
    ['l16', 'payload'],
    ['pcmu', 'rtp'],
    ['pcma', 'payload'],
    ['opus', 'rtp'],
  ] as const) {
    it(`${codec} over ${framing}: the greeting is heard, the caller's words reach the transcript`, async () => {
      const { call, lines, closed, understood, final } = await talk(codec, framing);
      // The agent's audio, decoded by the helper, is its greeting.
      expect(found(GREETING_WORDS, understood).length, `heard "${understood}"`).toBeGreaterThanOrEqual(4);
      expect(lines[0]).toEqual({ speaker: 'agent', text: GREETING });
      const said = lines.find((l) => l.speaker === 'caller')!.text;
      expect(found(CALLER_WORDS, said).length, `the socket's caller line "${said}"`).toBeGreaterThanOrEqual(
        4,
      );
      expect(closed).toMatchObject({ code: 1000, hungUp: true, error: null });
      expect(call.stats.framesDropped).toBe(0);
      expect(call.stats.framesReceived).toBeGreaterThan(50);

      expect(final.status).toBe('completed');
      expect(final.type_of_call).toBe('web');
      const human = final.transcript
        .split('\n')
        .filter((line) => line.startsWith('human: '))
        .join(' ');
      expect(found(CALLER_WORDS, human).length, final.transcript).toBeGreaterThanOrEqual(4);
      expect((final.quality as { link?: { frames_in: number } }).link?.frames_in).toBe(call.stats.framesSent);
    }, 90_000);
  }

  it("refuses in the API's words: an unknown agent", async () => {
    const refused = await startWebCall(parley, {
      modelId: '00000000-0000-4000-8000-000000000000',
      WebSocket,
    }).catch((err: unknown) => err);
    expect(refused).toBeInstanceOf(ParleyError);
    expect((refused as ParleyError).status).toBe(400);
    expect((refused as ParleyError).description).toMatch(/modelId: agent .* not found/);
  });

  it('says why the socket was refused: an unknown session is 4001', async () => {
    let real = '';
    // A socket that binds a session id the server never gave (and keeps the real URL to end the call).
    class WrongSession extends WebSocket {
      constructor(url: string) {
        real = url;
        super(url.replace(/sid=[^&]+/, 'sid=not-a-session'));
      }
    }
    const refused = await startWebCall(parley, { modelId: agentId, WebSocket: WrongSession }).catch(
      (err: unknown) => err,
    );
    expect(refused).toBeInstanceOf(WebCallError);
    expect((refused as WebCallError).code).toBe(4001);
    expect((refused as WebCallError).description).toBe('unknown or expired session');
    expect((refused as WebCallError).message).toContain('4001 (unknown or expired session)');
    // The call it started is still waiting for its client: bind it and hang up, so it ends now.
    const socket = new WebSocket(real);
    await new Promise((resolve) => socket.once('message', resolve));
    socket.close(1000);
    await new Promise((resolve) => socket.once('close', resolve));
  });

  it('takes only 20 ms frames', async () => {
    const call = await startWebCall(parley, { modelId: agentId, WebSocket });
    try {
      expect(() => call.send(new Int16Array(160))).toThrow(/320 samples/);
      expect(call.send(new Int16Array(320))).toBe(true);
    } finally {
      call.hangUp();
    }
    expect((await call.closed).code).toBe(1000);
    expect(call.send(new Int16Array(320))).toBe(false);
  });
});
