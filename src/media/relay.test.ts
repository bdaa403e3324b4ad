import { describe, expect, it } from 'vitest';
import { SESSION_RATE, samplesPerFrame, type AudioFrame } from './frame.ts';
import { holdMusic } from './hold-music.ts';
import type { MediaLeg } from './leg.ts';
import { relayTo } from './relay.ts';
import { amplitudeAt, rms, sine } from './testing/signals.ts';

// A bridge's direction (frames of any rate played to the other leg at the session rate, keys
// passed on, the delay bounded) and the hold music (audible, quiet, in the telephone band).

function sink(queuedMs = () => 0) {
  const played: AudioFrame[] = [];
  const keys: string[] = [];
  const leg = {
    play: (frame: AudioFrame) => void played.push(frame),
    get queuedMs() {
      return queuedMs();
    },
    sendDtmf: async (digits: string) => void keys.push(digits),
  } as unknown as MediaLeg;
  return { leg, played, keys };
}

describe('relayTo', () => {
  it('plays 8 kHz frames to the other leg as session-rate frames that keep the tone', () => {
    const { leg, played } = sink();
    const relay = relayTo(leg);
    const tone = sine(440, 8000, 8000 * 0.4, 8000);
    for (let at = 0; at < tone.length; at += 160) {
      relay.audio({ samples: tone.subarray(at, at + 160), sampleRate: 8000, at: at / 8 });
    }
    expect(played).toHaveLength(20);
    expect(played.every((f) => f.sampleRate === SESSION_RATE)).toBe(true);
    expect(played.every((f) => f.samples.length === samplesPerFrame(SESSION_RATE))).toBe(true);
    const out = new Int16Array(played.slice(5).flatMap((f) => [...f.samples]));
    expect(amplitudeAt(out, 440, SESSION_RATE)).toBeGreaterThan(0.5 * amplitudeAt(tone, 440, 8000));
  });

  it('passes session-rate frames as they are and keys on', () => {
    const { leg, played, keys } = sink();
    const relay = relayTo(leg);
    const frame = { samples: new Int16Array(320).fill(9), sampleRate: SESSION_RATE, at: 0 } as const;
    relay.audio(frame);
    relay.dtmf('7', 0);
    expect(played).toEqual([frame]);
    expect(keys).toEqual(['7']);
  });

  it("drops a frame when the other leg's queue (the delay) grows 300 ms above its recent lowest", () => {
    // The other leg always holds 200 ms in flight (a Twilio stream), and plays a frame a beat.
    let queued = 200;
    const { leg, played } = sink(() => queued);
    const relay = relayTo(leg);
    const frame = { samples: new Int16Array(320), sampleRate: SESSION_RATE, at: 0 } as const;
    for (let i = 0; i < 600; i += 1) relay.audio(frame);
    expect(relay.dropped).toBe(0);
    // Now the far side falls behind: the queue grows a frame each beat, and frames are dropped.
    for (let i = 0; i < 40; i += 1) {
      const before = played.length;
      relay.audio(frame);
      if (played.length > before) queued += 20;
    }
    expect(queued).toBeLessThanOrEqual(200 + 300 + 20);
    expect(relay.dropped).toBeGreaterThan(0);
  });
});

describe('holdMusic', () => {
  it('is audible but quiet, and loops without a gap', () => {
    const music = holdMusic();
    const frames = Array.from({ length: 500 }, () => music.next());
    expect(frames.every((f) => f.sampleRate === SESSION_RATE && f.samples.length === 320)).toBe(true);
    const all = new Int16Array(frames.flatMap((f) => [...f.samples]));
    expect(rms(all)).toBeGreaterThan(150);
    expect(all.reduce((peak, s) => Math.max(peak, Math.abs(s)), 0)).toBeLessThan(3000);
    // 4.8 s later the loop starts again with the same samples.
    expect(frames[240]?.samples).toEqual(frames[0]?.samples);
    const silent = frames.filter((f) => rms(f.samples) < 20).length;
    expect(silent).toBeLessThan(50);
  });
});
