import { describe, expect, it } from 'vitest';
import { DTMF_DIGITS, dtmfFrequencies } from './dtmf-digits.ts';
import { DtmfDetector } from './dtmf-detector.ts';
import { dtmfTones } from './dtmf-tone.ts';
import type { SampleRate } from './frame.ts';
import { mulawDecode, mulawEncode } from './g711.ts';
import { seededRandom, sine } from './testing/signals.ts';
import { asInt16, sox } from './testing/sox.ts';
import { espeak } from './testing/speech.ts';

const RATES: SampleRate[] = [8000, 16000];

/** Runs `samples` through a new detector in 20 ms frames, as a call does. */
function detect(samples: Int16Array, rate: SampleRate, frame = rate / 50): string {
  const detector = new DtmfDetector(rate);
  let keys = '';
  for (let at = 0; at < samples.length; at += frame) keys += detector.push(samples.subarray(at, at + frame));
  return keys;
}

/** SoX's rendering of `digits`: each key's two sines for `toneMs`, then `gapMs` of silence. */
function soxTones(digits: string, rate: number, toneMs: number, gapMs: number, gainDb = -12): Int16Array {
  const parts = [...digits].map((digit) => {
    const [low, high] = dtmfFrequencies(digit)!;
    const raw = ['-r', String(rate), '-b', '16', '-c', '1', '-e', 'signed', '-t', 'raw', 'OUT'];
    const effects = ['synth', String(toneMs / 1000), 'sine', String(low), 'sine', String(high), 'remix', '-'];
    return asInt16(sox(['-n', ...raw, ...effects, 'gain', String(gainDb), 'pad', '0', String(gapMs / 1000)]));
  });
  const out = new Int16Array(parts.reduce((n, p) => n + p.length, 0));
  parts.reduce((at, p) => (out.set(p, at), at + p.length), 0);
  return out;
}

function add(a: Int16Array, b: Int16Array): Int16Array {
  return a.map((x, i) => Math.max(-32768, Math.min(32767, x + (b[i] ?? 0))));
}

function whiteNoise(length: number, amplitude: number, seed = 3): Int16Array {
  const random = seededRandom(seed);
  return Int16Array.from({ length }, () => Math.round((random() * 2 - 1) * amplitude));
}

