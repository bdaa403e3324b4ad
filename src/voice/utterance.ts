import type { Clock } from '../core/index.ts';
import type { MediaLeg } from '../media/index.ts';
import { SpeechError, type TTS, type TTSStream } from '../providers/index.ts';
import type { AudioOut } from './audio-out.ts';
import { createSentenceChunker } from './chunker.ts';
import { TTS_AUDIO_TIMEOUT_MS } from './limits.ts';
import { createPlayoutTracker } from './playout.ts';
import type { TurnKind, TurnMarks } from './quality.ts';
import type { Timers } from './timers.ts';

// One thing the agent says (a reply, the greeting, a reminder, a closing line): text in as the
// model streams it, cut into sentences, stripped of filter words, synthesized on its own TTS
// stream, processed for the leg (volume, noise, rate) and queued for playout, with the playout
// tracker noting where each sentence's audio sits so a barge-in knows what was heard.

export interface UtteranceDeps {
  tts: TTS;
  voice?: string;
  speed: number;
  leg: MediaLeg;
  clock: Clock;
  timers: Timers;
  audioOut: AudioOut;
  filter: (text: string) => string;
  /** The synthesizer failed or stalled: the call cannot go on. */
  onFailure(err: Error): void;
}

export const emptyMarks = (kind: TurnKind): TurnMarks => ({
  kind,
  speechStartAt: null,
  endOfSpeechAt: null,
  endpointAt: null,
  sttFinalAt: null,
  modelFirstTokenAt: null,
  firstSentenceAt: null,
  ttsFirstAudioAt: null,
  firstFrameOutAt: null,
  interruptedAt: null,
  pitchAtEnd: null,
});

export class Utterance {
  readonly marks: TurnMarks;
  readonly interruptible: boolean;
  readonly controller = new AbortController();
  readonly #deps: UtteranceDeps;
  readonly #stream: TTSStream;
  readonly #chunker = createSentenceChunker();
  readonly #tracker = createPlayoutTracker();
  /** When each segment was flushed; segments before `#completed` have all their audio. */
  readonly #flushedAt: number[] = [];
  #completed = 0;
  #lastAudioAt = -Infinity;
  #cancelWatchdog: (() => void) | null = null;
  #inputEnded = false;
  #pieces = 0;
  #interrupted = false;
  #delivered = '';
  /** Who waits for the segments given so far to have all their audio (spoken()). */
  #spokenWaiters: { segments: number; resolve: () => void }[] = [];
  #settle!: () => void;
  readonly #settled = new Promise<void>((resolve) => (this.#settle = resolve));

