import { FRAME_MS, type AudioFrame, type SampleRate } from '../media/index.ts';

// The caller's latest audio, so the STT gets the speech from just before VAD noticed it. Frames
// are copied in: legs reuse a frame object for their beats of silence. Storage is one block,
// allocated at the first frame (again only if the frame size changes).

export class PreRoll {
  readonly #capacity: number;
  readonly #at: Float64Array;
  #samples = new Int16Array(0);
  #frameSamples = 0;
  #sampleRate: SampleRate = 16000;
  #next = 0;
  #count = 0;

  /** Keeps the last `ms` of audio. */
  constructor(ms: number) {
    this.#capacity = Math.ceil(ms / FRAME_MS) + 2;
    this.#at = new Float64Array(this.#capacity);
  }

  keep(frame: AudioFrame): void {
    const size = frame.samples.length;
    if (size !== this.#frameSamples || frame.sampleRate !== this.#sampleRate) {
      this.#samples = new Int16Array(this.#capacity * size);
      this.#frameSamples = size;
      this.#sampleRate = frame.sampleRate;
      this.#count = 0;
    }
    this.#samples.set(frame.samples, this.#next * size);
    this.#at[this.#next] = frame.at;
    this.#next = (this.#next + 1) % this.#capacity;
    this.#count = Math.min(this.#count + 1, this.#capacity);
  }

  /** Copies of the frames kept that end after `from` and start after `after`, oldest first. */
  since(from: number, after: number): AudioFrame[] {
    const frames: AudioFrame[] = [];
    const size = this.#frameSamples;
    for (let i = this.#count; i > 0; i -= 1) {
      const slot = (this.#next - i + this.#capacity) % this.#capacity;
      const at = this.#at[slot] ?? 0;
      if (at + FRAME_MS <= from || at <= after) continue;
      const samples = this.#samples.slice(slot * size, (slot + 1) * size);
      frames.push({ samples, sampleRate: this.#sampleRate, at });
    }
    return frames;
  }
}
