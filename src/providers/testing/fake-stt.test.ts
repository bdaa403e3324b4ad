import { describe, expect, it } from 'vitest';
import { dataSpeechFrames, type AudioFrame } from '../../media/index.ts';
import { createFakeSTT, createFakeTTS } from './fake-speech.ts';
import { runSTTContract, wordErrorRate, words, type STTContractAudio } from './stt-contract.ts';

/** The fake TTS's data speech for `text`, taken to 8 kHz by keeping every other sample when asked. */
async function fakeSpeech(text: string, rate: 8000 | 16000): Promise<AudioFrame[]> {
  const tts = createFakeTTS().stream();
  tts.pushText(text);
  tts.endInput();
  const frames: AudioFrame[] = [];
  for await (const piece of tts.audio) frames.push(piece.frame);
  // The fake TTS must say what dataSpeechFrames says, or the two fakes no longer agree.
  expect(frames.map((f) => [...f.samples])).toEqual(dataSpeechFrames(text).map((f) => [...f.samples]));
  if (rate === 16000) return frames;
  return frames.map((f) => ({ ...f, samples: f.samples.filter((_, i) => i % 2 === 0), sampleRate: 8000 }));
}

const audio: STTContractAudio = {
  speech: fakeSpeech,
  sentences: ['I would like to book a table for two.', 'Yes, Tuesday works for me.'],
  maxWordErrorRate: 0,
  maxWordErrorRate8k: 0,
};

runSTTContract('fake (partials)', () => createFakeSTT(), audio);
runSTTContract('fake (no partials)', () => createFakeSTT({ partials: false }), audio);

describe('word error rate', () => {
  it('counts substitutions, deletions and insertions against the reference words', () => {
    expect(wordErrorRate('I would like to book', 'i would like to book')).toBe(0);
    expect(wordErrorRate('Yes, Tuesday works.', 'yes tuesday work')).toBeCloseTo(1 / 3);
    expect(wordErrorRate('one two three four', 'one three four')).toBe(0.25);
    expect(wordErrorRate('one two', 'one two three four')).toBe(1);
    expect(wordErrorRate('', '')).toBe(0);
    expect(wordErrorRate('', 'noise')).toBe(1);
  });

  it('keeps apostrophes inside words and drops punctuation', () => {
    expect(words("At three o'clock, 'please' -- don't!")).toEqual([
      'at',
      'three',
      "o'clock",
      'please',
      "don't",
    ]);
  });
});
