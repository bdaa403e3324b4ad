import type { Clock } from '../core/index.ts';
import type { ConversationSession, Ending } from '../conversation/index.ts';
import { LLMError } from '../providers/index.ts';
import type { CallLeg, TextLeg } from '../telephony/index.ts';
import type { CallStatus, EndCallReason } from './status.ts';

// A connected call in text mode (the sim's fast path): the agent's conversation session talks
// with the far end of a text leg until one side ends it, the maximum duration passes, or the call
// is canceled. Audio legs run the voice session instead.
// Voicemail: an answering machine gets the agent's voicemail message when one is enabled (then
// `left_voicemail`), else the call hangs up (`hangup_on_voicemail`).

export interface VoicemailSettings {
  enabled?: boolean;
  mode?: 'exact_message' | 'prompt';
  exact_message?: string;
  prompt?: string;
}

export interface ConverseOptions {
  leg: CallLeg & { text: TextLeg };
  session: ConversationSession;
  clock: Clock;
  /** Seconds from answer; absent or disabled: no limit. */
  maxDuration?: { duration_seconds?: number; is_enabled?: boolean };
  voicemail?: VoicemailSettings;
  /** Aborting hangs up (the call was canceled). */
  signal?: AbortSignal;
}

export interface ConverseResult {
  status: Extract<CallStatus, 'completed' | 'left_voicemail' | 'hangup_on_voicemail' | 'failed' | 'canceled'>;
  endCallReason: EndCallReason;
  customEndCallReason: string | null;
  errorMessage: string | null;
}

/** Said when the model fails for a turn; the call goes on. */
export const CALL_FALLBACK_LINE = "Sorry, I didn't get that. Could you say it again?";
/** Said when the maximum duration is reached. */
export const MAX_DURATION_LINE = "I'm sorry, we've run out of time. Thank you for your time, goodbye!";

function fromEnding(ending: Ending): Pick<ConverseResult, 'endCallReason' | 'customEndCallReason'> {
  switch (ending.kind) {
    case 'custom_end_call':
      return { endCallReason: 'custom_end_call', customEndCallReason: ending.customReason };
    case 'human_goodbye':
      return { endCallReason: 'human_goodbye', customEndCallReason: null };
    default:
      return { endCallReason: 'agent_goodbye', customEndCallReason: null };
  }
}

const done = (
  status: ConverseResult['status'],
  endCallReason: EndCallReason,
  extra: Partial<ConverseResult> = {},
): ConverseResult => ({ status, endCallReason, customEndCallReason: null, errorMessage: null, ...extra });

export async function converse(options: ConverseOptions): Promise<ConverseResult> {
  const { leg, clock } = options;
  const stop = new AbortController();
  const cancel = () => stop.abort('canceled');
  options.signal?.addEventListener('abort', cancel, { once: true });
  let timedOut = false;
  const limit = options.maxDuration;
  if (limit?.is_enabled && (limit.duration_seconds ?? 0) > 0) {
    clock.sleep((limit.duration_seconds ?? 0) * 1000, stop.signal).then(
      () => {
        timedOut = true;
        stop.abort('max_duration');
      },
      () => undefined,
    );
  }
  try {
    return await talk(options, stop.signal, () => timedOut);
  } finally {
    options.signal?.removeEventListener('abort', cancel);
    if (!stop.signal.aborted) stop.abort('done');
    await leg.hangup();
  }
}

async function talk(
  options: ConverseOptions,
  signal: AbortSignal,
  timedOut: () => boolean,
): Promise<ConverseResult> {
  const { leg, session } = options;
  const text = leg.text;
  // Set once the far end is gone: its last words ("bye") get no answer nobody would hear.
  let hungUp = false;
  void leg.ended.then(() => {
    hungUp = true;
  });

  if (text.answeredBy === 'machine') {
    const greeting = await text.listen(signal);
    if (greeting) await session.hear(greeting);
    const vm = options.voicemail;
    const message = vm?.enabled ? (vm.mode === 'prompt' ? vm.prompt : vm.exact_message)?.trim() : '';
    if (message) {
      await session.speak(message);
      await text.say(message);
      return done('left_voicemail', 'voicemail_message_left');
    }
    return done('hangup_on_voicemail', 'voicemail');
  }

  const ended = (): ConverseResult | null => {
    if (timedOut()) return done('completed', 'max_duration');
    if (signal.aborted) return done('canceled', 'undefined');
    return null;
  };

  try {
    const opening = await session.start({ signal });
    if (opening.reply) await text.say(opening.reply);
    for (;;) {
      const stopped = ended();
      if (stopped) return await closeForTime(stopped, session, text);
      const heard = await text.listen(signal);
      const afterListen = ended();
      if (afterListen) return await closeForTime(afterListen, session, text);
      if (heard === null) {
        session.end({ kind: 'human_goodbye' });
        return done('completed', session.userTurns === 0 ? 'human_pick_up_cut_off' : 'human_goodbye');
      }
      if (heard.trim() === '') continue;
      if (hungUp) {
        await session.hear(heard);
        session.end({ kind: 'human_goodbye' });
        return done('completed', 'human_goodbye');
      }
      let reply: string | null;
      try {
        reply = (await session.respond(heard, { signal })).reply;
      } catch (err) {
        if (!(err instanceof LLMError)) throw err;
        await session.recordExchange(heard, CALL_FALLBACK_LINE);
        reply = CALL_FALLBACK_LINE;
      }
      if (reply) await text.say(reply);
      if (session.ended) return done('completed', 'undefined', fromEnding(session.ended));
    }
  } catch (err) {
    const stopped = ended();
    if (stopped) return await closeForTime(stopped, session, text);
    return done('failed', 'undefined', { errorMessage: err instanceof Error ? err.message : String(err) });
  }
}

async function closeForTime(result: ConverseResult, session: ConversationSession, text: TextLeg) {
  if (result.endCallReason === 'max_duration') {
    await session.speak(MAX_DURATION_LINE);
    await text.say(MAX_DURATION_LINE);
    session.end({ kind: 'agent_goodbye' });
  }
  return result;
}
