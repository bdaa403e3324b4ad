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
