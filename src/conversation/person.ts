import type { ChatMessage, LLM } from '../providers/index.ts';
import {
  builtinOpening,
  builtinReply,
  DEFAULT_CALLER_OPENING,
  PERSON_GOODBYE,
  type PersonRole,
  type PersonTurn,
} from './person-builtin.ts';
import { soundsLikeGoodbye, type Persona } from './person-facts.ts';
import {
  LAST_TURN_INSTRUCTION,
  OPENING_INSTRUCTION,
  personSystemPrompt,
  spokenLine,
} from './person-prompt.ts';

// The simulated person: the far end of a `sim` call (a callee) and, for simulations, a caller
// phoning an agent. It has the shape of telephony's `Callee` without importing it (conversation
// may not import telephony). On a real model it is role-played by the model; on the offline
// builtin model it follows fixed rules (person-builtin.ts, docs/builtin-model.md).

export type { Persona, PersonaValue } from './person-facts.ts';
export type { PersonRole, PersonTurn } from './person-builtin.ts';

export interface SimulatedPerson {
  /** The first words on answering (callee) or on being answered (caller). */
  opening(): Promise<string>;
  /** What the person says to the agent's line; `hangUp` ends the call after it. Never throws. */
  reply(agentSaid: string, signal?: AbortSignal): Promise<PersonTurn>;
}

export interface SimulatedPersonOptions {
  llm: LLM;
  model?: string;
  role: PersonRole;
  persona: Persona;
  /** Replies before the person says goodbye; the last one hangs up (default 6). */
  maxTurns?: number;
  /** Varies the builtin person's wording deterministically (e.g. the call id). */
  seed?: string;
}

export const DEFAULT_PERSON_MAX_TURNS = 6;
/** Said when the model fails: the person gives up politely. */
export const PERSON_FALLBACK = 'Sorry, I have to go now. Goodbye!';
const CALLEE_OPENING = 'Hello?';

export function createSimulatedPerson(options: SimulatedPersonOptions): SimulatedPerson {
  const maxTurns = Math.max(1, options.maxTurns ?? DEFAULT_PERSON_MAX_TURNS);
  if (options.llm.name === 'builtin') return builtinPerson(options, maxTurns);
  return modelPerson(options, maxTurns);
}

function builtinPerson(options: SimulatedPersonOptions, maxTurns: number): SimulatedPerson {
  let turn = 0;
  return {
    async opening() {
      return builtinOpening(options.role, options.persona);
    },
    async reply(agentSaid) {
      turn += 1;
      return builtinReply(agentSaid, {
        role: options.role,
        persona: options.persona,
        seed: options.seed ?? '',
        turn,
        maxTurns,
      });
    },
  };
}

function modelPerson(options: SimulatedPersonOptions, maxTurns: number): SimulatedPerson {
  const system: ChatMessage = { role: 'system', content: personSystemPrompt(options.role, options.persona) };
  // The person's own view of the call: the agent's lines are the "user", its own the "assistant".
  const history: ChatMessage[] = [];
  let turn = 0;
  let done = false;

  async function complete(extra: ChatMessage[], signal?: AbortSignal): Promise<string> {
    let text = '';
    for await (const chunk of options.llm.chat({
      model: options.model,
      messages: [system, ...history, ...extra],
      temperature: 0.8,
      maxTokens: 150,
      signal,
    })) {
      if (chunk.type === 'text') text += chunk.text;
    }
    return spokenLine(text, options.persona.name);
  }

  return {
    async opening() {
      let line = CALLEE_OPENING;
      if (options.role === 'caller') {
        try {
          line =
            (await complete([{ role: 'system', content: OPENING_INSTRUCTION }])) || DEFAULT_CALLER_OPENING;
        } catch {
          line = builtinOpening('caller', options.persona);
        }
      }
      history.push({ role: 'assistant', content: line });
      return line;
    },
    async reply(agentSaid, signal) {
      if (done) return { text: '', hangUp: true };
      turn += 1;
      history.push({ role: 'user', content: agentSaid });
      const last = turn >= maxTurns;
      let text: string;
      try {
        text = await complete(last ? [{ role: 'system', content: LAST_TURN_INSTRUCTION }] : [], signal);
      } catch {
        // A failing model must not leave the call hanging or break the carrier: give up politely.
        text = signal?.aborted ? '' : PERSON_FALLBACK;
        done = true;
        return { text, hangUp: true };
      }
      if (signal?.aborted) {
        done = true;
        return { text: '', hangUp: true };
      }
      if (text === '') text = last ? PERSON_GOODBYE : 'Sorry, could you say that again?';
      history.push({ role: 'assistant', content: text });
      const hangUp = last || soundsLikeGoodbye(text) || soundsLikeGoodbye(agentSaid);
      done = hangUp;
      return { text, hangUp };
    },
  };
}
