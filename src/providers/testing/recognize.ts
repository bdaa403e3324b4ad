import type { STT } from '../speech/types.ts';

// What a recognizer makes of some audio, as one utterance: the tests that check what a far end
// heard (a call's recording, what a SIP peer recorded) run it through the offline STT.

/** The STT's final text for `samples` at `rate`, with half a second of silence around them. */
export async function recognize(stt: STT, samples: Int16Array, rate: 8000 | 16000): Promise<string> {
  const frame = rate / 50;
  const padded = new Int16Array(samples.length + rate);
  padded.set(samples, rate / 2);
  const stream = stt.stream();
  for (let at = 0, i = 0; at + frame <= padded.length; at += frame, i += 1) {
    stream.push({ samples: padded.slice(at, at + frame), sampleRate: rate, at: i * 20 });
  }
  stream.flush();
  try {
    for await (const result of stream.results) if (result.kind === 'final') return result.text;
    throw new Error('the recognizer ended without a final result');
  } finally {
    stream.close();
  }
}
