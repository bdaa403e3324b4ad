import type { RtpRemote } from './types.ts';

// Between the main thread's RtpMedia and the media worker (media-worker.ts). Only set-up travels
// as messages; frames and events cross in shared memory (shared.ts, the FrameRing).

export interface HostSettings {
  bindAddress: string;
  portMin: number;
  portMax: number;
  timeoutMs: number;
  comfortSilence: boolean;
}

export type ToMediaWorker =
  | {
      kind: 'init';
      settings: HostSettings;
      /** The send timing counters (send-timing.ts), kept by RtpMedia across workers. */
      timing: SharedArrayBuffer;
    }
  | {
      kind: 'open';
      id: number;
      /** The endpoint's shared memory (shared.ts) and its FrameRing's. */
      endpoint: SharedArrayBuffer;
      ring: SharedArrayBuffer;
      /** Rebind this port (a replaced worker's endpoint); else the next free one. */
      port?: number;
    }
  | { kind: 'update'; id: number; remote: RtpRemote }
  | { kind: 'keys'; id: number; requestId: number; digits: string }
  | { kind: 'close'; id: number };

export type FromMediaWorker =
  | { kind: 'opened'; id: number; port: number }
  | { kind: 'open-failed'; id: number; message: string; exhausted: boolean }
  /** Sent once as it starts: whether its thread got MEDIA_NICE. */
  | { kind: 'priority'; raised: boolean; reason?: string };

/** The media worker thread's nice value, as the frame pacer's (lower runs first; ordinary threads are at 0). */
export const MEDIA_NICE = -10;
