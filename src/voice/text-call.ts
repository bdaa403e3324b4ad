import type { Clock } from '../core/index.ts';
import type { ConversationSession } from '../conversation/index.ts';
import type { MediaLeg } from '../media/index.ts';
import { LLMError } from '../providers/index.ts';
import {
  CALL_FALLBACK_LINE,
  MAX_DURATION_LINE,
  outcome as done,
  outcomeOfEnding,
  type AnsweredBy,
  type VoiceCallOutcome,
} from './outcome.ts';

// A connected call in text mode (a simulator's fast path for load tests of the platform around
// calls): the agent's conversation session talks with the far end of a text leg until one side
// ends it, the maximum duration passes, or the call is canceled. Audio legs run the voice session
// (session.ts) instead. Text carries no audio to detect a machine from, so the far end says who
// answered. Voicemail: an answering machine gets the agent's voicemail message when one is enabled
// (then `left_voicemail`), else the call hangs up (`hangup_on_voicemail`).

/** Turns of text instead of audio (the sim's fast path); telephony's TextLeg has this shape. */
export interface TextTurns {
  /** The far end's next utterance; null once the leg has ended. */
  listen(signal?: AbortSignal): Promise<string | null>;
  say(text: string): Promise<void>;
  readonly answeredBy: AnsweredBy;
}

export interface TextCallOptions {
  leg: Pick<MediaLeg, 'hangup' | 'ended'> & { text: TextTurns };
  session: ConversationSession;
  clock: Clock;
  /** From the answer; null: no limit. */
  maxDurationMs: number | null;
  /** Left on an answering machine; null: hang up on voicemail. */
  voicemailMessage: string | null;
  /** Aborting hangs up (the call was canceled). */
  signal?: AbortSignal;
}

export async function runTextCall(options: TextCallOptions): Promise<VoiceCallOutcome> {
  const { leg, clock } = options;
  const stop = new AbortController();
  const cancel = () => stop.abort('canceled');
  options.signal?.addEventListener('abort', cancel, { once: true });
  let timedOut = false;
  if (options.maxDurationMs !== null) {
    clock.sleep(options.maxDurationMs, stop.signal).then(
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
  options: TextCallOptions,
  signal: AbortSignal,
  timedOut: () => boolean,
): Promise<VoiceCallOutcome> {
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
    const message = options.voicemailMessage;
    if (message) {
      await session.speak(message);
      await text.say(message);
      return done('left_voicemail', 'voicemail_message_left');
    }
    return done('hangup_on_voicemail', 'voicemail');
  }

  const ended = (): VoiceCallOutcome | null => {
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
      if (session.ended) return outcomeOfEnding(session.ended);
    }
  } catch (err) {
    const stopped = ended();
    if (stopped) return await closeForTime(stopped, session, text);
    return done('failed', 'undefined', { errorMessage: err instanceof Error ? err.message : String(err) });
  }
}

async function closeForTime(result: VoiceCallOutcome, session: ConversationSession, text: TextTurns) {
  if (result.endCallReason === 'max_duration') {
    await session.speak(MAX_DURATION_LINE);
    await text.say(MAX_DURATION_LINE);
    session.end({ kind: 'agent_goodbye' });
  }
  return result;
}
