// Real synthesized speech for tests that must tell speech from tones: espeak-ng (installed here and
// in CI) speaks `text`, SoX converts it to raw 16-bit mono at `rate`.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { asInt16, sox } from './sox.ts';

export function espeak(text: string, rate: number, voice = 'en'): Int16Array {
  const dir = mkdtempSync(join(tmpdir(), 'parley-espeak-'));
  try {
    const wav = join(dir, 'speech.wav');
    execFileSync('espeak-ng', ['-v', voice, '-w', wav, text], { stdio: 'ignore' });
    return asInt16(sox([wav, '-t', 'raw', '-r', String(rate), '-e', 'signed', '-b', '16', '-c', '1', 'OUT']));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
