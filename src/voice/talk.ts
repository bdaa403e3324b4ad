import type { Clock } from '../core/index.ts';
import type { ConversationSession } from '../conversation/index.ts';
import type { MediaLeg } from '../media/index.ts';
import type { STT, TTS, VAD } from '../providers/index.ts';
import { outcome, type AnsweredBy, type VoiceCallOutcome } from './outcome.ts';
import type { VoiceQuality } from './quality.ts';
import { runVoiceCall, type VoiceLogger } from './session.ts';
import { voiceSettingsOf, type VoiceAgentFields } from './settings.ts';
import { runTextCall, type TextTurns } from './text-call.ts';
import { textCallQuality, type TextCallQuality } from './text-quality.ts';

// One connected call, whatever the leg carries: audio runs the real-time voice session on the
// server's speech providers; a text leg (the sim's fast path) runs text turns. This is the one
// entry the call lifecycle uses, so `calls` needs neither the conversation engine nor providers.

/** The speech providers calls run on (chosen in src/app.ts). */
export interface CallSpeech {
  vad: VAD;
  stt: STT;
  tts: TTS;
  /** The TTS's voice when the agent names none it knows; default the TTS's own. */
  voice?: string;
  /** The voice ids the TTS speaks: an agent's `voice_id` among them is used. */
  voices?: readonly string[];
}

export interface TalkOptions {
  leg: MediaLeg & { readonly text?: TextTurns | undefined };
  conversation: ConversationSession;
  /** The agent's voice settings, in their published names (the stored spec). */
  agent: VoiceAgentFields & { voice_id?: string | null };
  /** null: this server has no speech (then only text legs can talk). */
  speech: CallSpeech | null;
  /** Why `speech` is null, for the failed call's error message. */
  speechMissing?: string;
  clock: Clock;
  /** Listen for an answering machine (outbound calls). */
  detectVoicemail: boolean;
  signal?: AbortSignal;
  logger?: VoiceLogger;
  /** Voice calls: told when the agent's last turn has played out or been cut (session.ts). */
  onTurnsSettled?: () => void;
  /** Voice calls: see VoiceCallOptions.exposeSpoken. */
  exposeSpoken?: (spoken: () => Promise<void>) => void;
}

export interface TalkResult extends VoiceCallOutcome {
  answeredBy: AnsweredBy;
  quality: VoiceQuality | TextCallQuality;
}

/** The voice a call speaks with: the agent's when the TTS has it, else the server's default. */
export function callVoice(speech: CallSpeech, agentVoice: string | null | undefined): string | undefined {
  return agentVoice && speech.voices?.includes(agentVoice) ? agentVoice : speech.voice;
}

export async function talk(options: TalkOptions): Promise<TalkResult> {
  const { leg, conversation, clock } = options;
  const settings = voiceSettingsOf(options.agent);
  const text = leg.text;
  if (text) {
    const result = await runTextCall({
      leg: { hangup: () => leg.hangup(), ended: leg.ended, text },
      session: conversation,
      clock,
      maxDurationMs: settings.maxDurationMs,
      voicemailMessage: settings.voicemailMessage,
      ...(options.signal ? { signal: options.signal } : {}),
    });
    return { ...result, answeredBy: text.answeredBy, quality: textCallQuality(conversation.modelCalls) };
  }
  const speech = options.speech;
  if (!speech) {
    await leg.hangup();
    return {
      ...outcome('failed', 'undefined', {
        errorMessage: `this server cannot run voice calls: ${options.speechMissing ?? 'no speech providers'}`,
      }),
      answeredBy: 'human',
      quality: textCallQuality([]),
    };
  }
  const ttsVoice = callVoice(speech, options.agent.voice_id);
  return runVoiceCall({
    leg,
    conversation,
    vad: speech.vad,
    stt: speech.stt,
    tts: speech.tts,
    ...(ttsVoice ? { ttsVoice } : {}),
    clock,
    settings,
    detectVoicemail: options.detectVoicemail,
    ...(options.signal ? { signal: options.signal } : {}),
    ...(options.logger ? { logger: options.logger } : {}),
    ...(options.onTurnsSettled ? { onTurnsSettled: options.onTurnsSettled } : {}),
    ...(options.exposeSpoken ? { exposeSpoken: options.exposeSpoken } : {}),
  });
}
