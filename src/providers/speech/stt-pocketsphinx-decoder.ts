// One long-lived `pocketsphinx_batch` process and its line protocol.
//
// Why batch mode and not `pocketsphinx_continuous -infile /dev/stdin`: continuous mode cuts
// utterances with its own voice detector and prints nothing for audio it judges silent, so the
// adapter could never tell "no words" from "still decoding" without feeding extra audio and
// guessing; and Node's child stdio are socket pairs, which /dev/stdin cannot reopen (ENXIO).
// Batch mode reads a control list of utterances and, for each, decodes an audio file until its
// end, then prints `words (utterance-id score)`. Everything goes through three named pipes:
//   ctl   we write one line per utterance: `<name> 0 -1 <utterance-id>`
//   raw   the utterance's audio (16 kHz s16 raw); the decoder reads it as it arrives (streaming)
//         and our closing it is the end of the utterance
//   hyp   the decoder writes one line per utterance (unbuffered)
// The decoder opens `raw` for every utterance, so a successful non-blocking open of its write end
// means the model is loaded and the decoder waits for audio: that is "ready". With the second
// (flat-lexicon) search pass off, the result comes 10-30 ms after the audio ends.
// If Parley dies without closing the pool, the decoders end by themselves: our ends of the pipes
// close, so the control list ends (or the result pipe breaks).
import { execFile, type ChildProcess } from 'node:child_process';
import { constants, open, unlink } from 'node:fs';
import { Socket } from 'node:net';
import { endianness } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { spawnTiedChild } from '../../core/index.ts';
import { pocketSphinxModel } from './stt-pocketsphinx-availability.ts';
import { SpeechError } from './types.ts';

const execFileAsync = promisify(execFile);
const openAsync = promisify(open);

export interface DecoderSpec {
  binaryPath: string;
  modelDir: string;
  /** The folder that holds the decoder's named pipes (the pool's temp folder). */
  dir: string;
  /** Unique within `dir`. */
  name: string;
  /** Front-end settings file replacing the model's feat.params (a different -cmninit). */
  featParams?: string;
  /** Run the second (flat-lexicon) search pass after each utterance's end. */
  secondPass: boolean;
  /** More decoder flags, after the adapter's own (a flag may be given only once). */
  extraArgs: readonly string[];
  /**
   * How long the decoder may take to be ready (to load its model at start, to open the next
   * utterance's pipe after a result) before it is given up, in ms of real time.
   */
  startTimeoutMs: number;
}

export interface Decoder {
  readonly name: string;
  readonly pid: number | undefined;
  /** Resolves once the decoder waits for an utterance's audio; rejects if it ends first. */
  whenReady(): Promise<void>;
  /** Audio of the current utterance, 16 kHz mono. Ignored unless ready. */
  write(samples: Int16Array): void;
  /** Ends the utterance; resolves with its words once printed, then readies itself for the next. */
  finish(): Promise<string>;
  /** Settles (never rejects) when the decoder has failed or was killed, with why. */
  readonly ended: Promise<SpeechError>;
  /** Resolves once the process is gone (or was never started). */
  readonly exited: Promise<void>;
  readonly alive: boolean;
  /** Ends the process now (SIGKILL also ends a stopped or stalled one). */
  kill(reason: string): void;
}

/** The flags every decoder runs with; the front end is set by the model's feat.params (or `featParams`). */
export function decoderArgs(
  spec: Pick<DecoderSpec, 'modelDir' | 'dir' | 'name' | 'featParams' | 'secondPass' | 'extraArgs'>,
): string[] {
  const model = pocketSphinxModel(spec.modelDir);
  return [
    ...['-hmm', model.hmm, '-lm', model.lm, '-dict', model.dict],
    // The model's feat.params overrides command-line front-end flags; a copy is how -cmninit changes.
    ...(spec.featParams ? ['-featparams', spec.featParams] : []),
    ...['-adcin', 'yes', '-samprate', '16000', '-input_endian', endianness() === 'LE' ? 'little' : 'big'],
    ...['-cepdir', spec.dir, '-cepext', '.raw'],
    ...['-ctl', join(spec.dir, `${spec.name}.ctl`), '-hyp', join(spec.dir, `${spec.name}.hyp`)],
    // The second search pass runs over the whole utterance after its end: delay after the flush
    // that grows with the utterance (bench/RESULTS.md, case stt).
    ...['-fwdflat', spec.secondPass ? 'yes' : 'no'],
    ...spec.extraArgs,
  ];
}

/** `words (id score)`; words may be empty. */
const RESULT_LINE = /^(.*?) ?\((\S+) (-?\d+)\)$/;
/** Log lines worth keeping for an error message (never a transcript: those carry no prefix). */
const ERROR_LINE = /^(ERROR|FATAL|FATAL_ERROR): .*/;

const delay = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms).unref());

function deferred<T>() {
  let resolve!: (value: T) => void;
  let reject!: (error: unknown) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  // Rejections are also reported through `ended`; an unread one must not crash the process.
  promise.catch(() => undefined);
  return { promise, resolve, reject };
}

