// Turns received RFC 4733 telephone-event packets into key presses, each reported once. All packets
// of one event share its start timestamp, so a press is recognized by a timestamp not seen before:
// that reports it on whichever of its packets arrives first (the start may be lost), and ignores
// the updates and the repeated end packets. A new timestamp that continues the same unfinished
// event exactly where it stood is the next segment of a long press (section 2.5.1.3), not a new
// press.
import { dtmfDigitOf } from './dtmf-digits.ts';
import { tsAdd, tsDiff } from './rtp-seq.ts';
import { parseTelephoneEvent } from './telephone-event.ts';

export class TelephoneEventReceiver {
  private seen = false;
  private timestamp = 0;
  private event = -1;
  private duration = 0;
  private ended = false;

  /** Feeds one packet's payload and RTP timestamp; returns the key if it starts a new press. */
  push(payload: Uint8Array, timestamp: number): string | null {
    const parsed = parseTelephoneEvent(payload);
    if (!parsed) return null;
    const digit = dtmfDigitOf(parsed.event);
    if (digit === null) return null; // another tone (flash, fax...): not a key
    if (this.seen) {
      const age = tsDiff(timestamp, this.timestamp);
      if (age < 0) return null; // a straggler of an earlier event
      if (age === 0) {
        this.duration = Math.max(this.duration, parsed.duration);
        this.ended ||= parsed.end;
        return null;
      }
      const nextSegment =
        !this.ended && parsed.event === this.event && timestamp === tsAdd(this.timestamp, this.duration);
      this.remember(timestamp, parsed.event, parsed.duration, parsed.end);
      return nextSegment ? null : digit;
    }
    this.remember(timestamp, parsed.event, parsed.duration, parsed.end);
    return digit;
  }

  /** Forgets the last event (for a new stream). */
  reset(): void {
    this.seen = false;
  }

  private remember(timestamp: number, event: number, duration: number, ended: boolean): void {
    this.seen = true;
    this.timestamp = timestamp;
    this.event = event;
    this.duration = duration;
    this.ended = ended;
  }
}
