// Case `voice`: the real-time voice path in ONE process, as Parley runs it (see voice-calls.ts for
// the harness, voice-offline.ts for part 3).
//
// 1. Platform share of response time: fake STT/model/TTS of known latency (final 50 ms after the
//    flush; first token 100-119 ms after the call, varied per turn so that replies become ready at
//    every phase of the 20 ms beat; first audio 50 ms after each sentence). Per reply turn: from
//    the caller's end of speech (VAD, the `quality` record) to the agent's first frame queued on
//    the leg, and to that frame leaving the leg on the beat, minus the patience wait and the fakes'
//    latencies. At 1 call and at PARLEY_BENCH_VOICE_SHARE_CALLS calls.
// 2. Concurrent calls with zero-latency fakes and the energy VAD, each talking continuously, while
//    the app (createApp, embedded SQLite) in this process serves API load from a child process:
//    frame-send lateness vs the 20 ms grid, playout underruns, CPU, memory, event-loop delay. One
//    step (PARLEY_BENCH_VOICE_BASELINE calls) again without API load.
// 3. Offline defaults end to end (voice-offline.ts).
//
// Knobs: PARLEY_BENCH_VOICE_PARTS (share,load,offline), PARLEY_BENCH_VOICE_STEPS (50,...,500),
// PARLEY_BENCH_VOICE_BASELINE (300; 0 = none), PARLEY_BENCH_VOICE_STEP_S (20),
// PARLEY_BENCH_VOICE_API_RATE (100 req/s), PARLEY_BENCH_VOICE_SINGLE_S (90),
// PARLEY_BENCH_VOICE_SHARE_CALLS (200), PARLEY_BENCH_VOICE_SHARE_S (30),
// PARLEY_BENCH_VOICE_SENTENCES (50), PARLEY_BENCH_VOICE_OFFLINE_CONCURRENCY (2),
// PARLEY_BENCH_VOICE_OFFLINE_PATIENCE (the agent's patience_level in part 3: medium),
// PARLEY_BENCH_VOICE_PACER (worker: frames leave from the pacer worker as Parley runs them; caller:
// from the sim's beat on the main thread, the way they left before the worker, for comparison).
import { loadavg } from 'node:os';
import { PerformanceObserver, constants, monitorEventLoopDelay } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { Resampler } from '../src/media/index.ts';
import { createEnergyVAD } from '../src/providers/index.ts';
import { createFakeSTT, createFakeTTS } from '../src/providers/testing/index.ts';
import {
  PATIENCE_MS,
  isCompleteUtterance,
  type PatienceLevel,
  type VoiceQuality,
} from '../src/voice/index.ts';
import type { CaseContext } from './api.ts';
import { intEnv, machine, markdownTable, partsEnv, stepsEnv, textTable, writeResultsSection } from './lib.ts';
import { startApiLoad, startInProcessApp, type ApiLoadResult } from './voice-api.ts';
import { CALLER_LINES, FrameStats, runCalls, type CallRun } from './voice-calls.ts';
import { LEAD_LINE, runOffline, type OfflineResult, type OfflineRun } from './voice-offline.ts';
import type { CallerVoice } from './voice-pauses.ts';
import { calibratePreciseClock, collectGarbage, toPrecise, fmt, percentileOf } from './voice-stats.ts';

const PARTS = ['share', 'load', 'offline'] as const;
type Part = (typeof PARTS)[number];

const RAMP_MS = 5_000;
const SETTLE_MS = 3_000;
const PATIENCE = 'low' as const;
const STT_MS = 50;
const TTS_MS = 50;
const LLM_MS = 100;
/** The model's first-token delay: LLM_MS plus 0-19 ms, a different phase of the beat each turn. */
const llmDelay = (call: number, turn: number) => LLM_MS + ((call * 7 + turn * 13) % 20);
const SHARE_TARGET_MS = 20;
const JITTER_TARGET_MS = 5;
const TARGET_CALLS = 300;

interface VoiceBenchSettings {
  parts: Set<Part>;
  steps: number[];
  baseline: number;
  stepS: number;
  apiRate: number;
  singleS: number;
  shareCalls: number;
  shareS: number;
  sentences: number;
  offlineConcurrency: number;
  offlinePatience: PatienceLevel;
  offlineVoices: CallerVoice[];
  pacer: Pacer;
}

type Pacer = 'worker' | 'caller';

function pacerEnv(): Pacer {
  const raw = process.env.PARLEY_BENCH_VOICE_PACER ?? 'worker';
  if (raw !== 'worker' && raw !== 'caller')
    throw new Error(`PARLEY_BENCH_VOICE_PACER must be worker or caller, got "${raw}"`);
  return raw;
}

function patienceEnv(name: string): PatienceLevel {
  const raw = process.env[name] || 'medium';
  if (raw !== 'low' && raw !== 'medium' && raw !== 'high')
    throw new Error(`${name} must be low, medium or high, got "${raw}"`);
  return raw;
}

function callerVoicesEnv(name: string): CallerVoice[] {
  const raw = (process.env[name] || 'flite,espeak-ng').split(',').map((v) => v.trim());
  for (const v of raw)
    if (v !== 'flite' && v !== 'espeak-ng') throw new Error(`${name} takes flite and espeak-ng, got "${v}"`);
  return raw as CallerVoice[];
}

