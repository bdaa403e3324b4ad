import type { Clock } from '../core/index.ts';
import type { AudioFrame } from '../media/index.ts';
import { createBeepDetector, type BeepEvent } from './beep.ts';
import { VOICEMAIL_SCREEN_MS } from './limits.ts';
import type { Timers } from './timers.ts';
import { createFirstRunWatch, soundsLikeMachine, type MachineReason } from './voicemail.ts';

// Screening the far end for an answering machine during the first VOICEMAIL_SCREEN_MS of a call
// (voicemail.ts says what counts): VAD events time its first run of speech (with a timer for the
// moment it becomes too long), transcripts are checked for a mailbox's words, and frames go to
// the beep detector. The first sign decides, once; keys pressed or the window passing mean a
// person. After a verdict the beep detector keeps running, so the session knows when a beep ends.

export interface MachineScreen {
  /** Still deciding. */
  readonly active: boolean;
  /** A beep is sounding now. */
  readonly toneInProgress: boolean;
  /** Stops deciding (a person: keys were pressed; or the call is ending). */
  stop(): void;
  /** One frame (cheap); `end` when a beep has just ended. */
  frame(frame: AudioFrame): BeepEvent;
  speechStart(at: number): void;
  speechEnd(at: number): void;
  /** A transcript (partial or final); true when it decided that a machine answered. */
  text(text: string, now: number): boolean;
  /** The carrier's verdict: a machine decides at once while screening; a person changes nothing. */
  carrierSaid(who: 'human' | 'machine'): void;
  /** The far end's words were taken as a turn (not a machine's): its first run of speech is over. */
  turnTaken(): void;
}

export interface MachineScreenOptions {
  clock: Clock;
  timers: Timers;
  /** The patience delay: a pause this long ends the far end's first run of speech. */
  patienceMs: number;
  enabled: boolean;
  onMachine(reason: MachineReason): void;
}

export function createMachineScreen(options: MachineScreenOptions): MachineScreen {
  const { clock, timers } = options;
  const firstRun = createFirstRunWatch(options.patienceMs);
  const beep = createBeepDetector();
  let active = options.enabled;
  let cancelLongRun: () => void = () => undefined;
  const cancelWindow = active ? timers.after(VOICEMAIL_SCREEN_MS, () => stop()) : () => undefined;

  function stop() {
    active = false;
    cancelLongRun();
    cancelWindow();
  }

  function decide(reason: MachineReason): true {
    stop();
    options.onMachine(reason);
    return true;
  }

  return {
    get active() {
      return active;
    },
    get toneInProgress() {
      return beep.toneHz > 0;
    },
    stop,
    carrierSaid(who) {
      if (active && who === 'machine') decide('carrier');
    },
    turnTaken() {
      if (!active) return;
      cancelLongRun();
      firstRun.turnTaken();
    },
    frame(frame) {
      const event = beep.push(frame);
      if (event === 'beep' && active) decide('beep');
      return event;
    },
    speechStart(at) {
      if (!active) return;
      firstRun.speechStart(at);
      const due = firstRun.dueAt();
      cancelLongRun();
      if (due === null) return;
      cancelLongRun = timers.after(due - clock.now(), () => {
        if (active && firstRun.isLong(clock.now())) decide('long_greeting');
      });
    },
    speechEnd(at) {
      if (!active) return;
      cancelLongRun();
      firstRun.speechEnd(at);
      if (firstRun.isLong(at)) decide('long_greeting');
    },
    text(text, now) {
      if (!active) return false;
      if (soundsLikeMachine(text)) return decide('phrase');
      if (firstRun.isLong(now)) return decide('long_greeting');
      return false;
    },
  };
}
