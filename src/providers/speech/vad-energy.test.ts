import { rmSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mulawDecode, mulawEncode, type AudioFrame } from '../../media/index.ts';
import {
  AUDIO_AT0,
  composeScene,
  dataClip,
  fliteClip,
  framesOf,
  powerOf,
  soxNoise,
  testAudioDir,
  type Clip,
} from '../testing/vad-audio.ts';
import { runVADContract } from '../testing/vad-contract.ts';
import type { VADEvent, VADOptions } from './types.ts';
import { createEnergyVAD } from './vad-energy.ts';

runVADContract('energy', () => createEnergyVAD());
runVADContract('energy', () => createEnergyVAD(), { audio: 'data-speech' });

async function eventsOf(frames: AudioFrame[], options?: VADOptions): Promise<VADEvent[]> {
  const stream = createEnergyVAD().stream(options);
  const events: VADEvent[] = [];
  for (const f of frames) stream.push(f);
  stream.close();
  for await (const e of stream.events) events.push(e);
  return events;
}

/** `noise` scaled to `dbfs` (RMS, dB full scale). */
function atLevel(noise: Int16Array, dbfs: number): Int16Array {
  const gain = Math.sqrt((32768 ** 2 * 10 ** (dbfs / 10)) / powerOf(noise));
  return Int16Array.from(noise, (s) => Math.round(s * gain));
}

function mix(a: Int16Array, b: Int16Array): Int16Array {
  return Int16Array.from(a, (s, i) => Math.max(-32768, Math.min(32767, s + (b[i % b.length] ?? 0))));
}

describe('energy VAD', () => {
  let dir = '';
  let sentence: Clip;
  let white: Int16Array;
  let pink: Int16Array;

  beforeAll(() => {
    dir = testAudioDir();
    sentence = fliteClip(dir, 'Please book a table for two people tomorrow evening.', 'sentence');
    white = soxNoise(dir, 'white', 10);
    pink = soxNoise(dir, 'pink', 10);
  });

  afterAll(() => {
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('does not take steady white noise for speech, even loud, from the first frame', async () => {
    expect(await eventsOf(framesOf(atLevel(white, -20), 16000))).toEqual([]);
    expect(await eventsOf(framesOf(atLevel(white, -45), 8000))).toEqual([]);
  });

  it('takes white noise that starts after silence for speech only until the floor adapts', async () => {
    const noise = atLevel(white, -30);
    const audio = new Int16Array(16000 * 12);
    audio.set(noise.subarray(0, 16000 * 10), 16000 * 2);
    const events = await eventsOf(framesOf(audio, 16000));
    // At most the onset, for about the floor window (1.6 s); nothing in the 8 s after it.
    expect(events.length).toBeLessThanOrEqual(2);
    for (const e of events) expect(e.at).toBeLessThan(AUDIO_AT0 + 2000 + 2000);
  });

  it('hears speech in a quiet room tone, at its true boundaries', async () => {
    const room = atLevel(pink, -60);
    const scene = composeScene(dir, 'room', [1500, sentence, 1500]);
    const audio = mix(scene.audio[16000], room);
    const events = await eventsOf(framesOf(audio, 16000));
    expect(events.map((e) => e.kind)).toEqual(['speech_start', 'speech_end']);
    const truth = scene.speech[0]!;
    expect(Math.abs(events[0]!.at - truth.from)).toBeLessThanOrEqual(60);
    expect(Math.abs(events[1]!.at - truth.to)).toBeLessThanOrEqual(60);
  });

  it('hears speech 10 dB above steady pink noise', async () => {
    const scene = composeScene(dir, 'pink', [2000, sentence, 1500]);
    const speechDbfs = 10 * Math.log10(powerOf(scene.audio[16000], scene.speech) / 32768 ** 2);
    const audio = mix(scene.audio[16000], atLevel(pink, speechDbfs - 10));
    const events = await eventsOf(framesOf(audio, 16000), { minSilenceMs: 300 });
    expect(events.map((e) => e.kind)).toEqual(['speech_start', 'speech_end']);
    expect(Math.abs(events[0]!.at - scene.speech[0]!.from)).toBeLessThanOrEqual(120);
  });

  it('lowers its floor at once when loud noise stops', async () => {
    // 3 s of loud noise, then a quiet room with speech right away.
    const scene = composeScene(dir, 'drop', [3000, 200, sentence, 1000]);
    const audio = mix(scene.audio[16000], atLevel(pink, -65));
    audio.set(atLevel(white, -15).subarray(0, 16000 * 3));
    const events = await eventsOf(framesOf(audio, 16000));
    expect(events.map((e) => e.kind)).toEqual(['speech_start', 'speech_end']);
    expect(Math.abs(events[0]!.at - scene.speech[0]!.from)).toBeLessThanOrEqual(60);
  });

  it('hears data speech through a telephone edge (8 kHz, mu-law), as simulated calls send it', async () => {
    const scene = composeScene(dir, 'data', [800, dataClip('yes, Tuesday at nine works for me'), 600]);
    const line = mulawDecode(mulawEncode(scene.audio[8000]));
    const events = await eventsOf(framesOf(line, 8000));
    expect(events.map((e) => e.kind)).toEqual(['speech_start', 'speech_end']);
    expect(Math.abs(events[0]!.at - scene.speech[0]!.from)).toBeLessThanOrEqual(40);
    expect(Math.abs(events[1]!.at - scene.speech[0]!.to)).toBeLessThanOrEqual(40);
  });

  it('refuses an onset at or below the offset', () => {
    expect(() => createEnergyVAD({ onsetDb: 3, offsetDb: 3 })).toThrow(RangeError);
  });
});
