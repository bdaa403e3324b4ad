import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AudioFrame } from '../../media/index.ts';
import { composeScene, fliteClip, framesOf, testAudioDir, type Scene } from '../testing/vad-audio.ts';
import { runVADContract } from '../testing/vad-contract.ts';
import { SpeechError, type VAD, type VADEvent } from './types.ts';
import { createSileroVAD, type SileroVAD } from './vad-silero.ts';
import { loadSileroRunner } from './vad-silero-runner.ts';

runVADContract('silero', () => createSileroVAD());

async function eventsOf(vad: VAD, frames: AudioFrame[]): Promise<VADEvent[]> {
  const stream = vad.stream();
  const events: VADEvent[] = [];
  const reading = (async () => {
    for await (const e of stream.events) events.push(e);
  })();
  for (const f of frames) stream.push(f);
  stream.close();
  await reading;
  return events;
}

describe('Silero VAD', () => {
  let dir = '';
  let vad: SileroVAD;
  let one: Scene;
  let other: Scene;

  beforeAll(async () => {
    dir = testAudioDir();
    const a = fliteClip(dir, 'I would like to speak with someone about my order.', 'a');
    const b = fliteClip(dir, 'Thank you very much for calling us today.', 'b');
    one = composeScene(dir, 'one', [500, a, 800, b, 700]);
    other = composeScene(dir, 'other', [1300, b, 300, a, 400]);
    vad = await createSileroVAD();
  });

  afterAll(() => {
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('fails with a vad_failed SpeechError that says why when the model is missing', async () => {
    const missing = join(dir, 'missing.onnx');
    const error = await createSileroVAD({ modelPath: missing }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SpeechError);
    expect(error).toMatchObject({ code: 'vad_failed', retryable: false });
    expect((error as Error).message).toContain(missing);
  });

  it('fails the same way when the model file is not a model', async () => {
    const corrupt = join(dir, 'corrupt.onnx');
    writeFileSync(corrupt, 'not an onnx model');
    const error = await createSileroVAD({ modelPath: corrupt }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SpeechError);
    expect(error).toMatchObject({ code: 'vad_failed' });
    expect((error as Error).message).toMatch(/could not be loaded/);
  });

  it('keeps the streams of one batch apart: concurrent streams hear what they hear alone', async () => {
    const framesOne = framesOf(one.audio[16000], 16000);
    const framesOther = framesOf(other.audio[8000], 8000);
    const alone = [await eventsOf(vad, framesOne), await eventsOf(vad, framesOther)];
    expect(alone[0]).toHaveLength(4);
    expect(alone[1]).toHaveLength(4);
    // Interleaved frame by frame, the two streams share the model's runs.
    const before = { ...vad.batches };
    const streams = [vad.stream(), vad.stream()];
    const together: VADEvent[][] = [[], []];
    const reading = streams.map(async (s, i) => {
      for await (const e of s.events) together[i]!.push(e);
    });
    for (let i = 0; i < Math.max(framesOne.length, framesOther.length); i += 1) {
      if (framesOne[i]) streams[0]!.push(framesOne[i]!);
      if (framesOther[i]) streams[1]!.push(framesOther[i]!);
    }
    for (const s of streams) s.close();
    await Promise.all(reading);
    expect(together).toEqual(alone);
    const runs = vad.batches.runs - before.runs;
    const windows = vad.batches.windows - before.windows;
    expect(windows / runs).toBeGreaterThan(1.5);
  });

  it('judges windows of digital silence without running the model', async () => {
    const before = { ...vad.batches };
    const events = await eventsOf(vad, framesOf(new Int16Array(16000 * 5), 16000));
    expect(events).toEqual([]);
    expect(vad.batches).toEqual(before);
    // ...while audible audio does.
    await eventsOf(vad, framesOf(one.audio[16000], 16000));
    expect(vad.batches.windows).toBeGreaterThan(before.windows + 100);
  });

  it('loads the model once per process', async () => {
    const [first, second] = await Promise.all([loadSileroRunner(), loadSileroRunner()]);
    expect(second).toBe(first);
    expect(await loadSileroRunner()).toBe(first);
    expect((await createSileroVAD()).name).toBe('silero');
  });
});
