import { describe, expect, it } from 'vitest';
import { fliteModule } from './tts-flite-module.ts';
import { parseWav, speechOnset, synthesizeFlite } from './tts-flite-synth.ts';
import { wasm, type WasmModule } from './tts-flite-wasm.ts';

/** A WAVE file around `samples`, with an extra chunk before the data as some writers add. */
function wav(samples: number[], rate: number, channels = 1): Uint8Array {
  const data = Buffer.alloc(samples.length * 2);
  samples.forEach((s, i) => data.writeInt16LE(s, i * 2));
  const fmt = Buffer.alloc(24);
  fmt.write('fmt ', 0);
  fmt.writeUInt32LE(16, 4);
  fmt.writeUInt16LE(1, 8);
  fmt.writeUInt16LE(channels, 10);
  fmt.writeUInt32LE(rate, 12);
  fmt.writeUInt32LE(rate * 2 * channels, 16);
  fmt.writeUInt16LE(2 * channels, 20);
  fmt.writeUInt16LE(16, 22);
  const list = Buffer.from('LIST\u0003\u0000\u0000\u0000abc\u0000', 'latin1'); // odd size, padded
  const head = Buffer.alloc(8);
  head.write('data', 0);
  head.writeUInt32LE(data.length, 4);
  const body = Buffer.concat([Buffer.from('WAVE'), fmt, list, head, data]);
  const riff = Buffer.alloc(8);
  riff.write('RIFF', 0);
  riff.writeUInt32LE(body.length, 4);
  return new Uint8Array(Buffer.concat([riff, body]));
}

const peak = (s: Int16Array) => s.reduce((m, v) => Math.max(m, Math.abs(v)), 0);

describe('flite synthesis', () => {
  it('reads mono 16-bit WAVE, skipping other chunks, and refuses anything else', () => {
    const audio = parseWav(wav([0, 1, -1, 32767, -32768], 8000));
    expect(audio.sampleRate).toBe(8000);
    expect([...audio.samples]).toEqual([0, 1, -1, 32767, -32768]);
    expect(() => parseWav(wav([0, 0], 16000, 2))).toThrow(/2 channels/);
    expect(() => parseWav(new TextEncoder().encode('RIFF....WAVEjunk'))).toThrow(/without data/);
    expect(() => parseWav(new TextEncoder().encode('not audio at all'))).toThrow(/not a WAVE/);
  });

  it('finds where speech starts, less a 40 ms pre-roll; a quiet clip is kept whole', () => {
    const samples = new Int16Array(4000);
    samples.fill(100, 0, 1000); // flite's leading noise floor
    samples[1010] = -3000;
    // 1010 is in the 5 ms window starting at 960; 40 ms at 16 kHz is 640 samples before it.
    expect(speechOnset(samples, 16000)).toBe(320);
    expect(speechOnset(samples, 8000)).toBe(1000 - 320);
    expect(speechOnset(new Int16Array(4000).fill(200), 16000)).toBe(0);
  });

  it('speaks at the voice rate, stretches durations, and trims the leading silence', async () => {
    const module = await fliteModule();
    const base = {
      voice: 'kal16',
      text: 'Thanks for calling.',
      durationStretch: 1,
      trimLeadingSilence: false,
    };
    const plain = synthesizeFlite(module, base);
    expect(plain.sampleRate).toBe(16000);
    expect(peak(plain.samples.subarray(0, 1600))).toBeLessThan(256); // flite starts with >100 ms of silence
    expect(peak(plain.samples)).toBeGreaterThan(4000);

    const trimmed = synthesizeFlite(module, { ...base, trimLeadingSilence: true });
    expect(peak(trimmed.samples.subarray(0, 800))).toBeGreaterThan(256); // speech within 50 ms
    expect(plain.samples.length - trimmed.samples.length).toBeGreaterThan(1600);
    expect([...trimmed.samples.subarray(-100)]).toEqual([...plain.samples.subarray(-100)]);

    const slow = synthesizeFlite(module, { ...base, durationStretch: 2 });
    expect(slow.samples.length / plain.samples.length).toBeGreaterThan(1.7);
    expect(synthesizeFlite(module, { ...base, voice: 'kal' }).sampleRate).toBe(8000);
  });

  it('reports a run that exits with an error or writes no audio', () => {
    expect(() => synthesizeFlite(exitingModule(3), request)).toThrow('flite exited with code 3');
    expect(() => synthesizeFlite(exitingModule(0), request)).toThrow('flite exited with code 0');
  });
});

const request = { voice: 'kal16', text: 'Hi there.', durationStretch: 1, trimLeadingSilence: true };

/** A WASI command whose `_start` calls proc_exit(code) and writes nothing. */
function exitingModule(code: number): WasmModule {
  const name = (s: string) => [s.length, ...Buffer.from(s)];
  const section = (id: number, body: number[]) => [id, body.length, ...body];
  const bytes = [
    ...[0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00],
    ...section(1, [2, 0x60, 1, 0x7f, 0, 0x60, 0, 0]), // types: (i32) -> (), () -> ()
    ...section(2, [1, ...name('wasi_snapshot_preview1'), ...name('proc_exit'), 0x00, 0]),
    ...section(3, [1, 1]), // one function of type () -> ()
    ...section(5, [1, 0x00, 1]), // one memory of one page
    ...section(7, [2, ...name('memory'), 0x02, 0, ...name('_start'), 0x00, 1]),
    ...section(10, [1, 6, 0, 0x41, code, 0x10, 0, 0x0b]), // i32.const code; call proc_exit
  ];
  return new wasm.Module(new Uint8Array(bytes));
}
