// Case `overload`: is overload graceful (docs/operations.md, "Overload")? A saturated process
// should stop taking new calls (they wait `pending`) instead of degrading the calls it has.
//
// 1. Capacity: steps of N sim voice calls placed through the API with the load gate OFF
//    (bench/overload-calls.ts: the app in this process, fake speech and model, the voice case's far
//    end and figures). The capacity is the largest step whose calls all completed with send
//    lateness p99 ≤ 5 ms, no underrun, no broken line, no caller line left without a reply, and
//    the share p95 within SHARE_BOUND_MS. PARLEY_BENCH_OVERLOAD_CAPACITY skips the search.
// 2. Twice the capacity, placed the same way, with the gate ON (the app's defaults: the lag bound
//    PARLEY_MAX_EVENT_LOOP_LAG_MS and the headroom PARLEY_CALL_LOAD_TARGET_PERCENT; the busy bound
//    and the pacing of new calls when given) and, as the baseline in the same run, OFF (0).
//
// Knobs: PARLEY_BENCH_OVERLOAD_CAPACITY (0 = search), PARLEY_BENCH_OVERLOAD_STEPS (100,200,300,400),
// PARLEY_BENCH_OVERLOAD_LINES (caller lines per call, 6), PARLEY_BENCH_OVERLOAD_RAMP_S (5),
// PARLEY_BENCH_OVERLOAD_GATE_MS (the gate-on bound, default the app's: 100),
// PARLEY_BENCH_OVERLOAD_GATE_BUSY (the gate-on busy bound in percent; default the app's: 0, off),
// PARLEY_BENCH_OVERLOAD_NEW_PER_S (the gate-on pacing of new calls; default the app's: 0, none),
// PARLEY_BENCH_OVERLOAD_LOAD_TARGET (the gate-on headroom's busy target in percent; default the app's: 60).
import { loadavg } from 'node:os';
import { setTimeout as sleep } from 'node:timers/promises';
import { PATIENCE_MS } from '../src/voice/index.ts';
import type { CaseContext } from './api.ts';
import { intEnv, machine, markdownTable, stepsEnv, textTable, writeResultsSection } from './lib.ts';
import { PATIENCE, leavingShares, runOverload, type OverloadRun } from './overload-calls.ts';
import { collectGarbage, fmt, percentileOf } from './voice-stats.ts';

const JITTER_TARGET_MS = 5;
/** The share p95 a step within capacity keeps (ms); the voice case targets 20 at 300 calls. */
const SHARE_BOUND_MS = 50;
/** A call whose slot came within this long of its placement was admitted at once (one poll). */
const AT_ONCE_MS = 1_000;
/** About how long one call lasts per caller line (agent line, think, caller line, patience). */
const LINE_S = 5;

interface Settings {
  capacity: number;
  steps: number[];
  lines: number;
  rampS: number;
  gateMs: number;
  gateBusy: number;
  newPerS: number;
  loadTarget: number;
}

function settings(): Settings {
  return {
    capacity: intEnv('PARLEY_BENCH_OVERLOAD_CAPACITY', 0, 0, 2000),
    steps: stepsEnv('PARLEY_BENCH_OVERLOAD_STEPS', '100,200,300,400'),
    lines: intEnv('PARLEY_BENCH_OVERLOAD_LINES', 6, 1, 50),
    rampS: intEnv('PARLEY_BENCH_OVERLOAD_RAMP_S', 5, 0, 120),
    gateMs: intEnv('PARLEY_BENCH_OVERLOAD_GATE_MS', 100, 1, 10_000),
    gateBusy: intEnv('PARLEY_BENCH_OVERLOAD_GATE_BUSY', 0, 0, 100),
    newPerS: intEnv('PARLEY_BENCH_OVERLOAD_NEW_PER_S', 0, 0, 100_000),
    loadTarget: intEnv('PARLEY_BENCH_OVERLOAD_LOAD_TARGET', 60, 0, 100),
  };
}

/** One run's deadline: the calls thrice over (a gated run runs them in waves), and a margin. */
const deadlineS = (s: Settings) => s.rampS + 3 * (10 + s.lines * LINE_S) + 120;

/** Rough upper bound of the case's run time, in seconds, for the watchdog. */
export function overloadPhaseSeconds(): number {
  const s = settings();
  const runs = (s.capacity > 0 ? 0 : s.steps.length) + 2;
  return runs * (deadlineS(s) + 15);
}

interface Figures {
  label: string;
  run: OverloadRun;
  atOnce: number;
  held: number[];
  shares: number[];
  processing: number[];
  unanswered: number;
  said: number;
  failed: string[];
}