function voiceSettings(): VoiceBenchSettings {
  return {
    parts: partsEnv('PARLEY_BENCH_VOICE_PARTS', PARTS),
    steps: stepsEnv('PARLEY_BENCH_VOICE_STEPS', '50,100,200,300,400,500'),
    baseline: intEnv('PARLEY_BENCH_VOICE_BASELINE', 300, 0, 2000),
    stepS: intEnv('PARLEY_BENCH_VOICE_STEP_S', 20, 5, 300),
    apiRate: intEnv('PARLEY_BENCH_VOICE_API_RATE', 100, 1, 10_000),
    singleS: intEnv('PARLEY_BENCH_VOICE_SINGLE_S', 90, 10, 600),
    shareCalls: intEnv('PARLEY_BENCH_VOICE_SHARE_CALLS', 200, 1, 2000),
    shareS: intEnv('PARLEY_BENCH_VOICE_SHARE_S', 30, 5, 300),
    sentences: intEnv('PARLEY_BENCH_VOICE_SENTENCES', 50, 1, 50),
    offlineConcurrency: intEnv('PARLEY_BENCH_VOICE_OFFLINE_CONCURRENCY', 2, 1, 8),
    offlinePatience: patienceEnv('PARLEY_BENCH_VOICE_OFFLINE_PATIENCE'),
    offlineVoices: callerVoicesEnv('PARLEY_BENCH_VOICE_OFFLINE_VOICES'),
    pacer: pacerEnv(),
  };
}

/** Rough upper bound of the case's run time, in seconds, for the watchdog. */
export function voicePhaseSeconds(): number {
  const s = voiceSettings();
  const step = (measureS: number) => (RAMP_MS + SETTLE_MS) / 1000 + measureS + 15;
  let total = 0;
  if (s.parts.has('share')) total += step(s.singleS) + step(s.shareS);
  if (s.parts.has('load')) total += 20 + (s.steps.length + (s.baseline > 0 ? 1 : 0)) * step(s.stepS);
  // Whole, hesitation and phrase sentences, each at 16 and 8 kHz, per caller voice: about 10 s a
  // call (espeak-ng's have a first line and its answer: about 20 s).
  const callS = s.offlineVoices.reduce((n, v) => n + (v === 'flite' ? 10 : 20), 0);
  if (s.parts.has('offline')) total += 60 + (6 * s.sentences * callS) / s.offlineConcurrency;
  return Math.ceil(total);
}

// ---- part 1: the platform's share --------------------------------------------------------------

interface ShareTurn {
  /** End of speech to the first frame queued, minus the patience wait and the fakes' latencies. */
  processing: number;
  /** The same to the frame leaving the leg on its beat. */
  leaving: number;
  /** Queued to leaving: the wait for the next beat. */
  beatWait: number;
  /** How much later the frame left than the record's `first_frame_out_at`. */
  recordGap: number;
  endpointing: number;
  stt: number;
  model: number;
  chunking: number;
  tts: number;
  /** The record's end of speech to first frame (`total_ms`). */
  recordTotal: number;
}

/** Reply turns whose end of speech fell in the window, with the fakes' latencies taken out. */
function shareTurns(run: CallRun, latencies: { stt: number; tts: number }): ShareTurn[] {
  const patience = PATIENCE_MS[PATIENCE];
  const turns: ShareTurn[] = [];
  for (const { probe, result } of run.calls) {
    const quality = result.quality as VoiceQuality;
    if (quality.mode !== 'voice') continue;
    const replies = quality.per_turn.filter((t) => t.kind === 'reply');
    replies.forEach((t, k) => {
      const llm = probe.llmDelays[k];
      if (
        t.end_of_speech_at === null ||
        t.first_frame_out_at === null ||
        t.endpointing_ms === null ||
        t.stt_ms === null ||
        t.model_ms === null ||
        t.chunking_ms === null ||
        t.tts_ms === null ||
        t.total_ms === null ||
        llm === undefined
      )
        return;
      const eos = probe.startedAt + t.end_of_speech_at;
      if (eos < run.windowStart || eos > run.windowEnd) return;
      const queued = probe.playRuns.find((at) => at >= eos);
      const sent = probe.sendRuns.find((at) => at >= eos);
      if (queued === undefined || sent === undefined) return;
      const known = patience + latencies.stt + llm + latencies.tts;
      turns.push({
        processing: queued - eos - known,
        leaving: sent - eos - known,
        beatWait: sent - queued,
        recordGap: sent - (probe.startedAt + t.first_frame_out_at),
        endpointing: t.endpointing_ms - patience,
        stt: t.stt_ms - latencies.stt,
        model: t.model_ms - llm,
        chunking: t.chunking_ms,
        tts: t.tts_ms - latencies.tts,
        recordTotal: t.total_ms,
      });
    });
  }
  return turns;
}

interface ShareRow {
  calls: number;
  turns: ShareTurn[];
  unexpected: number;
}

async function runShare(calls: number, measureS: number, pacer: Pacer): Promise<ShareRow> {
  const stats = new FrameStats();
  const run = await runCalls({
    calls,
    rampMs: calls > 1 ? RAMP_MS : 0,
    settleMs: calls > 1 ? SETTLE_MS : 0,
    measureMs: measureS * 1000,
    speech: {
      vad: createEnergyVAD(),
      stt: createFakeSTT({ latencyMs: STT_MS }),
      tts: createFakeTTS({ latencyMs: TTS_MS }),
    },
    patience: PATIENCE,
    llmDelay,
    stats,
    pacer,
  });
  return { calls, turns: shareTurns(run, { stt: STT_MS, tts: TTS_MS }), unexpected: run.unexpected.length };
}

