// A FIFO of PCM samples in a fixed ring: decoded audio waiting to be cut into 20 ms frames (an
// Opus packet may carry up to 120 ms), queued and played out without allocating.

/** A FIFO of samples in a fixed ring, so queueing and playing out allocate nothing. */
export class SampleQueue {
  private readonly ring: Int16Array;
  private start = 0;
  length = 0;

  constructor(capacity: number) {
    this.ring = new Int16Array(capacity);
  }

  get capacity(): number {
    return this.ring.length;
  }

  /** Appends the first `count` of `samples`; the caller keeps within the capacity. */
  push(samples: Int16Array, count: number): void {
    const { ring } = this;
    const end = (this.start + this.length) % ring.length;
    const first = Math.min(count, ring.length - end);
    ring.set(samples.subarray(0, first), end);
    if (first < count) ring.set(samples.subarray(first, count), 0);
    this.length += count;
  }

  /** Fills `out` from the front. */
  shiftInto(out: Int16Array): void {
    const { ring } = this;
    const first = Math.min(out.length, ring.length - this.start);
    out.set(ring.subarray(this.start, this.start + first));
    if (first < out.length) out.set(ring.subarray(0, out.length - first), first);
    this.drop(out.length);
  }

  drop(count: number): void {
    this.start = (this.start + count) % this.ring.length;
    this.length -= count;
  }
}
