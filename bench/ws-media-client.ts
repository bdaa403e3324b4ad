// The clients of the `ws-media` case (bench/ws-media.ts), in a process of their own so that their
// work does not run on the Parley process they measure. The parent forks this file with `--child`
// and drives it over IPC: `run` starts the calls, `window` and `window-end` bound the measured
// window, `stop` hangs every call up and asks for the result.
//
// Each client is what a real one does: POST /v2/calls/outbound-test-ws-media (codec pcmu, framing
// payload), connect to `wsMediaUrl` (legacy flow: the URL binds), then stream 20 ms pcmu frames in
// real time for the whole call, as a microphone does: silence, or the caller's line in data speech
// (which Parley's fake STT reads exactly) 500 ms after each agent line ended. The agent answers
// every line, so each call keeps talking in turns. The clients' frames leave on ten phases of the
// 20 ms beat (call i on phase i mod 10), so their messages do not reach Parley in one burst.
//
// Receive jitter (the secondary figure): per agent line (frames with gaps under 200 ms), how late
// each frame arrived against the line's ideal 20 ms schedule, taken as the earliest that fits the
// line (the playout delay a client needs to play the line without a gap), on this process's clock.
import { setTimeout as sleep } from 'node:timers/promises';
import WebSocket from 'ws';
import { createDataSpeechReader, dataSpeechFrames, mulawDecode, mulawEncode } from '../src/media/index.ts';
import { Histogram, calibratePreciseClock, preciseNow } from './voice-stats.ts';

export const GREETING = 'Hi, this is Northwind. How can I help?';
/** The agent's answer to every line: two sentences, so it is synthesized in two segments. */
export const REPLY = 'Sure, I can do that. One moment please.';
const BASE_LINES = [
  'I want to move my appointment',
  'My package has not arrived',
  'I need to change my address',
  'The technician never came',
  'I was charged twice last month',
];
const SUFFIXES = ['', ' today', ' this week', ' as soon as possible'];
/**
 * What the callers say: 20 lines, none a complete utterance (so endpointing waits the full
 * patience). The share runs' model waits LLM_MS + lineExtraMs(i) for line i, so replies become
 * ready at every phase of the 20 ms beat, and the client knows the wait to take out.
 */
export const CALLER_LINES = BASE_LINES.flatMap((line) => SUFFIXES.map((suffix) => line + suffix));
export const LLM_MS = 100;
export const lineExtraMs = (index: number): number => (index * 13) % 20;

const FRAME_MS = 20;
const GROUPS = 10;
const TICK_MS = FRAME_MS / GROUPS;
/** A gap this long ends an agent line (the voice case's 10 silent frames). */
export const LINE_GAP_MS = 200;
/** The caller answers this long after the agent's line ended. */
const ANSWER_AFTER_MS = 500;
const PAYLOAD_BYTES = 160;

// ---- the protocol with the parent -----------------------------------------------------------------

export interface ClientRunOptions {
  baseUrl: string;
  apiKey: string;
  agentId: string;
  calls: number;
  /** Call starts are spread evenly over this long (ms). */
  rampMs: number;
}

export type ToClient =
  ({ type: 'run' } & ClientRunOptions) | { type: 'window' } | { type: 'window-end' } | { type: 'stop' };

export type FromClient =
  | { type: 'ready' }
  | { type: 'ramped'; bound: number; failed: number }
  | { type: 'result'; result: ClientResult };

export interface ClientLine {
  /** Index into CALLER_LINES. */
  index: number;
  /** The line's end of speech: when its last frame was due on the client's 20 ms clock (preciseNow()). */
  endAt: number;
}

export interface ClientCall {
  index: number;
  callId: string;
  sid: string;
  bound: boolean;
  /** Why the call could not start (HTTP or socket error); null when it did. */
  error: string | null;
  /** The call ended before the bench hung up (call_ended or a close from the server). */
  endedEarly: string | null;
  lines: ClientLine[];
  /** When each of Parley's frames was read (preciseNow()), in order. */
  arrivals: number[];
}

export interface ClientResult {
  calls: ClientCall[];
  receive: { frames: number; p50: number; p99: number; max: number; over5: number };
  linesHeard: number;
  /** Agent lines heard in the window that were not a whole greeting or reply. */
  brokenLines: number;
  framesSent: number;
  framesReceived: number;
  /** This process's CPU over the window, % of one core. */
  cpuPct: number;
  /** How late this process's own send ticks were (ms): its timing, not Parley's. */
  tickLate: { p99: number; max: number };
}

// ---- one call -----------------------------------------------------------------------------------

/** Data speech at 8 kHz, mu-law: each frame is one flat level, so every other sample will do. */
function pcmuLine(text: string): Buffer[] {
  return dataSpeechFrames(text).map((frame) => {
    const narrow = new Int16Array(PAYLOAD_BYTES);
    for (let i = 0; i < PAYLOAD_BYTES; i += 1) narrow[i] = frame.samples[i * 2] ?? 0;
    return Buffer.from(mulawEncode(narrow));
  });
}

