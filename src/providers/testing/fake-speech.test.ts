import { describe, expect, it } from 'vitest';
import { createManualClock } from '../../core/index.ts';
import type { AudioFrame } from '../../media/index.ts';
import { dataSpeechFrames } from '../../media/index.ts';
import { createFakeSTT, createFakeTTS, createFakeVAD } from './fake-speech.ts';

async function collect<T>(iterable: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const v of iterable) out.push(v);
  return out;
}

/** What a lossy edge does: coarse quantization and a few samples of delay. */
function distort(frames: AudioFrame[], shift: number): AudioFrame[] {
  const all = new Int16Array(frames.length * 320);
  frames.forEach((f, i) => all.set(f.samples, i * 320));
  return frames.map((f, i) => {
    const samples = new Int16Array(320);
    for (let j = 0; j < 320; j += 1) {
      const v = all[i * 320 + j - shift] ?? 0;
      samples[j] = Math.round(v / 256) * 256 + ((j * 37) % 97) - 48;
    }
    return { ...f, samples };
  });
}

describe('fake speech', () => {
  it('the fake STT reads back what the fake TTS said, through a lossy edge', async () => {
    const tts = createFakeTTS().stream();
    tts.pushText('Hello there, ');
    tts.pushText('café at 5?');
    tts.flush();
    tts.pushText('Second one.');
    tts.endInput();
    const audio = await collect(tts.audio);
    expect(audio.filter((a) => a.text).map((a) => a.text)).toEqual([
      'Hello there, café at 5?',
      'Second one.',
    ]);
    expect(audio.filter((a) => a.last).map((a) => a.segment)).toEqual([0, 1]);

    const stt = createFakeSTT().stream();
    for (const frame of distort(
      audio.map((a) => a.frame),
      9,
    ))
      stt.push(frame);
    stt.flush();
    stt.close();
    const results = await collect(stt.results);
    expect(results.at(-1)).toMatchObject({ kind: 'final', text: 'Hello there, café at 5? Second one.' });
    expect(results.filter((r) => r.kind === 'partial').map((r) => r.text)).toContain('Hello there,');
  });

  it('the fake VAD reports speech start and end with the configured silence', async () => {
    const vad = createFakeVAD().stream({ minSilenceMs: 100 });
    const speech = dataSpeechFrames('hi', 1000);
    for (const f of speech) vad.push(f);
    const end = 1000 + speech.length * 20;
    for (let t = end; t < end + 200; t += 20)
      vad.push({ samples: new Int16Array(320), sampleRate: 16000, at: t });
    vad.close();
    expect(await collect(vad.events)).toEqual([
      { kind: 'speech_start', at: 1000 },
      { kind: 'speech_end', at: end, speechMs: end - 1000 },
    ]);
  });

  it('the fake TTS waits its latency on the clock before each segment', async () => {
    const clock = createManualClock(0);
    const tts = createFakeTTS({ clock, latencyMs: 150 }).stream();
    tts.pushText('one');
    tts.endInput();
    const audio = collect(tts.audio);
    await clock.tick(150);
    expect((await audio)[0]?.frame.at).toBe(150);
  });
});
