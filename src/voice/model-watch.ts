import { MODEL_FIRST_TOKEN_TIMEOUT_MS } from './limits.ts';
import type { Timers } from './timers.ts';

// A model call that gives no first token (text or a tool call) within MODEL_FIRST_TOKEN_TIMEOUT_MS
// has stalled: the call cannot go on. Armed when a turn starts, disarmed by its first token, and
// armed again when a tool returns (the model is called again with the tool's result).

export interface ModelWatch {
  answered(): void;
  restart(): void;
  stop(): void;
}

export function watchModel(timers: Timers, onStall: (err: Error) => void): ModelWatch {
  let cancel: () => void = () => undefined;
  let stopped = false;
  const arm = () => {
    cancel();
    cancel = timers.after(MODEL_FIRST_TOKEN_TIMEOUT_MS, () => {
      if (!stopped)
        onStall(new Error(`the model did not answer within ${MODEL_FIRST_TOKEN_TIMEOUT_MS / 1000} s`));
    });
  };
  arm();
  return {
    answered() {
      cancel();
      cancel = () => undefined;
    },
    restart() {
      if (!stopped) arm();
    },
    stop() {
      stopped = true;
      cancel();
    },
  };
}
