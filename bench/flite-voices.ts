// Case `flite-voices`: which flite voice the offline recognizer hears best. Each of the five flite
// voices (src/providers/speech/tts-flite-voices.ts) says the same 48 answers a callee gives on the
// phone, synthesized by the in-process flite TTS as calls do; PocketSphinx (createPocketSphinxSTT,
// the adapter's defaults) hears them at 16 kHz (the sim's legs, WebSocket media at 16 kHz) and as a
// phone line gives them (resampled to 8 kHz, G.711 mu-law and back, fed at 8 kHz as SIP and Twilio
// legs do). Word error rate per voice and band. The sim's callee is heard by the agents'
// recognizer, so its voice is where recognition matters most (docs/voice.md).
//
// Not paced in real time: the word error rate does not depend on it (the adapter cuts utterances
// by samples, not by time), and 10 runs of 48 sentences in real time would take 20 minutes. A
// fresh decoder pool per voice and band (decoders adapt to what they hear), 2 streams at a time.
import { loadavg } from 'node:os';
import { mulawDecode, mulawEncode, Resampler, type AudioFrame } from '../src/media/index.ts';
import {
  createFliteTTS,
  createPocketSphinxSTT,
  FLITE_VOICES,
  type FliteTTS,
  type PocketSphinxSTT,
} from '../src/providers/index.ts';
import { wordErrorRate, words } from '../src/providers/testing/index.ts';
import type { CaseContext } from './api.ts';
import { machine, markdownTable, textTable, writeResultsSection } from './lib.ts';

/** What callees say: yes/no with a fact, names, numbers, times, amounts, closings. */
export const CALLEE_SENTENCES = [
  'Yes, I own my home.',
  'No, I rent my apartment.',
  'Yes, that is right.',
  'No, not at the moment.',
  'Hello, who is this?',
  'My name is John Smith.',
  'This is Mary speaking.',
  'I live at twelve Main Street.',
  'My number is five five five, one two three four.',
  'About two hundred dollars a month.',
  'My bill is around one hundred dollars.',
  'We have four people in the house.',
  'Tomorrow morning at ten works for me.',
  'Friday afternoon would be good.',
  'Any time after five in the evening.',
  'Next Tuesday at three is fine.',
  'I am not interested, thank you.',
  'Yes, I would like that.',
  'Sure, that sounds good.',
  'No, that is all, thanks.',
  'Thank you, goodbye.',
  'Can you call me back later?',
  'I am busy right now.',
  'What is this about?',
  'I already have solar panels.',
  'The house is about ten years old.',
  'I have lived here for five years.',
  'We use gas for heating.',
  'My email is john at gmail dot com.',
  'I work from home most days.',
  'I paid the bill last week.',
  'I think so, yes.',
  'I am not sure about that.',
  'Please send me more information.',
  'How much does it cost?',
  'The roof faces south.',
  'Two of us live here.',
  'I would rather not say.',
  'That time works for me.',
  'I need to talk to my wife first.',
  'Yes, please book the visit.',
  'No, I do not want to change my plan.',
  'My account number is four two seven nine.',
  'I was born in nineteen eighty.',
  'I have a question about my bill.',
  'Morning is better for me.',
  'Okay, I will be home.',
  'Great, thank you very much.',
];
/** What agents say (the builtin model's lines and the like): what the sim's callees hear. */
export const AGENT_SENTENCES = [
  'Hi Ann, this is Sam from SunCo.',
  'Hello! Do you own your home?',
  'Perfect. Is there anything else I can help you with?',
  'Thank you, goodbye!',
  'What time works best for you?',
  'Could I have your email address?',
  'Would you like to book an appointment?',
  'How can I help you today?',
  'I am calling to offer a free solar assessment.',
  'Do you prefer mornings or afternoons?',
  'Thank you, I have noted Tuesday at ten.',
  'Can you come next week?',
  'How much do you pay each month?',
  'Would you like a lower rate?',
  'Got it. What else can I help you with?',
  'Is this a good time to talk?',
  'I understand. Have a nice day.',
  'Let me transfer you to a colleague.',
  'Your appointment is confirmed for Friday at two.',
  'Hello, this is a test call from the voice agent.',
  'Please press one to confirm your appointment for tomorrow at three.',
  'Sorry, I did not get that. Could you say it again?',
  'Hi, you have reached Acme Plumbing.',
  'May I ask your name?',
];
const POOL_SIZE = 2;
const LEAD_MS = 300;
const TRAIL_MS = 300;

