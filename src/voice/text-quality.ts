import type { ModelCallTiming } from '../conversation/index.ts';
import { percentile } from './quality.ts';

// The `quality` of a text-mode call (WIRE.md section 4; voice calls get quality.ts). Text has no
// audio, so the latency of a turn is the agent's share of it: from the other side's line to the
// model's first token. Media figures (packet loss, jitter) are null.

export interface TextCallQuality {
  mode: 'text';
  turns: number;
  latency_ms: { p50: number | null; p95: number | null };
  per_turn: { turn: number; first_token_ms: number | null; model_ms: number }[];
  interruptions: number;
  packet_loss: null;
  jitter_ms: null;
}

export function textCallQuality(modelCalls: readonly ModelCallTiming[], interruptions = 0): TextCallQuality {
  // The first model call of each turn is the one the other side waits for.
  const firstOfTurn = new Map<number, ModelCallTiming>();
  for (const call of modelCalls) if (!firstOfTurn.has(call.turn)) firstOfTurn.set(call.turn, call);
  const perTurn = [...firstOfTurn.values()].map((c) => ({
    turn: c.turn,
    first_token_ms: c.firstTokenMs,
    model_ms: c.lastTokenMs,
  }));
  const latencies = perTurn
    .map((t) => t.first_token_ms)
    .filter((v): v is number => v !== null)
    .sort((a, b) => a - b);
  return {
    mode: 'text',
    turns: perTurn.length,
    latency_ms: { p50: percentile(latencies, 50), p95: percentile(latencies, 95) },
    per_turn: perTurn,
    interruptions,
    packet_loss: null,
    jitter_ms: null,
  };
}
