// The voice call's `quality` record (DESIGN.md section 5): per agent turn, when each stage of the
// pipeline finished, and per call the latency percentiles, interruptions and who talked how
// long, and what the leg's transport counted of the media (loss, jitter, frames). Plain JSON
// (snake_case like the text-mode CallQuality); times are ms from the answer.
import type { LinkStats } from '../media/index.ts';
import type { SpeechQuality } from '../providers/index.ts';
import type { Contour } from './pitch.ts';

export type TurnKind = 'reply' | 'greeting' | 'reminder' | 'closing' | 'voicemail';

/** Clock times (ms) of one agent turn as the session measured them; null when not reached. */
export interface TurnMarks {
  kind: TurnKind;
  /** VAD speech end of the caller's last utterance of the turn (`at` of the event). */
  /** The caller's first speech of the line this turn answers. */
  speechStartAt: number | null;
  endOfSpeechAt: number | null;
  /** When endpointing flushed the STT. */
  endpointAt: number | null;
  /** When the STT final arrived. */
  sttFinalAt: number | null;
  /** The model's first text or tool call. */
  modelFirstTokenAt: number | null;
  /** The first piece of text sent to the synthesizer. */
  firstSentenceAt: number | null;
  /** The synthesizer's first frame. */
  ttsFirstAudioAt: number | null;
  /** When the reply's first frame is due out: queued time plus what was queued before it. */
  firstFrameOutAt: number | null;
  /** When barge-in cut the turn off. */
  interruptedAt: number | null;
  /** The caller's pitch where the line this turn answers ended. */
  pitchAtEnd: Contour | null;
}

export interface VoiceTurnQuality {
  turn: number;
  kind: TurnKind;
  /** When the caller began the line this turn answers (ms from the answer). */
  speech_start_at: number | null;
  end_of_speech_at: number | null;
  endpoint_at: number | null;
  stt_final_at: number | null;
  model_first_token_at: number | null;
  first_sentence_at: number | null;
  tts_first_audio_at: number | null;
  first_frame_out_at: number | null;
  interrupted_at: number | null;
  /** End of speech to endpoint: the patience wait. */
  endpointing_ms: number | null;
  /** Endpoint (flush) to STT final. */
  stt_ms: number | null;
  /** STT final to the model's first token. */
  model_ms: number | null;
  /** First token to the first sentence sent to TTS. */
  chunking_ms: number | null;
  /** First sentence to the first TTS frame. */
  tts_ms: number | null;
  /** First TTS frame to its playout time. */
  playout_ms: number | null;
  /** End of speech to the first frame out: what the caller waits. */
  total_ms: number | null;
  /** The caller's pitch at that end of speech: `fall`, `level`, `unknown`; null without one. */
  pitch_at_end: Contour | null;
  /** The recognizer that heard the turn and the synthesizer that spoke it (calls with a speech plan). */
  stt_provider?: string | null;
  tts_provider?: string | null;
}

export interface VoiceQuality {
  mode: 'voice';
  /** Agent turns answering the caller's speech (the ones with a latency). */
  turns: number;
  /** End of caller speech to the first frame of the reply. */
  latency_ms: { p50: number | null; p95: number | null };
  per_turn: VoiceTurnQuality[];
  interruptions: number;
  talk_ms: { caller: number; agent: number };
  /** Time nobody spoke (call duration minus both talk times, at least 0). */
  silence_ms: number;
  duration_ms: number;
  /** Frames from the leg that were not audio the session could use (wrong length, rate or time). */
  dropped_frames: number;
  /**
   * The fraction (0..1, 4 decimals) of the far end's frames its sequence numbers say were sent and
   * never came; null when the leg has no such figure (no sequence numbers, or a leg that counts
   * nothing).
   */
  packet_loss: number | null;
  /** The far end's interarrival jitter (RFC 3550) in ms, 1 decimal; null when the leg has none. */
  jitter_ms: number | null;
  /** The transport's frame counts; only when the leg reports them (WebSocket media). */
  link?: VoiceLinkQuality;
  /** Which speech providers served the call, its voice, and any provider dropped. */
  speech?: SpeechQuality;
}