const SILENCE = Buffer.from(mulawEncode(new Int16Array(PAYLOAD_BYTES)));
const normalize = (text: string) => text.replace(/\s+/g, ' ').trim();
const EXPECTED = new Set([normalize(GREETING), normalize(REPLY)]);

class Client {
  readonly call: ClientCall;
  socket: WebSocket | null = null;
  open = false;
  private readonly lines: Buffer[][];
  private readonly stats: RunStats;
  private speaking: Buffer[] | null = null;
  private speakingIndex = 0;
  private position = 0;
  private turn = 0;
  private heardSinceSpoke = false;
  private lastHeard = -Infinity;
  /** The agent line being heard: arrival times and what it says. */
  private arrivals: number[] = [];
  private readonly reader = createDataSpeechReader();

  constructor(index: number, lines: Buffer[][], stats: RunStats) {
    this.call = {
      index,
      callId: '',
      sid: '',
      bound: false,
      error: null,
      endedEarly: null,
      lines: [],
      arrivals: [],
    };
    this.lines = lines;
    this.stats = stats;
  }

  async start(options: ClientRunOptions): Promise<void> {
    try {
      const res = await fetch(`${options.baseUrl}/v2/calls/outbound-test-ws-media`, {
        method: 'POST',
        headers: { authorization: `Bearer ${options.apiKey}`, 'content-type': 'application/json' },
        body: JSON.stringify({ modelId: options.agentId, wsMediaCodec: 'pcmu', wsMediaFraming: 'payload' }),
      });
      if (!res.ok) throw new Error(`start ${res.status}: ${(await res.text()).slice(0, 200)}`);
      const body = (await res.json()) as { callId: string; wsMediaUrl: string };
      this.call.callId = body.callId;
      this.call.sid = new URL(body.wsMediaUrl).searchParams.get('sid') ?? '';
      const socket = new WebSocket(body.wsMediaUrl, { perMessageDeflate: false });
      this.socket = socket;
      socket.on('message', (data, isBinary) => this.message(data as Buffer, isBinary));
      socket.on('close', (code) => {
        if (this.open && !this.stats.stopping) this.call.endedEarly ??= `socket closed ${code}`;
        this.open = false;
      });
      await new Promise<void>((resolve, reject) => {
        socket.once('open', () => resolve());
        socket.once('error', reject);
      });
      socket.on('error', () => undefined);
      this.open = true;
      const deadline = Date.now() + 15_000;
      while (!this.call.bound && this.open && Date.now() < deadline) await sleep(20);
      if (!this.call.bound) throw new Error('no call_info within 15 s');
    } catch (err) {
      this.call.error = err instanceof Error ? err.message : String(err);
    }
  }

  private message(data: Buffer, isBinary: boolean): void {
    if (!isBinary) {
      const text = data.toString('utf8');
      if (text.includes('"call_info"')) this.call.bound = true;
      else if (text.includes('"call_ended"') && !this.stats.stopping) this.call.endedEarly ??= 'call_ended';
      return;
    }
    const at = preciseNow();
    this.call.arrivals.push(at);
    this.stats.framesReceived += 1;
    if (this.arrivals.length > 0 && at - this.lastHeard > LINE_GAP_MS) this.endLine();
    this.arrivals.push(at);
    this.lastHeard = at;
    this.heardSinceSpoke = true;
    this.reader.push({ samples: mulawDecode(data), sampleRate: 8000, at: 0 });
  }

  /** The agent's line is over: its receive jitter, and whether it was heard whole. */
  endLine(): void {
    const arrivals = this.arrivals;
    const stats = this.stats;
    if (arrivals.length > 0 && stats.windowStart <= arrivals[0]! && stats.measuring) {
      let anchor = Infinity;
      arrivals.forEach((at, k) => (anchor = Math.min(anchor, at - k * FRAME_MS)));
      arrivals.forEach((at, k) => stats.receive.record(at - anchor - k * FRAME_MS));
      stats.linesHeard += 1;
      if (!EXPECTED.has(normalize(this.reader.text))) stats.brokenLines += 1;
    }
    this.arrivals = [];
    this.reader.reset();
  }

