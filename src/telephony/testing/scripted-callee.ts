import type { Callee, CalleeTurn } from '../sim/index.ts';

// A scripted far end for tests: an opening line, then one scripted turn per line it hears. It
// records what it heard, so tests can assert what reached the far end.

/** A turn: its text (kept on the line), a full turn, or a function of what the agent said. */
export type ScriptedCalleeTurn = string | CalleeTurn | ((agentSaid: string) => string | CalleeTurn);

export interface ScriptedCalleeOptions {
  /** The first words on answering; '' waits silently (default 'Hello?'). */
  opening?: string;
  /** What to do once the script has run out (default: hang up without a word). */
  afterScript?: CalleeTurn;
}

export interface ScriptedCallee extends Callee {
  /** Every line the callee heard, in order. */
  readonly heard: readonly string[];
}

export function createScriptedCallee(
  turns: ScriptedCalleeTurn[],
  options: ScriptedCalleeOptions = {},
): ScriptedCallee {
  const heard: string[] = [];
  return {
    heard,
    async opening() {
      return options.opening ?? 'Hello?';
    },
    async reply(agentSaid) {
      const step = turns[heard.length];
      heard.push(agentSaid);
      if (step === undefined) return options.afterScript ?? { text: '', hangUp: true };
      const turn = typeof step === 'function' ? step(agentSaid) : step;
      return typeof turn === 'string' ? { text: turn, hangUp: false } : turn;
    },
  };
}
