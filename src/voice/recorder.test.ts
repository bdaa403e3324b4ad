import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createManualClock, type ManualClock } from '../core/index.ts';
import { Resampler, SESSION_RATE, type AudioFrame, type SampleRate } from '../media/index.ts';
import {
  RECORDER_LIMITS,
  recordLeg,
  sealWav,
  wavHeader,
  wavSeconds,
  type RecordingSink,
} from './recorder.ts';
import { createFakeLeg, type FarEndStep } from './testing/fake-leg.ts';

// The call recorder over the fake leg on a manual clock: the caller on the left at the time of
// each frame, the agent on the right where the fake leg played it (a barge-in cuts it), a WAV
// that parses (and that sox reads), and memory that stays at its cap over a long call with a
// stalled sink.

const MS = SESSION_RATE / 1000;
const FRAME = 20 * MS;

interface MemorySink extends RecordingSink {
  readonly writes: number;
  readonly aborts: number;
  /** The file as finished (header rewritten), or null. */
  readonly file: Uint8Array | null;
  /** The bytes written so far, as a crash would leave them. */
  written(): Uint8Array;
}

function memorySink(options: { gate?: () => Promise<void>; failOnWrite?: number } = {}): MemorySink {
  const chunks: Uint8Array[] = [];
  let writes = 0;
  let aborts = 0;
  let file: Uint8Array | null = null;
  return {
    async write(chunk) {
      writes += 1;
      if (writes === options.failOnWrite) throw new Error('disk full');
      await options.gate?.();
      chunks.push(chunk.slice());
    },
    async finish(header) {
      const all = new Uint8Array(chunks.reduce((n, c) => n + c.length, 0));
      let at = 0;
      for (const c of chunks) {
        all.set(c, at);
        at += c.length;
      }
      all.set(header, 0);
      file = all;
    },
    async abort() {
      aborts += 1;
      chunks.length = 0;
    },
    get writes() {
      return writes;
    },
    get aborts() {
      return aborts;
    },
    get file() {
      return file;
    },
    written: () => Buffer.concat(chunks),
  };
}

interface Wav {
  riff: string;
  riffSize: number;
  format: number;
  channels: number;
  rate: number;
  byteRate: number;
  blockAlign: number;
  bits: number;
  dataSize: number;
  left: Int16Array;
  right: Int16Array;
}

function parseWav(bytes: Uint8Array): Wav {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const text = (at: number) => String.fromCharCode(...bytes.subarray(at, at + 4));
  expect(text(8)).toBe('WAVE');
  expect(text(12)).toBe('fmt ');
  expect(text(36)).toBe('data');
  const dataSize = view.getUint32(40, true);
  const n = dataSize / 4;
  const left = new Int16Array(n);
  const right = new Int16Array(n);
  for (let i = 0; i < n; i += 1) {
    left[i] = view.getInt16(44 + i * 4, true);
    right[i] = view.getInt16(46 + i * 4, true);
  }
  return {
    riff: text(0),
    riffSize: view.getUint32(4, true),
    format: view.getUint16(20, true),
    channels: view.getUint16(22, true),
    rate: view.getUint32(24, true),
    byteRate: view.getUint32(28, true),
    blockAlign: view.getUint16(32, true),
    bits: view.getUint16(34, true),
    dataSize,
    left,
    right,
  };
}

const constFrame = (value: number, at = 0, rate: SampleRate = SESSION_RATE, length = FRAME): AudioFrame => ({
  samples: new Int16Array(rate === SESSION_RATE ? length : (rate * 20) / 1000).fill(value),
  sampleRate: rate,
  at,
});

/** A recorded fake call; `heard` are copies of the frames the receiver got. */
function setup(script: FarEndStep[], sink: RecordingSink = memorySink(), clock = createManualClock()) {
  const fake = createFakeLeg({ clock, script });
  const t0 = clock.now();
  const recording = recordLeg(fake, { clock, sink });
  const heard: { at: number; samples: Int16Array; rate: number }[] = [];
  const digits: string[] = [];
  const listen = () =>
    recording.leg.receive({
      audio: (f) => heard.push({ at: f.at, samples: f.samples.slice(), rate: f.sampleRate }),
      dtmf: (d) => digits.push(d),
    });
  return { clock, fake, t0, recording, heard, digits, listen };
}

