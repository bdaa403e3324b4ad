// Runs SoX (installed here and in CI) on raw audio for tests that compare against it: inputs and
// outputs go through temporary files, since SoX's pipes need the same format flags anyway.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * Runs `sox` with `args`, where the word `IN` stands for a file holding `input` (if given) and
 * `OUT` for the file whose bytes are returned. `-D` (no dither) is added before everything else so
 * conversions are deterministic.
 */
export function sox(args: string[], input?: Uint8Array): Uint8Array {
  const dir = mkdtempSync(join(tmpdir(), 'parley-sox-'));
  try {
    const inPath = join(dir, 'in.raw');
    const outPath = join(dir, 'out.raw');
    if (input) writeFileSync(inPath, input);
    const resolved = args.map((a) => (a === 'IN' ? inPath : a === 'OUT' ? outPath : a));
    execFileSync('sox', ['-D', '-V1', ...resolved], { stdio: ['ignore', 'ignore', 'pipe'] });
    return new Uint8Array(readFileSync(outPath));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Little-endian 16-bit bytes (SoX's raw `-e signed -b 16` on this machine) as samples. */
export function asInt16(bytes: Uint8Array): Int16Array {
  const copy = new Uint8Array(bytes);
  return new Int16Array(copy.buffer, 0, copy.length >> 1);
}

export function asBytes(samples: Int16Array): Uint8Array {
  return new Uint8Array(samples.buffer, samples.byteOffset, samples.byteLength);
}
