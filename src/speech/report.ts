import type { SpeechQuality } from '../providers/index.ts';
import type { SpeechReport } from './types.ts';

// The speech part of a call's `quality` record: the providers in the order the call would use
// them, the voice and why, each provider dropped (ms from the answer, like the rest of the
// record), and on each agent turn which recognizer heard it and which synthesizer spoke it.

interface TurnTimes {
  stt_final_at: number | null;
  tts_first_audio_at: number | null;
}

/** The provider of `kind` serving at `at` (ms from the answer): the last switch before it says. */
function servingAt(
  report: SpeechReport,
  kind: 'stt' | 'tts',
  answeredAt: number,
  at: number | null,
): string | null {
  const chain = kind === 'stt' ? report.stt : report.tts;
  if (at === null) return null;
  let serving = chain[0] ?? null;
  for (const change of report.switches)
    if (change.kind === kind && change.at - answeredAt <= at) serving = change.to;
  return serving;
}

/** The record's speech part, and its turns marked with the providers that served them. */
export function speechQuality<T extends TurnTimes>(
  report: SpeechReport,
  answeredAt: number,
  turns: readonly T[],
): { speech: SpeechQuality; turns: (T & { stt_provider: string | null; tts_provider: string | null })[] } {
  return {
    speech: {
      stt_providers: report.stt,
      tts_providers: report.tts,
      voice: { ...report.voice },
      switches: report.switches.map((s) => ({
        kind: s.kind,
        from: s.from,
        to: s.to,
        reason: s.reason,
        at: Math.max(0, s.at - answeredAt),
      })),
    },
    turns: turns.map((turn) => ({
      ...turn,
      stt_provider: servingAt(report, 'stt', answeredAt, turn.stt_final_at),
      tts_provider: servingAt(report, 'tts', answeredAt, turn.tts_first_audio_at),
    })),
  };
}
