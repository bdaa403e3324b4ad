import { DEFAULT_MS_PER_CHAR } from './limits.ts';

// What of an agent utterance the far end has heard. Each piece of text sent to the synthesizer
// is a segment; as its frames are queued on the leg, the segment records where its audio sits on
// the leg's played timeline (`playedMs + queuedMs` when queued). Given the leg's played position,
// the heard text is every segment played in full plus the played fraction of the current one,
// cut back to a word boundary. A segment whose audio is still arriving is measured by the
// speaking rate of the segments already complete (or DEFAULT_MS_PER_CHAR).

interface Segment {
  text: string;
  /** False for lines that are not part of the agent's reply (a filler while a tool runs). */
  recorded: boolean;
  start: number;
  end: number;
  complete: boolean;
}

export interface PlayoutTracker {
  /** A new piece of text was sent to the synthesizer; returns its index. */
  addSegment(text: string, recorded: boolean): number;
  /** A frame of segment `index`, `ms` long, was queued at `position` on the leg's played timeline. */
  queued(index: number, position: number, ms: number): void;
  /** Segment `index` has all its audio. */
  completed(index: number): void;
  readonly segments: number;
  /** The recorded text heard once the leg has played up to `position`. */
  heard(position: number): string;
}

/** The first `fraction` of `text`, cut back to the end of the last whole word. */
export function prefixAtWord(text: string, fraction: number): string {
  if (fraction >= 1) return text;
  if (fraction <= 0) return '';
  const cut = Math.floor(text.length * fraction);
  // Inside a word (or at its very start): back off to the space before it.
  if (cut < text.length && !/\s/.test(text[cut] ?? '')) {
    const space = text.lastIndexOf(' ', cut);
    return space <= 0 ? '' : text.slice(0, space).trim();
  }
  return text.slice(0, cut).trim();
}

export function createPlayoutTracker(): PlayoutTracker {
  const segments: Segment[] = [];
  let completeMs = 0;
  let completeChars = 0;

  const msPerChar = () => (completeChars > 0 ? completeMs / completeChars : DEFAULT_MS_PER_CHAR);

  return {
    addSegment(text, recorded) {
      segments.push({ text, recorded, start: -1, end: -1, complete: false });
      return segments.length - 1;
    },
    queued(index, position, ms) {
      const segment = segments[index];
      if (!segment) return;
      if (segment.start < 0) segment.start = position;
      segment.end = position + ms;
    },
    completed(index) {
      const segment = segments[index];
      if (!segment || segment.complete) return;
      segment.complete = true;
      if (segment.start >= 0 && segment.text.length > 0) {
        completeMs += segment.end - segment.start;
        completeChars += segment.text.length;
      }
    },
    get segments() {
      return segments.length;
    },
    heard(position) {
      const parts: string[] = [];
      for (const segment of segments) {
        if (segment.start < 0 || position <= segment.start) break;
        const queuedMs = segment.end - segment.start;
        const total = segment.complete ? queuedMs : Math.max(queuedMs, segment.text.length * msPerChar());
        const fraction = total > 0 ? (position - segment.start) / total : 1;
        const part = prefixAtWord(segment.text, fraction);
        if (segment.recorded && part) parts.push(part);
        if (fraction < 1) break;
      }
      return parts.join(' ');
    },
  };
}