// ---- part 2: concurrent calls under API load ---------------------------------------------------

interface StepRow {
  calls: number;
  api: boolean;
  stats: FrameStats;
  sendOver5: number;
  replies: number[];
  leaving: number[];
  cpuCorePct: number;
  rssPerCallMiB: number;
  heapPerCallMiB: number;
  eld: { p50: number; p99: number; max: number };
  gc: {
    count: number;
    totalMs: number;
    maxMs: number;
    maxMinorMs: number;
    maxMajorMs: number;
    inWorstMs: number;
  };
  /** Times the OS took the CPU from this process while it could run (other work on the machine). */
  preempted: number;
  load: ApiLoadResult | null;
  unexpected: string[];
  loadAvg: number;
}

const MiB = 2 ** 20;

async function runStep(
  calls: number,
  apiUrl: string | null,
  rate: number,
  stepS: number,
  pacer: Pacer,
): Promise<StepRow> {
  calibratePreciseClock();
  collectGarbage();
  const before = process.memoryUsage();
  const stats = new FrameStats();
  const eld = monitorEventLoopDelay({ resolution: 10 });
  const loadS = Math.ceil((RAMP_MS + SETTLE_MS) / 1000 + stepS) + 1;
  const load = apiUrl ? startApiLoad(apiUrl, rate, loadS) : null;
  let cpu0 = process.cpuUsage();
  let switches0 = 0;
  let preempted = NaN;
  let wall0 = 0;
  let cpuCorePct = NaN;
  let during = before;
  // Garbage collections in the window (not the ones the bench forces at its end).
  const gcs: { start: number; end: number; major: boolean }[] = [];
  const gcObserver = new PerformanceObserver((list) => {
    if (!stats.measuring) return;
    for (const e of list.getEntries()) {
      const kind = (e as { detail?: { kind?: number } }).detail?.kind ?? 0;
      gcs.push({
        start: toPrecise(e.startTime),
        end: toPrecise(e.startTime + e.duration),
        major: kind !== constants.NODE_PERFORMANCE_GC_MINOR,
      });
    }
  });
  gcObserver.observe({ entryTypes: ['gc'] });
  const run = await runCalls({
    calls,
    rampMs: RAMP_MS,
    settleMs: SETTLE_MS,
    measureMs: stepS * 1000,
    speech: { vad: createEnergyVAD(), stt: createFakeSTT(), tts: createFakeTTS() },
    patience: PATIENCE,
    llmDelay: () => 0,
    stats,
    pacer,
    onWindowStart: () => {
      eld.enable();
      cpu0 = process.cpuUsage();
      switches0 = process.resourceUsage().involuntaryContextSwitches;
      wall0 = performance.now();
    },
    onWindowEnd: () => {
      const cpu = process.cpuUsage(cpu0);
      cpuCorePct = ((cpu.user + cpu.system) / 1000 / (performance.now() - wall0)) * 100;
      preempted = process.resourceUsage().involuntaryContextSwitches - switches0;
      eld.disable();
      collectGarbage();
      during = process.memoryUsage();
    },
  });
  gcObserver.disconnect();
  const loadResult = load ? await load : null;
  const turns = shareTurns(run, { stt: 0, tts: 0 });
  const worstFrom = stats.worstAt - stats.worstLate;
  const overlap = (g: { start: number; end: number }) =>
    Math.max(0, Math.min(g.end, stats.worstAt) - Math.max(g.start, worstFrom));
  const replies: number[] = [];
  for (const { probe, result } of run.calls) {
    const quality = result.quality as VoiceQuality;
    for (const t of quality.per_turn ?? []) {
      const eos = t.end_of_speech_at === null ? NaN : probe.startedAt + t.end_of_speech_at;
      if (t.kind === 'reply' && t.total_ms !== null && eos >= run.windowStart && eos <= run.windowEnd)
        replies.push(t.total_ms);
    }
  }
  return {
    calls,
    api: apiUrl !== null,
    stats,
    sendOver5: stats.send.above(JITTER_TARGET_MS),
    replies,
    leaving: turns.map((t) => t.leaving),
    cpuCorePct,
    rssPerCallMiB: (during.rss - before.rss) / MiB / calls,
    heapPerCallMiB:
      (during.heapUsed + during.arrayBuffers - before.heapUsed - before.arrayBuffers) / MiB / calls,
    eld: { p50: eld.percentile(50) / 1e6, p99: eld.percentile(99) / 1e6, max: eld.max / 1e6 },
    gc: {
      count: gcs.length,
      totalMs: gcs.reduce((sum, g) => sum + g.end - g.start, 0),
      maxMs: gcs.reduce((max, g) => Math.max(max, g.end - g.start), 0),
      maxMinorMs: gcs.reduce((max, g) => (g.major ? max : Math.max(max, g.end - g.start)), 0),
      maxMajorMs: gcs.reduce((max, g) => (g.major ? Math.max(max, g.end - g.start) : max), 0),
      inWorstMs: gcs.reduce((sum, g) => sum + overlap(g), 0),
    },
    preempted,
    load: loadResult,
    unexpected: run.unexpected.map((u) => `${u.status}${u.error ? `: ${u.error}` : ''}`),
    loadAvg: loadavg()[0]!,
  };
}

