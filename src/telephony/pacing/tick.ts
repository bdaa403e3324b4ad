import { FRAME_MS } from '../../media/index.ts';
import { PACED, PHASE, sendBeat, talkspurtWaiting, type RingView, type SlotSent } from './ring-layout.ts';

// The pacer worker's tick, apart from its timing (pacer-worker.ts). The 20 ms beat is cut into
// SUB_BEATS ticks. Each leg sends every 20 ms on one tick of the beat (its phase); a leg that
// sent silence last and now has audio starts that talkspurt at this tick and keeps the phase from
// then on, so a reply's first frame waits at most one tick for the beat instead of a whole frame
// (RTP starts a talkspurt the same way, with its marker bit).

export const SUB_BEATS = 4;
export const TICK_MS = FRAME_MS / SUB_BEATS;

/**
 * A ring as the pacer sends it; `onSent` writes the frame leaving to its socket, `everyTick` writes
 * what the socket is still owed of an earlier one (wire-writer.ts).
 */
export type PacedView = RingView & { readonly onSent?: SlotSent; readonly everyTick?: () => void };

/** Sends, for tick `phase` (0 to SUB_BEATS - 1) at `gridAt`, every ring that is due or starts talking. */
export function tick(views: Iterable<PacedView>, phase: number, gridAt: number, now: () => number): void {
  for (const view of views) {
    const { control } = view;
    if (Atomics.load(control, PACED) === 0) continue;
    view.everyTick?.();
    if (control[PHASE] !== phase) {
      if (!talkspurtWaiting(view)) continue;
      control[PHASE] = phase;
    }
    sendBeat(view, gridAt, now(), view.onSent);
  }
}
