import { isCompleteUtterance } from './complete-utterance.ts';
import type { PatienceLevel } from './settings.ts';

// How long after the caller stops speaking (VAD speech end) the turn is taken as finished and the
// STT is flushed. `patience_level` picks the wait; a transcript that already reads as complete
// (a question, a short yes/no/thanks) halves it.

export const PATIENCE_MS: Readonly<Record<PatienceLevel, number>> = { low: 400, medium: 800, high: 1400 };

export function endpointDelayMs(patience: PatienceLevel, latestTranscript: string): number {
  const full = PATIENCE_MS[patience];
  return isCompleteUtterance(latestTranscript) ? Math.round(full / 2) : full;
}
