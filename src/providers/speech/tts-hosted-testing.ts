import { createDataSpeechReader } from '../../media/index.ts';
import type { SynthesizedAudio, TTSStream } from './types.ts';

// Helpers of the hosted TTS adapters' tests (ElevenLabs, Cartesia).

export interface Spoken {
  audio: SynthesizedAudio[];
  error: unknown;
}

/** Reads a stream's audio to its end or its failure. */
export async function collect(stream: TTSStream): Promise<Spoken> {
  const audio: SynthesizedAudio[] = [];
  try {
    for await (const a of stream.audio) audio.push(a);
    return { audio, error: undefined };
  } catch (error) {
    return { audio, error };
  }
}

/** The text each segment's data speech reads back as. */
export function heard(audio: SynthesizedAudio[]): string[] {
  const texts: string[] = [];
  let reader = createDataSpeechReader();
  audio.forEach((a, i) => {
    if (i > 0 && audio[i - 1]!.segment !== a.segment) {
      texts.push(reader.text);
      reader = createDataSpeechReader();
    }
    reader.push(a.frame);
  });
  if (audio.length) texts.push(reader.text);
  return texts;
}

export const durationMs = (audio: SynthesizedAudio[]) =>
  audio.reduce((ms, a) => ms + (a.frame.samples.length * 1000) / a.frame.sampleRate, 0);

/** Waits (turn by turn, no timers) until `done()` holds. */
export async function until(done: () => boolean, turns = 5000): Promise<void> {
  for (let i = 0; i < turns; i += 1) {
    if (done()) return;
    await new Promise<void>((resolve) => setImmediate(resolve));
  }
  throw new Error('condition not met');
}
