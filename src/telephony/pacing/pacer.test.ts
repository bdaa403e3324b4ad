import { Worker } from 'node:worker_threads';
import { afterEach, describe, expect, it } from 'vitest';
import { spawnSiblingWorker } from '../../core/index.ts';
import { SESSION_RATE, type AudioFrame } from '../../media/index.ts';
import { FrameRing } from './frame-ring.ts';
import { createCallerPacer, createWorkerPacer, type FramePacer } from './pacer.ts';
import { FRAME_SAMPLES, WIRE_COUNT, sendBeat } from './ring-layout.ts';

// One suite for every pacer: a ring's frames leave one per beat in order on a 20 ms grid, clear()
// stops them within one frame, the played position is what left, and a deleted ring sends no more.

const frame = (value: number): AudioFrame => ({
  samples: new Int16Array(FRAME_SAMPLES).fill(value),
  sampleRate: SESSION_RATE,
  at: 0,
});

interface Subject {
  pacer: FramePacer;
  /** Lets at least `beats` beats pass for every ring added (and not deleted). */
  pass(ring: FrameRing, beats: number): Promise<void>;
}

/** What a ring's beats sent so far: first sample, or null for silence, with the grid time. */
function listen(ring: FrameRing) {
  const heard: { value: number | null; gridAt: number }[] = [];
  return {
    heard,
    take() {
      ring.hear((beat) => heard.push({ value: beat.frame?.samples[0] ?? null, gridAt: beat.gridAt }));
      return heard;
    },
  };
}

/** The caller's pacer: the test is the carrier whose beat sends. */
function callerSubject(): Subject {
  const pacer = createCallerPacer();
  const rings = new Set<FrameRing>();
  let at = 0;
  return {
    pacer: {
      ...pacer,
      add: (ring) => rings.add(ring),
      delete: (ring) => rings.delete(ring),
    },
    async pass(_ring, beats) {
      for (let i = 0; i < beats; i += 1, at += 20) for (const ring of rings) sendBeat(ring.view, at, at);
    },
  };
}

/** Waits until the worker's beat has sent `beats` more beats of the ring (or 5 s passed). */
async function passOnWorker(ring: FrameRing, beats: number) {
  const sent = () => Atomics.load(ring.view.control, WIRE_COUNT);
  const target = sent() + beats;
  const deadline = Date.now() + 5000;
  while (sent() < target && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 5));
}

function workerSubject(spawn?: () => Worker): Subject {
  return { pacer: createWorkerPacer(spawn ? { spawn } : {}), pass: passOnWorker };
}

const subjects: [string, () => Subject][] = [
  ['caller', callerSubject],
  ['worker', () => workerSubject()],
];

describe.each(subjects)('%s pacer', (_name, make) => {
  let subject: Subject;
  afterEach(async () => {
    await subject.pacer.close();
  });

  it('sends one frame per beat in order, on a 20 ms grid, then silence', async () => {
    subject = make();
    const ring = new FrameRing();
    const ears = listen(ring);
    for (let i = 1; i <= 5; i += 1) ring.play(frame(i));
    subject.pacer.add(ring);
    await subject.pass(ring, 7);
    const heard = ears.take();
    const values = heard.map((h) => h.value);
    const first = values.indexOf(1);
    expect(first).toBeGreaterThanOrEqual(0);
    expect(values.slice(first, first + 6)).toEqual([1, 2, 3, 4, 5, null]);
    const grid = heard.map((h) => h.gridAt);
    for (let i = 1; i < grid.length; i += 1) expect(grid[i]! - grid[i - 1]!).toBe(20);
    expect(ring.playedMs).toBe(100);
  });

  it('clear() lets at most the frame leaving now out, and counts only what left', async () => {
    subject = make();
    const ring = new FrameRing();
    const ears = listen(ring);
    for (let i = 1; i <= 40; i += 1) ring.play(frame(i));
    subject.pacer.add(ring);
    await subject.pass(ring, 3);
    ring.clear();
    const playedAtClear = ring.playedMs;
    await subject.pass(ring, 3);
    const sent = ears.take().filter((h) => h.value !== null);
    expect(sent.map((h) => h.value)).toEqual(sent.map((_, i) => i + 1));
    expect(sent.length).toBeGreaterThanOrEqual(3);
    expect(sent.length * 20).toBe(playedAtClear);
    expect(ring.playedMs).toBe(playedAtClear);
    expect(ring.idle).toBe(true);
  });

  it('sends nothing more for a deleted ring', async () => {
    subject = make();
    const ring = new FrameRing();
    const other = new FrameRing();
    subject.pacer.add(ring);
    subject.pacer.add(other);
    await subject.pass(ring, 2);
    subject.pacer.delete(ring);
    for (let i = 1; i <= 5; i += 1) ring.play(frame(i));
    await subject.pass(other, 4);
    expect(ring.playedMs).toBe(0);
    expect(ring.queuedMs).toBe(100);
  });
});

describe('worker pacer', () => {
  it('replaces a worker that died, and the rings go on where they were', async () => {
    const spawned: Worker[] = [];
    const subject = workerSubject(() => {
      const worker = spawnSiblingWorker(new URL('./pacer.ts', import.meta.url).href, 'pacer-worker');
      spawned.push(worker);
      return worker;
    });
    try {
      const ring = new FrameRing();
      for (let i = 1; i <= 30; i += 1) ring.play(frame(i));
      subject.pacer.add(ring);
      await subject.pass(ring, 3);
      await spawned[0]!.terminate();
      await subject.pass(ring, 40);
      expect(spawned.length).toBe(2);
      expect(ring.playedMs).toBe(600);
      const heard = listen(ring)
        .take()
        .filter((h) => h.value !== null);
      expect(heard.at(-1)?.value).toBe(30);
    } finally {
      await subject.pacer.close();
    }
  });

  it("gives up on a worker that keeps dying: the carriers' beats send from then on", async () => {
    let spawned = 0;
    const pacer = createWorkerPacer({
      spawn: () => {
        spawned += 1;
        return new Worker('process.exit(3)', { eval: true });
      },
    });
    try {
      expect(pacer.mode).toBe('worker');
      const deadline = Date.now() + 10_000;
      while (pacer.mode === 'worker' && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
      expect(pacer.mode).toBe('caller');
      expect(spawned).toBe(6);
    } finally {
      await pacer.close();
    }
  });
});