export const fliteVoicesPhaseSeconds = (): number => 900;

const fmt = (n: number, digits = 0) => n.toFixed(digits);

/** One sentence through the flite TTS, as one 16 kHz buffer. */
async function speak(tts: FliteTTS, voice: string, text: string): Promise<Int16Array> {
  const stream = tts.stream({ voice });
  stream.pushText(text);
  stream.endInput();
  const parts: Int16Array[] = [];
  for await (const { frame } of stream.audio) parts.push(frame.samples);
  const out = new Int16Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

/** 16 kHz audio as a phone line gives it: 8 kHz G.711 mu-law, decoded back to 16-bit. */
export function telephone(samples: Int16Array): Int16Array {
  const resampler = new Resampler(16000, 8000);
  const narrow = new Int16Array(resampler.maxOutput(samples.length));
  const written = resampler.process(samples, narrow);
  return mulawDecode(mulawEncode(narrow.subarray(0, written)));
}

function framesOf(samples: Int16Array, rate: 8000 | 16000): AudioFrame[] {
  const size = rate / 50;
  const silence = (ms: number) =>
    Array.from({ length: ms / 20 }, () => ({ samples: new Int16Array(size), sampleRate: rate, at: 0 }));
  const frames: AudioFrame[] = silence(LEAD_MS);
  for (let i = 0; i < samples.length; i += size) {
    const chunk = new Int16Array(size);
    chunk.set(samples.subarray(i, i + size));
    frames.push({ samples: chunk, sampleRate: rate, at: 0 });
  }
  return [...frames, ...silence(TRAIL_MS)];
}

/** Every utterance once, POOL_SIZE streams at a time; the words heard, in order. */
async function hear(stt: PocketSphinxSTT, utterances: AudioFrame[][]): Promise<string[]> {
  const heard = new Array<string>(utterances.length).fill('');
  let next = 0;
  await Promise.all(
    Array.from({ length: POOL_SIZE }, async () => {
      const stream = stt.stream();
      const results = stream.results[Symbol.asyncIterator]();
      for (let i = next++; i < utterances.length; i = next++) {
        for (const frame of utterances[i]!) stream.push({ ...frame, at: Date.now() });
        stream.flush();
        const result = await results.next();
        if (result.done) throw new Error('the results ended before the final');
        heard[i] = result.value.text;
      }
      stream.close();
    }),
  );
  return heard;
}

export interface VoiceScore {
  voice: string;
  sampleRate: number;
  /** By sentence set (callee, agent), then band. */
  wer: Record<'callee' | 'agent', Record<8000 | 16000, number>>;
  exact: Record<'callee' | 'agent', Record<8000 | 16000, number>>;
  audioSeconds: number;
}

const SETS = { callee: CALLEE_SENTENCES, agent: AGENT_SENTENCES } as const;

function score(heard: string[], sentences: readonly string[]): { wer: number; exact: number } {
  let errors = 0;
  let refWords = 0;
  let exact = 0;
  heard.forEach((text, i) => {
    const reference = sentences[i]!;
    const n = words(reference).length;
    const wer = wordErrorRate(reference, text);
    errors += wer * n;
    refWords += n;
    if (wer === 0) exact += 1;
  });
  return { wer: errors / refWords, exact };
}

export async function runFliteVoicesCase(ctx: CaseContext): Promise<void> {
  const started = new Date();
  const loadBefore = loadavg()[0]!;
  const tts = createFliteTTS();
  const scores: VoiceScore[] = [];
  const examples: string[] = [];
  try {
    await tts.warm();
    for (const voice of FLITE_VOICES) {
      const entry: VoiceScore = {
        voice: voice.id,
        sampleRate: voice.sampleRate,
        wer: { callee: { 8000: 0, 16000: 0 }, agent: { 8000: 0, 16000: 0 } },
        exact: { callee: { 8000: 0, 16000: 0 }, agent: { 8000: 0, 16000: 0 } },
        audioSeconds: 0,
      };
      for (const [set, sentences] of Object.entries(SETS) as [keyof typeof SETS, readonly string[]][]) {
        console.log(`${voice.id}: synthesizing ${sentences.length} ${set} sentences...`);
        const wide: Int16Array[] = [];
        for (const text of sentences) wide.push(await speak(tts, voice.id, text));
        if (set === 'callee') entry.audioSeconds = wide.reduce((n, s) => n + s.length, 0) / 16000;
        for (const rate of [16000, 8000] as const) {
          const utterances = wide.map((s) =>
            rate === 16000 ? framesOf(s, 16000) : framesOf(telephone(s), 8000),
          );
          // A fresh pool: what a server that just started hears (decoders adapt to what they hear).
          const stt = await createPocketSphinxSTT({ poolSize: POOL_SIZE, utteranceTimeoutMs: 30_000 });
          try {
            await stt.ready();
            const heard = await hear(stt, utterances);
            const { wer, exact } = score(heard, sentences);
            entry.wer[set][rate] = wer;
            entry.exact[set][rate] = exact;
            console.log(`  ${set}, ${rate / 1000} kHz: WER ${fmt(wer * 100, 1)}%, ${exact} exact`);
            for (const [i, text] of heard.entries())
              if (wordErrorRate(sentences[i]!, text) > 0) {
                console.log(`    "${sentences[i]}" -> "${text}"`);
                if (rate === 16000 && examples.filter((e) => e.startsWith(`${voice.id}:`)).length < 2)
                  examples.push(`${voice.id}: "${sentences[i]}" → "${text}"`);
              }
          } finally {
            await stt.close();
          }
        }
      }
      scores.push(entry);
    }
  } finally {
    await tts.close();
  }

  const loadAfter = loadavg()[0]!;
  const total = CALLEE_SENTENCES.length;
  const refWords = CALLEE_SENTENCES.reduce((n, s) => n + words(s).length, 0);
  const agentTotal = AGENT_SENTENCES.length;
  const agentWords = AGENT_SENTENCES.reduce((n, s) => n + words(s).length, 0);
  const ranked = [...scores].sort((a, b) => a.wer.callee[16000] - b.wer.callee[16000]);
  const header = [
    'Voice',
    'flite rate',
    'Callee lines: WER 16 kHz',
    'exact',
    'WER 8 kHz mu-law',
    'exact',
    'Agent lines: WER 16 kHz',
    'exact',
    'WER 8 kHz mu-law',
    'exact',
  ];
  const rows = ranked.map((s) => [
    s.voice,
    `${s.sampleRate / 1000} kHz`,
    `${fmt(s.wer.callee[16000] * 100, 1)}%`,
    `${s.exact.callee[16000]} / ${total}`,
    `${fmt(s.wer.callee[8000] * 100, 1)}%`,
    `${s.exact.callee[8000]} / ${total}`,
    `${fmt(s.wer.agent[16000] * 100, 1)}%`,
    `${s.exact.agent[16000]} / ${agentTotal}`,
    `${fmt(s.wer.agent[8000] * 100, 1)}%`,
    `${s.exact.agent[8000]} / ${agentTotal}`,
  ]);
  console.log(textTable(header, rows));
  writeResultsSection(
    'flite-voices',
    `## Case \`flite-voices\`: which flite voice PocketSphinx hears best (issue 23)

- Date: ${started.toISOString()}
- Machine: ${machine()}
- Load: 1-minute load average ${fmt(loadBefore, 1)} at the start, ${fmt(loadAfter, 1)} at the end
  (the machine is shared; load changes the time taken, not the words heard).
- Command: \`${ctx.command}\`
- What: ${total} answers a callee gives on the phone (${refWords} words, bench/flite-voices.ts: yes/no
  with a fact, names, numbers, times, amounts, closings) and ${agentTotal} lines agents say (${agentWords}
  words: the builtin model's greetings, questions and closings), synthesized by the in-process flite TTS
  (\`createFliteTTS\`) in each voice, heard by \`createPocketSphinxSTT\` (its defaults, a fresh pool of
  ${POOL_SIZE} decoders per voice and band, 2 streams at a time, not paced: the words do not depend on
  the pace). Each sentence: ${LEAD_MS} ms of silence, the sentence, ${TRAIL_MS} ms of silence, \`flush()\`.
  16 kHz: as flite gives it (8 kHz voices are resampled up by the TTS). 8 kHz mu-law: resampled to
  8 kHz (src/media Resampler), G.711 mu-law encoded and decoded, fed at 8 kHz as SIP and Twilio legs
  feed it. WER = word edits / reference words (lower case, punctuation dropped); exact = sentences
  heard without an error. Sorted by the callee lines' 16 kHz WER (the sim's legs).

${markdownTable(header, rows)}

Some of the errors at 16 kHz: ${examples.length > 0 ? examples.join('; ') : 'none'}.
`,
  );
}
