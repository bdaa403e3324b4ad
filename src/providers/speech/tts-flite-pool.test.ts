import type { Worker } from 'node:worker_threads';
import { describe, expect, it } from 'vitest';
import { createFlitePool, spawnFliteWorker } from './tts-flite-pool.ts';
import { SpeechError } from './types.ts';

// A flite worker that dies: the synthesis it was running fails as a retryable TTS failure (the
// voice session ends that call cleanly), and the pool starts a new worker for what comes next.

const request = (text: string) => ({ voice: 'kal16', text, durationStretch: 1, trimLeadingSilence: true });

describe('the flite pool when a worker dies', () => {
  it('fails the running synthesis, retryable, and serves the next one on a new worker', async () => {
    const workers: Worker[] = [];
    const pool = createFlitePool(1, () => {
      const worker = spawnFliteWorker();
      workers.push(worker);
      return worker;
    });
    try {
      await pool.warm();
      const running = pool.synthesize(
        request('This sentence is long enough to be still running. '.repeat(20)),
      );
      const queued = pool.synthesize(request('Hello there.'));
      await workers[0]!.terminate();
      const error = await running.then(
        () => null,
        (err: unknown) => err,
      );
      expect(error).toBeInstanceOf(SpeechError);
      expect(error).toMatchObject({ code: 'tts_failed', retryable: true });
      expect((error as Error).message).toMatch(/flite worker exited/);
      // The job that waited runs on a fresh worker.
      const next = await queued;
      expect(next.samples.length).toBeGreaterThan(4000);
      expect(workers).toHaveLength(2);
    } finally {
      await pool.stop();
    }
  }, 30_000);
});
