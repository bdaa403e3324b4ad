import { ParleyError } from '../../core/index.ts';
import type { AudioFrame, SampleRate } from '../../media/index.ts';

// The speech seams (DESIGN.md sections 5 and 6), shaped after livekit/agents-js: a provider opens
// one stream per call; audio goes in as 20 ms frames, results come out as an async stream. Every
// adapter (offline defaults, hosted vendors, the testing fakes) passes the same contract suite.
// Streams never block the caller: `push` only queues, work happens off the caller's turn.

// ---- VAD ------------------------------------------------------------------------------------

export type VADEvent =
  /** Speech began; `at` is the start of its first speech frame. */
  | { kind: 'speech_start'; at: number }
  /**
   * Speech stopped; `at` is the end of its last speech frame (not when the silence was confirmed),
   * `speechMs` how long it lasted.
   */
  | { kind: 'speech_end'; at: number; speechMs: number };

export interface VADOptions {
  /** Speech shorter than this is noise (default 60 ms). */
  minSpeechMs?: number;
  /** Silence this long ends speech (default 200 ms); the voice session's endpointing waits longer. */
  minSilenceMs?: number;
}

export interface VADStream {
  /** Feeds one frame (any of the supported rates); frames must be pushed in time order. */
  push(frame: AudioFrame): void;
  /** Speech probability (0..1) of the last frame judged; for meters and tests. */
  readonly probability: number;
  /** Events in order; ends after `close()`. */
  readonly events: AsyncIterable<VADEvent>;
  close(): void;
}

export interface VAD {
  /** `silero`, `energy`, `fake`... */
  readonly name: string;
  stream(options?: VADOptions): VADStream;
}

// ---- STT ------------------------------------------------------------------------------------

export interface STTResult {
  /** `partial` results may change; a `final` one closes an utterance. */
  kind: 'partial' | 'final';
  text: string;
  /** ms on the clock the adapter was given, when the result was produced. */
  at: number;
  /** 0..1 when the engine gives one. */
  confidence?: number;
  /**
   * On a partial: the recognizer judged that the speaker has finished (Deepgram's `speech_final`
   * or `UtteranceEnd`); the voice session may end the turn now instead of waiting its patience.
   */
  endOfUtterance?: boolean;
}

export interface STTOptions {
  /** BCP 47 tag, e.g. `en-US`. Adapters that cannot honour it say so in their docs. */
  language?: string;
  /** Words to favour (`transcriber_keywords`); ignored by engines that cannot use them. */
  keywords?: string[];
  /**
   * The rate the frames will come at (the call leg's: 8000 on telephone legs). Hosted adapters
   * that connect before the first frame open their stream at this rate instead of resampling up;
   * a frame at another rate is still accepted (resampled). Default 16000.
   */
  sampleRate?: SampleRate;
  /** Aborting closes the stream; results end. */
  signal?: AbortSignal;
}

export interface STTStream {
  /** Feeds one frame of the caller's audio (any rate; the adapter resamples to its own). */
  push(frame: AudioFrame): void;
  /**
   * The voice session decided the utterance ended: finish it now. A `final` result (text may be
   * '') follows promptly for every flush after audio was pushed.
   */
  flush(): void;
  /** Results in order; ends after `close()` or on failure (the iterator then throws an STTError). */
  readonly results: AsyncIterable<STTResult>;
  close(): void;
}

export interface STT {
  /** `pocketsphinx`, `deepgram`, `fake`... */
  readonly name: string;
  /** Whether it sends `partial` results. */
  readonly partials: boolean;
  stream(options?: STTOptions): STTStream;
}

// ---- TTS ------------------------------------------------------------------------------------

export interface TTSOptions {
  /** The provider's voice id; the adapter's default when absent. */
  voice?: string;
  /** 1 = normal; 0.5 half as fast, 2 twice (`voice_speed`). */
  speed?: number;
  /**
   * The rate the call needs (8000 for telephone legs). An adapter whose vendor can produce it
   * asks for it; others produce their own rate. Every frame states its rate either way.
   */
  sampleRate?: SampleRate;
  /** The agent's voice tuning (`voice_stability`, ...), 0..1; used by vendors that take them. */
  tuning?: VoiceTuning;
  /** BCP 47 tag of the text (`language`); vendors that take it get it. */
  language?: string;
  /** Aborting stops synthesis within one chunk; audio ends. */
  signal?: AbortSignal;
}

/** The agent's published voice settings, as vendors such as ElevenLabs take them. */
export interface VoiceTuning {
  stability?: number;
  similarityBoost?: number;
  style?: number;
}

/** A piece of synthesized speech: frames of one segment of the text pushed. */
export interface SynthesizedAudio {
  /** One 20 ms frame (the last of a segment may be shorter). */
  frame: AudioFrame;
  /** Which segment (0, 1, ...: the n-th `flush`) the frame belongs to. */
  segment: number;
  /** The text of the segment; set on its first frame only. */
  text?: string;
  /** Set on the last frame of a segment. */
  last?: boolean;
}

export interface TTSStream {
  /** Adds text (tokens or whole sentences) to the current segment. */
  pushText(text: string): void;
  /** Closes the current segment: synthesize it now (the voice session flushes per sentence). */
  flush(): void;
  /** No more text; audio ends after the last segment. */
  endInput(): void;
  /** Audio in order, segment by segment; throws a TTSError on failure. */
  readonly audio: AsyncIterable<SynthesizedAudio>;
  close(): void;
}

export interface TTS {
  /** `flite`, `elevenlabs`, `fake`... */
  readonly name: string;
  /** The rate of the frames it produces. */
  readonly sampleRate: SampleRate;
  stream(options?: TTSOptions): TTSStream;
}

// ---- Hosted providers -------------------------------------------------------------------------

/**
 * Whether a hosted provider's settings work (its key, base URL, model, voice), found by asking
 * the vendor, not mid-call: checked at start and on the workspace's provider read. `reason` names
 * what is wrong and never contains the key.
 */
export type ProviderHealth =
  | { ok: true }
  | {
      ok: false;
      problem: 'bad_key' | 'unreachable' | 'bad_model' | 'bad_voice' | 'bad_response';
      reason: string;
    };

/** A voice a hosted TTS offers (`GET /v2/voices`). */
export interface VendorVoice {
  /** The vendor's own voice id (what `agent.voice_id` holds). */
  id: string;
  name: string;
  gender: 'male' | 'female' | 'neutral' | null;
  /** BCP 47 tags. */
  languages: string[];
  description: string;
  /** The vendor's own sample, when it publishes one. */
  previewUrl?: string;
}

/** A hosted STT (Deepgram, OpenAI-compatible, ...). */
export interface HostedSTT extends STT {
  check(signal?: AbortSignal): Promise<ProviderHealth>;
}

/** A hosted TTS (ElevenLabs, OpenAI-compatible, Cartesia, ...). */
export interface HostedTTS extends TTS {
  check(signal?: AbortSignal): Promise<ProviderHealth>;
  /** The voices the key can use. */
  voices(signal?: AbortSignal): Promise<VendorVoice[]>;
}

// ---- Errors ---------------------------------------------------------------------------------

export type SpeechErrorCode =
  'stt_unavailable' | 'stt_failed' | 'tts_unavailable' | 'tts_failed' | 'vad_failed';

/** A speech provider failure; `retryable` says whether trying again can help. */
export class SpeechError extends ParleyError {
  override name = 'SpeechError';
  constructor(description: string, code: SpeechErrorCode, retryable: boolean, cause?: unknown) {
    super(description, { code, status: 502, category: 'critical', retryable, cause });
  }
}
