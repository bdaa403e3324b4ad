// Case `failover`: from a hosted speech provider's failure to the caller hearing (or the agent
// hearing) the replacement, with the offline engines as the replacement, as on a server whose
// hosted vendor fails (docs/speech-providers.md). Each mode runs TRIALS times in real time:
//
// - TTS: a sentence given to a provider that refuses, drops its socket after 5 frames, or stalls;
//   measured from the failure (the refusal and the stall: when the text was flushed; the drop:
//   when the wrapper saw it) to the first frame of flite's audio. The baseline is flite alone,
//   from the flush to its first frame: the difference is what failing over costs.
// - STT: a flite sentence (captured audio, pushed at once, then flushed) to a provider that
//   refuses, drops in the middle of the utterance, or stalls; measured from the failure to
//   PocketSphinx's final result. The baseline is PocketSphinx alone, from the flush to the final.
import { rmSync } from 'node:fs';
import { systemClock } from '../src/core/index.ts';
import {
  createFailoverSTT,
  createFailoverTTS,
  createFliteTTS,
  createPocketSphinxSTT,
  type STT,
  type TTS,
} from '../src/providers/index.ts';
import {
  createBrokenSTT,
  createBrokenTTS,
  createFakeSTT,
  createFakeTTS,
  fliteClip,
  framesOf,
  testAudioDir,
  type STTBreak,
  type TTSBreak,
} from '../src/providers/testing/index.ts';
import type { CaseContext } from './api.ts';
import { intEnv, machine, markdownTable, onCleanup, textTable, writeResultsSection } from './lib.ts';

export const failoverPhaseSeconds = (): number => 300;

const SENTENCE = 'I would like to change the time of my appointment please.';
const percentile = (values: number[], p: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? 0;
};
const now = () => performance.now();

type Mode = 'baseline' | 'refuse' | 'drop' | 'stall';

/** `tts` noting when its streams produce their first frame (what the wrapper forwards at once). */
function timed(tts: TTS, firstFrame: (at: number) => void): TTS {
  return {
    name: tts.name,
    sampleRate: tts.sampleRate,
    stream(options) {
      const inner = tts.stream(options);
      const audio = (async function* () {
        let first = true;
        for await (const piece of inner.audio) {
          if (first) firstFrame(now());
          first = false;
          yield piece;
        }
      })();
      return {
        ...inner,
        audio,
        pushText: (t) => inner.pushText(t),
        flush: () => inner.flush(),
        endInput: () => inner.endInput(),
        close: () => inner.close(),
      };
    },
  };
}

async function ttsTrial(offline: TTS, mode: Mode): Promise<number> {
  let switchedAt = 0;
  let heardAt = 0;
  const flite = timed(offline, (at) => (heardAt ||= at));
  const broken: Record<Exclude<Mode, 'baseline'>, TTSBreak> = {
    refuse: { kind: 'refuse' },
    drop: { kind: 'drop', afterFrames: 5 },
    stall: { kind: 'stall' },
  };
  const tts =
    mode === 'baseline'
      ? flite
      : createFailoverTTS({
          chain: [
            { tts: createBrokenTTS(createFakeTTS(), broken[mode], 'hosted') },
            { tts: flite, voice: 'kal16' },
          ],
          clock: systemClock,
          onSwitch: () => (switchedAt = now()),
        });
  const stream = tts.stream({ voice: 'kal16' });
  const flushedAt = now();
  stream.pushText(SENTENCE);
  stream.endInput();
  for await (const piece of stream.audio) if (heardAt && piece) break;
  stream.close();
  if (!heardAt) throw new Error(`tts ${mode}: no audio from the replacement`);
  return heardAt - (mode === 'drop' ? switchedAt : flushedAt);
}

async function sttTrial(sphinx: STT, frames: ReturnType<typeof framesOf>, mode: Mode): Promise<number> {
  let switchedAt = 0;
  const broken: Record<Exclude<Mode, 'baseline'>, STTBreak> = {
    refuse: { kind: 'refuse' },
    drop: { kind: 'drop', afterFrames: Math.floor(frames.length / 2) },
    stall: { kind: 'stall' },
  };
  const stt =
    mode === 'baseline'
      ? sphinx
      : createFailoverSTT({
          chain: [createBrokenSTT(createFakeSTT(), broken[mode], 'hosted'), sphinx],
          clock: systemClock,
          onSwitch: () => (switchedAt = now()),
        });
  const stream = stt.stream();
  const start = Date.now() - frames.length * 20;
  frames.forEach((frame, i) => stream.push({ ...frame, at: start + i * 20 }));
  const flushedAt = now();
  stream.flush();
  for await (const result of stream.results) {
    if (result.kind !== 'final') continue;
    const at = now();
    stream.close();
    if (!result.text) throw new Error(`stt ${mode}: an empty final`);
    return at - (mode === 'drop' ? switchedAt : flushedAt);
  }
  throw new Error(`stt ${mode}: no final`);
}

export async function runFailoverCase(ctx: CaseContext): Promise<void> {
  const trials = intEnv('BENCH_FAILOVER_TRIALS', 30, 3, 1000);
  const dir = testAudioDir();
  onCleanup(() => rmSync(dir, { recursive: true, force: true }));
  const flite = createFliteTTS({ clock: systemClock });
  const sphinx = await createPocketSphinxSTT({ clock: systemClock });
  onCleanup(async () => {
    await flite.close();
    await sphinx.close();
  });
  await sphinx.ready();
  const clip = fliteClip(dir, SENTENCE, 'sentence');
  const frames = framesOf(clip.samples, 16000);
  const modes: Mode[] = ['baseline', 'refuse', 'drop', 'stall'];
  const rows: string[][] = [];
  const p = (values: number[]) => [percentile(values, 50), percentile(values, 95)] as const;
  for (const kind of ['tts', 'stt'] as const) {
    const base: [number, number] = [0, 0];
    for (const mode of modes) {
      const values: number[] = [];
      // Alternate with a warm-up trial so each measured one starts from the same state.
      await (kind === 'tts' ? ttsTrial(flite, mode) : sttTrial(sphinx, frames, mode));
      for (let i = 0; i < trials; i += 1)
        values.push(await (kind === 'tts' ? ttsTrial(flite, mode) : sttTrial(sphinx, frames, mode)));
      const [p50, p95] = p(values);
      if (mode === 'baseline') [base[0], base[1]] = [p50, p95];
      rows.push([
        kind,
        mode,
        String(trials),
        p50.toFixed(0),
        p95.toFixed(0),
        mode === 'baseline' ? '' : (p50 - base[0]).toFixed(0),
        mode === 'baseline' ? '' : (p95 - base[1]).toFixed(0),
      ]);
    }
  }
  const header = ['kind', 'failure', 'trials', 'p50 ms', 'p95 ms', 'p50 over baseline', 'p95 over baseline'];
  console.log(textTable(header, rows));
  writeResultsSection(
    'failover',
    `## Speech failover: from a provider's failure to the replacement's first audio or final

Command: \`${ctx.command}\`. Machine: ${machine()}.

The replacement is the offline engine (flite kal16 for TTS, PocketSphinx for STT). "baseline" is
that engine alone (flush to first frame, flush to final); the other rows run behind a hosted
provider that fails: refuse (at once), drop (after 5 frames / mid-utterance), stall (no answer:
the wrapper's bound of 1500 ms detects it). Measured from the failure (refuse and stall: the
flush; drop: when the wrapper saw it) to the replacement's first frame or final.

${markdownTable(header, rows)}
`,
  );
}