describe.each(RATES)('DtmfDetector at %i Hz', (rate) => {
  it('reads all 16 keys made by SoX, each once, in order', () => {
    expect(detect(soxTones(DTMF_DIGITS, rate, 100, 60), rate)).toBe(DTMF_DIGITS);
    const reversed = [...DTMF_DIGITS].reverse().join('');
    expect(detect(soxTones(reversed, rate, 100, 60), rate)).toBe(reversed);
  });

  // SoX's `remix -` leaves each sine at half scale (16384); `gain` takes it from there. G.711's
  // 0 dBm0 sine peaks near 22,740, so a per-tone level in dBm0 is this gain:
  const gainFor = (dbm0: number) => 20 * Math.log10((22740 * 10 ** (dbm0 / 20)) / 16384);

  it('reads keys from -25 dBm0 to near full scale, and ignores keys below -30 dBm0', () => {
    expect(detect(soxTones('159D', rate, 80, 60, gainFor(-25)), rate)).toBe('159D');
    expect(detect(soxTones('#0*A', rate, 80, 60, -1), rate)).toBe('#0*A');
    expect(detect(soxTones('159D', rate, 80, 60, gainFor(-32)), rate)).toBe('');
  });

  it('reads keys with white noise 15 dB below them', () => {
    const tones = soxTones(DTMF_DIGITS, rate, 100, 60, gainFor(-10));
    const toneRms = 22740 * 10 ** (-10 / 20); // two sines of peak A have an RMS of A
    const noise = whiteNoise(tones.length, toneRms * 10 ** (-15 / 20) * Math.sqrt(3)); // uniform: RMS = peak / sqrt 3
    expect(detect(add(tones, noise), rate)).toBe(DTMF_DIGITS);
  });

  it('reads its own generator, and keys as short as 40 ms with 40 ms gaps, but not 20 ms blips', () => {
    expect(detect(dtmfTones(DTMF_DIGITS, { sampleRate: rate }), rate)).toBe(DTMF_DIGITS);
    expect(detect(dtmfTones('5555', { sampleRate: rate, toneMs: 40, gapMs: 40 }), rate)).toBe('5555');
    expect(detect(soxTones('1234', rate, 40, 40), rate)).toBe('1234');
    expect(detect(dtmfTones('123', { sampleRate: rate, toneMs: 20, gapMs: 80 }), rate)).toBe('');
  });

  it('reports a long press once', () => {
    expect(detect(dtmfTones('7', { sampleRate: rate, toneMs: 1500, gapMs: 100 }), rate)).toBe('7');
  });

  it('gives the same keys whatever the frame size', () => {
    const tones = soxTones('90#', rate, 60, 50);
    for (const frame of [1, 37, rate / 100, rate / 50, 1000, tones.length])
      expect(detect(tones, rate, frame)).toBe('90#');
  });

  it('hears nothing in white noise, single tones, two tones of one group, or too much twist', () => {
    expect(detect(whiteNoise(rate * 3, 12000), rate)).toBe('');
    expect(
      detect(
        asInt16(
          sox([
            '-n',
            '-r',
            String(rate),
            '-b',
            '16',
            '-c',
            '1',
            '-e',
            'signed',
            '-t',
            'raw',
            'OUT',
            'synth',
            '3',
            'whitenoise',
            'gain',
            '-6',
          ]),
        ),
        rate,
      ),
    ).toBe('');
    for (const f of [697, 770, 852, 941, 1209, 1336, 1477, 1633])
      expect(detect(sine(f, rate, rate / 2, 8000), rate)).toBe('');
    expect(detect(add(sine(697, rate, rate / 2, 6000), sine(770, rate, rate / 2, 6000)), rate)).toBe('');
    expect(detect(add(sine(1209, rate, rate / 2, 6000), sine(1477, rate, rate / 2, 6000)), rate)).toBe('');
    // Row tone 10 dB above the column tone (beyond 8 dB), and column 6 dB above the row (beyond 4).
    expect(detect(add(sine(770, rate, rate / 2, 9000), sine(1336, rate, rate / 2, 2846)), rate)).toBe('');
    expect(detect(add(sine(770, rate, rate / 2, 3000), sine(1336, rate, rate / 2, 5986)), rate)).toBe('');
    // Within the limits both ways, the key is there.
    expect(detect(add(sine(770, rate, rate / 2, 9000), sine(1336, rate, rate / 2, 4000)), rate)).toBe('5');
    expect(detect(add(sine(770, rate, rate / 2, 4000), sine(1336, rate, rate / 2, 6000)), rate)).toBe('5');
  });

  it('hears no keys in speech', () => {
    const speech = espeak(
      'Hello, thank you for calling. Please tell me your account number, one two three four, and the reason for your call today. ' +
        'We are open nine to five, Monday through Friday. Press pound to repeat.',
      rate,
    );
    expect(speech.length).toBeGreaterThan(rate * 5);
    expect(detect(speech, rate)).toBe('');
    expect(detect(espeak('Aaaaah. Ooooh. Eeeee. Mmmmmm. Hmmmm?', rate, 'en+f3'), rate)).toBe('');
  });

  it('hears no key in a voiced sound whose harmonics sit on a key but whose energy lies elsewhere', () => {
    // A 100 Hz voice: its 7th and 12th harmonics (700, 1200 Hz) are within 1% of key 1's tones and
    // stand well above their neighbours, but the strong low harmonics carry most of the energy.
    const voice = new Int16Array(rate);
    for (let h = 1; h * 100 < 3500; h += 1) {
      const weight = h <= 4 || h === 7 || h === 12 ? 3000 : 300;
      const harmonic = sine(h * 100, rate, rate, weight, h);
      for (let n = 0; n < rate; n += 1) voice[n] = voice[n]! + harmonic[n]!;
    }
    expect(detect(voice, rate)).toBe('');
  });
});

describe('DtmfDetector after G.711', () => {
  it('reads all 16 keys after a round trip through mu-law at 8 kHz', () => {
    const tones = soxTones(DTMF_DIGITS, 8000, 60, 50, -20);
    expect(detect(mulawDecode(mulawEncode(tones)), 8000)).toBe(DTMF_DIGITS);
  });

  it('starts fresh after reset', () => {
    const detector = new DtmfDetector(8000);
    const tone = dtmfTones('3', { sampleRate: 8000, toneMs: 200, gapMs: 0 });
    expect(detector.push(tone.subarray(0, 800))).toBe('3');
    detector.reset();
    expect(detector.push(tone.subarray(800))).toBe('3'); // the same press, seen anew
  });
});