/** What the leg's transport counted, in frames of 20 ms (see LinkStats). */
export interface VoiceLinkQuality {
  frames_in: number;
  frames_lost: number;
  frames_late: number;
  frames_reordered: number;
  frames_refused: number;
  frames_out: number;
}

export interface VoiceQualityInput {
  startedAt: number;
  endedAt: number;
  turns: readonly TurnMarks[];
  interruptions: number;
  callerSpeechMs: number;
  agentSpeechMs: number;
  droppedFrames: number;
  /** The leg's link statistics at the end of the call, when it reports them. */
  link?: LinkStats | null;
}

/** Nearest-rank percentile of sorted values. */
export function percentile(sorted: readonly number[], p: number): number | null {
  if (sorted.length === 0) return null;
  const index = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[index] ?? null;
}

const roundTo = (value: number | null, decimals: number): number | null => {
  if (value === null || !Number.isFinite(value)) return null;
  const scale = 10 ** decimals;
  return Math.round(value * scale) / scale;
};

const span = (from: number | null, to: number | null) =>
  from === null || to === null ? null : Math.max(0, Math.round(to - from));

export function voiceQuality(input: VoiceQualityInput): VoiceQuality {
  const rel = (at: number | null) => (at === null ? null : Math.round(at - input.startedAt));
  const perTurn = input.turns.map((t, i): VoiceTurnQuality => ({
    turn: i + 1,
    kind: t.kind,
    speech_start_at: rel(t.speechStartAt),
    end_of_speech_at: rel(t.endOfSpeechAt),
    endpoint_at: rel(t.endpointAt),
    stt_final_at: rel(t.sttFinalAt),
    model_first_token_at: rel(t.modelFirstTokenAt),
    first_sentence_at: rel(t.firstSentenceAt),
    tts_first_audio_at: rel(t.ttsFirstAudioAt),
    first_frame_out_at: rel(t.firstFrameOutAt),
    interrupted_at: rel(t.interruptedAt),
    endpointing_ms: span(t.endOfSpeechAt, t.endpointAt),
    stt_ms: span(t.endpointAt, t.sttFinalAt),
    model_ms: span(t.sttFinalAt, t.modelFirstTokenAt),
    chunking_ms: span(t.modelFirstTokenAt, t.firstSentenceAt),
    tts_ms: span(t.firstSentenceAt, t.ttsFirstAudioAt),
    playout_ms: span(t.ttsFirstAudioAt, t.firstFrameOutAt),
    total_ms: span(t.endOfSpeechAt, t.firstFrameOutAt),
    pitch_at_end: t.pitchAtEnd,
  }));
  const latencies = perTurn
    .filter((t) => t.kind === 'reply')
    .map((t) => t.total_ms)
    .filter((v): v is number => v !== null)
    .sort((a, b) => a - b);
  const duration = Math.max(0, Math.round(input.endedAt - input.startedAt));
  const caller = Math.round(input.callerSpeechMs);
  const agent = Math.round(input.agentSpeechMs);
  const link = input.link ?? null;
  return {
    mode: 'voice',
    turns: perTurn.filter((t) => t.kind === 'reply' && t.end_of_speech_at !== null).length,
    latency_ms: { p50: percentile(latencies, 50), p95: percentile(latencies, 95) },
    per_turn: perTurn,
    interruptions: input.interruptions,
    talk_ms: { caller, agent },
    silence_ms: Math.max(0, duration - caller - agent),
    duration_ms: duration,
    dropped_frames: input.droppedFrames,
    packet_loss: roundTo(link?.packetLoss ?? null, 4),
    jitter_ms: roundTo(link?.jitterMs ?? null, 1),
    ...(link
      ? {
          link: {
            frames_in: link.framesIn,
            frames_lost: link.framesLost,
            frames_late: link.framesLate,
            frames_reordered: link.framesReordered,
            frames_refused: link.framesRefused,
            frames_out: link.framesOut,
          },
        }
      : {}),
  };
}
