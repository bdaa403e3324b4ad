import type { Clock } from '../core/index.ts';
import {
  ConversationEndedError,
  END_CALL_TOOL,
  type ConversationSession,
  type TurnResult,
} from '../conversation/index.ts';
import { FRAME_MS, type AudioFrame, type MediaLeg, type LegEndReason } from '../media/index.ts';
import { LLMError, SpeechError, type STT, type TTS, type VAD } from '../providers/index.ts';
import { createAudioOut } from './audio-out.ts';
import { finalInterrupts, partialInterrupts, saysSomething } from './barge-in.ts';
import { createDtmfCollector, dtmfTurnText } from './dtmf.ts';
import { createWordFilter } from './filter-words.ts';
import { createIdleWatch } from './idle.ts';
import {
  BARGE_IN_MIN_SPEECH_MS,
  CALLER_GOES_ON_MS,
  LAST_WORDS_WAIT_MS,
  SETTLE_AT_END_MS,
  TOOL_WAIT_MS,
} from './limits.ts';
import { createListener, type HeardTurn, type Listener } from './listener.ts';
import { PATIENCE_MS } from './endpointing.ts';
import { watchModel, type ModelWatch } from './model-watch.ts';
import {
  CALL_FALLBACK_LINE,
  MAX_DURATION_LINE,
  endingOfOutcome,
  outcome,
  outcomeOfEnding,
  type AnsweredBy,
  type VoiceCallOutcome,
  type VoiceCallResult,
} from './outcome.ts';
import { voiceQuality, type TurnKind, type TurnMarks } from './quality.ts';
import type { VoiceSettings } from './settings.ts';
import { createTimers, type Timers } from './timers.ts';
import { Utterance, emptyMarks, type UtteranceDeps } from './utterance.ts';
import { createMachineScreen, type MachineScreen } from './screening.ts';
import type { MachineReason } from './voicemail.ts';
import { createGreetingTranscript, waitForMessageMoment, type MessageMoment } from './voicemail-flow.ts';

// The real-time voice session of one call (DESIGN.md section 5): it wires the caller's audio
// (listener.ts: VAD, STT, endpointing) to the conversation engine and the agent's speech
// (utterance.ts: sentences, TTS, playout) and owns the call-level rules: greeting modes,
// barge-in, idle reminders and hang-up, maximum duration, slow tools, keys, voicemail, and how
// the call ends. Everything the agent says runs one at a time on a lane (a promise chain);
// events from the caller's side (speech, transcripts, keys, beeps) arrive as callbacks and only
// decide, queue or cut. The frame handler does no more than push and count.

/** A pino-style logger; the session logs events and failures, never transcripts. */
export interface VoiceLogger {
  debug(obj: object, msg?: string): void;
  info(obj: object, msg?: string): void;
  warn(obj: object, msg?: string): void;
  error(obj: object, msg?: string): void;
}

export interface VoiceCallOptions {
  leg: MediaLeg;
  conversation: ConversationSession;
  vad: VAD;
  stt: STT;
  tts: TTS;
  clock: Clock;
  settings: VoiceSettings;
  /** Aborting cancels the call (status `canceled`). */
  signal?: AbortSignal;
  logger?: VoiceLogger;
  /** The TTS provider's voice id. */
  ttsVoice?: string;
  /**
   * Listen for an answering machine at answer (outbound calls). Always on in greeting mode
   * `human`, where the agent waits for the far end anyway.
   */
  detectVoicemail?: boolean;
  /**
   * Told after each thing the agent says has played out or been cut (the conversation's last
   * agent turn is then final): the transcript so far is complete and may be kept. Must not throw.
   */
  onTurnsSettled?: () => void;
  /**
   * Given, once, a way to wait until the agent has said what it began (the sentences given to
   * its speech so far have played): a transfer waits for it before it takes the line.
   */
  exposeSpoken?: (spoken: () => Promise<void>) => void;
}

type Phase = 'talk' | 'voicemail' | 'ending' | 'done';

/** Runs the call until it ends; always hangs up the leg before resolving. */
export function runVoiceCall(options: VoiceCallOptions): Promise<VoiceCallResult> {
  return new VoiceCall(options).run();
}

const messageOf = (err: unknown) => (err instanceof Error ? err.message : String(err));

const PROVIDER_OF_CODE: Record<string, string> = {
  stt: 'speech recognition (STT)',
  tts: 'speech synthesis (TTS)',
  vad: 'speech detection (VAD)',
};