/** What a G.711 edge at 8 kHz would add: the resampler's cost per 20 ms frame, each way (µs). */
function resamplerCost(): { down: number; up: number } {
  const down = new Resampler(16000, 8000);
  const up = new Resampler(8000, 16000);
  const wide = Int16Array.from({ length: 320 }, (_, i) => Math.round(8000 * Math.sin(i / 5)));
  const narrow = new Int16Array(down.maxOutput(320));
  const back = new Int16Array(up.maxOutput(160));
  const time = (fn: () => void) => {
    for (let i = 0; i < 5000; i += 1) fn();
    const n = 20_000;
    const t0 = performance.now();
    for (let i = 0; i < n; i += 1) fn();
    return ((performance.now() - t0) / n) * 1000;
  };
  return { down: time(() => down.process(wide, narrow)), up: time(() => up.process(narrow, back)) };
}

// ---- the case ------------------------------------------------------------------------------------

export async function runVoiceCase(ctx: CaseContext): Promise<void> {
  const s = voiceSettings();
  for (const line of CALLER_LINES) {
    const partial = line.slice(0, line.lastIndexOf(' '));
    if (isCompleteUtterance(line) || isCompleteUtterance(partial))
      throw new Error(`caller line "${line}" would shorten the patience wait`);
  }
  const started = new Date();
  const loadStart = loadavg()[0]!;
  const loads: number[] = [];
  let share: ShareRow[] = [];
  const steps: StepRow[] = [];
  let offline: OfflineResult | null = null;
  let apiRate = 0;

  if (s.parts.has('share')) {
    calibratePreciseClock();
    console.log(`share: 1 call for ${s.singleS} s...`);
    const single = await runShare(1, s.singleS, s.pacer);
    loads.push(loadavg()[0]!);
    console.log(`share: ${s.shareCalls} calls, ${s.shareS} s measured...`);
    calibratePreciseClock();
    const many = await runShare(s.shareCalls, s.shareS, s.pacer);
    loads.push(loadavg()[0]!);
    share = [single, many];
    console.log(textTable(...shareTable(share)));
  }

  if (s.parts.has('load')) {
    const app = await startInProcessApp();
    apiRate = s.apiRate;
    console.log(`load: the app listens on ${app.url} in this process`);
    // Warm the routes and the store before the first step.
    await startApiLoad(app.url, s.apiRate, 3);
    for (const calls of s.steps) {
      console.log(`load: ${calls} calls with API load (${s.stepS} s measured)...`);
      steps.push(await runStep(calls, app.url, s.apiRate, s.stepS, s.pacer));
      loads.push(steps.at(-1)!.loadAvg);
      console.log(textTable(...mediaTable(steps.slice(-1))));
      await sleep(1000);
    }
    if (s.baseline > 0) {
      console.log(`load: ${s.baseline} calls WITHOUT API load (baseline)...`);
      steps.push(await runStep(s.baseline, null, s.apiRate, s.stepS, s.pacer));
      loads.push(steps.at(-1)!.loadAvg);
    }
    await app.close();
    console.log(textTable(...mediaTable(steps)));
    console.log(textTable(...resourceTable(steps)));
  }

  if (s.parts.has('offline')) {
    offline = await runOffline({
      sentences: s.sentences,
      concurrency: s.offlineConcurrency,
      patience: s.offlinePatience,
      voices: s.offlineVoices,
    });
    loads.push(loadavg()[0]!);
    if (offline.kind === 'ran') console.log(textTable(...offlineTable(offline.runs)));
    else console.log(`offline: skipped (${offline.reason})`);
  }

  const resampler = resamplerCost();
  if (s.parts.has('share') || s.parts.has('load')) {
    writeResultsSection(
      'voice',
      report({ ctx, s, started, loadStart, loads, share, steps, apiRate, resampler }),
    );
    console.log('wrote bench/RESULTS.md (section voice)');
  }
  if (offline) {
    writeResultsSection('voice-offline', offlineReport({ ctx, s, started, offline }));
    console.log('wrote bench/RESULTS.md (section voice-offline)');
  }
}

// ---- tables and the report -------------------------------------------------------------------------

const p = (values: number[], q: number, digits = 1) => fmt(percentileOf(values, q), digits);
const met = (ok: boolean) => (ok ? 'met' : '**not met**');

function shareTable(rows: ShareRow[]): [string[], string[][]] {
  return [
    [
      'Calls',
      'Reply turns',
      'Processing share p50 / p95 / max ms',
      'Wait for the beat p50 / p95 ms',
      'Share to the frame leaving p50 / p95 / max ms',
      `Target p95 ≤ ${SHARE_TARGET_MS} ms (processing, leaving)`,
    ],
    rows.map((r) => {
      const proc = r.turns.map((t) => t.processing);
      const leave = r.turns.map((t) => t.leaving);
      const wait = r.turns.map((t) => t.beatWait);
      return [
        String(r.calls),
        String(r.turns.length),
        `${p(proc, 50)} / ${p(proc, 95)} / ${fmt(Math.max(...proc))}`,
        `${p(wait, 50)} / ${p(wait, 95)}`,
        `${p(leave, 50)} / ${p(leave, 95)} / ${fmt(Math.max(...leave))}`,
        `${met(percentileOf(proc, 95) <= SHARE_TARGET_MS)}, ${met(percentileOf(leave, 95) <= SHARE_TARGET_MS)}`,
      ];
    }),
  ];
}

