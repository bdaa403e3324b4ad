import { describe, expect, it } from 'vitest';
import { SESSION_RATE, type AudioFrame } from '../../media/index.ts';
import { FrameRing } from './frame-ring.ts';
import { FRAME_SAMPLES, PACED } from './ring-layout.ts';
import { SUB_BEATS, TICK_MS, tick } from './tick.ts';

const frame = (value: number): AudioFrame => ({
  samples: new Int16Array(FRAME_SAMPLES).fill(value),
  sampleRate: SESSION_RATE,
  at: 0,
});

/** Runs ticks `from` to `to` (exclusive) over the rings; returns what each ring sent, by grid time. */
function runTicks(rings: FrameRing[], from: number, to: number) {
  for (let k = from; k < to; k += 1)
    tick(
      rings.map((r) => r.view),
      k % SUB_BEATS,
      k * TICK_MS,
      () => k * TICK_MS,
    );
  return rings.map((ring) => {
    const sent: [number, number | null][] = [];
    ring.hear((beat) => sent.push([beat.gridAt, beat.frame?.samples[0] ?? null]));
    return sent;
  });
}

const paced = () => {
  const ring = new FrameRing();
  Atomics.store(ring.view.control, PACED, 1);
  return ring;
};

describe('pacer tick', () => {
  it('sends each leg every 20 ms on its phase, silence included', () => {
    const ring = paced();
    const [sent] = runTicks([ring], 0, 12);
    expect(sent).toEqual([
      [0, null],
      [20, null],
      [40, null],
    ]);
  });

  it('starts a silent leg talking at the next tick and keeps that phase', () => {
    const ring = paced();
    runTicks([ring], 0, 2);
    ring.play(frame(1));
    ring.play(frame(2));
    ring.play(frame(3));
    // Ticks 2..: the talkspurt starts at tick 2 (10 ms), not at the leg's next beat (20 ms).
    const [sent] = runTicks([ring], 2, 16);
    expect(sent).toEqual([
      [10, 1],
      [30, 2],
      [50, 3],
      [70, null],
    ]);
  });

  it('keeps a talking leg on its phase when more audio arrives mid-beat', () => {
    const ring = paced();
    ring.play(frame(1));
    expect(runTicks([ring], 0, 2)).toEqual([[[0, 1]]]);
    ring.play(frame(2));
    // It sent a frame last: the next one waits for its beat, so the frames stay 20 ms apart.
    expect(runTicks([ring], 2, 8)).toEqual([[[20, 2]]]);
  });

  it('skips a ring its pacer let go of', () => {
    const ring = paced();
    ring.play(frame(1));
    Atomics.store(ring.view.control, PACED, 0);
    const [sent] = runTicks([ring], 0, 8);
    expect(sent).toEqual([]);
    expect(ring.playedMs).toBe(0);
  });
});
