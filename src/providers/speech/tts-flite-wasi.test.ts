import { describe, expect, it } from 'vitest';
import { fliteModule } from './tts-flite-module.ts';
import { FLITE_VOICES } from './tts-flite-voices.ts';
import { runWasiCommand } from './tts-flite-wasi.ts';

const encode = (text: string) => new TextEncoder().encode(text);

describe('the WASI host flite runs on', () => {
  it('passes argv and captures stdout: flite lists the voices the TTS offers', async () => {
    const run = runWasiCommand(await fliteModule(), ['flite', '-lv']);
    expect(run.exitCode).toBe(0);
    const listed = run.stdout.replace('Voices available:', '').trim().split(/\s+/);
    for (const voice of FLITE_VOICES) expect(listed).toContain(voice.fliteName);
  });

  it('returns the exit code the program gives proc_exit', async () => {
    const run = runWasiCommand(await fliteModule(), ['flite', '--version']);
    expect(run.exitCode).toBe(1);
    expect(run.stdout).toContain('flite-2.');
  });

  it('keeps files in memory: reads the input given, returns what was written', async () => {
    const module = await fliteModule();
    const fromFile = runWasiCommand(
      module,
      ['flite', '-voice', 'kal16', '-f', '/in.txt', '-o', '/out.wav'],
      new Map([['in.txt', encode('Hello there.')]]),
    );
    const fromArg = runWasiCommand(module, [
      'flite',
      '-voice',
      'kal16',
      '-t',
      'Hello there.',
      '-o',
      '/out.wav',
    ]);
    const wav = fromFile.files.get('out.wav');
    expect(wav && Buffer.from(wav).subarray(0, 4).toString()).toBe('RIFF');
    expect(wav!.length).toBeGreaterThan(16000);
    expect(Buffer.compare(Buffer.from(wav!), Buffer.from(fromArg.files.get('out.wav')!))).toBe(0);

    const missing = runWasiCommand(module, ['flite', '-f', '/missing.txt', '-o', '/out.wav']);
    expect(missing.stderr).toContain('failed to open file "/missing.txt"');
    expect(missing.files.has('out.wav')).toBe(false);
  });

  it('runs the same module many times in one process', async () => {
    // node:wasi crashed this process (SIGSEGV) within 20-40 runs of the rms voice.
    const module = await fliteModule();
    const sizes = new Set<number>();
    for (let i = 0; i < 30; i += 1) {
      const run = runWasiCommand(module, [
        'flite',
        '-voice',
        'rms',
        '-t',
        'Sure, tomorrow at nine.',
        '-o',
        '/o.wav',
      ]);
      expect(run.exitCode).toBe(0);
      sizes.add(run.files.get('o.wav')?.length ?? 0);
    }
    expect(sizes.size).toBe(1);
    expect([...sizes][0]).toBeGreaterThan(16000);
  });
});