function stageTable(rows: ShareRow[]): [string[], string[][]] {
  const stage = (r: ShareRow, key: keyof ShareTurn) => {
    const v = r.turns.map((t) => t[key]);
    return `${p(v, 50, 0)} / ${p(v, 95, 0)}`;
  };
  return [
    [
      'Calls',
      'Endpointing over patience',
      'STT over its latency',
      'Engine + model over its latency',
      'Chunking',
      'TTS over its latency',
      'Frame left after the record says',
      'Record total_ms',
    ],
    rows.map((r) => [
      String(r.calls),
      stage(r, 'endpointing'),
      stage(r, 'stt'),
      stage(r, 'model'),
      stage(r, 'chunking'),
      stage(r, 'tts'),
      stage(r, 'recordGap'),
      stage(r, 'recordTotal'),
    ]),
  ];
}

function mediaTable(rows: StepRow[]): [string[], string[][]] {
  return [
    [
      'Calls',
      'API load',
      'Frames sent',
      'Send lateness p50 / p99 / max ms',
      `Frames > ${JITTER_TARGET_MS} ms late`,
      'Beat wake-up p99 / max ms',
      'Beat work p50 / p99 ms',
      'Underruns (events / frames)',
      'Broken lines',
      'Reply turns',
      'Share to the frame leaving p50 / p95 ms',
      `Target (≥ ${TARGET_CALLS} calls)`,
    ],
    rows.map((r) => {
      const st = r.stats;
      return [
        String(r.calls),
        r.api ? 'yes' : 'no',
        String(st.send.count),
        `${fmt(st.send.percentile(50), 2)} / ${fmt(st.send.percentile(99), 2)} / ${fmt(st.send.max)}`,
        `${r.sendOver5} (${fmt((100 * r.sendOver5) / Math.max(1, st.send.count), 2)}%)`,
        `${fmt(st.wake.percentile(99), 2)} / ${fmt(st.wake.max)}`,
        `${fmt(st.span.percentile(50), 2)} / ${fmt(st.span.percentile(99), 2)}`,
        `${st.underrunEvents} / ${st.underrunFrames}`,
        `${st.brokenLines} of ${st.linesHeard}`,
        String(r.replies.length),
        `${p(r.leaving, 50)} / ${p(r.leaving, 95)}`,
        r.calls < TARGET_CALLS
          ? '—'
          : met(
              st.send.percentile(99) <= JITTER_TARGET_MS && st.underrunEvents === 0 && st.brokenLines === 0,
            ),
      ];
    }),
  ];
}

function resourceTable(rows: StepRow[]): [string[], string[][]] {
  return [
    [
      'Calls',
      'API load',
      'CPU (% of one core)',
      'CPU per call (% of a core)',
      'RSS per call MiB',
      'Heap + buffers per call MiB',
      'Event-loop delay p50 / p99 / max ms',
      "GC pauses: count, total ms; longest minor / major ms; GC ms in the latest frame's stall",
      'Preempted by the OS (involuntary switches)',
      'API requests (2xx / other)',
      'API latency p50 / p99 / max ms',
      'Load avg (1 min)',
      'Calls not ended by the bench',
    ],
    rows.map((r) => [
      String(r.calls),
      r.api ? 'yes' : 'no',
      fmt(r.cpuCorePct, 0),
      fmt(r.cpuCorePct / r.calls, 3),
      fmt(r.rssPerCallMiB, 3),
      fmt(r.heapPerCallMiB, 3),
      `${fmt(r.eld.p50)} / ${fmt(r.eld.p99)} / ${fmt(r.eld.max)}`,
      `${r.gc.count}, ${fmt(r.gc.totalMs, 0)}; ${fmt(r.gc.maxMinorMs)} / ${fmt(r.gc.maxMajorMs)}; ${fmt(r.gc.inWorstMs)} of ${fmt(r.stats.worstLate)}`,
      String(r.preempted),
      r.load ? `${r.load.ok} / ${r.load.non2xx + r.load.errors}` : '—',
      r.load ? `${r.load.p50} / ${r.load.p99} / ${r.load.max}` : '—',
      fmt(r.loadAvg, 1),
      r.unexpected.length === 0 ? '0' : `${r.unexpected.length} (${[...new Set(r.unexpected)].join('; ')})`,
    ]),
  ];
}

