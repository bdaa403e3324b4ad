import type { Clock, Logger } from '../core/index.ts';
import type { AgentRuntime } from '../runtime/index.ts';
import type { SpeechRegistry } from '../speech/index.ts';
import type { Call, Store, Workspace } from '../store/index.ts';
import type { Carrier } from '../telephony/index.ts';
import type { CallSpeech } from '../voice/index.ts';
import type { CallRecordings } from './recording.ts';
import type { CallWriter } from './writer.ts';
import type { SlotRelease } from './releases.ts';
import type { TurnLog } from './turn-log.ts';

// What the parts of the call lifecycle share (service.ts builds it once): the store and its
// group-committed writers, the carriers and speech, and the running calls of this process.

/** The server's speech for voice calls, or why it has none (then audio legs fail clearly). */
export type SpeechChoice = { speech: CallSpeech } | { missing: string };

export interface CallContext {
  store: Store;
  runtime: AgentRuntime;
  carriers: Record<string, Carrier>;
  speech: SpeechChoice;
  /** Chooses each voice call's own speech (its agent's voice, hosted providers, failover). */
  speechRegistry?: SpeechRegistry;
  /** Where calls of agents with `is_recording` are recorded; null: not on this server. */
  recordings: CallRecordings | null;
  clock: Clock;
  logger: Logger;
  node: string;
  writer: CallWriter;
  /** Keeps running calls' completed turns durable as they come. */
  turnLog: TurnLog;
  releaseSlot: (release: SlotRelease) => Promise<Call | null>;
  /** Runs after-the-call work a few calls at a time. */
  afterCallWork: <T>(fn: () => Promise<T>) => Promise<T>;
  /** Told when a slot was released (the dialer refills it). */
  onSlotReleased?: (call: Call) => void;
  /** Woken after a commit that queued a webhook. */
  webhooks?: { wake(): void };
  /** Admits waiting calls of a workspace (a slot was freed). */
  admit(workspaceId: string): Promise<void>;
  /** Tracks a call running in this process until `run` settles. */
  track(workspace: Workspace, callId: string, run: (signal: AbortSignal) => Promise<void>): void;
  /** A tracked call was answered: its load on this process starts (headroom.ts). */
  talking(callId: string): void;
}
