// What the failover wrappers (stt-failover.ts, tts-failover.ts) report when they drop a provider
// for the rest of a call: the call's `quality` lists these, so a record says which provider
// served each turn and why one was dropped.

export interface SpeechSwitch {
  kind: 'stt' | 'tts';
  /** The provider dropped (its `name`). */
  from: string;
  /** The provider that serves from now on. */
  to: string;
  /** Why: the provider's error message, or the bound it missed. Never contains a key. */
  reason: string;
  /** When the failure was seen (ms of the wrapper's clock). */
  at: number;
}

/** The reason of a failure, short and without secrets (adapters keep keys out of messages). */
export function reasonOf(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  return message.length > 300 ? `${message.slice(0, 297)}...` : message;
}

/**
 * The speech part of a voice call's `quality` record (JSON, snake_case, times in ms from the
 * answer): the providers in the order the call would use them, its voice and why that one, and
 * each provider dropped.
 */
export interface SpeechQuality {
  stt_providers: string[];
  tts_providers: string[];
  voice: { requested: string | null; available: boolean; voice: string; provider: string; reason?: string };
  switches: { kind: 'stt' | 'tts'; from: string; to: string; reason: string; at: number }[];
}