function offlineTable(runs: OfflineRun[]): [string[], string[][]] {
  return [
    [
      'Caller',
      'Said',
      'Far-end audio',
      'Calls',
      'Replies',
      'WER',
      'Sentences exact',
      'End of speech → first frame leaving p50 / p95 ms',
      'Record total_ms p50 / p95',
      'Endpointing / STT / model / chunking / TTS / playout p50 ms',
      'Pitch at the end: fall / level / unknown',
      'Callers cut off',
    ],
    runs.map((run) => {
      const real = run.calls.flatMap((c) => (c.realMs === null ? [] : [c.realMs]));
      const turns = run.calls.flatMap((c) => (c.turn ? [c.turn] : []));
      const col = (
        key: 'total_ms' | 'endpointing_ms' | 'stt_ms' | 'model_ms' | 'chunking_ms' | 'tts_ms' | 'playout_ms',
      ) => turns.flatMap((t) => (t[key] === null ? [] : [t[key]]));
      const pitch = (contour: string) => turns.filter((t) => t.pitch_at_end === contour).length;
      const cut = run.calls.filter((c) => c.cutOff).length;
      return [
        run.voice === 'flite' ? 'flite, one line' : 'espeak-ng, a first line then this',
        run.saying.kind === 'whole' ? 'whole' : `${run.saying.kind} pause of ${run.saying.ms} ms`,
        run.rate === 16000 ? '16 kHz' : '8 kHz G.711 mu-law (sox), delivered at 8 kHz',
        String(run.calls.length),
        String(real.length),
        `${fmt(run.wer * 100)}%`,
        `${run.exact} / ${run.calls.length}`,
        `${p(real, 50, 0)} / ${p(real, 95, 0)}`,
        `${p(col('total_ms'), 50, 0)} / ${p(col('total_ms'), 95, 0)}`,
        (['endpointing_ms', 'stt_ms', 'model_ms', 'chunking_ms', 'tts_ms', 'playout_ms'] as const)
          .map((k) => p(col(k), 50, 0))
          .join(' / '),
        `${pitch('fall')} / ${pitch('level')} / ${pitch('unknown')}`,
        `${cut} of ${run.calls.length} (${fmt((100 * cut) / Math.max(1, run.calls.length), 1)}%)`,
      ];
    }),
  ];
}

interface ReportInput {
  ctx: CaseContext;
  s: VoiceBenchSettings;
  started: Date;
  loadStart: number;
  loads: number[];
  share: ShareRow[];
  steps: StepRow[];
  apiRate: number;
  resampler: { down: number; up: number };
}

/** What the lateness is made of, from the figures measured (no judgement beyond them). */
function whatStalls(steps: StepRow[], pacer: Pacer): string {
  const largest = steps.reduce((a, b) => (b.calls > a.calls ? b : a));
  const workP50 = largest.stats.span.percentile(50);
  const perCallUs = (workP50 * 1000) / largest.calls;
  const heapMax = steps.reduce((m, x) => Math.max(m, x.heapPerCallMiB), 0);
  const rssMax = steps.reduce((m, x) => Math.max(m, x.rssPerCallMiB), 0);
  const gcMinor = steps.reduce((m, x) => Math.max(m, x.gc.maxMinorMs), 0);
  const gcMajor = steps.reduce((m, x) => Math.max(m, x.gc.maxMajorMs), 0);
  const eldMax = steps.reduce((m, x) => Math.max(m, x.eld.max), 0);
  const eldOverFrame = steps.some((x) => x.eld.max - 10 > x.stats.worstLate + 5);
  const memory = `Memory: at most ${fmt(heapMax, 3)} MiB of heap and buffers and ${fmt(rssMax, 3)} MiB of RSS per call, both ends
of the call included (goal ≤ 2 MB per call: ${met(heapMax <= 2 && rssMax <= 2)}).`;
  if (pacer === 'worker') {
    return `What makes the lateness: frames leave from the pacer worker, which sends the legs due at each
5 ms tick in one loop (p50 ${fmt(workP50, 2)} ms per tick at ${largest.calls} calls, about ${fmt(perCallUs, 2)} µs per call), so nearly all of
it is the worker waking late: the OS ran other threads first (the main thread and V8's GC
helpers, the API load's process, other work on the shared machine), although the worker runs at
nice -10. What stalls the main thread (event-loop delay max ${fmt(eldMax)} ms; GC pauses up to ${fmt(gcMinor)} ms
minor and ${fmt(gcMajor)} ms major) no longer delays frames already queued: it delays the replies'
processing (the share column) and the API's answers. ${memory}`;
  }
  return `What makes the lateness: the beat sends every leg's frame in one synchronous loop, so its
work grows with the calls (p50 ${fmt(workP50, 2)} ms per beat at ${largest.calls} calls, about ${fmt(perCallUs, 1)} µs per call
per beat: the leg, the session's receiver, listener and energy VAD, the fake STT while it listens,
and the harness's far end and mu-law edge), and the last legs of a beat leave that much after the
first even when nothing stalls. On top of it come garbage collections (longest minor pause
${fmt(gcMinor)} ms, major ${fmt(gcMajor)} ms; the GC column shows how much of the latest frame's stall was
GC), the OS preempting the thread (the involuntary switches; other work ran on the machine), and,
with API load, the requests' own work on the same thread.${
    eldOverFrame
      ? ' Event-loop delay max exceeds the latest frame in some steps: the loop also stalled between beats (work other than the beats waited while the beats kept their slots); the API latency p99 grows with the calls too.'
      : ''
  } ${memory}`;
}