/** The record's error message: which provider failed, when a provider did, and why. */
function failureMessage(err: unknown): string {
  const kind = err instanceof SpeechError ? PROVIDER_OF_CODE[err.code.slice(0, 3)] : undefined;
  return kind ? `${kind} failed: ${messageOf(err)}` : messageOf(err);
}
const noop = () => undefined;

class VoiceCall {
  readonly #o: VoiceCallOptions;
  readonly #s: VoiceSettings;
  readonly #clock: Clock;
  readonly #leg: MediaLeg;
  readonly #conversation: ConversationSession;
  readonly #stop = new AbortController();
  readonly #timers: Timers;
  readonly #startedAt: number;
  readonly #marks: TurnMarks[] = [];
  readonly #screen: MachineScreen;
  readonly #idle;
  readonly #dtmf;
  readonly #utteranceDeps: UtteranceDeps;
  #listener: Listener | null = null;

  #phase: Phase = 'talk';
  /** What the caller said that was handed out after the call ended (their last words). */
  readonly #lastWords: string[] = [];
  #answeredBy: AnsweredBy = 'human';
  #current: Utterance | null = null;
  #lane: Promise<void> = Promise.resolve();
  #laneDepth = 0;
  #interruptions = 0;
  #outcome: VoiceCallOutcome | null = null;
  #closing: VoiceCallOutcome | null = null;
  #resolveDone: (outcome: VoiceCallOutcome) => void = noop;

  #heardSpeech = false;
  #callerTurns = 0;
  #awaitingCallee = false;
  #lastSpeechEndAt: number | null = null;
  #speechStartedAt = 0;
  readonly #greeting = createGreetingTranscript();
  #moment: MessageMoment | null = null;
  #voicemailStarted = false;

  #cancelBarge: () => void = noop;
  #cancelHuman: () => void = noop;