  constructor(deps: UtteranceDeps, marks: TurnMarks, interruptible: boolean, parent: AbortSignal) {
    this.#deps = deps;
    this.marks = marks;
    this.interruptible = interruptible;
    if (parent.aborted) this.controller.abort(parent.reason);
    else parent.addEventListener('abort', () => this.close(), { once: true, signal: this.controller.signal });
    this.#stream = deps.tts.stream({
      speed: deps.speed,
      signal: this.controller.signal,
      ...(deps.voice ? { voice: deps.voice } : {}),
    });
    void this.#pump();
  }

  get interrupted(): boolean {
    return this.#interrupted;
  }

  /** What the far end heard when the utterance was cut off. */
  get delivered(): string {
    return this.#delivered;
  }

  get signal(): AbortSignal {
    return this.controller.signal;
  }

  /** How many pieces of text (streamed or whole lines) have come so far. */
  get pieces(): number {
    return this.#pieces;
  }

  /** A streamed piece of the model's text. */
  text(piece: string): void {
    if (this.#done()) return;
    this.#pieces += 1;
    this.marks.modelFirstTokenAt ??= this.#deps.clock.now();
    for (const sentence of this.#chunker.push(piece)) this.#send(sentence, true);
  }

  /** A whole line said on its own (pending model text is sent first); `recorded: false` keeps it out of the heard text. */
  line(text: string, recorded: boolean): void {
    if (this.#done()) return;
    this.#pieces += 1;
    const rest = this.#chunker.flush();
    if (rest) this.#send(rest, true);
    const chunker = createSentenceChunker();
    for (const sentence of chunker.push(text)) this.#send(sentence, recorded);
    const last = chunker.flush();
    if (last) this.#send(last, recorded);
  }

  /** No more text. */
  end(): void {
    if (this.#done() || this.#inputEnded) return;
    const rest = this.#chunker.flush();
    if (rest) this.#send(rest, true);
    this.#inputEnded = true;
    this.#stream.endInput();
    this.#maybeSettle();
  }

  /** The text heard once the leg has played up to `position`. */
  heard(position: number): string {
    return this.#tracker.heard(position);
  }

  /** Stops at once (barge-in); returns and keeps what was heard up to `position`. */
  interrupt(position: number): string {
    if (this.#interrupted) return this.#delivered;
    this.#interrupted = true;
    this.#delivered = this.#tracker.heard(position);
    this.marks.interruptedAt = this.#deps.clock.now();
    this.close();
    return this.#delivered;
  }

  /**
   * Every sentence given so far (text waiting for its sentence's end is sent now) has all its
   * audio handed to the leg, or the utterance stopped. Lets a transfer start only once the agent
   * has said its `initiating_msg`, while the model's turn is still open.
   */
  spoken(): Promise<void> {
    if (this.#done()) return Promise.resolve();
    const rest = this.#chunker.flush();
    if (rest) this.#send(rest, true);
    const segments = this.#flushedAt.length;
    if (this.#completed >= segments) return Promise.resolve();
    return new Promise((resolve) => this.#spokenWaiters.push({ segments, resolve }));
  }

  /** All audio handed to the leg (or the utterance stopped). */
  settled(): Promise<void> {
    return this.#settled;
  }

  /** All audio handed to the leg and played out (or cleared, or the leg ended). */
  async played(): Promise<void> {
    await this.#settled;
    await this.#deps.leg.drained();
  }

  /** Stops synthesis and frees the stream; idempotent. */
  close(): void {
    this.#cancelWatchdog?.();
    this.#cancelWatchdog = null;
    if (!this.controller.signal.aborted) this.controller.abort(new Error('utterance closed'));
    this.#stream.close();
    this.#settle();
    this.#wakeSpoken(true);
  }

  #wakeSpoken(all: boolean): void {
    if (this.#spokenWaiters.length === 0) return;
    const waiting = this.#spokenWaiters;
    this.#spokenWaiters = [];
    for (const waiter of waiting) {
      if (all || waiter.segments <= this.#completed) waiter.resolve();
      else this.#spokenWaiters.push(waiter);
    }
  }

  #done(): boolean {
    return this.#interrupted || this.controller.signal.aborted;
  }

  #send(piece: string, recorded: boolean): void {
    const spoken = this.#deps.filter(piece);
    if (spoken === '') return;
    this.#tracker.addSegment(piece, recorded);
    this.#flushedAt.push(this.#deps.clock.now());
    this.marks.firstSentenceAt ??= this.#deps.clock.now();
    this.#stream.pushText(spoken);
    this.#stream.flush();
    if (!this.#cancelWatchdog) this.#armWatchdog();
  }

  /**
   * While text sent to the synthesizer still waits for audio, a frame must come at least every
   * TTS_AUDIO_TIMEOUT_MS (counted from the oldest waiting segment's flush or the last frame,
   * whichever is later), or the call fails. One timer, re-armed only when it fires early.
   */
  #armWatchdog(): void {
    this.#cancelWatchdog?.();
    this.#cancelWatchdog = null;
    const flushedAt = this.#flushedAt[this.#completed];
    if (flushedAt === undefined || this.#done()) return;
    const idle = this.#deps.clock.now() - Math.max(flushedAt, this.#lastAudioAt);
    this.#cancelWatchdog = this.#deps.timers.after(TTS_AUDIO_TIMEOUT_MS - idle, () => {
      this.#cancelWatchdog = null;
      if (this.#done()) return;
      const waiting = this.#flushedAt[this.#completed];
      if (waiting === undefined) return;
      if (this.#deps.clock.now() - Math.max(waiting, this.#lastAudioAt) < TTS_AUDIO_TIMEOUT_MS) {
        this.#armWatchdog();
        return;
      }
      this.close();
      this.#deps.onFailure(
        new SpeechError(
          `the speech synthesizer (${this.#deps.tts.name}) produced no audio for ${TTS_AUDIO_TIMEOUT_MS / 1000} s while text was waiting`,
          'tts_failed',
          true,
        ),
      );
    });
  }

  #maybeSettle(): void {
    if (this.#inputEnded && this.#completed >= this.#tracker.segments) {
      this.#cancelWatchdog?.();
      this.#cancelWatchdog = null;
      this.#settle();
    }
  }

  async #pump(): Promise<void> {
    const { leg, clock, audioOut } = this.#deps;
    try {
      for await (const piece of this.#stream.audio) {
        if (this.#done()) break;
        const index = piece.segment;
        if (index < 0 || index >= this.#tracker.segments) continue;
        const now = clock.now();
        this.#lastAudioAt = now;
        this.marks.ttsFirstAudioAt ??= now;
        const frame = audioOut.process(piece.frame);
        const ms = (frame.samples.length * 1000) / frame.sampleRate;
        this.#tracker.queued(index, leg.playedMs + leg.queuedMs, ms);
        this.marks.firstFrameOutAt ??= now + leg.queuedMs;
        leg.play(frame);
        if (piece.last) {
          this.#tracker.completed(index);
          this.#completed = Math.max(this.#completed, index + 1);
          this.#wakeSpoken(false);
          if (this.#completed >= this.#flushedAt.length) {
            this.#cancelWatchdog?.();
            this.#cancelWatchdog = null;
          }
          this.#maybeSettle();
        }
      }
    } catch (err) {
      if (!this.#done()) {
        this.close();
        const message = err instanceof Error ? err.message : String(err);
        this.#deps.onFailure(
          err instanceof SpeechError
            ? err
            : new SpeechError(`the speech synthesizer failed: ${message}`, 'tts_failed', false, err),
        );
      }
    } finally {
      this.#settle();
      this.#wakeSpoken(true);
    }
  }
}
