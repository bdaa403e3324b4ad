import type { AsyncQueue, Clock } from '../../core/index.ts';
import { samplesPerFrame, type SampleRate } from '../../media/index.ts';
import type { SynthesizedAudio } from './types.ts';

// Puts a hosted TTS's segments out in order. Vendors synthesize several segments at once (one
// context each) and interleave their audio; a segment's frames go out only once its text is known
// (its flush) and every earlier segment has ended. The newest frame is held back so that the last
// one of a segment can be marked `last` when the vendor says the segment is done.

export interface SegmentPlayout {
  /** The segment was flushed: its text (set on its first frame). */
  text(index: number, text: string): void;
  frames(index: number, frames: Int16Array[]): void;
  /** The vendor finished the segment. */
  end(index: number): void;
  /** Segments flushed and not yet ended. */
  readonly waiting: number;
}

interface Pending {
  text?: string;
  frames: Int16Array[];
  ended: boolean;
}

export function createSegmentPlayout(
  queue: AsyncQueue<SynthesizedAudio>,
  rate: SampleRate,
  clock: Clock,
): SegmentPlayout {
  const segments = new Map<number, Pending>();
  let next = 0;
  let held: SynthesizedAudio | null = null;
  let at = 0;

  const of = (index: number): Pending => {
    let s = segments.get(index);
    if (!s) segments.set(index, (s = { frames: [], ended: false }));
    return s;
  };

  const emit = (index: number, text: string, samples: Int16Array) => {
    const first = held === null;
    if (held) queue.push(held);
    if (first) at = clock.now();
    held = { frame: { samples, sampleRate: rate, at }, segment: index, ...(first ? { text } : {}) };
    at += (samples.length * 1000) / rate;
  };

  const pump = () => {
    for (let s = segments.get(next); s?.text !== undefined; s = segments.get(next)) {
      for (const samples of s.frames) emit(next, s.text, samples);
      s.frames = [];
      if (!s.ended) return;
      // A segment always has a frame to carry its text and its end, even if the vendor sent none.
      if (!held) emit(next, s.text, new Int16Array(samplesPerFrame(rate)));
      const last: SynthesizedAudio = held!;
      last.last = true;
      queue.push(last);
      held = null;
      segments.delete(next);
      next += 1;
    }
  };

  return {
    text(index, text) {
      of(index).text = text;
      pump();
    },
    frames(index, frames) {
      of(index).frames.push(...frames);
      if (index === next) pump();
    },
    end(index) {
      of(index).ended = true;
      pump();
    },
    get waiting() {
      let n = 0;
      for (const s of segments.values()) if (s.text !== undefined && !s.ended) n += 1;
      return n;
    },
  };
}