function report(r: ReportInput): string {
  const knobs = Object.keys(process.env)
    .filter((k) => k.startsWith('PARLEY_BENCH_VOICE_'))
    .sort()
    .map((k) => `${k}=${process.env[k]}`);
  const command = [...knobs, r.ctx.command].join(' ');
  const parts: string[] = [];
  parts.push(`## Case \`voice\`: the real-time voice path in one process

- Date: ${r.started.toISOString()}
- Machine: ${machine()}
- Load: 1-minute load average ${fmt(r.loadStart)} at the start; ${r.loads.map((l) => fmt(l)).join(', ')} after
  each phase. The machine is shared: other work may run, and calls, the far ends and (part 2)
  the app all share this process's one JavaScript thread.
- Command: \`${command}\`
- Harness (bench/voice-calls.ts): one sim carrier in audio mode (one 20 ms beat for every leg),
  inbound calls started evenly over ${RAMP_MS / 1000} s, \`talk()\` on each leg (greeting mode
  \`agent_static\`, patience \`${PATIENCE}\` = ${PATIENCE_MS[PATIENCE]} ms). The far end speaks and hears
  data speech (exact words in real frames) and answers each agent line 500 ms after it ends, so
  every call talks all the time. The sim converts nothing, so the harness puts G.711 mu-law at
  the edge: every frame delivered to the session and every frame sent is mu-law encoded and
  decoded, at 16 kHz. A real G.711 leg also resamples to and from 8 kHz: Parley's resampler
  costs ${fmt(r.resampler.down)} µs (16→8 kHz) and ${fmt(r.resampler.up)} µs (8→16 kHz) per 20 ms frame
  here, i.e. about ${fmt(((r.resampler.down + r.resampler.up) * 50 * TARGET_CALLS) / 1e4, 0)}% of one core at
  ${TARGET_CALLS} calls on the same thread, not included below.
- Pacer (\`PARLEY_BENCH_VOICE_PACER=${r.s.pacer}\`): ${
    r.s.pacer === 'worker'
      ? 'frames leave from the pacer worker (src/telephony/pacing), as Parley runs them: a 5 ms tick in its own thread, each leg on one tick of the 20 ms beat, a silent leg starting its talkspurt at the next tick.'
      : "frames leave from the sim's own 20 ms beat on the main thread (the caller pacer), as before the worker: for comparison."
  }
- Timing: each frame is timed by the pacer's own stamps, taken as it sends: its slot on the grid
  and when it left, sub-millisecond, on Date.now()'s scale (performance.timeOrigin +
  performance.now()).`);

  if (r.share.length > 0) {
    parts.push(`### 1. Platform share of response time

Fakes of known latency: STT final ${STT_MS} ms after the flush, model first token ${LLM_MS}-${LLM_MS + 19} ms
after the call (varied per turn, so replies become ready at every phase of the beat, as against
a real carrier's clock), TTS first audio ${TTS_MS} ms after each sentence; energy VAD. Per reply
turn whose end of speech fell in the measured window: **processing share** = from the caller's
end of speech (VAD, \`end_of_speech_at\`) to the reply's first frame queued on the leg, minus the
patience wait (${PATIENCE_MS[PATIENCE]} ms) and the three fakes' latencies; **share to the frame leaving** = the
same to that frame really leaving the leg (so it adds the wait for the beat: ${
      r.s.pacer === 'worker'
        ? 'the next 5 ms tick, as a silent leg starts its talkspurt there'
        : 'the next 20 ms beat'
    }). ${r.share[1] ? `The ${r.share[1].calls}-call run starts its calls over ${RAMP_MS / 1000} s and measures ${r.s.shareS} s after ${SETTLE_MS / 1000} s more.` : ''}

${markdownTable(...shareTable(r.share))}

Where it goes (p50 / p95 ms, from the per-turn marks, whole milliseconds of Date.now()):

${markdownTable(...stageTable(r.share))}

"Frame left after the record says" is how much later the first frame really left than the
record's \`first_frame_out_at\` (the time it was queued on an empty queue): the record leaves out
the wait for the beat.${r.share.some((x) => x.unexpected > 0) ? ` Calls that ended early: ${r.share.map((x) => x.unexpected).join(', ')}.` : ''}`);
  }

  if (r.steps.length > 0) {
    const apiSteps = r.steps.filter((x) => x.api);
    const base = r.steps.find((x) => !x.api);
    const same = base ? apiSteps.find((x) => x.calls === base.calls) : undefined;
    const worstEld = apiSteps.reduce((m, x) => Math.max(m, x.eld.max), 0);
    const worstSend = apiSteps.reduce((m, x) => Math.max(m, x.stats.send.max), 0);
    const big = apiSteps.filter((x) => x.calls >= TARGET_CALLS);
    const bigMet = big.filter(
      (x) =>
        x.stats.send.percentile(99) <= JITTER_TARGET_MS &&
        x.stats.underrunEvents === 0 &&
        x.stats.brokenLines === 0,
    );
    parts.push(`### 2. Concurrent calls, with the API under load in the same process

Energy VAD, fake STT/model/TTS with no latency, each call talking continuously. Per step: calls
started over ${RAMP_MS / 1000} s, ${SETTLE_MS / 1000} s to settle, then ${r.s.stepS} s measured. Meanwhile Parley's app
(src/app.ts \`createApp\`, embedded SQLite in a temp dir, bench API key) listens in this process and
a child process (bench/voice-api-load.ts, autocannon, 4 connections) sends it ${r.apiRate} requests/s,
alternating \`GET /v2/assistants/?limit=20\` and \`POST /v2/assistants\`, for the whole step.${base ? ` The last row runs ${base.calls} calls without API load: the baseline.` : ''}

- Send lateness: per frame sent (every leg, every beat, silence included), how late it left vs its
  grid slot. Beat wake-up: the first frame of each ${r.s.pacer === 'worker' ? '5 ms tick' : 'beat'} (the wake-up's own lateness); later
  frames of it add the work of the legs before them.
- Underrun: a beat that sent nothing between two frames of one agent line (gap under 200 ms);
  a broken line is a greeting or reply the far end did not hear whole (a longer gap splits it).
- Share to the frame leaving: as in part 1, with the patience wait taken out (the fakes take no time).
- CPU: process.cpuUsage() over the window / wall time (the calls, both ends of them, the edge, the
  app serving the API). Memory: RSS and V8 heap + array buffers after a full GC with the calls up,
  minus the same before the step, per call (both ends of the call; RSS is only meaningful while
  steps grow: it rarely shrinks after a larger step, and the first step follows part 1's calls). Event-loop delay: perf_hooks
  monitorEventLoopDelay (10 ms resolution) over the window.

${markdownTable(...mediaTable(r.steps))}

${markdownTable(...resourceTable(r.steps))}

Target (frame-send lateness p99 ≤ ${JITTER_TARGET_MS} ms and no underruns at ≥ ${TARGET_CALLS} calls, with API load): ${
      big.length === 0
        ? 'no step of that size ran.'
        : bigMet.length === big.length
          ? `met at ${big.map((x) => x.calls).join(', ')} calls.`
          : `**not met** at ${big
              .filter((x) => !bigMet.includes(x))
              .map((x) => x.calls)
              .join(
                ', ',
              )} calls${bigMet.length > 0 ? `; met at ${bigMet.map((x) => x.calls).join(', ')}` : ''}.`
    } Longest event-loop stall seen under API load: ${fmt(worstEld)} ms (event-loop delay max); latest frame: ${fmt(worstSend)} ms.${
      base && same
        ? ` At ${base.calls} calls, the API load moved send lateness p99 from ${fmt(base.stats.send.percentile(99), 2)} to ${fmt(same.stats.send.percentile(99), 2)} ms, max from ${fmt(base.stats.send.max)} to ${fmt(same.stats.send.max)} ms, event-loop delay max from ${fmt(base.eld.max)} to ${fmt(same.eld.max)} ms, and CPU from ${fmt(base.cpuCorePct, 0)}% to ${fmt(same.cpuCorePct, 0)}% of a core.`
        : ''
    }

${whatStalls(r.steps, r.s.pacer)}`);
  }

  parts.push(
    'Part 3, the offline defaults end to end, has a section of its own: `voice-offline` (`PARLEY_BENCH_VOICE_PARTS=offline`).',
  );
  return parts.join('\n\n');
}

