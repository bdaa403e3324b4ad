import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { connect, createServer, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { monoWav } from '../../src/providers/testing/index.ts';
import { freeSipPort } from './sipp.ts';

// baresip (Debian `baresip`, 1.0.0) as a second, independent SIP user agent for tests: a real
// process per test with its own config directory (`baresip -f <dir>`), on loopback, without
// registration, offering PCMU and PCMA. It says a WAV file (the aufile module) from the moment a
// call is established, writes what it hears to a WAV file (the sndfile filter: baresip 1.0.0 has
// no file player), answers incoming calls at once (the account's `answermode=auto`), and is driven
// over the ctrl_tcp module (JSON commands and events in netstrings).
//
// What baresip 1.0.0 does that shapes this harness:
// - aufile needs an 8 kHz mono 16-bit WAV for G.711 (it does not resample), and when the file
//   ends it ends the call (BYE, reason "end of file"). So the audio is converted with SoX, with
//   `leadMs` of silence before the speech and `holdMs` after it: the call lasts that long unless
//   someone hangs up first.
// - An incoming INVITE is taken only if its Request-URI user is the account's user (there is no
//   catch-all account), so `user` must be the number the far end dials.
// - With a `sip_listen` port p it also listens for TLS on TCP p+1 and fails to start if that is
//   taken; the ports are picked with that in mind and the start is retried on a clash.
// - Events reach only a ctrl_tcp client connected when they happen: the harness connects before it
//   returns, and keeps every event.

export interface BaresipOptions {
  /** What it says on each call: a WAV file (any rate or format SoX reads), or none (silence). */
  wav?: string;
  /** Silence before the speech, from when a call is established (ms, default 0). */
  leadMs?: number;
  /**
   * Silence after the speech (ms, default 60000). baresip hangs up when its audio ends, so this is
   * how long it stays on the line after speaking unless the call is hung up before.
   */
  holdMs?: number;
  /** Where to write what it heard on a call (8 kHz mono 16-bit WAV), before `closed()` resolves. */
  recordTo?: string;
  /** Answers incoming calls at once (default true); otherwise `incoming()` and `accept()`. */
  autoAnswer?: boolean;
  /** The user part of its address (default `baresip`): incoming calls must dial exactly this. */
  user?: string;
  /** Codecs offered and accepted, in order (default PCMU, PCMA). */
  codecs?: ('PCMU' | 'PCMA')[];
  /** Stops it (as `stop()` does) when aborted. */
  signal?: AbortSignal;
  /** baresip quits by itself after this long, whatever happens to the test (s, default 300). */
  lifetimeSeconds?: number;
}

/** One event from baresip's ctrl_tcp (`type` is CALL_ESTABLISHED, CALL_CLOSED...). */
export interface BaresipEvent {
  type: string;
  /** For call events: `incoming` or `outgoing`. */
  direction?: string;
  peeruri?: string;
  /** The call's SIP Call-ID. */
  id?: string;
  /** For CALL_CLOSED: why (`end of file`, `Connection reset by peer` for a BYE received...). */
  param?: string;
}

export interface Baresip {
  /** The SIP port it listens on (UDP and TCP, 127.0.0.1). */
  port: number;
  /** Its address: `sip:<user>@127.0.0.1:<port>`. */
  uri: string;
  /** Places a call (`sip:user@host:port`); resolves once baresip took the command. */
  dial(uri: string): Promise<void>;
  /** Hangs up its current call. */
  hangup(): Promise<void>;
  /** Answers the ringing call (with `autoAnswer: false`). */
  accept(): Promise<void>;
  /**
   * The next call event of a kind, in order: each call of `established()` returns the next call
   * established since the start (already happened or still to come), and likewise `closed()` and
   * `incoming()`. Rejects after `timeoutMs` (default 30 s) or when baresip exits, with its output.
   */
  established(timeoutMs?: number): Promise<BaresipEvent>;
  /** The next call that ended; its recording is written to `recordTo` by then. */
  closed(timeoutMs?: number): Promise<BaresipEvent>;
  /** The next incoming call that rings (only without `autoAnswer`). */
  incoming(timeoutMs?: number): Promise<BaresipEvent>;
  /** What it heard on the last call that ended: 8 kHz mono samples (empty before any call ended). */
  heard(): Int16Array;
  /** Every event so far. */
  readonly events: readonly BaresipEvent[];
  /** What baresip printed (ANSI colours removed; its SIP trace included), the last 20,000 characters. */
  output(): string;
  /** Quits baresip (hanging up any call), kills it if it does not exit, removes its directory. */
  stop(): Promise<void>;
}

const RATE = 8000;
const READY = 'baresip is ready.';
const KEEP_OUTPUT = 20_000;

/** Every baresip started and not yet stopped: killed when the test process exits. */
const running = new Set<ChildProcess>();
let exitHookInstalled = false;
function killAllOnExit(): void {
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  process.once('exit', () => {
    for (const child of running) child.kill('SIGKILL');
  });
}

/** A TCP port free on loopback. */
async function tcpPortFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}

