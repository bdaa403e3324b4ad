import type { Clock } from '../core/index.ts';
import { GREETING_FINAL_WAIT_MS, VOICEMAIL_AFTER_GREETING_MS, VOICEMAIL_MAX_WAIT_MS } from './limits.ts';
import type { Listener } from './listener.ts';
import type { Timers } from './timers.ts';

// What happens once a machine has answered (screening.ts decided it). The message waits for its
// moment: the end of the beep; or, with no beep, VOICEMAIL_AFTER_GREETING_MS of silence after the
// greeting; at the latest VOICEMAIL_MAX_WAIT_MS after the machine was recognized. Meanwhile what
// the machine says is kept for the transcript.

export interface MessageMoment {
  /** Resolves when the message should start. */
  readonly ready: Promise<void>;
  speechStart(): void;
  speechEnd(at: number): void;
  beepEnded(): void;
  /** Resolves `ready` at once (the call is ending). */
  release(): void;
}

export function waitForMessageMoment(options: {
  clock: Clock;
  timers: Timers;
  /** When the far end last stopped speaking, or null while it speaks (or a beep sounds). */
  silentSince: number | null;
}): MessageMoment {
  const { clock, timers } = options;
  let release: () => void = () => undefined;
  const ready = new Promise<void>((resolve) => (release = resolve));
  let cancelQuiet: () => void = () => undefined;
  const quietFrom = (at: number) => {
    cancelQuiet();
    cancelQuiet = timers.after(VOICEMAIL_AFTER_GREETING_MS - (clock.now() - at), release);
  };
  const cancelCap = timers.after(VOICEMAIL_MAX_WAIT_MS, release);
  if (options.silentSince !== null) quietFrom(options.silentSince);
  void ready.then(() => {
    cancelQuiet();
    cancelCap();
  });
  return {
    ready,
    speechStart: () => cancelQuiet(),
    speechEnd: (at) => quietFrom(at),
    beepEnded: () => release(),
    release: () => release(),
  };
}

/** What the far end said while it was screened, for the transcript. */
export interface GreetingTranscript {
  add(text: string): void;
  clear(): void;
  /** Everything heard, the utterance in progress flushed and its final awaited (bounded). */
  collect(listener: Listener | null, timers: Timers): Promise<string>;
}

export function createGreetingTranscript(): GreetingTranscript {
  let parts: string[] = [];
  return {
    add: (text) => parts.push(text),
    clear: () => (parts = []),
    async collect(listener, timers) {
      if (listener) {
        listener.flushNow();
        await Promise.race([
          listener.finalsIn(),
          timers.sleep(GREETING_FINAL_WAIT_MS).catch(() => undefined),
        ]);
      }
      const heard = [...parts, listener?.pendingText() ?? ''].join(' ').replace(/\s+/g, ' ').trim();
      parts = [];
      return heard;
    },
  };
}
