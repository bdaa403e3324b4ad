import type { Clock } from '../../core/index.ts';
import { FRAME_MS } from '../../media/index.ts';

// One 20 ms beat for every audio leg of a carrier: a single timer paces hundreds of calls (a
// timer per leg and direction would cost more than the audio). The beat keeps to the grid it
// started on, so a late wake-up does not shift later frames; missed beats are caught up at once
// (each leg gets every frame, late rather than never), as a real network's jitter buffer does.
// A catch-up that has run a beat's length without a break lets the event loop turn between beats:
// back to back, hundreds of legs' beats after a stall kept timers and sockets (endpointing, the
// replies, the API) waiting four times the stall, each catch-up beat making the next one due.

/**
 * A leg on the beat. Every leg sends first, then every leg delivers: what the far ends hear keeps
 * time whatever the receivers do with their frames (VAD, STT), as a media server flushes its
 * outgoing packets before its receive-side work.
 */
export interface FrameTick {
  /** Plays our next frame to the far end; `at` is the beat's time on the grid. */
  send(at: number): void;
  /**
   * Hands the far end's frame of this beat (and a key, if pressed) to our receiver. `caughtUp`:
   * the beat runs late, without a wait before it, after the event loop stalled: the far end's
   * packets of its time may still be unread in the sockets (timers run before I/O).
   */
  deliver(at: number, caughtUp: boolean): void;
}

export interface FrameTicker {
  add(member: FrameTick): void;
  delete(member: FrameTick): void;
  readonly size: number;
}

const turnEventLoop = () => new Promise<void>((resolve) => setImmediate(resolve));

export function createFrameTicker(clock: Clock): FrameTicker {
  const members = new Set<FrameTick>();
  let running: AbortController | null = null;

  async function beat(signal: AbortSignal) {
    let next = clock.now() + FRAME_MS;
    let turnedAt = clock.now();
    while (!signal.aborted) {
      const now = clock.now();
      const wait = next - now;
      const caughtUp = wait <= 0;
      if (!caughtUp) {
        await clock.sleep(wait, signal).catch(() => undefined);
        turnedAt = clock.now();
      } else if (now - turnedAt >= FRAME_MS) {
        await turnEventLoop();
        turnedAt = clock.now();
      }
      if (signal.aborted) return;
      for (const member of members) {
        try {
          member.send(next);
        } catch {
          // A leg that breaks ends itself; the beat goes on for the others.
        }
      }
      for (const member of members) {
        try {
          member.deliver(next, caughtUp);
        } catch {
          // As above.
        }
      }
      next += FRAME_MS;
    }
  }

  return {
    add(member) {
      members.add(member);
      if (running) return;
      running = new AbortController();
      void beat(running.signal);
    },
    delete(member) {
      members.delete(member);
      if (members.size === 0 && running) {
        running.abort();
        running = null;
      }
    },
    get size() {
      return members.size;
    },
  };
}
