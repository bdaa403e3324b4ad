// The paused utterances of the `voice` case's part 3: each of the `stt` case's sentences said in
// two pieces with a pause between them, to count how often endpointing cuts a caller off. With
// flite (kal16), each piece is said on its own; with espeak-ng, the sentence is said at once with
// a break inside (one intonation: level at the pause, falling at a statement's end). The pause is
// measured between the audible parts.
//
// Where the pause goes:
// - `hesitation`: after a function word or filler, before a content word ("I would like to ...
//   reschedule my delivery"), nearest the middle: where speakers hesitate while finding a word.
// - `phrase`: after a content word, before a function word ("I would like to reschedule ... my
//   delivery"), nearest the middle: a pause at a phrase edge, where the first piece could be a
//   finished line.
import { espeakClip, fliteClip } from '../src/providers/testing/index.ts';
import { SENTENCES, utteranceOf, type Utterance } from './stt.ts';

export type PauseKind = 'hesitation' | 'phrase';

/** Words a hesitation follows: articles, prepositions, possessives, auxiliaries, pronouns, fillers. */
const FUNCTION_WORDS = new Set(
  (
    'a an the to for with at on in of from about by my your our their his her its is are was were am be ' +
    'have has had do does did can could would will should i we you they he she it that this and but or so ' +
    'if when where what how any some not no'
  ).split(' '),
);

const bare = (word: string) => word.toLowerCase().replace(/[^a-z']/g, '');

/** The index of the word the pause follows, or null when the sentence has no such boundary. */
export function pauseAfter(sentence: string, kind: PauseKind): number | null {
  const words = sentence.split(/\s+/);
  const middle = (words.length - 1) / 2;
  let best: number | null = null;
  for (let i = 0; i < words.length - 1; i += 1) {
    const here = FUNCTION_WORDS.has(bare(words[i]!));
    const next = FUNCTION_WORDS.has(bare(words[i + 1]!));
    const fits = kind === 'hesitation' ? here && !next : !here && next && !/[,.]$/.test(words[i]!);
    if (fits && (best === null || Math.abs(i - middle) < Math.abs(best - middle))) best = i;
  }
  return best;
}

/** Who says the sentences. */
export type CallerVoice = 'flite' | 'espeak-ng';

/** The sentences said whole by espeak-ng. */
export function espeakUtterances(dir: string): Utterance[] {
  return SENTENCES.map((text, i) => utteranceOf(dir, text, espeakClip(dir, text, `e${i}`).samples, `e${i}`));
}

/** The sentences with a pause of `pauseMs` (those with a boundary of the kind). */
export function pausedUtterances(
  dir: string,
  kind: PauseKind,
  pauseMs: number,
  voice: CallerVoice = 'flite',
): Utterance[] {
  const out: Utterance[] = [];
  SENTENCES.forEach((sentence, i) => {
    const at = pauseAfter(sentence, kind);
    if (at === null) return;
    const name = `p${voice}${kind}${i}`;
    if (voice === 'espeak-ng') {
      const clip = espeakClip(dir, sentence, name, { afterWords: at + 1, ms: pauseMs });
      out.push(utteranceOf(dir, sentence, clip.samples, name));
      return;
    }
    const words = sentence.split(/\s+/);
    const first = fliteClip(dir, words.slice(0, at + 1).join(' '), `${name}a`);
    const second = fliteClip(dir, words.slice(at + 1).join(' '), `${name}b`);
    const head = first.samples.subarray(0, Math.round(first.to * 16));
    const tail = second.samples.subarray(Math.round(second.from * 16));
    const samples = new Int16Array(head.length + pauseMs * 16 + tail.length);
    samples.set(head);
    samples.set(tail, head.length + pauseMs * 16);
    out.push(utteranceOf(dir, sentence, samples, name));
  });
  return out;
}