  /**
   * This call's 20 ms beat: one frame, the line's next or silence; a new line when it is time.
   * `due`: the beat's own time. `behind`: this beat is a whole frame late (a later one is due too). Silence is then skipped, so
   * the client's own stalls do not pile up in Parley's queue of payload frames (it plays them as
   * they come and never drops them to catch up); the line's frames are all sent, late or not.
   */
  tick(now: number, due: number, behind: boolean): void {
    const socket = this.socket;
    if (!socket || !this.open || !this.call.bound) return;
    if (this.arrivals.length > 0 && now - this.lastHeard > LINE_GAP_MS) this.endLine();
    if (!this.speaking && this.heardSinceSpoke && now - this.lastHeard >= ANSWER_AFTER_MS) {
      this.speakingIndex = (this.call.index * 7 + this.turn) % this.lines.length;
      this.speaking = this.lines[this.speakingIndex]!;
      this.position = 0;
      this.turn += 1;
      this.heardSinceSpoke = false;
    }
    const line = this.speaking;
    if (!line && behind) return;
    socket.send(line ? line[this.position]! : SILENCE, { binary: true });
    this.stats.framesSent += 1;
    if (line && ++this.position >= line.length) {
      this.call.lines.push({ index: this.speakingIndex, endAt: due });
      this.speaking = null;
    }
  }

  async hangUp(): Promise<void> {
    const socket = this.socket;
    if (!socket || socket.readyState === WebSocket.CLOSED) return;
    const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
    socket.close(1000, 'bench done');
    await Promise.race([closed, sleep(10_000)]);
  }
}

interface RunStats {
  measuring: boolean;
  stopping: boolean;
  windowStart: number;
  receive: Histogram;
  tickLate: Histogram;
  linesHeard: number;
  brokenLines: number;
  framesSent: number;
  framesReceived: number;
}

// ---- the child process --------------------------------------------------------------------------

async function child(): Promise<void> {
  const send = (message: FromClient, then?: () => void) =>
    process.send?.(message, undefined, {}, () => then?.());
  const lines = CALLER_LINES.map(pcmuLine);
  const stats: RunStats = {
    measuring: false,
    stopping: false,
    windowStart: Infinity,
    receive: new Histogram(),
    tickLate: new Histogram(),
    linesHeard: 0,
    brokenLines: 0,
    framesSent: 0,
    framesReceived: 0,
  };
  const clients: Client[] = [];
  const groups: Client[][] = Array.from({ length: GROUPS }, () => []);
  let running = true;
  let cpu0 = process.cpuUsage();
  let wall0 = 0;
  let cpuPct = NaN;

  // One timer for every client: a 2 ms tick, each group of calls on one tick of the 20 ms beat;
  // late ticks are caught up at once, so each call still sends 50 frames a second.
  async function beat(): Promise<void> {
    let next = performance.now() + TICK_MS;
    let n = 0;
    while (running) {
      const wait = next - performance.now();
      if (wait > 0) await sleep(wait);
      const now = preciseNow();
      const late = performance.now() - next;
      // The tick's own time on preciseNow()'s scale: when a microphone would have had the frame.
      const due = now - late;
      if (stats.measuring) stats.tickLate.record(late);
      for (const client of groups[n % GROUPS]!) client.tick(now, due, late >= FRAME_MS);
      n += 1;
      next += TICK_MS;
    }
  }

  process.on('message', (message: ToClient) => {
    if (message.type === 'run') {
      void (async () => {
        calibratePreciseClock();
        void beat();
        const t0 = performance.now();
        const starts: Promise<void>[] = [];
        for (let i = 0; i < message.calls; i += 1) {
          const due = t0 + (i * message.rampMs) / message.calls - performance.now();
          if (due > 0) await sleep(due);
          const client = new Client(i, lines, stats);
          clients.push(client);
          groups[i % GROUPS]!.push(client);
          starts.push(client.start(message));
        }
        await Promise.all(starts);
        const bound = clients.filter((c) => c.call.bound).length;
        send({ type: 'ramped', bound, failed: clients.length - bound });
      })();
    } else if (message.type === 'window') {
      stats.windowStart = preciseNow();
      stats.measuring = true;
      cpu0 = process.cpuUsage();
      wall0 = performance.now();
    } else if (message.type === 'window-end') {
      const cpu = process.cpuUsage(cpu0);
      cpuPct = ((cpu.user + cpu.system) / 1000 / (performance.now() - wall0)) * 100;
      // Lines still being heard are not counted: the window ends in them.
      stats.measuring = false;
    } else {
      stats.measuring = false;
      stats.stopping = true;
      running = false;
      void (async () => {
        await Promise.all(clients.map((c) => c.hangUp()));
        const r = stats.receive;
        send(
          {
            type: 'result',
            result: {
              calls: clients.map((c) => c.call),
              receive: {
                frames: r.count,
                p50: r.percentile(50),
                p99: r.percentile(99),
                max: r.max,
                over5: r.above(5),
              },
              linesHeard: stats.linesHeard,
              brokenLines: stats.brokenLines,
              framesSent: stats.framesSent,
              framesReceived: stats.framesReceived,
              cpuPct,
              tickLate: { p99: stats.tickLate.percentile(99), max: stats.tickLate.max },
            },
          },
          () => process.disconnect?.(),
        );
      })();
    }
  });
  send({ type: 'ready' });
}

if (process.argv.includes('--child') && process.send) await child();
