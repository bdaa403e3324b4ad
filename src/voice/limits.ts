// Every fixed time and size the voice session uses, in one place (ms unless named otherwise).
// Agent settings (patience, idle times...) live in settings.ts; these are Parley's own choices.

/** Audio kept before VAD's speech start and sent to the STT with it, so the first word is whole. */
export const PRE_ROLL_MS = 300;
/**
 * How late VAD's speech start may be handled after the frame that shows it and still get its
 * whole pre-roll: a worker's verdict comes late, and a burst of frames (a client's audio held up
 * by the network or by our own busy event loop) is all pushed before the event is read.
 */
export const VAD_LAG_MS = 1_000;
/** Silence that ends speech for the VAD stream; endpointing then waits the patience delay. */
export const VAD_MIN_SILENCE_MS = 200;

/** No STT final this long after a flush: the recognizer stalled and the call fails. */
export const STT_FINAL_TIMEOUT_MS = 5_000;
/**
 * No TTS audio this long while text waits for it (after a sentence was flushed, or between two
 * frames of a sentence): the synthesizer stalled and the call fails.
 */
export const TTS_AUDIO_TIMEOUT_MS = 5_000;
/** No first token (text or tool call) this long after a model call began: the call fails. */
export const MODEL_FIRST_TOKEN_TIMEOUT_MS = 15_000;

/** With `min_words_to_interrupt` "0": caller speech this long while the agent talks interrupts. */
export const BARGE_IN_MIN_SPEECH_MS = 300;
/**
 * With a recognizer without partials (PocketSphinx, the OpenAI file API), caller speech that
 * starts this soon after the agent's reply became audible (or before it) is taken as the caller
 * going on with the line the reply answered: it stops the reply once voiced for
 * BARGE_IN_MIN_SPEECH_MS, as with `min_words_to_interrupt` "0". Later speech waits for the final's
 * words, so back-channels over the rest of the reply do not cut it.
 */
export const CALLER_GOES_ON_MS = 600;
/**
 * With `min_words_to_interrupt` "0": a final with at least this many words, said while the agent
 * talks, is a turn even when it was shorter than BARGE_IN_MIN_SPEECH_MS ("yeah" is not, "wait no" is).
 */
export const BARGE_IN_FINAL_WORDS_AT_ZERO = 2;

/** A tool still running after this long gets the filler line (`speech_while_using_the_tool`). */
export const TOOL_WAIT_MS = 1_000;

/** Keys end after this long without another key (or on `#`). */
export const DTMF_GAP_MS = 1_500;
/** Keys kept per entry; more are dropped (a flood must not grow memory or the prompt). */
export const DTMF_MAX_DIGITS = 32;

/** Voicemail detection runs this long after answer (phrases, beep); the first run of speech decides length. */
export const VOICEMAIL_SCREEN_MS = 12_000;
/** A first run of far-end speech longer than this, with no turn-taking pause, is a machine greeting. */
export const MACHINE_GREETING_MS = 4_000;
/** With no beep, the message starts this long after the machine's greeting ends. */
export const VOICEMAIL_AFTER_GREETING_MS = 2_000;
/** Before recording the machine's greeting, how long to wait for its STT final. */
export const GREETING_FINAL_WAIT_MS = 1_000;
/** The message starts at the latest this long after the machine was detected. */
export const VOICEMAIL_MAX_WAIT_MS = 30_000;

/** No idle reminder when the call would end by idleness less than this long after it. */
export const IDLE_REMINDER_LEAD_MS = 2_000;

/** At the end, how long to wait for a reply that was cut off to record its truncated text. */
export const SETTLE_AT_END_MS = 1_000;
/** At the caller's hang-up, how long to wait for the recognizer's text of their last words. */
export const LAST_WORDS_WAIT_MS = 1_000;

/** Characters per ms assumed for a sentence whose audio is still arriving (about 15 chars/s). */
export const DEFAULT_MS_PER_CHAR = 65;
