import { readlinkSync } from 'node:fs';
import { setPriority } from 'node:os';
import { extname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';

/**
 * Starts the worker thread whose entry is the module `name` beside the caller (`import.meta.url`
 * of the caller). Under tsx, where sources run as .ts, the worker registers tsx's loader first.
 */
export function spawnSiblingWorker(callerUrl: string, name: string): Worker {
  const ext = extname(fileURLToPath(callerUrl));
  const entry = new URL(`./${name}${ext}`, callerUrl);
  if (ext !== '.ts') return new Worker(entry);
  const tsx = import.meta.resolve('tsx/esm/api');
  const boot = `import(${JSON.stringify(tsx)}).then((tsx) => { tsx.register(); return import(${JSON.stringify(entry.href)}); })`;
  return new Worker(boot, { eval: true });
}

/**
 * Asks the scheduler to run the calling thread first when it wakes (`nice` for this thread alone,
 * as media servers do for their media threads): on a busy machine a woken thread of ordinary
 * priority waits milliseconds for a core behind the main thread, the garbage collector's helpers
 * and other processes. Needs CAP_SYS_NICE (root has it); says why when it could not.
 */
export function raiseThreadPriority(nice: number): { raised: true } | { raised: false; reason: string } {
  try {
    const tid = Number(readlinkSync('/proc/thread-self').split('/').pop());
    if (!Number.isInteger(tid)) throw new Error('no thread id in /proc/thread-self');
    setPriority(tid, nice);
    return { raised: true };
  } catch (err) {
    return { raised: false, reason: err instanceof Error ? err.message : String(err) };
  }
}
