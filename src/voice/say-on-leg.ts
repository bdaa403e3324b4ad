import type { MediaLeg } from '../media/index.ts';
import type { TTS } from '../providers/index.ts';
import { createAudioOut } from './audio-out.ts';

// A line spoken to a leg outside any conversation: what a warm transfer tells the person it
// hands the call to before the caller joins. Resolves once it has played (or the leg ended).

export interface SayOnLegOptions {
  tts: TTS;
  voice?: string;
  leg: MediaLeg;
  text: string;
  signal?: AbortSignal;
}

export async function sayOnLeg(options: SayOnLegOptions): Promise<void> {
  const { leg, tts } = options;
  const stream = tts.stream({
    ...(options.voice ? { voice: options.voice } : {}),
    ...(options.signal ? { signal: options.signal } : {}),
  });
  const out = createAudioOut({ volume: 1, noise: null });
  try {
    stream.pushText(options.text);
    stream.flush();
    stream.endInput();
    for await (const piece of stream.audio) {
      if (options.signal?.aborted) return;
      leg.play(out.process(piece.frame));
    }
  } finally {
    stream.close();
  }
  await leg.drained();
}
