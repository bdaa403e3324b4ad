// The API side of the `voice` case: Parley's app (src/app.ts createApp, as `parley serve` builds
// it) in THIS process on embedded SQLite, so its synchronous store runs on the thread that paces
// the calls' frames, and a load generator in a child process (voice-api-load.ts) hitting it.
import { spawn } from 'node:child_process';
import { createApp } from '../src/app.ts';
import { loadConfig, silentLogger } from '../src/core/index.ts';
import { BENCH_API_KEY, ROOT, onCleanup, tempDir } from './lib.ts';

export interface InProcessApp {
  url: string;
  close(): Promise<void>;
}

export async function startInProcessApp(): Promise<InProcessApp> {
  const config = loadConfig({
    HOST: '127.0.0.1',
    PORT: '0',
    PARLEY_DATA_DIR: tempDir('voice-data'),
    PARLEY_BOOTSTRAP_API_KEY: BENCH_API_KEY,
    PARLEY_LOG_LEVEL: 'warn',
  });
  const app = await createApp(config, { logger: silentLogger(), announce: () => undefined });
  let closed = false;
  const close = async () => {
    if (closed) return;
    closed = true;
    await app.close();
  };
  onCleanup(close);
  const url = await app.listen();
  return { url, close };
}

export interface ApiLoadResult {
  requests: number;
  ok: number;
  non2xx: number;
  errors: number;
  timeouts: number;
  p50: number;
  p99: number;
  max: number;
}

/** Starts the load for `durationS` seconds; resolves with autocannon's summary when it ends. */
export function startApiLoad(url: string, rate: number, durationS: number): Promise<ApiLoadResult> {
  const child = spawn(
    process.execPath,
    ['bin/tsx-run.js', 'bench/voice-api-load.ts', url, BENCH_API_KEY, String(rate), String(durationS)],
    { cwd: ROOT, stdio: ['ignore', 'pipe', 'inherit'] },
  );
  onCleanup(() => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  });
  let out = '';
  child.stdout.setEncoding('utf8');
  child.stdout.on('data', (chunk: string) => (out += chunk));
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('exit', (code) => {
      const line = out.trim().split('\n').at(-1) ?? '';
      if (code !== 0 || !line.startsWith('{')) reject(new Error(`the API load exited with ${code}: ${out}`));
      else resolve(JSON.parse(line) as ApiLoadResult);
    });
  });
}