function offlineReport(r: {
  ctx: CaseContext;
  s: VoiceBenchSettings;
  started: Date;
  offline: OfflineResult;
}): string {
  const knobs = Object.keys(process.env)
    .filter((k) => k.startsWith('PARLEY_BENCH_VOICE_'))
    .sort()
    .map((k) => `${k}=${process.env[k]}`);
  const command = [...knobs, r.ctx.command].join(' ');
  const head = `## Case \`voice\`, part 3: the offline defaults end to end

- Date: ${r.started.toISOString()}
- Machine: ${machine()}
- Command: \`${command}\``;
  if (r.offline.kind === 'skipped') return `${head}\n\nSkipped: ${r.offline.reason}.`;
  const [first] = r.offline.runs;
  return `${head}

Our side: energy VAD, PocketSphinx STT (pool of ${r.offline.sttPool} decoders, a fresh pool per row),
the builtin model, flite TTS (in-process pool); patience ${r.offline.patience}, no greeting. The far
end: one sim call per sentence (${first?.calls.length ?? 0} of the \`stt\` case's sentences), ${r.s.offlineConcurrency} calls at
a time in real time: 300 ms of silence, the sentence, then silence until the agent's first frame
after it leaves the leg (then the call is cancelled). flite (kal16) says the sentence alone;
espeak-ng (en-us), whose pitch falls at a statement's end, says first "${LEAD_LINE}", waits for
the agent's answer to end, then says the sentence (the listener then knows how this caller ends a
line: bench/voice-offline.ts). 16 kHz as made; telephone: sox to 8 kHz
G.711 mu-law and back, delivered at 8 kHz (the STT adapter resamples it and uses its telephone
decoders). WER: the caller turns of each call's transcript against its sentence (word edits /
reference words, lower case, no punctuation). Latency: the reply turn's end of speech (VAD) to its
first frame really leaving the leg; the record's \`total_ms\` and stage times for comparison.

Paused rows: the same sentences said with 600 ms of silence between two audible parts
(bench/voice-pauses.ts): flite says each part alone; espeak-ng says the sentence at once with a
break inside, its pitch level there. \`hesitation\`: the pause follows a function word and comes
before a content word, nearest the middle ("I would like to ... reschedule my delivery"), where
speakers stop to find a word. \`phrase\`: it follows a content word and comes before a function
word ("I would like to reschedule ... my delivery"), where the first piece may read as finished.
A caller is cut off when the agent's audio starts before the caller's last piece ended.

${markdownTable(...offlineTable(r.offline.runs))}`;
}