/** A SIP port p (UDP and TCP) whose TCP neighbour p+1 is free too (baresip's TLS listener). */
async function freeBaresipPort(): Promise<number> {
  for (;;) {
    const port = await freeSipPort();
    if (port < 65_535 && (await tcpPortFree(port + 1))) return port;
  }
}

/**
 * The samples of a 16-bit PCM WAV. The data chunk runs to the end of the file whatever its header
 * says (libsndfile writes the final sizes only when it closes the file).
 */
export function samplesOfWav(bytes: Buffer): Int16Array {
  let at = 12;
  while (at + 8 <= bytes.length) {
    const id = bytes.toString('ascii', at, at + 4);
    const size = bytes.readUInt32LE(at + 4);
    if (id === 'data') {
      const data = bytes.subarray(at + 8, at + 8 + ((bytes.length - at - 8) & ~1));
      const out = new Int16Array(data.length / 2);
      for (let i = 0; i < out.length; i += 1) out[i] = data.readInt16LE(i * 2);
      return out;
    }
    at += 8 + size + (size & 1);
  }
  return new Int16Array(0);
}

/** The audio baresip plays: 8 kHz mono 16-bit, with the silences around the speech. */
function prepareAudio(dir: string, options: BaresipOptions): string {
  const out = join(dir, 'say.wav');
  const lead = (options.leadMs ?? 0) / 1000;
  const hold = (options.holdMs ?? 60_000) / 1000;
  if (options.wav) {
    const format = ['-r', String(RATE), '-c', '1', '-b', '16', '-e', 'signed-integer'];
    execFileSync('sox', ['-D', '-V1', options.wav, ...format, out, 'pad', String(lead), String(hold)]);
  } else {
    writeFileSync(out, monoWav(new Int16Array(Math.max(1, Math.round((lead + hold) * RATE))), RATE));
  }
  return out;
}

function config(dir: string, port: number, ctrlPort: number, audio: string): string {
  return [
    'poll_method epoll',
    `sip_listen 127.0.0.1:${port}`,
    'call_local_timeout 60',
    'call_max_calls 4',
    `audio_source aufile,${audio}`,
    'audio_buffer 20-160',
    'jitter_buffer_delay 1-10',
    'rtp_ports 10000-19999',
    'rtp_stats no',
    // An address, not `lo`: baresip 1.0.0 finds no IPv4 address on an interface named lo.
    'net_interface 127.0.0.1',
    'module_path /usr/lib/baresip/modules',
    'module g711.so',
    'module aufile.so',
    // Not an audio player: a filter that writes the decoded audio it receives (and what it sends).
    'module sndfile.so',
    `snd_path ${join(dir, 'heard')}`,
    'module_tmp uuid.so',
    'module_tmp account.so',
    'module_app menu.so',
    'module_app ctrl_tcp.so',
    `ctrl_tcp_listen 127.0.0.1:${ctrlPort}`,
    'statmode_default off',
    '',
  ].join('\n');
}