function figures(label: string, run: OverloadRun): Figures {
  const waits = run.calls.map((c) => (c.call.ringingAt ?? Infinity) - c.call.createdAt);
  const processing: number[] = [];
  for (const { call } of run.calls) {
    const q = call.quality as {
      mode?: string;
      per_turn?: { kind: string; total_ms: number | null }[];
    } | null;
    if (q?.mode !== 'voice') continue;
    for (const t of q.per_turn ?? [])
      if (t.kind === 'reply' && t.total_ms !== null) processing.push(t.total_ms - PATIENCE_MS[PATIENCE]);
  }
  return {
    label,
    run,
    atOnce: waits.filter((w) => w <= AT_ONCE_MS).length,
    held: waits.filter((w) => w > AT_ONCE_MS),
    shares: leavingShares(run.calls),
    processing,
    unanswered: run.calls.reduce((n, c) => n + (c.callee ? c.callee.said - c.callee.answered : 0), 0),
    said: run.calls.reduce((n, c) => n + (c.callee?.said ?? 0), 0),
    failed: run.calls.filter((c) => c.call.status !== 'completed').map((c) => failure(c.call)),
  };
}

const failure = (call: { status: string; endCallReason: string | null; errorMessage: string | null }) =>
  [call.status, call.endCallReason, call.errorMessage].filter(Boolean).join(': ');

/** Within capacity: every call completed, frames on time, every line answered, replies prompt. */
function withinCapacity(f: Figures): boolean {
  const st = f.run.stats;
  return (
    f.run.allEnded &&
    f.failed.length === 0 &&
    st.send.percentile(99) <= JITTER_TARGET_MS &&
    st.underrunEvents === 0 &&
    st.brokenLines === 0 &&
    f.unanswered === 0 &&
    percentileOf(f.shares, 95) <= SHARE_BOUND_MS
  );
}

async function run(label: string, calls: number, gated: boolean, s: Settings): Promise<Figures> {
  collectGarbage();
  const gate = gated
    ? `on (${s.gateMs} ms${s.gateBusy > 0 ? `, ${s.gateBusy}% busy` : ''}${s.newPerS > 0 ? `, ${s.newPerS} new/s` : ''}, headroom ${s.loadTarget}%)`
    : 'off';
  console.log(`overload: ${label}: ${calls} calls, gate ${gate}...`);
  const result = await runOverload({
    calls,
    gateMs: gated ? s.gateMs : 0,
    busyPercent: gated ? s.gateBusy : 0,
    newPerS: gated ? s.newPerS : 0,
    loadTarget: gated ? s.loadTarget : 0,
    rampMs: s.rampS * 1000,
    lines: s.lines,
    deadlineMs: deadlineS(s) * 1000,
  });
  const f = figures(label, result);
  console.log(textTable(...table([f])));
  await sleep(2000);
  return f;
}

export async function runOverloadCase(ctx: CaseContext): Promise<void> {
  const s = settings();
  const started = new Date();
  const loads: number[] = [loadavg()[0]!];
  const steps: Figures[] = [];
  let capacity = s.capacity;
  if (capacity === 0) {
    for (const calls of s.steps) {
      const f = await run(`step ${calls}`, calls, false, s);
      steps.push(f);
      loads.push(loadavg()[0]!);
      if (!withinCapacity(f)) break;
      capacity = calls;
    }
    if (capacity === 0) throw new Error(`no step was within capacity: ${s.steps.join(', ')} calls`);
  }
  const on = await run('2× gate on', 2 * capacity, true, s);
  loads.push(loadavg()[0]!);
  const off = await run('2× gate off', 2 * capacity, false, s);
  loads.push(loadavg()[0]!);
  writeResultsSection('overload', report({ ctx, s, started, loads, steps, capacity, on, off }));
  console.log('wrote bench/RESULTS.md (section overload)');
}

// ---- the report ------------------------------------------------------------------------------------

const p = (values: number[], q: number, digits = 1) => fmt(percentileOf(values, q), digits);

function table(rows: Figures[]): [string[], string[][]] {
  return [
    [
      'Run',
      'Calls placed',
      'Admitted at once / held pending',
      'Held: waited p50 / p95 / max s',
      'Most running at once',
      'Send lateness p50 / p99 / max ms',
      'Underruns (events / frames)',
      'Broken lines',
      'Share to the frame leaving p50 / p95 ms',
      'Processing share (record) p50 / p95 ms',
      'Caller lines without a reply',
      'Calls failed',
      'Event-loop delay p99 / max ms',
      'Event loop busy, per second p50 / max %',
      'All calls completed',
    ],
    rows.map((f) => {
      const st = f.run.stats;
      const held = f.held.map((w) => w / 1000);
      const busyPercents = f.run.busy.map((b) => b * 100);
      return [
        f.label,
        String(f.run.calls.length),
        `${f.atOnce} / ${f.held.length}`,
        held.length === 0 ? '—' : `${p(held, 50)} / ${p(held, 95)} / ${fmt(Math.max(...held))}`,
        String(f.run.peakRunning),
        `${fmt(st.send.percentile(50), 2)} / ${fmt(st.send.percentile(99), 2)} / ${fmt(st.send.max)}`,
        `${st.underrunEvents} / ${st.underrunFrames}`,
        `${st.brokenLines} of ${st.linesHeard}`,
        `${p(f.shares, 50)} / ${p(f.shares, 95)}`,
        `${p(f.processing, 50, 0)} / ${p(f.processing, 95, 0)}`,
        `${f.unanswered} of ${f.said}`,
        f.failed.length === 0 ? '0' : `${f.failed.length} (${[...new Set(f.failed)].join('; ')})`,
        `${fmt(f.run.eld.p99)} / ${fmt(f.run.eld.max)}`,
        `${p(busyPercents, 50, 0)} / ${fmt(Math.max(0, ...busyPercents), 0)}`,
        f.run.allEnded
          ? `yes (${fmt(f.run.durationMs / 1000, 0)} s)`
          : `**no** (${f.run.calls.filter((c) => c.call.status === 'completed').length} completed)`,
      ];
    }),
  ];
}

