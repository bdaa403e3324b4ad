import { describe, expect, it } from 'vitest';
import { SESSION_RATE, type AudioFrame } from '../../media/index.ts';
import { FrameRing, type SentBeat } from './frame-ring.ts';
import { FRAME_SAMPLES, OUT_SLOTS, WIRE_SLOTS, sendBeat } from './ring-layout.ts';

const frame = (value: number, length = FRAME_SAMPLES): AudioFrame => ({
  samples: new Int16Array(length).fill(value),
  sampleRate: SESSION_RATE,
  at: 0,
});

/** What one beat sent: the frame's first sample and length, or null for silence. */
interface Heard {
  first: number | null;
  length: number;
  gridAt: number;
  sentAt: number;
}

/** Runs `beats` beats of the sender on a 20 ms grid from `from`, hearing after each. */
function run(ring: FrameRing, beats: number, from = 0): Heard[] {
  const heard: Heard[] = [];
  const note = (beat: SentBeat) =>
    heard.push({
      first: beat.frame ? (beat.frame.samples[0] ?? null) : null,
      length: beat.frame?.samples.length ?? 0,
      gridAt: beat.gridAt,
      sentAt: beat.sentAt,
    });
  for (let i = 0; i < beats; i += 1) {
    const at = from + i * 20;
    sendBeat(ring.view, at, at + 1);
    ring.hear(note);
  }
  return heard;
}

describe('FrameRing', () => {
  it('sends one frame per beat in order, then silence, and counts what left', () => {
    const ring = new FrameRing();
    for (let i = 1; i <= 3; i += 1) ring.play(frame(i));
    expect(ring.queuedMs).toBe(60);
    expect(ring.idle).toBe(false);
    const heard = run(ring, 5, 1000);
    expect(heard.map((h) => h.first)).toEqual([1, 2, 3, null, null]);
    expect(heard.map((h) => h.gridAt)).toEqual([1000, 1020, 1040, 1060, 1080]);
    expect(heard.map((h) => h.sentAt)).toEqual([1001, 1021, 1041, 1061, 1081]);
    expect(ring.playedMs).toBe(60);
    expect(ring.queuedMs).toBe(0);
    expect(ring.idle).toBe(true);
  });

  it('splits long frames into 20 ms slots and counts short ones by their samples', () => {
    const ring = new FrameRing();
    ring.play(frame(7, FRAME_SAMPLES * 2 + 80));
    expect(ring.queuedMs).toBe(45);
    const heard = run(ring, 4);
    expect(heard.map((h) => [h.first, h.length])).toEqual([
      [7, FRAME_SAMPLES],
      [7, FRAME_SAMPLES],
      [7, 80],
      [null, 0],
    ]);
    expect(ring.playedMs).toBe(45);
  });

  it('clear() drops everything queued: the next beat is silent and only what left counts', () => {
    const ring = new FrameRing();
    for (let i = 1; i <= 10; i += 1) ring.play(frame(i));
    const before = run(ring, 3);
    expect(before.map((h) => h.first)).toEqual([1, 2, 3]);
    ring.clear();
    expect(ring.queuedMs).toBe(0);
    expect(ring.idle).toBe(true);
    expect(run(ring, 2, 60).map((h) => h.first)).toEqual([null, null]);
    expect(ring.playedMs).toBe(60);
    // Playing again after a clear continues the count.
    ring.play(frame(11));
    expect(run(ring, 1, 100).map((h) => h.first)).toEqual([11]);
    expect(ring.playedMs).toBe(80);
  });

  it('clear(n) plays n of the dropped frames again, fading to silence', () => {
    const ring = new FrameRing();
    for (let i = 0; i < 10; i += 1) ring.play(frame(10000));
    run(ring, 2);
    ring.clear(3);
    expect(ring.queuedMs).toBe(60);
    const levels: number[] = [];
    for (let i = 0; i < 4; i += 1) {
      sendBeat(ring.view, i * 20, i * 20);
      ring.hear((beat) => levels.push(beat.frame ? Math.max(...beat.frame.samples) : 0));
    }
    expect(levels[0]).toBe(10000);
    expect(levels[1]!).toBeLessThan(levels[0]!);
    expect(levels[2]!).toBeLessThan(levels[1]!);
    expect(levels[2]!).toBeGreaterThan(0);
    expect(levels[3]).toBe(0);
    expect(ring.playedMs).toBe(100);
  });

  it('holds frames beyond the shared slots and moves them in as the beat frees slots', () => {
    const ring = new FrameRing();
    const total = OUT_SLOTS * 3;
    for (let i = 1; i <= total; i += 1) ring.play(frame(i));
    expect(ring.queuedMs).toBe(total * 20);
    const heard = run(ring, total + 1);
    expect(heard.map((h) => h.first)).toEqual([...Array.from({ length: total }, (_, i) => i + 1), null]);
    expect(ring.playedMs).toBe(total * 20);
  });

  it('skips the beats a slow reader let the wire ring overwrite, and keeps the rest whole', () => {
    const ring = new FrameRing();
    const beats = WIRE_SLOTS + 20;
    for (let i = 1; i <= beats; i += 1) ring.play(frame(i));
    // The sender runs every beat; the reader comes late, once.
    for (let i = 0; i < beats; i += 1) {
      sendBeat(ring.view, i * 20, i * 20);
      ring.fill();
    }
    const heard: (number | null)[] = [];
    const n = ring.hear((beat) => heard.push(beat.frame?.samples[0] ?? null));
    expect(n).toBe(WIRE_SLOTS - 1);
    expect(heard).toEqual(Array.from({ length: WIRE_SLOTS - 1 }, (_, i) => beats - WIRE_SLOTS + 2 + i));
    expect(ring.playedMs).toBe(beats * 20);
  });

  it('whenIdle() resolves once the last frame was heard, at a clear, or at close', async () => {
    const ring = new FrameRing();
    await ring.whenIdle();
    ring.play(frame(1));
    ring.play(frame(2));
    let idle = false;
    void ring.whenIdle().then(() => (idle = true));
    run(ring, 1);
    await Promise.resolve();
    expect(idle).toBe(false);
    run(ring, 1, 20);
    await Promise.resolve();
    expect(idle).toBe(true);

    ring.play(frame(3));
    const cleared = ring.whenIdle();
    ring.clear();
    await cleared;
    ring.play(frame(4));
    const closed = ring.whenIdle();
    ring.close();
    await closed;
    expect(ring.queuedMs).toBe(0);
  });
});
