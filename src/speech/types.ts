import type { SpeechVendor, SttVendor, TtsVendor, VendorSettings } from '../core/index.ts';
import type {
  HostedSTT,
  HostedTTS,
  ProviderHealth,
  SpeechSwitch,
  STT,
  TTS,
  VAD,
} from '../providers/index.ts';

// The speech of calls (docs/speech-providers.md): which recognizer and synthesizer each call
// uses, in which order they stand in for each other, and the voice it speaks with.

/** Builds a vendor's adapter from its settings (src/app.ts maps vendors to adapters). */
export interface SpeechVendorFactories {
  stt: Partial<Record<SttVendor, (settings: VendorSettings) => HostedSTT>>;
  tts: Partial<Record<TtsVendor, (settings: VendorSettings) => HostedTTS>>;
}

/** The engines that need no network: the last resort of every call. */
export interface OfflineSpeech {
  vad: VAD;
  /** null: PocketSphinx is not installed (`sttMissing` says what to install). */
  stt: STT | null;
  sttMissing?: string;
  tts: TTS;
  /** The offline TTS's default voice, and every voice it speaks. */
  voice: string;
  voices: readonly string[];
}

/** The agent's published fields that choose its speech. */
export interface AgentSpeechFields {
  voice_id?: string | null;
  fallback_voice_id?: string | null;
  transcriber_provider?: string | null;
}

/** The voice a call speaks with, and why that one. */
export interface VoiceChoice {
  /** The agent's `voice_id` (null: none named). */
  requested: string | null;
  /** Whether some configured provider serves the requested voice. */
  available: boolean;
  /** The voice spoken with first, and its provider. */
  voice: string;
  provider: string;
  /** Why another voice than the requested one speaks; absent when it is the requested one. */
  reason?: string;
}

/** What a call's quality record says of its speech. */
export interface SpeechReport {
  /** The recognizers and synthesizers in the order the call would use them. */
  stt: string[];
  tts: string[];
  voice: VoiceChoice;
  /** Each provider dropped during the call. */
  switches: SpeechSwitch[];
}

/** One call's speech: what the voice session runs on, and the report for its record. */
export interface CallSpeechPlan {
  speech: { vad: VAD; stt: STT; tts: TTS; voice?: string; voices?: readonly string[] };
  report(): SpeechReport;
}

/** A vendor as the workspace's provider read shows it (keys are never shown). */
export interface ProviderStatus {
  vendor: SpeechVendor | 'pocketsphinx' | 'flite';
  /** Whose settings: the workspace's own, the server's, or built in (the offline engines). */
  source: 'workspace' | 'server' | 'builtin';
  kinds: ('stt' | 'tts')[];
  baseUrl: string | null;
  sttModel: string | null;
  ttsModel: string | null;
  voice: string | null;
  apiKeySet: boolean;
  health: ProviderHealth;
  /** When the health was found (ms). */
  checkedAt: number;
}
