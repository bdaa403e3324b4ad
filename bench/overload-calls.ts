// One run of the `overload` case: Parley's app (src/app.ts createApp, embedded SQLite in a temp
// dir) in THIS process, so its event loop, and so its load gate, carries the calls it runs. N sim
// voice calls are placed through the API (POST /v2/calls, provider `sim`), evenly over a ramp; the
// sim answers each with the voice case's far end (data speech, timed on the pacer's own stamps:
// bench/voice-calls.ts), and each caller says a few lines, then hangs up once the last one was
// answered. The run ends when every call has ended (or at a deadline) and reads the calls back.
import { monitorEventLoopDelay, performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { createApp } from '../src/app.ts';
import { loadConfig, silentLogger } from '../src/core/index.ts';
import { createEnergyVAD, createModelRouter } from '../src/providers/index.ts';
import { createFakeSTT, createFakeTTS } from '../src/providers/testing/index.ts';
import type { Call } from '../src/store/index.ts';
import { PATIENCE_MS, type VoiceQuality } from '../src/voice/index.ts';
import { BENCH_API_KEY, tempDir } from './lib.ts';
import {
  CallProbe,
  FrameStats,
  GREETING,
  REPLY,
  createDelayedLLM,
  createProbedFarEnd,
  talkativeCallee,
  type TalkativeCallee,
} from './voice-calls.ts';
import { calibratePreciseClock } from './voice-stats.ts';

export const PATIENCE = 'low' as const;
const FROM = '+14155550142';
const FINAL = new Set(['completed', 'failed', 'canceled', 'no-answer', 'busy']);

export interface OverloadRunOptions {
  calls: number;
  /** PARLEY_MAX_EVENT_LOOP_LAG_MS of the app: 0 turns the gate off. */
  gateMs: number;
  /** PARLEY_MAX_EVENT_LOOP_BUSY_PERCENT of the app: 0 turns that bound off. */
  busyPercent: number;
  /** PARLEY_MAX_NEW_CALLS_PER_S of the app (the gate's pacing of new calls; 0: none). */
  newPerS: number;
  /** PARLEY_CALL_LOAD_TARGET_PERCENT of the app (the headroom's busy target; 0: none). */
  loadTarget: number;
  /** Placements are spread evenly over this long (ms). */
  rampMs: number;
  /** Lines each caller says before it hangs up. */
  lines: number;
  /** The run gives up waiting for the calls to end after this long (ms). */
  deadlineMs: number;
}

/** One placed call as it ended, with its far end's view. */
export interface PlacedCall {
  call: Call;
  probe: CallProbe | null;
  callee: TalkativeCallee | null;
}

export interface OverloadRun {
  options: OverloadRunOptions;
  calls: PlacedCall[];
  stats: FrameStats;
  /** Event-loop delay over the run (ms), as perf_hooks measures it (10 ms resolution). */
  eld: { p99: number; max: number };
  /** The event loop's busy share (0-1) in each second of the run. */
  busy: number[];
  /** Most calls running in this process at once (sampled every 250 ms). */
  peakRunning: number;
  /** From the first placement to the last call's end (ms). */
  durationMs: number;
  /** Whether every call ended before the deadline. */
  allEnded: boolean;
}

export async function runOverload(options: OverloadRunOptions): Promise<OverloadRun> {
  const stats = new FrameStats();
  // The sim asks for a call's callee, then (synchronously after it) connects its far end: the
  // probes queue in that order.
  const connecting: CallProbe[] = [];
  const byCall = new Map<string, { probe: CallProbe; callee: TalkativeCallee }>();
  let answered = 0;
  const config = loadConfig({
    HOST: '127.0.0.1',
    PORT: '0',
    PARLEY_DATA_DIR: tempDir('overload-data'),
    PARLEY_BOOTSTRAP_API_KEY: BENCH_API_KEY,
    PARLEY_LOG_LEVEL: 'warn',
    PARLEY_NODE_NAME: 'bench',
    PARLEY_MAX_EVENT_LOOP_LAG_MS: String(options.gateMs),
    PARLEY_MAX_EVENT_LOOP_BUSY_PERCENT: String(options.busyPercent),
    PARLEY_MAX_NEW_CALLS_PER_S: String(options.newPerS),
    PARLEY_CALL_LOAD_TARGET_PERCENT: String(options.loadTarget),
  });
  const app = await createApp(config, {
    logger: silentLogger(),
    announce: () => undefined,
    models: createModelRouter({ platform: createDelayedLLM(REPLY, () => 0, []) }),
    speech: {
      choice: { speech: { vad: createEnergyVAD(), stt: createFakeSTT(), tts: createFakeTTS() } },
      farEnd: createProbedFarEnd(
        () => {
          const probe = connecting.shift();
          if (!probe) throw new Error('a far end started listening without a callee');
          return probe;
        },
        { edge: true },
      ),
      close: async () => undefined,
    },
    simCallee: ({ callId }) => {
      const probe = new CallProbe(answered, stats);
      const callee = talkativeCallee(answered++, options.lines);
      connecting.push(probe);
      byCall.set(callId, { probe, callee });
      return callee;
    },
  });
  try {
    if (app.bootstrap.kind !== 'created') throw new Error('the bench workspace was not created');
    const workspaceId = app.bootstrap.workspaceId;
    // Slots must not be what holds calls back: only the gate may.
    await app.store.workspaces.update(workspaceId, { maxConcurrentCalls: 10_000 });
    const api = async (method: 'GET' | 'POST', url: string, payload?: object) => {
      const res = await app.api.inject({
        method,
        url,
        headers: { authorization: `Bearer ${BENCH_API_KEY}` },
        ...(payload ? { payload } : {}),
      });
      if (res.statusCode !== 200) throw new Error(`${method} ${url}: ${res.statusCode} ${res.body}`);
      return res.json() as { response: Record<string, unknown> };
    };
    await api('POST', '/v2/custom-numbers', { phone_number: FROM, provider: 'sim' });
    const agent = await api('POST', '/v2/assistants', {
      type: 'outbound',
      name: 'overload bench',
      phone_number: FROM,
      agent: {
        prompt: 'You are a helpful scheduling agent for Northwind.',
        greeting_message: GREETING,
        greeting_message_mode: 'agent_static',
        patience_level: PATIENCE,
      },
    });
    const modelId = String(agent.response.model_id);

    calibratePreciseClock();
    const eld = monitorEventLoopDelay({ resolution: 10 });
    eld.enable();
    stats.reset();
    stats.measuring = true;
    let peakRunning = 0;
    const watch = setInterval(() => (peakRunning = Math.max(peakRunning, app.engine.calls.running)), 250);
    const busy: number[] = [];
    let lastUse = performance.eventLoopUtilization();
    const busyWatch = setInterval(() => {
      const use = performance.eventLoopUtilization();
      busy.push(performance.eventLoopUtilization(use, lastUse).utilization);
      lastUse = use;
    }, 1000);
    const ids: string[] = [];
    const t0 = performance.now();
    for (let i = 0; i < options.calls; i += 1) {
      const due = t0 + (i * options.rampMs) / options.calls - performance.now();
      if (due > 0) await sleep(due);
      const placed = await api('POST', '/v2/calls', {
        model_id: modelId,
        // No test-number suffix (OUTCOME_BY_SUFFIX: 0000-4444): a person answers.
        phone: `+1415556${5000 + i}`,
        name: 'Ann Lee',
      });
      ids.push(String(placed.response.call_id));
    }
    const unfinished = async () => {
      let n = 0;
      for (const status of ['pending', 'ringing', 'in-progress'])
        n += (await app.store.calls.list(workspaceId, { status, limit: 1, offset: 0 })).total;
      return n;
    };
    const deadline = t0 + options.deadlineMs;
    let allEnded = false;
    while (performance.now() < deadline) {
      await sleep(1000);
      if ((await unfinished()) === 0) {
        allEnded = true;
        break;
      }
    }
    const durationMs = performance.now() - t0;
    clearInterval(watch);
    clearInterval(busyWatch);
    stats.measuring = false;
    stats.settle();
    eld.disable();
    const calls: PlacedCall[] = [];
    for (const id of ids) {
      const call = await app.store.calls.getById(id);
      if (!call) throw new Error(`call ${id} was not stored`);
      const far = byCall.get(id);
      calls.push({ call, probe: far?.probe ?? null, callee: far?.callee ?? null });
    }
    return {
      options,
      calls,
      stats,
      eld: { p99: eld.percentile(99) / 1e6, max: eld.max / 1e6 },
      busy,
      peakRunning,
      durationMs,
      allEnded: allEnded && calls.every((c) => FINAL.has(c.call.status)),
    };
  } finally {
    await app.close();
  }
}

/**
 * Per reply turn of the run: the caller's end of speech (VAD, the record's `end_of_speech_at`) to
 * the reply's first frame leaving the leg, minus the patience wait (the fakes take no time). The
 * record's times count from the session's start, which the far end does not see: it is taken as
 * the earliest (frame left − record's `first_frame_out_at`) over the call's turns, so a share may
 * read up to one pacer tick (5 ms) low.
 */
export function leavingShares(calls: readonly PlacedCall[]): number[] {
  const patience = PATIENCE_MS[PATIENCE];
  const shares: number[] = [];
  for (const { call, probe } of calls) {
    const quality = call.quality as VoiceQuality | null;
    if (!probe || quality?.mode !== 'voice') continue;
    const turns = quality.per_turn.filter((t) => t.first_frame_out_at !== null);
    const runs = probe.sendRuns;
    // First guess: the greeting's frame left with the first run. Each turn's run is the one nearest
    // that guess (runs are seconds apart); the earliest offset of them is the time zero.
    const greeting = turns.find((t) => t.kind === 'greeting');
    if (!greeting || runs.length === 0) continue;
    const guess = runs[0]! - greeting.first_frame_out_at!;
    let zero = guess;
    for (const t of turns) {
      const at = guess + t.first_frame_out_at!;
      const near = runs.reduce((a, b) => (Math.abs(b - at) < Math.abs(a - at) ? b : a));
      // A turn with no run of its own (cut off) has none that near.
      if (Math.abs(near - at) < 1000) zero = Math.min(zero, near - t.first_frame_out_at!);
    }
    const leftAt = (at: number) => runs.find((r) => r >= zero + at - 1);
    for (const t of turns) {
      if (t.kind !== 'reply' || t.end_of_speech_at === null) continue;
      const left = leftAt(t.first_frame_out_at!);
      if (left !== undefined) shares.push(left - (zero + t.end_of_speech_at) - patience);
    }
  }
  return shares;
}