/** Starts a decoder process; `whenReady()` tells when its model is loaded. */
export function startDecoder(spec: DecoderSpec): Decoder {
  const ctlPath = join(spec.dir, `${spec.name}.ctl`);
  const hypPath = join(spec.dir, `${spec.name}.hyp`);
  const rawPath = join(spec.dir, `${spec.name}.raw`);

  let child: ChildProcess | null = null;
  let ctl: Socket | null = null;
  let hyp: Socket | null = null;
  let audio: Socket | null = null;
  let state: 'starting' | 'ready' | 'finishing' | 'dead' = 'starting';
  let utterance = 0;
  let ready = deferred<void>();
  let result: ReturnType<typeof deferred<string>> | null = null;
  let errorLines = '';
  let hypPending = '';
  const ended = deferred<SpeechError>();
  let failure: SpeechError | null = null;
  const exited = deferred<void>();
  // A function, so checks after an await see the state as it is then.
  const dead = () => state === 'dead';

  function die(how: string): void {
    if (state === 'dead') return;
    state = 'dead';
    const detail = errorLines ? `: ${errorLines.trim()}` : '';
    const error = new SpeechError(`pocketsphinx decoder ${spec.name} ${how}${detail}`, 'stt_failed', true);
    failure = error;
    ready.reject(error);
    result?.reject(error);
    result = null;
    for (const socket of [audio, ctl, hyp]) socket?.destroy();
    audio = ctl = hyp = null;
    if (!child || child.exitCode !== null || child.signalCode !== null) exited.resolve();
    else child.kill('SIGKILL');
    for (const path of [ctlPath, hypPath, rawPath]) unlink(path, () => undefined);
    ended.resolve(error);
  }

  function onResultLine(line: string): void {
    const match = RESULT_LINE.exec(line);
    const expected = `u${utterance}`;
    if (!match || match[2] !== expected || state !== 'finishing' || !result) {
      die('printed a result out of turn');
      return;
    }
    const done = result;
    result = null;
    done.resolve((match[1] ?? '').trim());
    void prime();
  }

  /** Queues the next utterance and waits until the decoder opened its audio pipe. */
  async function prime(): Promise<void> {
    state = 'starting';
    utterance += 1;
    // Keep only the errors of the utterance in progress (an empty one logs a harmless error).
    errorLines = '';
    const primedAt = Date.now();
    ctl?.write(`${spec.name} 0 -1 u${utterance}\n`);
    let wait = 1;
    for (;;) {
      if (dead()) return;
      try {
        // Fails with ENXIO until the decoder has opened the pipe for reading.
        const fd = await openAsync(rawPath, constants.O_WRONLY | constants.O_NONBLOCK);
        if (dead()) {
          new Socket({ fd, readable: false }).destroy();
          return;
        }
        audio = new Socket({ fd, readable: false, writable: true });
        audio.on('error', (err) => die(`stopped reading audio (${err.message})`));
        state = 'ready';
        ready.resolve();
        return;
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'ENXIO') {
          die(`has no audio pipe (${(err as Error).message})`);
          return;
        }
      }
      if (Date.now() - primedAt > spec.startTimeoutMs) {
        die(`did not open its audio pipe within ${spec.startTimeoutMs} ms`);
        return;
      }
      await delay(wait);
      wait = Math.min(wait * 2, 16);
    }
  }

  async function start(): Promise<void> {
    try {
      await execFileAsync('mkfifo', ['-m', '600', ctlPath, hypPath, rawPath]);
      if (dead()) return;
      // Read-write opens of a FIFO never block, and keep each pipe open across the decoder's
      // reads and writes (no end-of-file on the control list while we live).
      const ctlFd = await openAsync(ctlPath, constants.O_RDWR | constants.O_NONBLOCK);
      const hypFd = await openAsync(hypPath, constants.O_RDWR | constants.O_NONBLOCK);
      ctl = new Socket({ fd: ctlFd, readable: false, writable: true });
      hyp = new Socket({ fd: hypFd, readable: true, writable: false });
      if (dead()) {
        ctl.destroy();
        hyp.destroy();
        return;
      }
      ctl.on('error', (err) => die(`control pipe failed (${err.message})`));
      hyp.on('error', (err) => die(`result pipe failed (${err.message})`));
      hyp.setEncoding('utf8');
      hyp.on('data', (chunk: string) => {
        hypPending += chunk;
        for (let nl = hypPending.indexOf('\n'); nl >= 0; nl = hypPending.indexOf('\n')) {
          const line = hypPending.slice(0, nl);
          hypPending = hypPending.slice(nl + 1);
          onResultLine(line);
        }
      });
      child = spawnTiedChild(spec.binaryPath, decoderArgs(spec), { stdio: ['ignore', 'ignore', 'pipe'] });
      child.stderr?.setEncoding('utf8');
      child.stderr?.on('data', (chunk: string) => {
        for (const line of chunk.split('\n'))
          if (ERROR_LINE.test(line) && errorLines.length < 1000) errorLines += `${line} `;
      });
      child.once('error', (err) => {
        die(`could not start (${err.message})`);
        exited.resolve();
      });
      child.once('exit', (code, signal) => {
        die(`exited (${signal ?? `code ${code}`})`);
        exited.resolve();
      });
      await prime();
    } catch (err) {
      die(`could not start (${(err as Error).message})`);
    }
  }

  void start();

  return {
    name: spec.name,
    get pid() {
      return child?.pid;
    },
    get alive() {
      return state !== 'dead';
    },
    ended: ended.promise,
    exited: exited.promise,
    whenReady: () => ready.promise,
    write(samples) {
      if (state !== 'ready' || !audio) return;
      // A view, not a copy: frames are immutable once pushed (AudioFrame's contract).
      audio.write(Buffer.from(samples.buffer, samples.byteOffset, samples.byteLength));
    },
    finish() {
      if (state !== 'ready' || !audio) {
        return Promise.reject(
          failure ?? new SpeechError(`pocketsphinx decoder ${spec.name} is not ready`, 'stt_failed', true),
        );
      }
      state = 'finishing';
      ready = deferred<void>();
      result = deferred<string>();
      const pending = result.promise;
      // Closing our end after the queued audio is the end of the utterance for the decoder.
      const socket = audio;
      audio = null;
      socket.end(() => socket.destroy());
      return pending;
    },
    kill(reason) {
      die(reason);
    },
  };
}