async function run(clock: ManualClock, ms: number) {
  for (let t = 0; t < ms; t += 20) await clock.tick(20);
}

/** The finish of a recording whose sink needs the clock to move. */
async function finishTicking(clock: ManualClock, finish: () => Promise<unknown>) {
  let settled = false;
  const done = finish().finally(() => (settled = true));
  while (!settled) await clock.tick(100);
  return done;
}

const slice = (a: Int16Array, fromMs: number, toMs: number) => a.subarray(fromMs * MS, toMs * MS);

describe('recordLeg', () => {
  it('records the caller at the time of each frame and the agent where it plays', async () => {
    const sink = memorySink();
    const { clock, fake, t0, recording, heard, listen } = setup(
      [{ wait: 100 }, { tone: { hz: 440, ms: 400 } }, { wait: 2000 }],
      sink,
    );
    listen();
    await run(clock, 200);
    // Half a second of agent audio, queued at once: frame k is all 1000 + k.
    for (let k = 0; k < 25; k += 1) recording.leg.play(constFrame(1000 + k));
    await run(clock, 1300);
    await recording.leg.hangup();
    const info = await recording.finish();

    expect(info).toMatchObject({ durationMs: 1500, bytes: 44 + 1500 * MS * 4, skippedFrames: 0 });
    const wav = parseWav(sink.file!);
    expect(wav.left.length).toBe(1500 * MS);
    // Every delivered frame sits at its own time; the tone is in there.
    expect(heard.some((h) => h.samples.some((s) => s !== 0))).toBe(true);
    for (const h of heard) {
      const offset = (h.at - t0) * MS;
      expect(Array.from(wav.left.subarray(offset, offset + FRAME))).toEqual(Array.from(h.samples));
    }
    // The agent: queued at 200 ms with nothing ahead, placed there; the fake leg played it from
    // its next beat, within a frame of that.
    const first = wav.right.findIndex((s) => s !== 0);
    expect(first).toBe(200 * MS);
    expect(fake.played).toHaveLength(25);
    expect(fake.played[0]!.at - t0 - first / MS).toBeGreaterThanOrEqual(0);
    expect(fake.played[0]!.at - t0 - first / MS).toBeLessThanOrEqual(20);
    for (let k = 0; k < 25; k += 1) {
      const frame = wav.right.subarray(first + k * FRAME, first + (k + 1) * FRAME);
      expect(frame.every((s) => s === 1000 + k)).toBe(true);
    }
    expect(wav.right.subarray(first + 25 * FRAME).every((s) => s === 0)).toBe(true);
    expect(wav.right.subarray(0, first).every((s) => s === 0)).toBe(true);
  });

  it('keeps only what was played when a barge-in clears the queue, fade included', async () => {
    const sink = memorySink();
    const { clock, fake, recording, listen } = setup([{ wait: 5000 }], sink);
    listen();
    await run(clock, 100);
    // Ten seconds queued: most of it beyond the ring, held by reference.
    for (let k = 0; k < 500; k += 1) recording.leg.play(constFrame(10_000));
    expect(recording.stats.pendingAgentFrames).toBeGreaterThan(300);
    await run(clock, 400);
    const beforeClear = fake.played.length;
    recording.leg.clear(3);
    expect(recording.stats.pendingAgentFrames).toBeLessThanOrEqual(3);
    await run(clock, 2500);
    await recording.leg.hangup();
    const info = await recording.finish();

    expect(info?.durationMs).toBe(3000);
    expect(fake.played).toHaveLength(beforeClear + 3);
    const wav = parseWav(sink.file!);
    const first = wav.right.findIndex((s) => s !== 0);
    expect(first).toBe(100 * MS);
    const heardFrames = fake.played.length;
    // Full volume up to the clear, then three frames fading out, then nothing.
    const full = wav.right.subarray(first, first + beforeClear * FRAME);
    expect(full.every((s) => s === 10_000)).toBe(true);
    const fade = wav.right.subarray(first + beforeClear * FRAME, first + heardFrames * FRAME);
    expect(fade.every((s) => s > 0 && s <= 10_000)).toBe(true);
    expect(fade[FRAME * 1.5]!).toBeCloseTo(5000, -1);
    for (let i = 1; i < fade.length; i += 1) expect(fade[i]!).toBeLessThanOrEqual(fade[i - 1]!);
    expect(fade[fade.length - 1]!).toBeLessThan(100);
    expect(wav.right.subarray(first + heardFrames * FRAME).every((s) => s === 0)).toBe(true);
    // What the recording holds of the agent is what the leg played.
    expect(wav.right.filter((s) => s !== 0).length).toBe(fake.playedMs * MS);
  });

  it('writes a WAV that parses and that sox reads as 16 kHz 16-bit stereo', async () => {
    const sink = memorySink();
    const { clock, recording, listen } = setup([{ tone: { hz: 300, ms: 600 } }, { wait: 2000 }], sink);
    listen();
    await run(clock, 300);
    for (let k = 0; k < 10; k += 1) recording.leg.play(constFrame(5000));
    await run(clock, 960);
    await recording.leg.hangup();
    const info = await recording.finish();

    expect(info).toMatchObject({ durationMs: 1260, bytes: 44 + 1260 * MS * 4 });
    const bytes = sink.file!;
    expect(bytes.length).toBe(info!.bytes);
    const wav = parseWav(bytes);
    expect(wav).toMatchObject({
      riff: 'RIFF',
      riffSize: bytes.length - 8,
      format: 1,
      channels: 2,
      rate: 16_000,
      byteRate: 64_000,
      blockAlign: 4,
      bits: 16,
      dataSize: bytes.length - 44,
    });
    expect(Buffer.from(wavHeader(wav.dataSize))).toEqual(Buffer.from(bytes.subarray(0, 44)));

    const dir = mkdtempSync(join(tmpdir(), 'parley-recorder-'));
    try {
      const file = join(dir, 'call.wav');
      writeFileSync(file, bytes);
      const soxInfo = execFileSync('sox', ['--i', file], { encoding: 'utf8' });
      expect(soxInfo).toMatch(/Channels\s*:\s*2/);
      expect(soxInfo).toMatch(/Sample Rate\s*:\s*16000/);
      expect(soxInfo).toMatch(/Precision\s*:\s*16-bit/);
      expect(soxInfo).toMatch(/Duration\s*:\s*00:00:01\.26 = 20160 samples/);
      expect(soxInfo).toMatch(/Sample Encoding\s*:\s*16-bit Signed Integer PCM/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('fills gaps with silence and skips frames of another length, counting them', async () => {
    const sink = memorySink();
    const bad: AudioFrame[] = [
      { samples: new Int16Array(100).fill(7000), sampleRate: 8000, at: 0 },
      constFrame(7000, 0, SESSION_RATE, 100),
    ];
    const { clock, recording, heard, listen, t0 } = setup(
      [{ wait: 400 }, { frames: bad }, { tone: { hz: 500, ms: 200 } }, { wait: 2000 }],
      sink,
    );
    // Nobody listens for the first 300 ms: no caller frames then.
    await run(clock, 300);
    listen();
    recording.leg.play(constFrame(3000, 0, 8000));
    recording.leg.play(constFrame(3000, 0, SESSION_RATE, 200));
    await run(clock, 900);
    await recording.leg.hangup();
    const info = await recording.finish();

    expect(info).toMatchObject({ durationMs: 1200, skippedFrames: 4 });
    const wav = parseWav(sink.file!);
    expect(slice(wav.left, 0, 300).every((s) => s === 0)).toBe(true);
    // The bad frames' slots: the beats that delivered them wrote nothing.
    const badAt = heard.filter((h) => h.samples.length !== (h.rate * 20) / 1000);
    expect(badAt).toHaveLength(2);
    const firstBad = heard.indexOf(badAt[0]!);
    const slot = (heard[firstBad - 1]!.at - t0 + 20) * MS;
    expect(wav.left.subarray(slot, slot + 2 * FRAME).every((s) => s === 0)).toBe(true);
    expect(wav.left.subarray(slot + 2 * FRAME, slot + 12 * FRAME).some((s) => s !== 0)).toBe(true);
    expect(wav.right.every((s) => s === 0)).toBe(true);
  });

  it('resamples caller frames at 8 kHz (telephone audio) to 16 kHz, one stream, at their time', async () => {
    const sink = memorySink();
    const clock = createManualClock();
    const t0 = clock.now();
    // 600 ms of a 400 Hz tone at 8 kHz, one frame per beat (the fake leg delivers frame k on the
    // beat at t0 + 20 (k + 1); its time is the 20 ms before), then a 48 kHz frame, then silence.
    const tone8k = new Int16Array(30 * 160);
    for (let n = 0; n < tone8k.length; n += 1)
      tone8k[n] = Math.round(8000 * Math.sin((2 * Math.PI * 400 * n) / 8000));
    const frames: AudioFrame[] = Array.from({ length: 30 }, (_, k) => ({
      samples: tone8k.slice(k * 160, (k + 1) * 160),
      sampleRate: 8000,
      at: t0 + k * 20,
    }));
    frames.push({ samples: new Int16Array(960).fill(4000), sampleRate: 48000, at: t0 + 600 });
    const { recording, listen } = setup([{ frames }, { wait: 2000 }], sink, clock);
    listen();
    await run(clock, 1500);
    await recording.leg.hangup();
    const info = await recording.finish();

    expect(info).toMatchObject({ durationMs: 1500, skippedFrames: 0, misplacedFrames: 0 });
    const wav = parseWav(sink.file!);
    expect(wav.rate).toBe(16_000);
    // The same samples as the whole tone resampled at once, placed earlier by the filter's
    // delay: one resampler for the stream, its history kept from frame to frame (a new one per
    // frame would start each frame from silence).
    const whole = new Resampler(8000, SESSION_RATE);
    const expected = new Int16Array(whole.maxOutput(tone8k.length));
    whole.process(tone8k, expected);
    const delay = Math.round(whole.delay);
    expect(delay).toBeGreaterThan(0);
    const left = wav.left.subarray(0, 600 * MS - delay);
    expect(Array.from(left.subarray(0, 200 * MS))).toEqual(
      Array.from(expected.subarray(delay, delay + 200 * MS)),
    );
    expect(Array.from(left)).toEqual(Array.from(expected.subarray(delay, 600 * MS)));
    // 400 Hz at 16 kHz: 8 periods in 20 ms.
    let crossings = 0;
    for (let i = 1; i < 40 * MS; i += 1)
      if (left[200 * MS + i - 1]! < 0 !== left[200 * MS + i]! < 0) crossings += 1;
    expect(crossings).toBeGreaterThanOrEqual(31);
    expect(crossings).toBeLessThanOrEqual(33);
    // The 48 kHz frame has a resampler of its own: a constant comes out constant once its filter
    // has filled, at its own time.
    const steady = wav.left.subarray(610 * MS, 615 * MS);
    expect(steady.every((s) => s === 4000)).toBe(true);
    expect(slice(wav.left, 640, 1500).every((s) => s === 0)).toBe(true);
  });

  it('keeps its memory at the cap over a ten-minute call while the sink stalls for a minute', async () => {
    const clock = createManualClock();
    const t0 = clock.now();
    // The sink stalls from minute 2 to minute 3.
    const gate = () => {
      const elapsed = clock.now() - t0;
      return elapsed >= 120_000 && elapsed < 180_000 ? clock.sleep(180_000 - elapsed) : Promise.resolve();
    };
    const sink = memorySink({ gate });
    const { fake, recording, listen } = setup([{ wait: 700_000 }], sink, clock);
    listen();
    let maxBacklog = 0;
    let maxPending = 0;
    for (let t = 0; t < 600_000; t += 20) {
      // A steady stream: second s of agent audio is all 1 + s.
      recording.leg.play(constFrame(1 + Math.floor(t / 1000)));
      await clock.tick(20);
      maxBacklog = Math.max(maxBacklog, recording.stats.backlogBytes);
      maxPending = Math.max(maxPending, recording.stats.pendingAgentFrames);
    }
    await recording.leg.hangup();
    const info = await recording.finish();

    expect(maxBacklog).toBeLessThanOrEqual(RECORDER_LIMITS.backlogBytes);
    expect(maxBacklog).toBeGreaterThan(RECORDER_LIMITS.backlogBytes / 2);
    expect(recording.stats.ringBytes).toBe(RECORDER_LIMITS.ringBytes);
    expect(maxPending).toBeLessThanOrEqual(2);
    expect(fake.played.length).toBeGreaterThan(29_990);
    // About the minute of the stall is lost, as silence; the timeline holds.
    expect(info!.durationMs).toBe(600_000);
    expect(info!.droppedMs).toBeGreaterThan(57_000);
    expect(info!.droppedMs).toBeLessThanOrEqual(60_000);
    const wav = parseWav(sink.file!);
    expect(wav.right.length).toBe(600_000 * MS);
    for (const second of [0, 60, 119, 200, 599]) {
      const part = slice(wav.right, second * 1000 + 20, second * 1000 + 980);
      expect(part.every((s) => s === 1 + second)).toBe(true);
    }
    expect(slice(wav.right, 125_000, 175_000).every((s) => s === 0)).toBe(true);
  }, 60_000);

  it('hands chunks to the sink off the frame path, in order, one at a time', async () => {
    const clock = createManualClock();
    let inFlight = 0;
    let overlapped = false;
    const order: number[] = [];
    const sink = memorySink({
      gate: async () => {
        inFlight += 1;
        overlapped ||= inFlight > 1;
        await clock.sleep(30);
        inFlight -= 1;
      },
    });
    const writeOf = sink.write.bind(sink);
    sink.write = (chunk) => {
      order.push(chunk.length);
      return writeOf(chunk);
    };
    const { recording, listen } = setup([{ wait: 10_000 }], sink, clock);
    listen();
    // A write never starts inside play: the sink is not called until the caller's turn is over.
    const writesBefore = order.length;
    recording.leg.play(constFrame(1));
    expect(order.length).toBe(writesBefore);
    await run(clock, 5000);
    await recording.leg.hangup();
    const info = await finishTicking(clock, () => recording.finish());
    expect(overlapped).toBe(false);
    expect(order[0]).toBe(44);
    expect(info).toMatchObject({ durationMs: 5000, droppedMs: 0 });
  });

  it('discards the recording when the signal aborts, passing the call through untouched', async () => {
    const clock = createManualClock();
    const fake = createFakeLeg({ clock, script: [{ tone: { hz: 400, ms: 1000 } }] });
    const sink = memorySink();
    const abort = new AbortController();
    const recording = recordLeg(fake, { clock, sink, signal: abort.signal });
    let frames = 0;
    recording.leg.receive({ audio: () => (frames += 1), dtmf: () => undefined });
    await run(clock, 1000);
    abort.abort();
    recording.leg.play(constFrame(1));
    await run(clock, 200);
    expect(frames).toBe(60);
    expect(fake.played).toHaveLength(1);
    expect(await recording.finish()).toBeNull();
    expect(sink.aborts).toBe(1);
    expect(sink.file).toBeNull();
  });

  it('rejects at finish when the sink failed, after aborting it', async () => {
    const sink = memorySink({ failOnWrite: 2 });
    const { clock, recording, listen } = setup([{ wait: 5000 }], sink);
    listen();
    await run(clock, 2000);
    await recording.leg.hangup();
    await expect(recording.finish()).rejects.toThrow('disk full');
    expect(sink.aborts).toBe(1);
    expect(sink.file).toBeNull();
  });

  it('answers null and keeps nothing when nothing was recorded', async () => {
    const sink = memorySink();
    const { clock, recording } = setup([{ wait: 1000 }, { hangup: true }], sink);
    await run(clock, 1500);
    expect(await recording.finish()).toBeNull();
    expect(sink.aborts).toBe(1);
    expect(sink.file).toBeNull();
  });

  it('ends the recording at the leg end even when finished later, and at maxDurationMs', async () => {
    const sink = memorySink();
    const { clock, recording, listen } = setup([{ wait: 800 }, { hangup: true }], sink);
    listen();
    await run(clock, 3000);
    expect((await recording.finish())?.durationMs).toBe(820);

    const capped = memorySink();
    const clock2 = createManualClock();
    const fake = createFakeLeg({ clock: clock2, script: [{ tone: { hz: 400, ms: 3000 } }] });
    const rec = recordLeg(fake, { clock: clock2, sink: capped, maxDurationMs: 1000 });
    rec.leg.receive({ audio: () => undefined, dtmf: () => undefined });
    await run(clock2, 3000);
    await rec.leg.hangup();
    expect(await rec.finish()).toMatchObject({ durationMs: 1000, bytes: 44 + 1000 * MS * 4 });
    expect(parseWav(capped.file!).left.length).toBe(1000 * MS);
  });

  it('leaves on its sink, as the call goes, a file that sealWav makes a valid WAV of what was heard', async () => {
    const sink = memorySink();
    const { clock, recording, listen } = setup([{ tone: { hz: 400, ms: 3000 } }], sink);
    listen();
    await run(clock, 3000);
    // The process dies here: no finish. At most the lag and a chunk are not on the sink yet.
    const written = sink.written();
    const sealed = sealWav(written.length);
    expect(sealed).not.toBeNull();
    const file = new Uint8Array(written.subarray(0, sealed!.bytes));
    file.set(sealed!.header, 0);
    const wav = parseWav(file);
    expect(wav).toMatchObject({ riff: 'RIFF', format: 1, channels: 2, rate: SESSION_RATE, bits: 16 });
    expect(wav.riffSize).toBe(file.length - 8);
    expect(wav.dataSize).toBe(file.length - 44);
    const seconds = wavSeconds(file.length);
    expect(seconds * 1000).toBeGreaterThanOrEqual(3000 - RECORDER_LIMITS.lagMs - RECORDER_LIMITS.chunkMs);
    expect(seconds * 1000).toBeLessThanOrEqual(3000);
    // The caller's tone is in it, from the start to the end of what was kept.
    const energy = (a: Int16Array) => a.reduce((sum, v) => sum + Math.abs(v), 0);
    expect(energy(slice(wav.left, 100, 200))).toBeGreaterThan(0);
    expect(energy(wav.left.subarray(wav.left.length - 100 * MS))).toBeGreaterThan(0);
    await recording.leg.hangup();
  });

  it('seals nothing without a whole sample frame, and drops a torn last one', () => {
    expect(sealWav(0)).toBeNull();
    expect(sealWav(44)).toBeNull();
    expect(sealWav(47)).toBeNull();
    const sealed = sealWav(44 + 4 * 10 + 3);
    expect(sealed?.bytes).toBe(44 + 40);
    expect(Buffer.from(sealed!.header)).toEqual(Buffer.from(wavHeader(40)));
    expect(wavSeconds(44 + 4 * SESSION_RATE)).toBe(1);
  });

  it('passes the rest of the leg through', async () => {
    const { clock, fake, recording, digits, listen } = setup([{ dtmf: '42' }, { wait: 1000 }]);
    listen();
    expect(recording.leg.sid).toBe(fake.sid);
    recording.leg.play(constFrame(1));
    recording.leg.play(constFrame(1));
    expect(recording.leg.queuedMs).toBe(40);
    const drained = recording.leg.drained();
    await run(clock, 300);
    await drained;
    expect(recording.leg.playedMs).toBe(40);
    await recording.leg.sendDtmf('9');
    expect(fake.sentDtmf).toEqual(['9']);
    expect(digits).toEqual(['4', '2']);
    await recording.leg.hangup();
    expect(await recording.leg.ended).toBe('local_hangup');
    expect(fake.clears).toHaveLength(0);
    recording.leg.clear();
    expect(fake.clears).toEqual([{ at: clock.now(), fadeFrames: 0 }]);
  });
});