  constructor(options: VoiceCallOptions) {
    this.#o = options;
    this.#s = options.settings;
    this.#clock = options.clock;
    this.#leg = options.leg;
    this.#conversation = options.conversation;
    this.#startedAt = options.clock.now();
    options.exposeSpoken?.(async () => {
      await this.#current?.spoken();
      await this.#leg.drained();
    });
    this.#timers = createTimers(options.clock, (err) => this.#fail(err));
    this.#screen = createMachineScreen({
      clock: this.#clock,
      timers: this.#timers,
      patienceMs: PATIENCE_MS[this.#s.patience],
      enabled: this.#s.greetingMode === 'human' || options.detectVoicemail === true,
      onMachine: (reason) => this.#onMachine(reason),
    });
    const reminder = this.#s.idle.reminder;
    this.#idle = createIdleWatch({
      clock: this.#clock,
      timers: this.#timers,
      allowedMs: this.#s.idle.allowedMs,
      reminderMs: reminder ? reminder.afterMs : null,
      onReminder: () => {
        if (reminder) this.#enqueue(() => this.#sayLine('reminder', reminder.message, true));
      },
      onTimeout: () => {
        this.#log('info', { event: 'idle_timeout' }, 'the caller stayed silent: ending the call');
        this.#closeWith(outcome('completed', 'undefined'), null);
      },
    });
    this.#dtmf = createDtmfCollector({
      clock: this.#clock,
      timers: this.#timers,
      onEntry: (digits) => this.#onKeys(digits),
    });
    this.#utteranceDeps = {
      tts: options.tts,
      ...(options.ttsVoice ? { voice: options.ttsVoice } : {}),
      speed: this.#s.voiceSpeed,
      leg: options.leg,
      clock: options.clock,
      timers: this.#timers,
      audioOut: createAudioOut({
        volume: this.#s.voiceVolume,
        noise: this.#s.backgroundNoise,
      }),
      filter: createWordFilter(this.#s.filterWords),
      onFailure: (err) => this.#fail(err),
    };
  }

  async run(): Promise<VoiceCallResult> {
    const done = new Promise<VoiceCallOutcome>((resolve) => (this.#resolveDone = resolve));
    const signal = this.#o.signal;
    const cancel = () => this.#end(outcome('canceled', 'undefined'));
    signal?.addEventListener('abort', cancel, { once: true });
    if (signal?.aborted) cancel();
    else this.#start();
    const result = await done;
    signal?.removeEventListener('abort', cancel);
    return this.#finish(result);
  }

  #start(): void {
    try {
      this.#listener = createListener({
        vad: this.#o.vad,
        stt: this.#o.stt,
        clock: this.#clock,
        timers: this.#timers,
        patience: this.#s.patience,
        keywords: this.#s.keywords,
        ...(this.#s.language ? { language: this.#s.language } : {}),
        signal: this.#stop.signal,
        events: {
          speechStart: (at) => this.#onSpeechStart(at),
          speechEnd: (at) => this.#onSpeechEnd(at),
          partial: (text) => this.#onPartial(text),
          turn: (turn) => this.#onTurn(turn),
          nothing: () => this.#maybeQuiet(),
          failure: (err) => this.#fail(err),
        },
      });
      this.#leg.receive({
        audio: (frame) => this.#onFrame(frame),
        dtmf: (digit) => this.#onKey(digit),
      });
      this.#leg.ended.then(
        (reason) => this.#onLegEnded(reason),
        () => this.#onLegEnded('carrier_failure'),
      );
      if (this.#s.maxDurationMs !== null) {
        this.#timers.after(this.#s.maxDurationMs, () => {
          this.#log('info', { event: 'max_duration' }, 'maximum duration reached');
          this.#closeWith(outcome('completed', 'max_duration'), MAX_DURATION_LINE);
        });
      }
      this.#enqueue(() => this.#open());
      // A carrier that detects machines itself (Twilio) tells us too; the first sign decides.
      this.#leg.onAnsweredBy?.((who) => this.#screen.carrierSaid(who));
    } catch (err) {
      this.#fail(err);
    }
  }

  // ---- The caller's side ----------------------------------------------------------------------

  #onFrame(frame: AudioFrame): void {
    if (this.#phase === 'done' || !this.#listener) return;
    if (!this.#listener.frame(frame)) return;
    if (!this.#screen.active && this.#phase !== 'voicemail') return;
    if (this.#screen.frame(frame) === 'end') this.#moment?.beepEnded();
  }

  #onSpeechStart(at: number): void {
    this.#heardSpeech = true;
    if (this.#awaitingCallee) {
      this.#awaitingCallee = false;
      this.#cancelHuman();
    }
    this.#idle.activity();
    this.#screen.speechStart(at);
    this.#moment?.speechStart();
    this.#speechStartedAt = at;
    if (this.#current && this.#stopsOnSpeech(this.#current)) this.#checkSpeechBargeIn();
  }

  /**
   * Whether the caller's latest speech began before reply `u` was audible or within
   * CALLER_GOES_ON_MS after, and after the line it answers ended: the caller went on.
   */
  #wentOn(u: Utterance): boolean {
    if (u.marks.kind !== 'reply' || u.marks.endOfSpeechAt === null) return false;
    if (this.#speechStartedAt <= u.marks.endOfSpeechAt) return false;
    const audibleAt = u.marks.firstFrameOutAt;
    return audibleAt === null || this.#speechStartedAt - audibleAt <= CALLER_GOES_ON_MS;
  }

  /**
   * Whether voiced speech alone (BARGE_IN_MIN_SPEECH_MS of it) stops `u`: with
   * `min_words_to_interrupt` "0"; and, where the recognizer gives no partials (its words come only
   * after the caller stops), a reply the caller spoke over from before it was audible or from
   * within CALLER_GOES_ON_MS after: a caller going on with the line it answers.
   */
  #stopsOnSpeech(u: Utterance): boolean {
    if (this.#s.minWordsToInterrupt === 0) return true;
    return !this.#o.stt.partials && this.#wentOn(u);
  }

  /**
   * Where speech alone stops the agent (`#stopsOnSpeech`): interrupts once the caller's speech
   * has gone on BARGE_IN_MIN_SPEECH_MS and is still voiced (a sound that stopped just before, not
   * yet confirmed by VAD, does not count). Checks again each frame while the caller speaks and the
   * agent has speech under way (it may become audible meanwhile); an utterance that starts during
   * the caller's speech starts the checks.
   */
  #checkSpeechBargeIn(): void {
    this.#cancelBarge();
    if (this.#phase !== 'talk') return;
    const due = this.#speechStartedAt + BARGE_IN_MIN_SPEECH_MS - this.#clock.now();
    this.#cancelBarge = this.#timers.after(Math.max(due, 0), () => {
      this.#cancelBarge = noop;
      if (!this.#listener?.speaking || this.#phase !== 'talk' || !this.#current) return;
      if (!this.#stopsOnSpeech(this.#current)) return;
      if (this.#listener.voiced && this.#agentAudible()) this.#interrupt(true);
      else this.#cancelBarge = this.#timers.after(FRAME_MS, () => this.#checkSpeechBargeIn());
    });
  }

  #onSpeechEnd(at: number): void {
    this.#lastSpeechEndAt = at;
    this.#cancelBarge();
    this.#screen.speechEnd(at);
    this.#moment?.speechEnd(at);
  }

  #onPartial(text: string): void {
    if (this.#screen.text(text, this.#clock.now())) return;
    if (
      this.#phase === 'talk' &&
      this.#agentAudible() &&
      partialInterrupts(this.#s.minWordsToInterrupt, text)
    ) {
      this.#interrupt(true);
    }
  }

  #onTurn(turn: HeardTurn): void {
    // Words after the call began to end get no answer, but the transcript keeps them.
    if (this.#phase === 'ending') return void this.#conversation.hear(turn.text).catch(noop);
    if (this.#phase === 'done') return void this.#lastWords.push(turn.text);
    if (this.#phase === 'voicemail') {
      this.#greeting.add(turn.text);
      return;
    }
    if (this.#phase !== 'talk') return;
    if (this.#screen.active) {
      this.#greeting.add(turn.text);
      if (this.#screen.text(turn.text, this.#clock.now())) return;
      this.#greeting.clear();
      this.#screen.turnTaken();
    }
    const current = this.#current;
    // Backchannels over speech that may not be cut (the greeting, by default), and a hello at
    // pick-up over the greeting, are not turns; other words are heard and answered after it.
    if (current && !current.interrupted && !current.interruptible) {
      if (!saysSomething(turn.text, current.marks.kind === 'greeting')) {
        this.#log('debug', { event: 'backchannel' }, 'short speech while the agent talks: not a turn');
        // Said all the same: the transcript keeps a hello at pick-up (the model has no use for it).
        if (current.marks.kind === 'greeting')
          void this.#conversation.hear(turn.text, { transcriptOnly: true }).catch(noop);
        this.#maybeQuiet();
        return;
      }
    }
    if (current && !current.interrupted && current.interruptible) {
      if (this.#agentAudible()) {
        if (!finalInterrupts(this.#s.minWordsToInterrupt, turn.text)) {
          this.#log('debug', { event: 'backchannel' }, 'short speech while the agent talks: not a turn');
          this.#maybeQuiet();
          return;
        }
        this.#interrupt(true);
      } else {
        // Nothing of the reply is audible yet: the new words supersede it (the model sees both).
        this.#interrupt(false);
      }
    }
    this.#callerTurns += 1;
    const marks: TurnMarks = {
      ...emptyMarks('reply'),
      speechStartAt: turn.speechStartAt,
      endOfSpeechAt: turn.endOfSpeechAt,
      endpointAt: turn.endpointAt,
      sttFinalAt: turn.sttFinalAt,
      pitchAtEnd: turn.pitchAtEnd,
    };
    this.#enqueue(() => this.#reply(turn.text, marks));
  }

  #onKey(digit: string): void {
    if (this.#phase !== 'talk') return;
    // Machines do not press keys.
    this.#screen.stop();
    this.#idle.activity();
    this.#dtmf.press(digit);
  }

  #onKeys(digits: string[]): void {
    if (this.#phase !== 'talk') return;
    if (this.#current && !this.#current.interrupted) this.#interrupt(this.#agentAudible());
    this.#callerTurns += 1;
    this.#enqueue(() => this.#reply(dtmfTurnText(digits), emptyMarks('reply')));
  }

  // ---- Barge-in ---------------------------------------------------------------------------------

  /** Whether the agent's current speech has started reaching the far end. */
  #agentAudible(): boolean {
    const current = this.#current;
    if (!current || current.interrupted || !current.interruptible) return false;
    const due = current.marks.firstFrameOutAt;
    return due !== null && this.#clock.now() >= due;
  }

  /** Stops the agent's current speech at once; `counted` for a barge-in (vs. a superseded reply). */
  #interrupt(counted: boolean): void {
    const current = this.#current;
    if (!current || current.interrupted) return;
    if (counted && this.#wentOn(current)) this.#listener?.callerPausesMidLine();
    const queued = this.#leg.queuedMs;
    const fade = this.#phase === 'talk' ? this.#s.fadeOutFrames : 0;
    this.#leg.clear(fade);
    current.interrupt(this.#leg.playedMs + Math.min(fade * FRAME_MS, queued));
    if (counted) {
      this.#interruptions += 1;
      this.#log(
        'info',
        { event: 'barge_in', interruptions: this.#interruptions },
        'the caller interrupted the agent',
      );
    }
  }

  // ---- The agent's side -------------------------------------------------------------------------

  /** Queues something the agent says; `closing` tasks also run while the call is ending. */
  #enqueue(task: () => Promise<void>, closing = false): void {
    this.#laneDepth += 1;
    const run = async () => {
      try {
        if (this.#phase === 'done' || (!closing && this.#phase !== 'talk')) return;
        await task();
      } catch (err) {
        this.#fail(err);
      } finally {
        this.#laneDepth -= 1;
        this.#o.onTurnsSettled?.();
        this.#maybeQuiet();
      }
    };
    this.#lane = this.#lane.then(run);
  }

  /** Speaks one utterance: `produce` feeds it text; resolves once it has played (or was cut). */
  async #utter(
    marks: TurnMarks,
    interruptible: boolean,
    produce: (u: Utterance) => Promise<void>,
  ): Promise<Utterance> {
    const u = new Utterance(this.#utteranceDeps, marks, interruptible, this.#stop.signal);
    this.#current = u;
    this.#marks.push(marks);
    this.#idle.busy();
    if (this.#listener?.speaking && this.#stopsOnSpeech(u)) this.#checkSpeechBargeIn();
    try {
      await produce(u);
      u.end();
      await u.played();
    } finally {
      u.close();
      if (this.#current === u) this.#current = null;
    }
    return u;
  }

  async #open(): Promise<void> {
    const mode = this.#s.greetingMode;
    if (mode === 'human') {
      await this.#conversation.start();
      this.#awaitingCallee = !this.#heardSpeech;
      this.#cancelHuman = this.#timers.after(this.#s.humanTalkTimeoutMs, () => this.#onCalleeSilent());
      return;
    }
    if (this.#s.initialPauseMs > 0) await this.#timers.sleep(this.#s.initialPauseMs);
    if (this.#phase !== 'talk') return;
    let result: TurnResult | null = null;
    const u = await this.#utter(emptyMarks('greeting'), this.#s.greetingInterruptible, async (u) => {
      const watch = mode === 'agent_dynamic' ? this.#watchModel(u) : null;
      try {
        result = await this.#conversation.start({
          signal: u.signal,
          onText: (text) => {
            watch?.answered();
            u.text(text);
          },
        });
      } catch (err) {
        if (!(err instanceof LLMError)) throw err;
        this.#log('warn', { event: 'model_failed', code: err.code }, 'the model failed on the greeting');
      } finally {
        watch?.stop();
      }
    });
    if (u.interrupted && result !== null) this.#conversation.truncateLastAgentTurn(u.delivered);
  }

  /** Human greeting mode: the callee said nothing in time, so the agent speaks first. */
  #onCalleeSilent(): void {
    this.#awaitingCallee = false;
    if (this.#heardSpeech || this.#phase !== 'talk') return;
    const line = this.#s.humanTimeoutLine;
    if (line) this.#enqueue(() => this.#sayLine('greeting', line, this.#s.greetingInterruptible));
    else this.#maybeQuiet();
  }

  async #reply(text: string, marks: TurnMarks): Promise<void> {
    let recorded = false;
    const u = await this.#utter(marks, true, async (u) => {
      const watch = this.#watchModel(u);
      try {
        await this.#conversation.respond(text, {
          signal: u.signal,
          onText: (piece) => {
            watch.answered();
            u.text(piece);
          },
          onToolCall: (name) => this.#onToolCall(u, watch, name),
        });
        recorded = true;
      } catch (err) {
        if (u.interrupted || this.#phase === 'done' || err instanceof ConversationEndedError) {
          // No answer follows, but the caller's words were heard: the transcript keeps them.
          await this.#conversation.hear(text).catch(noop);
          return;
        }
        if (!(err instanceof LLMError)) throw err;
        this.#log(
          'warn',
          { event: 'model_failed', code: err.code },
          'the model failed: saying the fallback line',
        );
        watch.answered();
        await this.#conversation.recordExchange(text, CALL_FALLBACK_LINE);
        recorded = true;
        u.line(CALL_FALLBACK_LINE, true);
      } finally {
        watch.stop();
      }
    });
    if (u.interrupted && recorded) this.#conversation.truncateLastAgentTurn(u.delivered);
    const ended = this.#conversation.ended;
    if (ended && this.#phase === 'talk') this.#closeWith(outcomeOfEnding(ended), null);
  }

  /** A line said outside the model (recorded in the conversation first). */
  async #sayLine(kind: TurnKind, text: string, interruptible: boolean): Promise<void> {
    await this.#conversation.speak(text);
    const u = await this.#utter(emptyMarks(kind), interruptible, async (u) => u.line(text, true));
    if (u.interrupted) this.#conversation.truncateLastAgentTurn(u.delivered);
  }

  /** Fails the call when the model gives no first token in time (model-watch.ts). */
  #watchModel(u: Utterance): ModelWatch {
    return watchModel(this.#timers, (err) => {
      if (!u.interrupted && this.#phase !== 'done') this.#fail(err);
    });
  }

  /** A tool call: if it runs past TOOL_WAIT_MS with nothing said, the filler line is said. */
  #onToolCall(u: Utterance, watch: ModelWatch, name: string): () => void {
    watch.answered();
    if (name === END_CALL_TOOL) return noop;
    const piecesBefore = u.pieces;
    const line = this.#s.toolWaitLine;
    const cancelFiller = line
      ? this.#timers.after(TOOL_WAIT_MS, () => {
          if (!u.interrupted && u.pieces === piecesBefore) u.line(line, false);
        })
      : noop;
    return () => {
      cancelFiller();
      watch.restart();
    };
  }

  // ---- Idle ---------------------------------------------------------------------------------------

  #maybeQuiet(): void {
    if (this.#phase !== 'talk' || this.#current || this.#laneDepth > 0 || this.#awaitingCallee) return;
    if (this.#listener?.busy) return;
    this.#idle.quiet();
  }

  // ---- Voicemail ----------------------------------------------------------------------------------

  #onMachine(reason: MachineReason): void {
    if (this.#phase !== 'talk') return;
    this.#answeredBy = 'machine';
    this.#phase = 'voicemail';
    this.#log('info', { event: 'answering_machine', reason }, 'an answering machine answered');
    this.#idle.stop();
    this.#cancelHuman();
    this.#cancelBarge();
    this.#dtmf.close();
    this.#interrupt(false);
    const message = this.#s.voicemailMessage;
    if (!message) {
      this.#enqueue(async () => {
        const greeting = await this.#greeting.collect(this.#listener, this.#timers);
        if (greeting) await this.#conversation.hear(greeting);
        this.#end(outcome('hangup_on_voicemail', 'voicemail'));
      }, true);
      return;
    }
    const quiet = !this.#listener?.speaking && !this.#screen.toneInProgress;
    const moment = waitForMessageMoment({
      clock: this.#clock,
      timers: this.#timers,
      silentSince: quiet ? (this.#lastSpeechEndAt ?? this.#clock.now()) : null,
    });
    this.#moment = moment;
    this.#enqueue(async () => {
      await moment.ready;
      if (this.#phase !== 'voicemail') return;
      this.#voicemailStarted = true;
      // The message starts at once; the greeting's transcript is recorded before it meanwhile.
      const recorded = this.#greeting.collect(this.#listener, this.#timers).then(async (greeting) => {
        if (greeting) await this.#conversation.hear(greeting);
        await this.#conversation.speak(message);
      });
      await this.#utter(emptyMarks('voicemail'), false, async (u) => u.line(message, true));
      await recorded;
      this.#end(outcome('left_voicemail', 'voicemail_message_left'));
    }, true);
  }

  // ---- Ending -------------------------------------------------------------------------------------

  /** Ends gracefully: `line` (if any) is said and played out first; otherwise the queue drains. */
  #closeWith(result: VoiceCallOutcome, line: string | null): void {
    if (this.#phase !== 'talk') return;
    this.#phase = 'ending';
    this.#closing = result;
    this.#idle.stop();
    this.#cancelHuman();
    this.#cancelBarge();
    this.#dtmf.close();
    if (line) this.#interrupt(false);
    this.#enqueue(async () => {
      if (line) await this.#sayLine('closing', line, false);
      else await this.#leg.drained();
      this.#end(result);
    }, true);
  }

  #onLegEnded(reason: LegEndReason): void {
    if (this.#outcome || reason === 'local_hangup') return;
    this.#log('info', { event: 'leg_ended', reason }, 'the leg ended');
    if (this.#closing) return this.#end(this.#closing);
    if (this.#phase === 'voicemail') {
      return this.#end(
        this.#voicemailStarted
          ? outcome('left_voicemail', 'voicemail_message_left')
          : outcome('hangup_on_voicemail', 'voicemail'),
      );
    }
    if (reason === 'carrier_failure') {
      return this.#end(outcome('failed', 'undefined', { errorMessage: 'the carrier dropped the call' }));
    }
    // Words on their way count: #finish waits for them.
    const spoke = this.#callerTurns > 0 || this.#listener?.busy === true;
    this.#end(outcome('completed', spoke ? 'human_goodbye' : 'human_pick_up_cut_off'));
  }

  #fail(err: unknown): void {
    if (this.#outcome) return;
    this.#log('error', { event: 'call_failed', err: messageOf(err) }, 'the voice call failed');
    this.#end(outcome('failed', 'undefined', { errorMessage: failureMessage(err) }));
  }

  #end(result: VoiceCallOutcome): void {
    if (this.#outcome) return;
    this.#outcome = result;
    this.#phase = 'done';
    this.#resolveDone(result);
  }

  /** Stops everything, records what is left, hangs up, and measures. */
  async #finish(result: VoiceCallOutcome): Promise<VoiceCallResult> {
    const leg = this.#leg;
    // The caller was still speaking, or their words were still being recognized: those words.
    const completed = result.status === 'completed';
    if (completed && this.#listener?.busy) await this.#lastWordsIn(this.#listener);
    // What the far end heard of speech cut short by the end (the reply's task truncates to it).
    this.#current?.interrupt(leg.playedMs);
    if (leg.queuedMs > 0) leg.clear(0);
    this.#moment?.release();
    this.#stop.abort(new Error('the call has ended'));
    this.#timers.clear();
    this.#screen.stop();
    this.#idle.stop();
    this.#dtmf.close();
    this.#listener?.close();
    const settled = await this.#settleLane();
    const pending = settled && completed ? (this.#listener?.pendingText() ?? '') : '';
    const heard = [...this.#lastWords, pending].filter(Boolean).join(' ');
    if (heard) await this.#conversation.hear(heard).catch(noop);
    const ending = endingOfOutcome(result);
    if (ending) this.#conversation.end(ending);
    await leg.hangup().catch((err: unknown) => this.#log('warn', { err: messageOf(err) }, 'hangup failed'));
    const endedAt = this.#clock.now();
    const quality = voiceQuality({
      startedAt: this.#startedAt,
      endedAt,
      turns: this.#marks,
      interruptions: this.#interruptions,
      callerSpeechMs: this.#listener?.speechMs(endedAt) ?? 0,
      agentSpeechMs: leg.playedMs,
      droppedFrames: this.#listener?.droppedFrames ?? 0,
      link: leg.linkStats?.() ?? null,
    });
    this.#log(
      'info',
      { event: 'call_ended', status: result.status, reason: result.endCallReason },
      'voice call ended',
    );
    return { ...result, answeredBy: this.#answeredBy, quality };
  }

  /** Flushes the recognizer and waits (boundedly) for its text of the caller's last words. */
  async #lastWordsIn(listener: Listener): Promise<void> {
    listener.flushNow();
    const bound = new AbortController();
    await Promise.race([
      listener.finalsIn(),
      this.#clock.sleep(LAST_WORDS_WAIT_MS, bound.signal).catch(noop),
    ]);
    bound.abort();
  }

  /** Waits (boundedly) for the agent's lane to finish, so cut-off replies record what was heard. */
  async #settleLane(): Promise<boolean> {
    const bound = new AbortController();
    let settled = false;
    await Promise.race([
      this.#lane.then(() => (settled = true)),
      this.#clock.sleep(SETTLE_AT_END_MS, bound.signal).catch(noop),
    ]);
    bound.abort();
    return settled;
  }

  #log(level: keyof VoiceLogger, fields: object, message: string): void {
    this.#o.logger?.[level]({ sid: this.#leg.sid, ...fields }, message);
  }
}