/** Starts baresip on a free port and connects to its control port. */
export async function startBaresip(options: BaresipOptions = {}): Promise<Baresip> {
  const tries = 3;
  for (let attempt = 1; ; attempt += 1) {
    try {
      return await startOnce(options);
    } catch (error) {
      // A port taken between picking it and baresip binding it: pick others.
      if (!(error instanceof BaresipError && error.retry) || attempt >= tries) throw error;
    }
  }
}

/** A failure with baresip's output (the end of it) in the message. */
class BaresipError extends Error {
  constructor(
    message: string,
    readonly out: string,
    /** Worth another start on other ports. */
    readonly retry = false,
  ) {
    super(`${message}\n--- baresip output ---\n${out.slice(-6000)}`);
  }
}

async function startOnce(options: BaresipOptions): Promise<Baresip> {
  const dir = mkdtempSync(join(tmpdir(), 'parley-baresip-'));
  const cleanup = () => rmSync(dir, { recursive: true, force: true });
  let audio: string;
  try {
    audio = prepareAudio(dir, options);
  } catch (error) {
    cleanup();
    throw error;
  }
  const heardDir = join(dir, 'heard');
  mkdirSync(heardDir);
  const port = await freeBaresipPort();
  const ctrlPort = await freeSipPort();
  const user = options.user ?? 'baresip';
  const codecs = (options.codecs ?? ['PCMU', 'PCMA']).join(',');
  const answer = options.autoAnswer === false ? 'manual' : 'auto';
  writeFileSync(join(dir, 'config'), config(dir, port, ctrlPort, audio));
  writeFileSync(
    join(dir, 'accounts'),
    `<sip:${user}@127.0.0.1>;regint=0;answermode=${answer};audio_codecs=${codecs}\n`,
  );

  const lifetime = String(options.lifetimeSeconds ?? 300);
  const child = spawn('baresip', ['-4', '-s', '-f', dir, '-t', lifetime], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  running.add(child);
  killAllOnExit();

  let out = '';
  const onOutput = (chunk: Buffer) => {
    // eslint-disable-next-line no-control-regex
    out = (out + chunk.toString().replace(/\x1b\[[0-9;]*m/g, '')).slice(-KEEP_OUTPUT);
  };
  child.stdout?.on('data', onOutput);
  child.stderr?.on('data', onOutput);
  let exited: { code: number | null; signal: string | null } | null = null;
  const exit = new Promise<void>((resolve) => {
    child.once('exit', (code, signal) => {
      exited = { code, signal };
      running.delete(child);
      resolve();
    });
    child.once('error', (error) => {
      out += `\n${String(error)}`;
      exited = { code: null, signal: null };
      running.delete(child);
      resolve();
    });
  });
  const exitText = () =>
    exited ? `baresip exited (code ${exited.code}, signal ${exited.signal})` : 'baresip is running';

  const fail = async (message: string, retry: boolean): Promise<never> => {
    child.kill('SIGKILL');
    await exit;
    cleanup();
    throw new BaresipError(message, out, retry);
  };

  // Ready: it says so once every module (ctrl_tcp's listener among them) is up.
  const ready = await new Promise<boolean>((resolve) => {
    const timer = setTimeout(() => resolve(false), 10_000);
    const check = () => {
      if (out.includes(READY)) {
        clearTimeout(timer);
        resolve(true);
      }
    };
    child.stdout?.on('data', check);
    void exit.then(() => {
      clearTimeout(timer);
      resolve(out.includes(READY));
    });
    check();
  });
  if (!ready || exited) {
    return fail(`baresip did not start (${exitText()})`, /address already in use/i.test(out));
  }

  const socket = await new Promise<Socket | null>((resolve) => {
    const s = connect(ctrlPort, '127.0.0.1');
    s.once('connect', () => resolve(s));
    s.once('error', () => resolve(null));
  });
  if (!socket) return fail(`could not connect to baresip's ctrl_tcp on port ${ctrlPort}`, true);

  // ---- ctrl_tcp: netstrings of JSON both ways --------------------------------------------------

  const events: BaresipEvent[] = [];
  const pending = new Map<string, { resolve: (data: string) => void; reject: (error: Error) => void }>();
  let token = 0;
  let buffer = Buffer.alloc(0);
  const waiters = new Set<() => void>();
  const wake = () => {
    for (const waiter of [...waiters]) waiter();
  };
  /** CALL_CLOSED events are held back until their recording is saved, in order. */
  let saving = Promise.resolve();
  let lastHeard: Int16Array = new Int16Array(0);
  const taken = new Set<string>();

  const send = (command: string, params?: string): Promise<string> => {
    if (exited || socket.destroyed) {
      return Promise.reject(new BaresipError(`baresip cannot take "${command}": ${exitText()}`, out));
    }
    token += 1;
    const id = `t${token}`;
    const json = JSON.stringify({ command, ...(params !== undefined ? { params } : {}), token: id });
    socket.write(`${Buffer.byteLength(json)}:${json},`);
    return new Promise((resolve, reject) => pending.set(id, { resolve, reject }));
  };

  /** What it heard on the call that just ended: the newest decoded-audio dump not taken yet. */
  const saveRecording = async () => {
    // A command's answer comes after the call's teardown (one event loop in baresip), so the
    // dump is closed by then.
    await send('listcalls').catch(() => '');
    const files = readdirSync(heardDir)
      .filter((f) => f.endsWith('-dec.wav') && !taken.has(f))
      .sort((a, b) => statSync(join(heardDir, a)).mtimeMs - statSync(join(heardDir, b)).mtimeMs);
    const file = files.at(-1);
    for (const f of files) taken.add(f);
    lastHeard = file ? samplesOfWav(readFileSync(join(heardDir, file))) : new Int16Array(0);
    if (options.recordTo) writeFileSync(options.recordTo, monoWav(lastHeard, RATE));
  };

  const onMessage = (text: string) => {
    let message: Record<string, unknown>;
    try {
      message = JSON.parse(text) as Record<string, unknown>;
    } catch {
      out += `\n[harness] unreadable ctrl_tcp message: ${text}`;
      return;
    }
    if (message.response) {
      const id = String(message.token ?? '');
      const waiting = pending.get(id);
      pending.delete(id);
      if (!waiting) return;
      if (message.ok) waiting.resolve(String(message.data ?? ''));
      else waiting.reject(new BaresipError(`baresip refused a command: ${String(message.data)}`, out));
      return;
    }
    if (!message.event) return;
    const event: BaresipEvent = { type: String(message.type) };
    for (const key of ['direction', 'peeruri', 'id', 'param'] as const) {
      if (typeof message[key] === 'string') event[key] = message[key];
    }
    if (event.type === 'CALL_CLOSED') {
      saving = saving.then(saveRecording).then(
        () => (events.push(event), wake()),
        (error: unknown) => {
          out += `\n[harness] could not save the recording: ${String(error)}`;
          events.push(event);
          wake();
        },
      );
    } else {
      events.push(event);
      wake();
    }
  };

  socket.on('data', (chunk: Buffer) => {
    buffer = Buffer.concat([buffer, chunk]);
    for (;;) {
      const colon = buffer.indexOf(0x3a);
      if (colon < 0) return;
      const length = Number(buffer.subarray(0, colon).toString('ascii'));
      if (!Number.isInteger(length)) {
        out += `\n[harness] bad netstring from ctrl_tcp: ${buffer.toString().slice(0, 100)}`;
        buffer = Buffer.alloc(0);
        return;
      }
      if (buffer.length < colon + 1 + length + 1) return;
      onMessage(buffer.subarray(colon + 1, colon + 1 + length).toString());
      buffer = buffer.subarray(colon + 2 + length);
    }
  });
  /** Set once baresip (or its control connection) is gone and the last recording is saved. */
  let finished = false;
  const gone = () => {
    for (const waiting of pending.values())
      waiting.reject(new BaresipError(`lost baresip: ${exitText()}`, out));
    pending.clear();
    void saving.then(() => {
      finished = true;
      wake();
    });
  };
  socket.on('close', gone);
  socket.on('error', () => {});
  void exit.then(() => socket.destroy());

  const cursors = new Map<string, number>();
  /** The next event of `type`; `failure` says why waiting is pointless (an event that rules it out). */
  const next = (
    type: string,
    timeoutMs = 30_000,
    failure: (event: BaresipEvent) => string | null = () => null,
  ): Promise<BaresipEvent> =>
    new Promise((resolve, reject) => {
      const check = () => {
        const from = cursors.get(type) ?? 0;
        const index = events.findIndex((e, i) => i >= from && e.type === type);
        const failed = events.findIndex((e, i) => i >= from && failure(e) !== null);
        if (index >= 0 && (failed < 0 || index < failed)) {
          cursors.set(type, index + 1);
          done();
          resolve(events[index] as BaresipEvent);
        } else if (failed >= 0) {
          // The next wait starts after the event that ruled this one out.
          cursors.set(type, failed + 1);
          done();
          reject(new BaresipError(`no ${type} event: ${failure(events[failed] as BaresipEvent)}`, out));
        } else if (finished) {
          done();
          reject(new BaresipError(`no ${type} event: ${exitText()}`, out));
        }
      };
      const timer = setTimeout(() => {
        done();
        const seen = events.map((e) => `${e.type}${e.param ? ` (${e.param})` : ''}`).join(', ');
        reject(new BaresipError(`no ${type} event within ${timeoutMs} ms; events: ${seen || 'none'}`, out));
      }, timeoutMs);
      const done = () => {
        clearTimeout(timer);
        waiters.delete(check);
      };
      waiters.add(check);
      check();
    });

  let stopping: Promise<void> | null = null;
  const stop = (): Promise<void> => {
    stopping ??= (async () => {
      if (!exited) {
        // quit hangs up its calls (BYE) and exits; then TERM, then KILL.
        void send('quit').catch(() => '');
        const within = (ms: number) =>
          new Promise<boolean>((resolve) => {
            const timer = setTimeout(() => resolve(false), ms);
            void exit.then(() => {
              clearTimeout(timer);
              resolve(true);
            });
          });
        if (!(await within(2_000))) {
          child.kill('SIGTERM');
          if (!(await within(2_000))) child.kill('SIGKILL');
        }
        await exit;
      }
      socket.destroy();
      await saving;
      cleanup();
    })();
    return stopping;
  };
  options.signal?.addEventListener('abort', () => void stop(), { once: true });
  if (options.signal?.aborted) {
    await stop();
    throw new Error('aborted');
  }

  return {
    port,
    uri: `sip:${user}@127.0.0.1:${port}`,
    dial: async (uri) => void (await send('dial', uri)),
    hangup: async () => void (await send('hangup')),
    accept: async () => void (await send('accept')),
    established: (timeoutMs) =>
      next('CALL_ESTABLISHED', timeoutMs, (e) =>
        e.type === 'CALL_CLOSED' && !events.some((o) => o.type === 'CALL_ESTABLISHED' && o.id === e.id)
          ? `a call closed before it was established (${e.param ?? 'no reason'})`
          : null,
      ),
    closed: (timeoutMs) => next('CALL_CLOSED', timeoutMs),
    incoming: (timeoutMs) => next('CALL_INCOMING', timeoutMs),
    heard: () => lastHeard,
    events,
    output: () => out,
    stop,
  };
}
