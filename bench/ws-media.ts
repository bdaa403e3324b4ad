// Case `ws-media`: WebSocket media test calls on ONE Parley process, as a real client drives them.
//
// This process is Parley: the app as `parley serve` builds it (src/app.ts createApp, embedded SQLite
// in a temp dir, the bench API key) listening on a free port, with fake speech providers (a
// loudness-gate VAD, fake STT and TTS that read and write data speech) and a fake model that answers every line.
// The clients run in a child process (bench/ws-media-client.ts), so that this process does only
// Parley's work: each starts a call with POST /v2/calls/outbound-test-ws-media (pcmu, payload
// framing), binds it by connecting to `wsMediaUrl` (legacy flow) and streams 20 ms frames in real
// time, speaking a line in data speech 500 ms after each agent line, so the agent replies again
// and again.
//
// Frame-send lateness is measured where Parley sends: the bench wraps the socket the carrier gets
// (engine.wsMedia.connect, the route's only way in), so every binary frame is stamped in this
// process as it is handed to the socket. The carrier sends on one 20 ms beat for every leg, on a
// grid taken from Date.now() when its first leg binds (src/telephony/pacing/ticker.ts); the
// wrapper reads that moment, and each frame is timed against its slot on the grid, i.e. against
// the ideal 20 ms schedule of its talkspurt (a talkspurt starts on a beat). See `analyze()`.
//
// 1. Platform share of response time (1 call, then PARLEY_BENCH_WS_MEDIA_SHARE_CALLS): fakes of
//    known latency as in the `voice` case; from the client's end of speech (its line's last frame
//    sent) to the reply's first frame handed to the socket, minus the patience wait and the fakes.
// 2. Steps of concurrent calls (PARLEY_BENCH_WS_MEDIA_STEPS) with zero-latency fakes.
//
// Knobs: PARLEY_BENCH_WS_MEDIA_PARTS (share,load), PARLEY_BENCH_WS_MEDIA_STEPS (50,100,200,300),
// PARLEY_BENCH_WS_MEDIA_STEP_S (20), PARLEY_BENCH_WS_MEDIA_SINGLE_S (60),
// PARLEY_BENCH_WS_MEDIA_SHARE_CALLS (200), PARLEY_BENCH_WS_MEDIA_SHARE_S (20),
// PARLEY_BENCH_WS_MEDIA_CLIENT_NICE (0; e.g. 10 runs the clients' process at that nice value so the
// OS runs Parley first, at the cost of late clients on a busy machine),
// PARLEY_BENCH_WS_MEDIA_SENDER (worker, or main: sets PARLEY_WS_MEDIA_SENDER, who writes the frames).
//
// With the `worker` sender the pacer worker writes each frame to the socket itself, so no send
// passes the wrapper: each frame is then timed by the pacer's own stamps (its slot on the pacer's
// grid and when it left, on the pacer's thread), handed back through the socket's `frameLeft`
// hook, as the voice case does for sim legs (`SentBeat`).
import { fork, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { loadavg, setPriority } from 'node:os';
import {
  PerformanceObserver,
  constants,
  monitorEventLoopDelay,
  type PerformanceEntry,
} from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { createApp, type App } from '../src/app.ts';
import { loadConfig, silentLogger } from '../src/core/index.ts';
import { createModelRouter, type ChatChunk, type LLM } from '../src/providers/index.ts';
import { createFakeSTT, createFakeTTS, createFakeVAD } from '../src/providers/testing/index.ts';
import type { WsMediaCarrier, WsMediaSocket } from '../src/telephony/index.ts';
import { PATIENCE_MS, isCompleteUtterance } from '../src/voice/index.ts';
import type { CaseContext } from './api.ts';
import {
  BENCH_API_KEY,
  ROOT,
  freePort,
  intEnv,
  machine,
  markdownTable,
  onCleanup,
  partsEnv,
  stepsEnv,
  tempDir,
  textTable,
  writeResultsSection,
} from './lib.ts';
import {
  Histogram,
  calibratePreciseClock,
  collectGarbage,
  fmt,
  percentileOf,
  preciseNow,
  toPrecise,
} from './voice-stats.ts';
import {
  CALLER_LINES,
  GREETING,
  LINE_GAP_MS,
  LLM_MS,
  REPLY,
  lineExtraMs,
  type ClientResult,
  type FromClient,
  type ToClient,
} from './ws-media-client.ts';

const PARTS = ['share', 'load'] as const;
type Part = (typeof PARTS)[number];

const FRAME_MS = 20;
const RAMP_MS = 5_000;
const SETTLE_MS = 3_000;
const PATIENCE = 'low' as const;
const STT_MS = 50;
const TTS_MS = 50;
const JITTER_TARGET_MS = 5;
const TARGET_CALLS = 200;
/** Lines that end this close to the window's end may have their reply after it: not counted. */
const REPLY_MARGIN_MS = 1_500;
const PROMPT = 'You are a helpful scheduling agent for Northwind.';

interface Settings {
  parts: Set<Part>;
  steps: number[];
  stepS: number;
  singleS: number;
  shareCalls: number;
  shareS: number;
  clientNice: number;
  /** Who writes the frames to the sockets (PARLEY_WS_MEDIA_SENDER). */
  sender: 'worker' | 'main';
}

function senderEnv(): Settings['sender'] {
  const raw = process.env.PARLEY_BENCH_WS_MEDIA_SENDER || process.env.PARLEY_WS_MEDIA_SENDER || 'worker';
  if (raw !== 'worker' && raw !== 'main')
    throw new Error(`PARLEY_BENCH_WS_MEDIA_SENDER must be worker or main, got "${raw}"`);
  return raw;
}

function settings(): Settings {
  return {
    parts: partsEnv('PARLEY_BENCH_WS_MEDIA_PARTS', PARTS),
    steps: stepsEnv('PARLEY_BENCH_WS_MEDIA_STEPS', '50,100,200,300'),
    stepS: intEnv('PARLEY_BENCH_WS_MEDIA_STEP_S', 20, 5, 300),
    singleS: intEnv('PARLEY_BENCH_WS_MEDIA_SINGLE_S', 60, 10, 600),
    shareCalls: intEnv('PARLEY_BENCH_WS_MEDIA_SHARE_CALLS', 200, 1, 2000),
    shareS: intEnv('PARLEY_BENCH_WS_MEDIA_SHARE_S', 20, 5, 300),
    clientNice: intEnv('PARLEY_BENCH_WS_MEDIA_CLIENT_NICE', 0, 0, 19),
    sender: senderEnv(),
  };
}

/** Rough upper bound of the case's run time, in seconds, for the watchdog. */
export function wsMediaPhaseSeconds(): number {
  const s = settings();
  const step = (measureS: number) => (RAMP_MS + SETTLE_MS) / 1000 + measureS + 30;
  let total = 0;
  if (s.parts.has('share')) total += 10 + step(s.singleS) + step(s.shareS);
  if (s.parts.has('load')) total += 10 + s.steps.reduce((sum) => sum + step(s.stepS), 0);
  return Math.ceil(total);
}

// ---- the model: one answer, after a delay the client can tell from its line ---------------------

/** The caller line in a model request (the last user message), as an index into CALLER_LINES. */
function lineOf(messages: { role: string; content?: unknown }[]): number {
  const last = [...messages].reverse().find((m) => m.role === 'user');
  const text = typeof last?.content === 'string' ? last.content.toLowerCase() : '';
  let best = -1;
  CALLER_LINES.forEach((line, i) => {
    if (text.includes(line.toLowerCase()) && (best < 0 || line.length > CALLER_LINES[best]!.length)) best = i;
  });
  return best;
}

/** Answers REPLY word by word; with `delayed`, the first token comes LLM_MS + lineExtraMs(line) later. */
function benchModel(delayed: boolean): LLM {
  const words = REPLY.split(/(?<= )/);
  return {
    name: 'bench',
    chat(request) {
      const line = lineOf(request.messages);
      const ms = delayed ? LLM_MS + (line < 0 ? 0 : lineExtraMs(line)) : 0;
      return (async function* stream(): AsyncGenerator<ChatChunk> {
        const startedAt = Date.now();
        const aborted = (): ChatChunk => ({
          type: 'done',
          finishReason: 'aborted',
          timings: { startedAt, endedAt: Date.now() },
        });
        if (ms > 0) {
          try {
            await sleep(ms, undefined, request.signal ? { signal: request.signal } : undefined);
          } catch {
            return yield aborted();
          }
        }
        const firstTokenAt = Date.now();
        for (const text of words) {
          if (request.signal?.aborted) return yield aborted();
          yield { type: 'text', text };
        }
        yield {
          type: 'done',
          finishReason: 'stop',
          usage: { promptTokens: 0, completionTokens: words.length },
          timings: { startedAt, firstTokenAt, endedAt: Date.now() },
        };
      })();
    },
  };
}

// ---- the measuring hook: every frame as it is handed to the socket ------------------------------

/**
 * Wraps the sockets the WS media carrier gets. Binary frames are stamped (Date.now() and the
 * sub-millisecond preciseNow()) just before the socket's send, with the time the send took and
 * the synchronous run ("batch") they were sent in: the carrier's beat sends every leg's frame in
 * one loop, and catches up missed beats in the same run.
 */
class SendProbe {
  recording = false;
  /** Bound sockets not closed yet: while there are any, the carrier's beat runs. */
  live = 0;
  /** Date.now() just before and after the bind that started the carrier's beat. */
  grid: { before: number; after: number } | null = null;
  #waitingForGrid = false;
  sids: string[] = [];
  /** Per socket: when the last frame of each of the caller's lines was read from it. */
  lineEndsRead = new Map<number, number[]>();
  n = 0;
  overflow = 0;
  sock = new Int32Array(0);
  dn = new Float64Array(0);
  at = new Float64Array(0);
  /** Frames the pacer worker wrote: their slot on its grid, on preciseNow()'s scale. */
  slotAt = new Float64Array(0);
  /** Frames came through `frameLeft` (the worker sender): timed by the pacer's stamps. */
  paced = false;
  dur = new Float32Array(0);
  batch = new Int32Array(0);
  #batchId = 0;
  #inBatch = false;
  readonly #endBatch = () => {
    this.#inBatch = false;
  };

  install(carrier: WsMediaCarrier): void {
    const connect = carrier.connect.bind(carrier);
    carrier.connect = (socket, sid) => {
      const wrapped = this.wrap(socket, sid);
      if (!this.#waitingForGrid || this.live > 0) return connect(wrapped, sid);
      // This bind starts the carrier's beat, whose grid is Date.now() at its start plus 20 ms
      // steps: start it just after a millisecond edge so that it falls in one millisecond.
      const edge = Date.now();
      while (Date.now() === edge) {
        // spin (under a millisecond, once per step)
      }
      const before = Date.now();
      connect(wrapped, sid);
      const after = Date.now();
      if (this.live > 0) {
        this.grid = { before, after };
        this.#waitingForGrid = false;
      }
    };
  }

  /** Starts a step: room for `capacity` frames, the next bind starts a new beat. */
  arm(capacity: number): void {
    this.sock = new Int32Array(capacity);
    this.dn = new Float64Array(capacity);
    this.at = new Float64Array(capacity);
    this.slotAt = new Float64Array(capacity);
    this.paced = false;
    this.dur = new Float32Array(capacity);
    this.batch = new Int32Array(capacity);
    this.n = 0;
    this.overflow = 0;
    this.sids = [];
    this.lineEndsRead = new Map();
    this.grid = null;
    this.#waitingForGrid = true;
    this.recording = true;
  }

  wrap(socket: WsMediaSocket, sid: string | undefined): WsMediaSocket {
    const index = this.sids.length;
    this.sids.push(sid ?? '');
    let bound = false;
    let lastLoud = 0;
    return {
      send: (data) => {
        if (typeof data === 'string' || !this.recording) {
          if (typeof data === 'string' && !bound && data.includes('"call_info"')) {
            bound = true;
            this.live += 1;
          }
          socket.send(data);
          return;
        }
        const i = this.n;
        if (i >= this.sock.length) {
          this.overflow += 1;
          socket.send(data);
          return;
        }
        if (!this.#inBatch) {
          this.#inBatch = true;
          this.#batchId += 1;
          queueMicrotask(this.#endBatch);
        }
        const at = preciseNow();
        this.dn[i] = Date.now();
        socket.send(data);
        this.dur[i] = preciseNow() - at;
        this.at[i] = at;
        this.sock[i] = index;
        this.batch[i] = this.#batchId;
        this.n = i + 1;
      },
      close: (code, reason) => socket.close(code, reason),
      ...(socket.direct ? { direct: () => socket.direct!() } : {}),
      // The worker sender: each frame the pacer wrote, with its slot and when it left (stamped on
      // the pacer's thread, on the wall clock's scale: moved to preciseNow()'s here).
      frameLeft: (gridAt, sentAt) => {
        if (!this.recording) return;
        const i = this.n;
        if (i >= this.sock.length) {
          this.overflow += 1;
          return;
        }
        const offset = preciseNow() - (performance.timeOrigin + performance.now());
        this.paced = true;
        this.at[i] = sentAt + offset;
        this.slotAt[i] = gridAt + offset;
        this.dn[i] = sentAt;
        this.dur[i] = 0;
        this.sock[i] = index;
        this.batch[i] = 0;
        this.n = i + 1;
      },
      onMessage: (handler) =>
        socket.onMessage((data) => {
          // The caller's line ends: the last frame that is not silence (mu-law 0xff), as read here.
          if (typeof data !== 'string' && this.recording) {
            const loud = data[0] !== 0xff || data[data.length >> 1] !== 0xff;
            if (loud) lastLoud = preciseNow();
            else if (lastLoud > 0) {
              (this.lineEndsRead.get(index) ?? this.lineEndsRead.set(index, []).get(index)!).push(lastLoud);
              lastLoud = 0;
            }
          }
          handler(data);
        }),
      onClose: (handler) =>
        socket.onClose(() => {
          if (bound) {
            bound = false;
            this.live -= 1;
          }
          handler();
        }),
    };
  }
}

interface SendAnalysis {
  /** Per frame sent in the window: how late it left vs. its slot on the beat's grid (ms). */
  send: Histogram;
  /** Per beat: its first frame's lateness (the beat's wake-up). */
  wake: Histogram;
  /** Per beat: its first frame to its last (the beat's work over every leg). */
  span: Histogram;
  /** Per frame: how long the socket's send took (ms). */
  sendCall: Histogram;
  /** Per beat: the time spent in the sockets' send (ms). */
  sendPerBeat: Histogram;
  worstLate: number;
  underrunEvents: number;
  underrunFrames: number;
  linesStarted: number;
  /** Per session id: when each agent line's first frame left (preciseNow()), all of the step. */
  lineStarts: Map<string, number[]>;
  /** Frames whose slot the stamps could not place (should be none). */
  unplaced: number;
}

const mod = (a: number, b: number) => ((a % b) + b) % b;
/** How much earlier than its slot a beat may run (its timer is set on the loop's cached time). */
const EARLY_MS = 5;

/**
 * Places every frame on the carrier's grid (slots T0 + 20 k, T0 the beat's start in whole
 * milliseconds of Date.now()) and times it against its slot. The beat runs its slots in order and
 * never skips one; it sends in one synchronous run per wake-up, several beats when it catches up.
 * So a run's beats are consecutive, as many as the most frames one leg sent in it (m), and the
 * last is the latest slot due when the run ended: last + 20 > Date.now() at its last send, so it
 * is the slot within the 20 ms before that send (or the one after, when that slot was run already
 * and the sends came at most EARLY_MS before the next: the timer fired early). Each run is placed
 * on its own, so one misplaced run does not shift the next. A leg
 * with fewer frames in a run was either talking before it (its frames come first) or starts a
 * talkspurt in it (they come last). A leg's slots then tell its talkspurts: a gap of up to
 * LINE_GAP_MS is an underrun inside an agent line, a longer one starts a new line.
 */
function analyze(probe: SendProbe, t0: number, windowStart: number, windowEnd: number): SendAnalysis {
  if (probe.paced) return analyzePaced(probe, windowStart, windowEnd);
  const r: SendAnalysis = {
    send: new Histogram(),
    wake: new Histogram(),
    span: new Histogram(),
    sendCall: new Histogram(0.001, 0, 20),
    sendPerBeat: new Histogram(0.01, 0, 100),
    worstLate: -Infinity,
    underrunEvents: 0,
    underrunFrames: 0,
    linesStarted: 0,
    lineStarts: new Map(),
    unplaced: 0,
  };
  const residue = mod(t0, FRAME_MS);
  /** The first slot after `x` (whole milliseconds). */
  const slotAfter = (x: number) => x + FRAME_MS - mod(x - residue, FRAME_MS);
  const prev = new Float64Array(probe.sids.length).fill(-Infinity);
  const starts = probe.sids.map(() => [] as number[]);
  const beats = new Map<number, { first: number; last: number; sendMs: number }>();
  let lastSlot = t0;
  for (let a = 0; a < probe.n;) {
    let b = a;
    let m = 0;
    let dnLast = -Infinity;
    const perSocket = new Map<number, number[]>();
    while (b < probe.n && probe.batch[b] === probe.batch[a]) {
      const s = probe.sock[b]!;
      let list = perSocket.get(s);
      if (!list) perSocket.set(s, (list = []));
      list.push(b);
      m = Math.max(m, list.length);
      dnLast = Math.max(dnLast, probe.dn[b]!);
      b += 1;
    }
    // The last beat's slot: the one in (dnLast - 20, dnLast], or the next if that one was run
    // already and the run's sends came just before it (a timer that fired a little early).
    let last = slotAfter(dnLast - FRAME_MS);
    if (last <= lastSlot && dnLast + EARLY_MS >= last + FRAME_MS) last += FRAME_MS;
    const first = last - FRAME_MS * (m - 1);
    // A run cannot start more than EARLY_MS before its first slot, nor reuse a slot.
    if (first <= lastSlot || probe.dn[a]! < first - EARLY_MS) r.unplaced += 1;
    for (const [s, list] of perSocket) {
      const c = list.length;
      const from = c === m || prev[s] === first - FRAME_MS ? first : last - FRAME_MS * (c - 1);
      list.forEach((i, j) => {
        const slot = from + FRAME_MS * j;
        const at = probe.at[i]!;
        const inWindow = at >= windowStart && at <= windowEnd;
        const gap = slot - prev[s]!;
        if (gap <= 0) r.unplaced += 1;
        else if (gap > LINE_GAP_MS) {
          starts[s]!.push(at);
          if (inWindow) r.linesStarted += 1;
        } else if (gap > FRAME_MS && inWindow) {
          r.underrunEvents += 1;
          r.underrunFrames += gap / FRAME_MS - 1;
        }
        prev[s] = slot;
        if (!inWindow) return;
        const late = at - slot;
        r.send.record(late);
        r.worstLate = Math.max(r.worstLate, late);
        const dur = probe.dur[i]!;
        r.sendCall.record(dur);
        const beat = beats.get(slot);
        if (!beat) beats.set(slot, { first: at, last: at, sendMs: dur });
        else {
          beat.first = Math.min(beat.first, at);
          beat.last = Math.max(beat.last, at);
          beat.sendMs += dur;
        }
      });
    }
    lastSlot = last;
    a = b;
  }
  for (const [slot, beat] of beats) {
    r.wake.record(beat.first - slot);
    r.span.record(beat.last - beat.first);
    r.sendPerBeat.record(beat.sendMs);
  }
  probe.sids.forEach((sid, s) => {
    if (sid) r.lineStarts.set(sid, starts[s]!);
  });
  return r;
}

/**
 * The worker sender: every frame carries its slot on the pacer's grid, so it is timed against it
 * as it is; a leg's slots tell its talkspurts as in `analyze`. No time is spent in a socket send on
 * the main thread (the worker's write is in the lateness of the frames after it).
 */
function analyzePaced(probe: SendProbe, windowStart: number, windowEnd: number): SendAnalysis {
  const r: SendAnalysis = {
    send: new Histogram(),
    wake: new Histogram(),
    span: new Histogram(),
    sendCall: new Histogram(0.001, 0, 20),
    sendPerBeat: new Histogram(0.01, 0, 100),
    worstLate: -Infinity,
    underrunEvents: 0,
    underrunFrames: 0,
    linesStarted: 0,
    lineStarts: new Map(),
    unplaced: 0,
  };
  const prev = new Float64Array(probe.sids.length).fill(-Infinity);
  const starts = probe.sids.map(() => [] as number[]);
  const beats = new Map<number, { first: number; last: number }>();
  for (let i = 0; i < probe.n; i += 1) {
    const s = probe.sock[i]!;
    const at = probe.at[i]!;
    const slot = probe.slotAt[i]!;
    const inWindow = at >= windowStart && at <= windowEnd;
    const gap = slot - prev[s]!;
    if (gap <= 0) r.unplaced += 1;
    else if (gap > LINE_GAP_MS) {
      starts[s]!.push(at);
      if (inWindow) r.linesStarted += 1;
    } else if (gap > FRAME_MS + 0.5 && inWindow) {
      r.underrunEvents += 1;
      r.underrunFrames += Math.round(gap / FRAME_MS) - 1;
    }
    prev[s] = slot;
    if (!inWindow) continue;
    const late = at - slot;
    r.send.record(late);
    r.worstLate = Math.max(r.worstLate, late);
    r.sendCall.record(0);
    const beat = beats.get(slot);
    if (!beat) beats.set(slot, { first: at, last: at });
    else {
      beat.first = Math.min(beat.first, at);
      beat.last = Math.max(beat.last, at);
    }
  }
  for (const [slot, beat] of beats) {
    r.wake.record(beat.first - slot);
    r.span.record(beat.last - beat.first);
    r.sendPerBeat.record(0);
  }
  probe.sids.forEach((sid, s) => {
    if (sid) r.lineStarts.set(sid, starts[s]!);
  });
  return r;
}

// ---- Parley in this process ---------------------------------------------------------------------

interface Server {
  app: App;
  url: string;
  agentId: string;
  probe: SendProbe;
}

async function startParley(withLatency: boolean): Promise<Server> {
  const port = await freePort();
  const config = loadConfig({
    HOST: '127.0.0.1',
    PORT: String(port),
    PARLEY_PUBLIC_URL: `http://127.0.0.1:${port}`,
    PARLEY_DATA_DIR: tempDir('ws-media-data'),
    PARLEY_BOOTSTRAP_API_KEY: BENCH_API_KEY,
    PARLEY_LOG_LEVEL: 'warn',
    PARLEY_SIM_MODE: 'text',
    PARLEY_NODE_NAME: 'bench',
    PARLEY_WS_MEDIA_SENDER: settings().sender,
  });
  const app = await createApp(config, {
    logger: silentLogger(),
    announce: () => undefined,
    models: createModelRouter({ platform: benchModel(withLatency) }),
    speech: {
      choice: {
        speech: {
          vad: createFakeVAD(),
          stt: createFakeSTT({ latencyMs: withLatency ? STT_MS : 0 }),
          tts: createFakeTTS({ latencyMs: withLatency ? TTS_MS : 0 }),
        },
      },
      farEnd: null,
      close: async () => undefined,
    },
  });
  let closed = false;
  const close = async () => {
    if (closed) return;
    closed = true;
    await app.close();
  };
  onCleanup(close);
  if (app.bootstrap.kind !== 'created') throw new Error('the bench workspace was not created');
  // Slots must not be what limits the calls.
  await app.store.workspaces.update(app.bootstrap.workspaceId, { maxConcurrentCalls: 5000 });
  const carrier = app.engine.wsMedia;
  if (!carrier) throw new Error('WebSocket media is off');
  const probe = new SendProbe();
  probe.install(carrier);
  const url = await app.listen();
  const created = await app.api.inject({
    method: 'POST',
    url: '/v2/assistants',
    headers: { authorization: `Bearer ${BENCH_API_KEY}` },
    payload: {
      type: 'outbound',
      name: 'ws-media bench',
      agent: {
        prompt: PROMPT,
        greeting_message: GREETING,
        greeting_message_mode: 'agent_static',
        patience_level: PATIENCE,
      },
    },
  });
  if (created.statusCode !== 200)
    throw new Error(`creating the agent: ${created.statusCode} ${created.body}`);
  const agentId = (created.json() as { response: { model_id: string } }).response.model_id;
  return { app, url, agentId, probe };
}

// ---- the clients' process -----------------------------------------------------------------------

interface ClientProcess {
  send(message: ToClient): void;
  next<T extends FromClient['type']>(type: T, timeoutMs: number): Promise<Extract<FromClient, { type: T }>>;
  stop(): Promise<void>;
}

async function startClients(nice: number): Promise<ClientProcess> {
  const child: ChildProcess = fork('bin/tsx-run.js', ['bench/ws-media-client.ts', '--child'], {
    cwd: ROOT,
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const kill = async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    child.kill('SIGKILL');
    await exited;
  };
  onCleanup(kill);
  const inbox: FromClient[] = [];
  let wake: (() => void) | null = null;
  child.on('message', (message: FromClient) => {
    inbox.push(message);
    wake?.();
  });
  const next = async <T extends FromClient['type']>(type: T, timeoutMs: number) => {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const i = inbox.findIndex((m) => m.type === type);
      if (i >= 0) return inbox.splice(i, 1)[0] as Extract<FromClient, { type: T }>;
      if (child.exitCode !== null || child.signalCode !== null)
        throw new Error(
          `the clients' process exited (${child.exitCode ?? child.signalCode}) before "${type}"`,
        );
      if (Date.now() > deadline) throw new Error(`the clients' process sent no "${type}" in ${timeoutMs} ms`);
      await new Promise<void>((resolve) => {
        wake = resolve;
        setTimeout(resolve, 200);
      });
      wake = null;
    }
  };
  await next('ready', 30_000);
  if (nice > 0 && child.pid !== undefined) setPriority(child.pid, nice);
  return {
    send: (message) => child.send(message),
    next,
    async stop() {
      const exited = new Promise<void>((resolve) => {
        if (child.exitCode !== null || child.signalCode !== null) resolve();
        else child.once('exit', () => resolve());
      });
      await Promise.race([exited, sleep(10_000)]);
      await kill();
    },
  };
}

/** Busy and total CPU time of the whole machine (all CPUs) from /proc/stat; null elsewhere. */
function machineCpu(): { busy: number; total: number } | null {
  try {
    const fields = readFileSync('/proc/stat', 'utf8')
      .split('\n')[0]!
      .trim()
      .split(/\s+/)
      .slice(1)
      .map(Number);
    const total = fields.reduce((sum, v) => sum + v, 0);
    return { busy: total - (fields[3] ?? 0) - (fields[4] ?? 0), total };
  } catch {
    return null;
  }
}

// ---- one run of N calls -------------------------------------------------------------------------

interface ShareTurn {
  /** The client's end of speech to the reply's first frame leaving, minus the known waits. */
  share: number;
  /**
   * Of which the session's own processing: the record's end of speech (VAD) to the first frame
   * queued (`total_ms`, whole ms), minus the same known waits; null when the record's reply turns
   * do not line up with the client's lines.
   */
  processing: number | null;
  /** The line's last frame: sent by the client to read by Parley (loopback, both processes' loops). */
  transit: number | null;
}

interface StepRow {
  calls: number;
  bound: number;
  failed: string[];
  endedEarly: string[];
  analysis: SendAnalysis;
  /** Per frame of the window: handed to the socket here to read by the client (ms). */
  delivery: Histogram;
  gridExact: boolean;
  client: ClientResult;
  turns: ShareTurn[];
  noReply: number;
  recordTotals: number[];
  cpuCorePct: number;
  heapPerCallMiB: number;
  rssPerCallMiB: number;
  eld: { p50: number; p99: number; max: number };
  gc: { count: number; totalMs: number; maxMinorMs: number; maxMajorMs: number };
  preempted: number;
  /** The whole machine's CPU busy over the window (all CPUs, /proc/stat), %. */
  machineBusyPct: number;
  loadAvg: number;
  overflow: number;
}

const MiB = 2 ** 20;

async function runStep(
  server: Server,
  calls: number,
  measureS: number,
  withLatency: boolean,
  nice: number,
): Promise<StepRow> {
  const { probe, app } = server;
  const rampMs = calls > 1 ? RAMP_MS : 0;
  // The carrier's beat must be idle, so that the first bind starts it on a grid the probe sees.
  for (let i = 0; probe.live > 0 && i < 300; i += 1) await sleep(100);
  if (probe.live > 0) throw new Error(`${probe.live} WebSocket media calls of the last step are still up`);
  probe.arm(Math.ceil(calls * (1000 / FRAME_MS) * ((rampMs + SETTLE_MS) / 1000 + measureS + 10) * 1.1));
  calibratePreciseClock();
  collectGarbage();
  const before = process.memoryUsage();
  const clients = await startClients(nice);
  clients.send({
    type: 'run',
    baseUrl: server.url,
    apiKey: BENCH_API_KEY,
    agentId: server.agentId,
    calls,
    rampMs,
  });
  const ramped = await clients.next('ramped', rampMs + 60_000);
  await sleep(SETTLE_MS);

  const eld = monitorEventLoopDelay({ resolution: 10 });
  const gcs: { ms: number; major: boolean }[] = [];
  let measuring = false;
  const noteGcs = (entries: PerformanceEntry[]) => {
    if (!measuring) return;
    for (const e of entries) {
      const kind = (e as { detail?: { kind?: number } }).detail?.kind ?? 0;
      gcs.push({
        ms: toPrecise(e.startTime + e.duration) - toPrecise(e.startTime),
        major: kind !== constants.NODE_PERFORMANCE_GC_MINOR,
      });
    }
  };
  const gcObserver = new PerformanceObserver((list) => noteGcs(list.getEntries()));
  gcObserver.observe({ entryTypes: ['gc'] });
  measuring = true;
  eld.enable();
  const cpu0 = process.cpuUsage();
  const switches0 = process.resourceUsage().involuntaryContextSwitches;
  const machine0 = machineCpu();
  const wall0 = performance.now();
  const windowStart = preciseNow();
  clients.send({ type: 'window' });
  await sleep(measureS * 1000);
  const windowEnd = preciseNow();
  clients.send({ type: 'window-end' });
  const cpu = process.cpuUsage(cpu0);
  const cpuCorePct = ((cpu.user + cpu.system) / 1000 / (performance.now() - wall0)) * 100;
  const preempted = process.resourceUsage().involuntaryContextSwitches - switches0;
  const machine1 = machineCpu();
  const machineBusyPct =
    machine0 && machine1
      ? (100 * (machine1.busy - machine0.busy)) / Math.max(1, machine1.total - machine0.total)
      : NaN;
  eld.disable();
  noteGcs(gcObserver.takeRecords());
  measuring = false;
  gcObserver.disconnect();
  collectGarbage();
  const during = process.memoryUsage();
  // Frames a little past the window still show the replies to lines that ended in it.
  await sleep(REPLY_MARGIN_MS);
  probe.recording = false;
  clients.send({ type: 'stop' });
  const { result } = await clients.next('result', 60_000);
  await clients.stop();
  for (let i = 0; probe.live > 0 && i < 300; i += 1) await sleep(100);
  await Promise.race([app.engine.calls.idle(), sleep(30_000)]);

  const grid = probe.grid;
  if (!grid) throw new Error('no call bound: the beat was never seen to start');
  // The earlier bound when the bind spanned a millisecond edge: lateness is then overstated by up
  // to that millisecond, never understated.
  const analysis = analyze(probe, grid.before, windowStart, windowEnd);

  // Delivery: each frame from handed to the socket here to read by the client (the k-th frame
  // sent on a socket is the k-th the client reads), frames of the window.
  const delivery = new Histogram();
  if (probe.overflow === 0) {
    const sent = probe.sids.map(() => [] as number[]);
    for (let i = 0; i < probe.n; i += 1) sent[probe.sock[i]!]!.push(probe.at[i]!);
    for (const call of result.calls) {
      const mine = sent[probe.sids.indexOf(call.sid)] ?? [];
      const n = Math.min(mine.length, call.arrivals.length);
      for (let k = 0; k < n; k += 1)
        if (mine[k]! >= windowStart && mine[k]! <= windowEnd) delivery.record(call.arrivals[k]! - mine[k]!);
    }
  }
  // The record of each call: its reply turns in order, the k-th answering the client's k-th line.
  const recordTotals: number[] = [];
  const replyTotals = new Map<string, (number | null)[]>();
  for (const call of result.calls) {
    if (!call.callId) continue;
    const record = await app.store.calls.getById(call.callId);
    const quality = record?.quality as { per_turn?: { kind: string; total_ms: number | null }[] } | null;
    const replies = (quality?.per_turn ?? []).filter((t) => t.kind === 'reply').map((t) => t.total_ms);
    for (const total of replies) if (total !== null) recordTotals.push(total);
    if (replies.length <= call.lines.length) replyTotals.set(call.callId, replies);
  }
  const turns: ShareTurn[] = [];
  let noReply = 0;
  for (const call of result.calls) {
    const starts = analysis.lineStarts.get(call.sid) ?? [];
    const totals = replyTotals.get(call.callId);
    const ends = probe.lineEndsRead.get(probe.sids.indexOf(call.sid)) ?? [];
    call.lines.forEach((line, k) => {
      if (line.endAt < windowStart || line.endAt > windowEnd - REPLY_MARGIN_MS) return;
      const first = starts.find((at) => at > line.endAt);
      if (first === undefined || first - line.endAt > 5_000) {
        noReply += 1;
        return;
      }
      const known =
        PATIENCE_MS[PATIENCE] + (withLatency ? STT_MS + LLM_MS + lineExtraMs(line.index) + TTS_MS : 0);
      const total = totals?.[k];
      const read = ends.find((at) => at > line.endAt - 2);
      turns.push({
        share: first - line.endAt - known,
        processing: total === undefined || total === null ? null : total - known,
        transit: read === undefined || read - line.endAt > 5_000 ? null : read - line.endAt,
      });
    });
  }
  return {
    calls,
    bound: ramped.bound,
    failed: result.calls.flatMap((c) => (c.error ? [c.error] : [])),
    endedEarly: result.calls.flatMap((c) => (c.endedEarly ? [c.endedEarly] : [])),
    analysis,
    delivery,
    gridExact: grid.before === grid.after,
    client: result,
    turns,
    noReply,
    recordTotals,
    cpuCorePct,
    heapPerCallMiB:
      (during.heapUsed + during.arrayBuffers - before.heapUsed - before.arrayBuffers) / MiB / calls,
    rssPerCallMiB: (during.rss - before.rss) / MiB / calls,
    eld: { p50: eld.percentile(50) / 1e6, p99: eld.percentile(99) / 1e6, max: eld.max / 1e6 },
    gc: {
      count: gcs.length,
      totalMs: gcs.reduce((sum, g) => sum + g.ms, 0),
      maxMinorMs: gcs.reduce((max, g) => (g.major ? max : Math.max(max, g.ms)), 0),
      maxMajorMs: gcs.reduce((max, g) => (g.major ? Math.max(max, g.ms) : max), 0),
    },
    preempted,
    machineBusyPct,
    loadAvg: loadavg()[0]!,
    overflow: probe.overflow,
  };
}

// ---- the case -----------------------------------------------------------------------------------

/** One load step's headline figures, for the `sip` case to set beside its own (bench/sip.ts). */
export interface WsMediaFigure {
  calls: number;
  sender: Settings['sender'];
  sendP50: number;
  sendP99: number;
  sendMax: number;
  underruns: number;
  cpuPerCallPct: number;
  rssPerCallMiB: number;
  shareP50: number;
  shareP95: number;
}

const figures: WsMediaFigure[] = [];

/** The load steps this case measured in this process so far. */
export const wsMediaFigures = (): readonly WsMediaFigure[] => figures;

function figureOf(r: StepRow, sender: Settings['sender']): WsMediaFigure {
  const share = r.turns.map((t) => t.share);
  return {
    calls: r.calls,
    sender,
    sendP50: r.analysis.send.percentile(50),
    sendP99: r.analysis.send.percentile(99),
    sendMax: r.analysis.send.max,
    underruns: r.analysis.underrunEvents,
    cpuPerCallPct: r.cpuCorePct / r.calls,
    rssPerCallMiB: r.rssPerCallMiB,
    shareP50: percentileOf(share, 50),
    shareP95: percentileOf(share, 95),
  };
}

export async function runWsMediaCase(ctx: CaseContext): Promise<void> {
  const s = settings();
  for (const line of CALLER_LINES) {
    const partial = line.slice(0, line.lastIndexOf(' '));
    if (isCompleteUtterance(line) || isCompleteUtterance(partial))
      throw new Error(`caller line "${line}" would shorten the patience wait`);
  }
  const started = new Date();
  const loadStart = loadavg()[0]!;
  const share: StepRow[] = [];
  const steps: StepRow[] = [];

  if (s.parts.has('share')) {
    const server = await startParley(true);
    console.log(`share: Parley listens on ${server.url}; 1 call for ${s.singleS} s...`);
    share.push(await runStep(server, 1, s.singleS, true, s.clientNice));
    console.log(`share: ${s.shareCalls} calls, ${s.shareS} s measured...`);
    share.push(await runStep(server, s.shareCalls, s.shareS, true, s.clientNice));
    await server.app.close();
    console.log(textTable(...shareTable(share)));
  }

  if (s.parts.has('load')) {
    const server = await startParley(false);
    console.log(`load: Parley listens on ${server.url}`);
    for (const calls of s.steps) {
      console.log(`load: ${calls} calls (${s.stepS} s measured)...`);
      steps.push(await runStep(server, calls, s.stepS, false, s.clientNice));
      figures.push(figureOf(steps.at(-1)!, s.sender));
      console.log(textTable(...mediaTable(steps.slice(-1))));
      await sleep(1000);
    }
    await server.app.close();
    console.log(textTable(...mediaTable(steps)));
    console.log(textTable(...resourceTable(steps)));
  }

  writeResultsSection('ws-media', report({ ctx, s, started, loadStart, share, steps }));
  console.log('wrote bench/RESULTS.md (section ws-media)');
}

// ---- tables and the report ----------------------------------------------------------------------

const p = (values: number[], q: number, digits = 1) => fmt(percentileOf(values, q), digits);
const met = (ok: boolean) => (ok ? 'met' : '**not met**');
const callsCell = (r: StepRow) =>
  `${r.calls}${r.bound < r.calls ? ` (${r.bound} bound)` : ''}${r.failed.length + r.endedEarly.length > 0 ? ` (${r.failed.length} failed, ${r.endedEarly.length} ended early)` : ''}`;

function shareTable(rows: StepRow[]): [string[], string[][]] {
  return [
    [
      'Calls',
      'Reply turns',
      'Share p50 / p95 / max ms',
      'of which: processing (record) p50 / p95 ms',
      "of which: the line's last frame, due at the client to read by Parley p50 / p95 / max ms",
      'of which: the rest (receive path, beats) p50 / p95 ms',
      'Record total_ms p50 / p95',
      'Lines without a reply',
      'Machine busy (all CPUs) %',
    ],
    rows.map((r) => {
      const share = r.turns.map((t) => t.share);
      const processing = r.turns.flatMap((t) => (t.processing === null ? [] : [t.processing]));
      const transit = r.turns.flatMap((t) => (t.transit === null ? [] : [t.transit]));
      const rest = r.turns.flatMap((t) =>
        t.processing === null || t.transit === null ? [] : [t.share - t.processing - t.transit],
      );
      return [
        callsCell(r),
        String(r.turns.length),
        `${p(share, 50)} / ${p(share, 95)} / ${fmt(Math.max(...share))}`,
        `${p(processing, 50)} / ${p(processing, 95)}`,
        `${p(transit, 50)} / ${p(transit, 95)} / ${fmt(Math.max(...transit))}`,
        `${p(rest, 50)} / ${p(rest, 95)}`,
        `${p(r.recordTotals, 50, 0)} / ${p(r.recordTotals, 95, 0)}`,
        String(r.noReply),
        fmt(r.machineBusyPct, 0),
      ];
    }),
  ];
}

function mediaTable(rows: StepRow[]): [string[], string[][]] {
  return [
    [
      'Calls',
      'Frames sent',
      'Send lateness p50 / p99 / max ms',
      `Frames > ${JITTER_TARGET_MS} ms late`,
      'Beat wake-up p50 / p99 / max ms',
      'Beat work p50 / p99 ms',
      'In socket send: per frame p50 / p99 µs, per beat p50 / p99 ms',
      'Underruns (events / frames)',
      'Agent lines',
      'Delivery to the client p50 / p99 / max ms',
      'Client receive jitter p50 / p99 / max ms',
      'Broken lines (client)',
      'Share p50 / p95 ms',
      `Target p99 ≤ ${JITTER_TARGET_MS} ms (≥ ${TARGET_CALLS} calls)`,
    ],
    rows.map((r) => {
      const a = r.analysis;
      const c = r.client;
      const share = r.turns.map((t) => t.share);
      return [
        callsCell(r),
        String(a.send.count),
        `${fmt(a.send.percentile(50), 2)} / ${fmt(a.send.percentile(99), 2)} / ${fmt(a.send.max)}`,
        `${a.send.above(JITTER_TARGET_MS)} (${fmt((100 * a.send.above(JITTER_TARGET_MS)) / Math.max(1, a.send.count), 2)}%)`,
        `${fmt(a.wake.percentile(50), 2)} / ${fmt(a.wake.percentile(99), 2)} / ${fmt(a.wake.max)}`,
        `${fmt(a.span.percentile(50), 2)} / ${fmt(a.span.percentile(99), 2)}`,
        `${fmt(a.sendCall.percentile(50) * 1000, 0)} / ${fmt(a.sendCall.percentile(99) * 1000, 0)}, ${fmt(a.sendPerBeat.percentile(50), 2)} / ${fmt(a.sendPerBeat.percentile(99), 2)}`,
        `${a.underrunEvents} / ${a.underrunFrames}`,
        String(a.linesStarted),
        `${fmt(r.delivery.percentile(50), 2)} / ${fmt(r.delivery.percentile(99), 2)} / ${fmt(r.delivery.max)}`,
        `${fmt(c.receive.p50, 2)} / ${fmt(c.receive.p99, 2)} / ${fmt(c.receive.max)}`,
        `${c.brokenLines} of ${c.linesHeard}`,
        `${p(share, 50)} / ${p(share, 95)}`,
        r.calls < TARGET_CALLS
          ? '—'
          : met(a.send.percentile(99) <= JITTER_TARGET_MS && a.underrunEvents === 0),
      ];
    }),
  ];
}

function resourceTable(rows: StepRow[]): [string[], string[][]] {
  return [
    [
      'Calls',
      'Parley CPU (% of one core)',
      'CPU per call (% of a core)',
      'Heap + buffers per call MiB',
      'RSS per call MiB',
      'Event-loop delay p50 / p99 / max ms',
      'GC pauses: count, total ms; longest minor / major ms',
      'Preempted by the OS',
      'Clients: CPU %, frames sent / received, send tick late p99 / max ms',
      'Machine busy (all CPUs) %',
      'Load avg (1 min)',
    ],
    rows.map((r) => [
      String(r.calls),
      fmt(r.cpuCorePct, 0),
      fmt(r.cpuCorePct / r.calls, 3),
      fmt(r.heapPerCallMiB, 3),
      fmt(r.rssPerCallMiB, 3),
      `${fmt(r.eld.p50)} / ${fmt(r.eld.p99)} / ${fmt(r.eld.max)}`,
      `${r.gc.count}, ${fmt(r.gc.totalMs, 0)}; ${fmt(r.gc.maxMinorMs)} / ${fmt(r.gc.maxMajorMs)}`,
      String(r.preempted),
      `${fmt(r.client.cpuPct, 0)}, ${r.client.framesSent} / ${r.client.framesReceived}, ${fmt(r.client.tickLate.p99)} / ${fmt(r.client.tickLate.max)}`,
      fmt(r.machineBusyPct, 0),
      fmt(r.loadAvg, 1),
    ]),
  ];
}

interface ReportInput {
  ctx: CaseContext;
  s: Settings;
  started: Date;
  loadStart: number;
  share: StepRow[];
  steps: StepRow[];
}

/** What the lateness is made of, from the figures measured. */
function whereTimeGoes(steps: StepRow[], sender: Settings['sender']): string {
  if (steps.length === 0) return '';
  if (sender === 'worker') {
    const largest = steps.reduce((a, b) => (b.calls > a.calls ? b : a));
    const a = largest.analysis;
    return `Where the time goes: the pacer worker writes WS media frames to the sockets itself (a
5 ms tick in Atomics.wait, one write(2) per frame; src/telephony/pacing/wire-writer.ts), so the
main thread's event loop no longer delays them. At ${largest.calls} calls a tick's first frame leaves p50
${fmt(a.wake.percentile(50), 2)} / p99 ${fmt(a.wake.percentile(99), 2)} ms after its slot (the thread's wake-up), and the tick's work from its first
frame to its last is p50 ${fmt(a.span.percentile(50), 2)} / p99 ${fmt(a.span.percentile(99), 2)} ms (the writes).`;
  }
  const largest = steps.reduce((a, b) => (b.calls > a.calls ? b : a));
  const a = largest.analysis;
  const perFrameUs = (a.span.percentile(50) * 1000) / largest.calls;
  const sendShare = a.sendPerBeat.percentile(50) / Math.max(1e-9, a.span.percentile(50));
  const gcMinor = steps.reduce((m, x) => Math.max(m, x.gc.maxMinorMs), 0);
  const gcMajor = steps.reduce((m, x) => Math.max(m, x.gc.maxMajorMs), 0);
  const eldMax = steps.reduce((m, x) => Math.max(m, x.eld.max), 0);
  return `Where the time goes: WS media frames leave from the carrier's own 20 ms beat on the main
thread (the caller pacer: src/app.ts gives the \`ws\` carrier no pacer, and the pacer worker could
not write to the sockets, which live on the main thread), so a frame leaves as late as (1) the
beat's timer wakes late and (2) the legs before it in the beat take. At ${largest.calls} calls the beat's
wake-up is p50 ${fmt(a.wake.percentile(50), 2)} / p99 ${fmt(a.wake.percentile(99), 2)} ms late, and its work from the first frame to the
last is p50 ${fmt(a.span.percentile(50), 2)} / p99 ${fmt(a.span.percentile(99), 2)} ms (about ${fmt(perFrameUs, 1)} µs per leg: encoding to pcmu at
8 kHz, the frame ring, and the socket's send, which alone is ${fmt(sendShare * 100, 0)}% of it at p50). The wake-up
waits for whatever the main thread is doing when the beat is due: the clients' incoming frames
(${largest.calls} calls × 50 WebSocket messages a second, each parsed, decoded and handed on), the sessions'
VAD/STT/turn work, the store, and garbage collection (longest pause ${fmt(gcMinor)} ms minor, ${fmt(gcMajor)} ms
major; event-loop delay max ${fmt(eldMax)} ms), plus the OS running other work on the machine.`;
}

function report(r: ReportInput): string {
  const knobs = Object.keys(process.env)
    .filter((k) => k.startsWith('PARLEY_BENCH_WS_MEDIA_'))
    .sort()
    .map((k) => `${k}=${process.env[k]}`);
  const command = [...knobs, r.ctx.command].join(' ');
  const parts: string[] = [];
  parts.push(`## Case \`ws-media\`: WebSocket media test calls, real clients, one Parley process

- Date: ${r.started.toISOString()}
- Machine: ${machine()}
- Load: 1-minute load average ${fmt(r.loadStart)} at the start; ${[...r.share, ...r.steps].map((x) => fmt(x.loadAvg)).join(', ')} after
  each run. The machine is shared: other work may run.
- Command: \`${command}\`
- Parley (this process): the app as \`parley serve\` builds it (src/app.ts \`createApp\`, embedded
  SQLite in a temp dir, the bench API key) on a free port, fake VAD (a loudness gate), fake STT and TTS (data
  speech), a fake model that answers every line with two sentences; agent greeting
  \`agent_static\`, patience \`${PATIENCE}\` (${PATIENCE_MS[PATIENCE]} ms); WebSocket media as shipped.
- Sender: \`${r.s.sender}\` (PARLEY_WS_MEDIA_SENDER): ${
    r.s.sender === 'worker'
      ? 'the pacer worker writes each frame to the socket itself (docs/ws-media.md); frames are timed by its own stamps'
      : "the `ws` carrier's own 20 ms beat sends on the main thread; frames are stamped as handed to the socket"
  }.
- Clients (bench/ws-media-client.ts): one child process at nice ${r.s.clientNice}, real \`ws\` sockets. Each call is
  started with \`POST /v2/calls/outbound-test-ws-media\` (\`pcmu\`, \`payload\`) and bound by connecting
  to \`wsMediaUrl\` (legacy flow), calls started evenly over ${RAMP_MS / 1000} s, ${SETTLE_MS / 1000} s to settle, then the
  window. A client streams 20 ms pcmu frames all call long (silence, or its line in data speech,
  500 ms after each agent line ended), on ten phases of the beat.
- Send lateness: each binary frame is stamped in this process as it is handed to the socket (the
  bench wraps the socket the carrier gets), sub-millisecond on Date.now()'s scale, and timed
  against its talkspurt's ideal 20 ms schedule: its slot on the carrier's beat, whose grid the
  bench reads when the first call binds${[...r.share, ...r.steps].every((x) => x.gridExact) ? ' (to the millisecond in every run)' : ' (to the millisecond, or 1 ms earlier where the bind spanned a millisecond edge: lateness is then overstated by up to 1 ms)'}. Beat wake-up: the first
  frame of each beat; beat work: its first frame to its last. Underrun: a beat that sent nothing
  between two frames of one agent line (a gap under ${LINE_GAP_MS} ms; a longer one starts a new line).
- Client receive jitter (secondary; the clients' clock and event loop count in it): per agent
  line, how late each frame arrived against the line's ideal 20 ms schedule, taken as the
  earliest that fits the whole line (the playout delay that plays it without a gap).
- Share: from the client's end of speech (when its line's last frame was due on its 20 ms clock:
  when a microphone would have had it) to the reply's first frame handed to the socket, minus the
  patience wait and the fakes' known latencies. Its parts: processing, the same span as the
  session's record has it (\`total_ms\`: its end of speech, from the VAD, to the first frame
  queued; whole ms), minus the same waits; the line's last frame from due at the client to read
  by Parley (the client's own lateness, the kernel's loopback and Parley's event loop; the two
  processes' clocks agree to a fraction of a millisecond); and the rest:
  Parley's receive path (from reading the frame to the session's VAD placing the end of speech:
  how the WS leg hands the client's payload frames to the session, and on which beat) and the
  wait for the beat that sends the reply (0-20 ms).`);

  if (r.share.length > 0) {
    parts.push(`### 1. Platform share of response time

Fakes of known latency as in the \`voice\` case: STT final ${STT_MS} ms after the flush, model first token
${LLM_MS}-${LLM_MS + 19} ms after the call (by the caller's line, so replies become ready at every phase of the
beat), TTS first audio ${TTS_MS} ms after each sentence. Reply turns whose line ended in the window (1
call: ${r.s.singleS} s; ${r.s.shareCalls} calls: ${r.s.shareS} s). The record's \`total_ms\` (the session's end of speech to
the first frame queued, all reply turns of the run) is for comparison.

${markdownTable(...shareTable(r.share))}`);
  }

  if (r.steps.length > 0) {
    const big = r.steps.filter((x) => x.calls >= TARGET_CALLS);
    const bigMet = big.filter(
      (x) => x.analysis.send.percentile(99) <= JITTER_TARGET_MS && x.analysis.underrunEvents === 0,
    );
    const odd = r.steps.reduce((n, x) => n + x.analysis.unplaced + x.overflow, 0);
    parts.push(`### 2. Concurrent calls

Zero-latency fakes; per step: calls started over ${RAMP_MS / 1000} s, ${SETTLE_MS / 1000} s to settle, then ${r.s.stepS} s measured. CPU:
process.cpuUsage() of the Parley process over the window; memory: heap + array buffers and RSS
after a full GC with the calls up, minus the same before the step, per call (Parley's side only:
the clients are in their own process). Event-loop delay: monitorEventLoopDelay (10 ms resolution).

${markdownTable(...mediaTable(r.steps))}

${markdownTable(...resourceTable(r.steps))}

The share per step, in parts as in part 1 (zero-latency fakes: only the patience wait is taken out):

${markdownTable(...shareTable(r.steps))}

Target (frame-send lateness p99 ≤ ${JITTER_TARGET_MS} ms and no underruns at ≥ ${TARGET_CALLS} calls): ${
      big.length === 0
        ? 'no step of that size ran.'
        : bigMet.length === big.length
          ? `met at ${big.map((x) => x.calls).join(', ')} calls.`
          : `**not met** at ${big
              .filter((x) => !bigMet.includes(x))
              .map((x) => x.calls)
              .join(
                ', ',
              )} calls${bigMet.length > 0 ? `; met at ${bigMet.map((x) => x.calls).join(', ')}` : ''}.`
    }${odd > 0 ? ` (${odd} sends could not be placed consistently on the grid, or were not recorded.)` : ''}

${whereTimeGoes(r.steps, r.s.sender)}`);
  }
  return parts.join('\n\n');
}