interface ReportInput {
  ctx: CaseContext;
  s: Settings;
  started: Date;
  loads: number[];
  steps: Figures[];
  capacity: number;
  on: Figures;
  off: Figures;
}

function verdict(on: Figures, off: Figures): string {
  const kept = withinCapacity(on);
  return `At twice the capacity, the gate ${
    kept
      ? '**kept** the admitted calls within the capacity figures'
      : '**did not keep** the admitted calls within the capacity figures'
  } (send lateness p99 ${fmt(on.run.stats.send.percentile(99), 2)} ms, share p95 ${p(on.shares, 95)} ms, ${on.unanswered} caller lines without a reply, ${on.failed.length} calls failed; every call completed: ${on.run.allEnded ? 'yes' : 'no'}); without the gate: send lateness p99 ${fmt(off.run.stats.send.percentile(99), 2)} ms, share p95 ${p(off.shares, 95)} ms, ${off.unanswered} lines without a reply, ${off.failed.length} failed.`;
}

function report(r: ReportInput): string {
  const knobs = Object.keys(process.env)
    .filter((k) => k.startsWith('PARLEY_BENCH_OVERLOAD_'))
    .sort()
    .map((k) => `${k}=${process.env[k]}`);
  const command = [...knobs, r.ctx.command].join(' ');
  return `## Case \`overload\`: a saturated process stops taking calls, and keeps the ones it has

- Date: ${r.started.toISOString()}
- Machine: ${machine()}
- Load: 1-minute load average ${r.loads.map((l) => fmt(l)).join(', ')} (at the start, then after each run).
  The machine is shared: other work may run.
- Command: \`${command}\`
- Each run: Parley's app (src/app.ts \`createApp\`, embedded SQLite in a fresh temp dir) in this
  process, energy VAD and fake STT, TTS and model with no latency; the workspace's slots (10,000)
  hold no call back, only the load gate may. The calls are placed through the API (\`POST /v2/calls\`,
  a \`sim\` number) evenly over ${r.s.rampS} s; the sim rings 3 s, then its far end (the \`voice\` case's,
  bench/voice-calls.ts: data speech through a G.711 mu-law edge, frames timed by the pacer's own
  stamps) waits for the greeting and says ${r.s.lines} lines, one 500 ms after each agent line, and hangs
  up once the last is answered. The run ends when no call is pending, ringing or in progress.
- Figures over the whole run: send lateness of every frame sent vs its 20 ms grid slot; an
  underrun is a beat without a frame inside an agent line; a broken line is one the far end did
  not hear whole. Share to the frame leaving: the caller's end of speech (the record's VAD time) to
  the reply's first frame leaving, minus the patience wait (${PATIENCE_MS[PATIENCE]} ms); the record's time zero is
  taken as the earliest (frame left − \`first_frame_out_at\`) of the call's turns, so it may read up to
  a 5 ms pacer tick low. Processing share: the record's \`total_ms\` minus the patience wait (to the
  frame queued). A caller line without a reply: said, and no agent line heard after it. Admitted
  at once: the call's slot (\`ringing_at\`) came within ${AT_ONCE_MS / 1000} s of its placement; held: later.
  Event-loop delay: perf_hooks \`monitorEventLoopDelay\` (10 ms resolution) over the run; busy:
  \`performance.eventLoopUtilization()\` each second of the run.

### Capacity

${
  r.steps.length === 0
    ? `Taken from \`PARLEY_BENCH_OVERLOAD_CAPACITY\`: ${r.capacity} calls.`
    : `Steps with the gate off; within capacity: every call completed, send lateness p99 ≤ ${JITTER_TARGET_MS} ms, no
underrun, no broken line, no caller line without a reply, share p95 ≤ ${SHARE_BOUND_MS} ms. The search stops at
the first step over. **Capacity: ${r.capacity} calls.**

${markdownTable(...table(r.steps))}`
}

### Twice the capacity: ${2 * r.capacity} calls, the gate on and off

Gate on: \`PARLEY_MAX_EVENT_LOOP_LAG_MS=${r.s.gateMs}\`, \`PARLEY_MAX_EVENT_LOOP_BUSY_PERCENT=${r.s.gateBusy}\`,
\`PARLEY_MAX_NEW_CALLS_PER_S=${r.s.newPerS}\`, \`PARLEY_CALL_LOAD_TARGET_PERCENT=${r.s.loadTarget}\`; off: all four 0
(no gate, no pacing, no headroom).

${markdownTable(...table([r.on, r.off]))}

${verdict(r.on, r.off)}`;
}
