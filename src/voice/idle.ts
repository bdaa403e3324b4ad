import type { Clock } from '../core/index.ts';
import { IDLE_REMINDER_LEAD_MS } from './limits.ts';
import type { Timers } from './timers.ts';

// Caller silence after the agent has finished speaking. While everyone is quiet, a reminder is
// due `reminder.afterMs` after the agent last stopped (again after each reminder), and the call
// ends once the silence has lasted `allowedMs` in all, counted from the first quiet moment after
// the caller's last activity (reminders do not restart it; caller speech or keys do). A reminder
// that would come less than IDLE_REMINDER_LEAD_MS before that end is skipped.

export interface IdleWatchOptions {
  clock: Clock;
  timers: Timers;
  allowedMs: number;
  reminderMs: number | null;
  onReminder(): void;
  onTimeout(): void;
}

export interface IdleWatch {
  /** Nobody is speaking and the agent has nothing queued. */
  quiet(): void;
  /** The agent is speaking again (a reminder or a reply); the silence so far still counts. */
  busy(): void;
  /** The caller spoke or pressed a key: the silence starts over. */
  activity(): void;
  stop(): void;
}

export function createIdleWatch(options: IdleWatchOptions): IdleWatch {
  const { clock, timers } = options;
  let idleSince: number | null = null;
  let quietSince: number | null = null;
  let cancel: (() => void) | null = null;
  let stopped = false;

  const disarm = () => {
    cancel?.();
    cancel = null;
  };

  function arm() {
    disarm();
    if (stopped || idleSince === null || quietSince === null) return;
    const now = clock.now();
    const endAt = idleSince + options.allowedMs;
    const remindAt = options.reminderMs === null ? Infinity : quietSince + options.reminderMs;
    if (remindAt + IDLE_REMINDER_LEAD_MS <= endAt) {
      cancel = timers.after(remindAt - now, () => {
        cancel = null;
        quietSince = null;
        options.onReminder();
      });
    } else {
      cancel = timers.after(endAt - now, () => {
        cancel = null;
        stopped = true;
        options.onTimeout();
      });
    }
  }

  return {
    quiet() {
      if (quietSince !== null) return;
      const now = clock.now();
      idleSince ??= now;
      quietSince = now;
      arm();
    },
    busy() {
      quietSince = null;
      disarm();
    },
    activity() {
      idleSince = null;
      quietSince = null;
      disarm();
    },
    stop() {
      stopped = true;
      disarm();
    },
  };
}
