import { rmSync } from 'node:fs';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { offlineSpeech, type SpeechSetup } from '../../src/app.ts';
import { silentLogger } from '../../src/core/index.ts';
import { fliteClip, framesOf, testAudioDir } from '../../src/providers/testing/index.ts';

// PARLEY_VAD chooses the offline speech's voice activity detector: the energy VAD by default,
// Silero when asked (docs/voice.md). The one chosen is the one calls get, and it hears speech
// (a flite sentence with silence either side) where the clip has it.

const dir = testAudioDir();
let speech: SpeechSetup | undefined;
afterEach(async () => {
  await speech?.close();
  speech = undefined;
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('the offline VAD (PARLEY_VAD)', () => {
  for (const vad of ['energy', 'silero'] as const) {
    it(`${vad}: calls get it, and it finds the speech in a flite sentence`, async () => {
      speech = await offlineSpeech({ logger: silentLogger(), simMode: 'text', vad });
      const chosen = speech.offline!.vad;
      expect(chosen.name).toBe(vad);
      if ('speech' in speech.choice) expect(speech.choice.speech.vad).toBe(chosen);
      const clip = fliteClip(dir, 'Hello, I would like to book a table for two.', vad);
      const padded = new Int16Array(clip.samples.length + 16_000);
      padded.set(clip.samples);
      const frames = framesOf(padded, 16000, 0);
      const stream = chosen.stream();
      const events: string[] = [];
      const reading = (async () => {
        for await (const event of stream.events) events.push(event.kind);
      })();
      for (const frame of frames) stream.push(frame);
      stream.close();
      await reading;
      expect(events[0]).toBe('speech_start');
      expect(events).toContain('speech_end');
    });
  }
});
