// The RTP far ends of the `sip` case (bench/sip.ts), in a process of their own so that their work
// does not run on the Parley process they measure. sipp places the calls (SIP only); the SDP of
// each INVITE names one of this process's UDP ports, so Parley's RTP for call k comes here, and
// the caller's audio leaves from that same port (symmetric RTP keeps Parley sending to it).
//
// Per call: from Parley's first packet on, it streams 20 ms PCMU frames in real time (silence, or a
// caller line in data speech, which Parley's fake STT reads exactly, 500 ms after each agent line
// ended), as the WS media clients do. Every packet from Parley is stamped on arrival
// (timeOrigin + performance.now(), sub-millisecond, on the same wall-clock scale as Parley's media
// worker) with its sequence number and RTP timestamp.
//
// Arrival lateness: Parley's RTP timestamps follow its media worker's 20 ms grid, so each packet's
// due time is anchor + timestamp / 8 ms; the anchor is taken per call as the earliest that fits
// every packet of the window (lateness 0 for the call's least-late packet). What remains is how
// late each packet left Parley relative to its grid, plus loopback and this process's own read
// delay: an upper bound on Parley's frame-send lateness. Loss: sequence numbers that never came.
import { createSocket, type Socket } from 'node:dgram';
import { setTimeout as sleep } from 'node:timers/promises';
import { dataSpeechFrames, mulawEncode } from '../src/media/index.ts';
import { Histogram } from './voice-stats.ts';
import { CALLER_LINES, LINE_GAP_MS } from './ws-media-client.ts';

const FRAME_MS = 20;
const GROUPS = 10;
const TICK_MS = FRAME_MS / GROUPS;
const ANSWER_AFTER_MS = 500;
const PAYLOAD_BYTES = 160;
const RTP_HEADER = 12;

export type ToPeer =
  /** Binds `count` even UDP ports on 127.0.0.1 from `from` up, skipping ports others hold. */
  | { type: 'open'; from: number; count: number }
  | { type: 'window' }
  | { type: 'window-end' }
  | { type: 'stop' };

export type FromPeer =
  { type: 'ready' } | { type: 'opened'; ports: number[] } | { type: 'result'; result: PeerResult };

export interface PeerCall {
  port: number;
  /** Parley's packets seen at all (the call came up). */
  received: number;
  /** The caller's lines: when each line's last frame was due (wall clock, ms). */
  lineEnds: number[];
  /** The agent's lines: when each line's first loud frame arrived (wall clock, ms). */
  lineStarts: number[];
}

export interface PeerResult {
  calls: PeerCall[];
  /** Per packet of the window: arrival lateness against the call's RTP timestamp grid (ms). */
  late: { count: number; p50: number; p99: number; p999: number; max: number; over5: number };
  /** Packets of the window, and those the sequence numbers say were sent but never came. */
  packets: number;
  lost: number;
  /** Arrived after a later sequence number, or twice. */
  reordered: number;
  duplicates: number;
  /** Silent frames (comfort silence) between two loud frames of one agent line. */
  gapsInLines: number;
  framesSent: number;
  /** This process's CPU over the window, % of one core. */
  cpuPct: number;
  /** How late this process's own send ticks were (ms): its timing, not Parley's. */
  tickLate: { p99: number; max: number };
}

const wallNow = () => performance.timeOrigin + performance.now();

/** Data speech at 8 kHz, mu-law: each frame is one flat level, so every other sample will do. */
function pcmuLine(text: string): Buffer[] {
  return dataSpeechFrames(text).map((frame) => {
    const narrow = new Int16Array(PAYLOAD_BYTES);
    for (let i = 0; i < PAYLOAD_BYTES; i += 1) narrow[i] = frame.samples[i * 2] ?? 0;
    return Buffer.from(mulawEncode(narrow));
  });
}

const SILENCE = Buffer.from(mulawEncode(new Int16Array(PAYLOAD_BYTES)));

interface Window {
  measuring: boolean;
  framesSent: number;
}

class Call {
  readonly info: PeerCall;
  private readonly socket: Socket;
  private remote: { address: string; port: number } | null = null;
  // Our stream.
  private readonly packet = Buffer.alloc(RTP_HEADER + PAYLOAD_BYTES);
  private sequence = Math.floor(Math.random() * 0xffff);
  private timestamp = Math.floor(Math.random() * 0xffffffff);
  private speaking: Buffer[] | null = null;
  private position = 0;
  private turn = 0;
  private heardSinceSpoke = false;
  private lastLoud = -Infinity;
  private quietSinceLoud = 0;
  // Parley's stream, in the window: arrival minus the timestamp's ms, unwrapped.
  readonly offsets: number[] = [];
  private firstTs = -1;
  private tsWraps = 0;
  private lastTs = 0;
  private seqBase = -1;
  private seqHigh = -1;
  private seqWraps = 0;
  private lastSeq = -1;
  readonly seen = new Set<number>();
  reordered = 0;
  duplicates = 0;
  gapsInLines = 0;

  constructor(
    port: number,
    private readonly index: number,
    private readonly lines: Buffer[][],
    private readonly window: Window,
  ) {
    this.info = { port, received: 0, lineEnds: [], lineStarts: [] };
    this.socket = createSocket('udp4');
    this.packet[0] = 0x80;
    this.packet.writeUInt32BE(Math.floor(Math.random() * 0xffffffff) >>> 0, 8);
    this.socket.on('message', (data, from) => this.message(data, from));
    this.socket.on('error', () => undefined);
  }

  bind(): Promise<void> {
    return new Promise((resolve, reject) => {
      this.socket.once('error', reject);
      this.socket.bind(this.info.port, '127.0.0.1', () => {
        this.socket.off('error', reject);
        resolve();
      });
    });
  }

  private message(data: Buffer, from: { address: string; port: number }): void {
    const at = wallNow();
    if (data.length < RTP_HEADER + 1 || data[0]! >> 6 !== 2) return;
    this.remote ??= { address: from.address, port: from.port };
    this.info.received += 1;
    const payload = data.subarray(RTP_HEADER);
    const loud = payload[0] !== 0xff || payload[payload.length >> 1] !== 0xff;
    if (loud) {
      if (at - this.lastLoud > LINE_GAP_MS) this.info.lineStarts.push(at);
      else if (this.quietSinceLoud > 0 && this.window.measuring) this.gapsInLines += 1;
      this.lastLoud = at;
      this.quietSinceLoud = 0;
      this.heardSinceSpoke = true;
    } else this.quietSinceLoud += 1;
    if (!this.window.measuring) return;
    // Sequence numbers: 16 bits, unwrapped around the highest seen.
    const seq = data.readUInt16BE(2);
    if (this.seqBase < 0) {
      this.seqBase = seq;
      this.seqHigh = seq;
    } else {
      const high = this.seqHigh & 0xffff;
      const delta = (seq - high + 0x10000) & 0xffff;
      if (delta === 0) this.duplicates += 1;
      else if (delta < 0x8000) {
        if (seq < high) this.seqWraps += 1;
        this.seqHigh = this.seqWraps * 0x10000 + seq;
      } else this.reordered += 1;
    }
    const unwrapped = this.seqWraps * 0x10000 + seq;
    if (this.seen.has(unwrapped)) this.duplicates += 1;
    this.seen.add(unwrapped);
    this.lastSeq = unwrapped;
    // RTP timestamps: 32 bits at 8 kHz, unwrapped.
    const ts = data.readUInt32BE(4);
    if (this.firstTs < 0) this.firstTs = ts;
    else if (ts < this.lastTs && this.lastTs - ts > 0x80000000) this.tsWraps += 1;
    this.lastTs = ts;
    const ticks = this.tsWraps * 0x100000000 + ts - this.firstTs;
    this.offsets.push(at - ticks / 8);
  }

  /** Expected packets (first to highest sequence number) and those that never came. */
  loss(): { expected: number; lost: number } {
    if (this.seqBase < 0) return { expected: 0, lost: 0 };
    const expected = this.seqHigh - this.seqBase + 1;
    return { expected, lost: Math.max(0, expected - this.seen.size) };
  }

  /** This call's 20 ms beat: one frame, the line's next or silence; a new line when it is time. */
  tick(now: number, due: number): void {
    const remote = this.remote;
    if (!remote) return;
    if (!this.speaking && this.heardSinceSpoke && now - this.lastLoud >= ANSWER_AFTER_MS) {
      this.speaking = this.lines[(this.index * 7 + this.turn) % this.lines.length]!;
      this.position = 0;
      this.turn += 1;
      this.heardSinceSpoke = false;
    }
    const line = this.speaking;
    const payload = line ? line[this.position]! : SILENCE;
    const packet = this.packet;
    packet[1] = line && this.position === 0 ? 0x80 : 0;
    packet.writeUInt16BE(this.sequence, 2);
    packet.writeUInt32BE(this.timestamp >>> 0, 4);
    payload.copy(packet, RTP_HEADER);
    this.sequence = (this.sequence + 1) & 0xffff;
    this.timestamp = (this.timestamp + PAYLOAD_BYTES) >>> 0;
    this.socket.send(packet, remote.port, remote.address);
    if (this.window.measuring) this.window.framesSent += 1;
    if (line && ++this.position >= line.length) {
      this.info.lineEnds.push(due);
      this.speaking = null;
    }
  }

  close(): void {
    try {
      this.socket.close();
    } catch {
      // A socket whose bind failed may be closed already.
    }
  }
}

async function child(): Promise<void> {
  const send = (message: FromPeer, then?: () => void) =>
    process.send?.(message, undefined, {}, () => then?.());
  const lines = CALLER_LINES.map(pcmuLine);
  const window: Window = { measuring: false, framesSent: 0 };
  const calls: Call[] = [];
  const groups: Call[][] = Array.from({ length: GROUPS }, () => []);
  const tickLate = new Histogram();
  let running = true;
  let cpu0 = process.cpuUsage();
  let wall0 = 0;
  let cpuPct = NaN;

  // One timer for every call: a 2 ms tick, each group of calls on one tick of the 20 ms beat; late
  // ticks are caught up at once, so each call still sends 50 frames a second.
  async function beat(): Promise<void> {
    let next = wallNow() + TICK_MS;
    let n = 0;
    while (running) {
      const wait = next - wallNow();
      if (wait > 0) await sleep(wait);
      const now = wallNow();
      const late = now - next;
      if (window.measuring) tickLate.record(late);
      for (const call of groups[n % GROUPS]!) call.tick(now, next);
      n += 1;
      next += TICK_MS;
    }
  }

  process.on('message', (message: ToPeer) => {
    if (message.type === 'open') {
      void (async () => {
        const ports: number[] = [];
        for (let port = message.from + (message.from % 2); ports.length < message.count; port += 2) {
          if (port > 65_534) throw new Error(`no ${message.count} free UDP ports from ${message.from}`);
          const call = new Call(port, calls.length, lines, window);
          try {
            await call.bind();
          } catch {
            call.close();
            continue;
          }
          groups[calls.length % GROUPS]!.push(call);
          calls.push(call);
          ports.push(port);
        }
        void beat();
        send({ type: 'opened', ports });
      })();
    } else if (message.type === 'window') {
      window.measuring = true;
      cpu0 = process.cpuUsage();
      wall0 = performance.now();
    } else if (message.type === 'window-end') {
      const cpu = process.cpuUsage(cpu0);
      cpuPct = ((cpu.user + cpu.system) / 1000 / (performance.now() - wall0)) * 100;
      window.measuring = false;
    } else {
      running = false;
      const late = new Histogram();
      let packets = 0;
      let lost = 0;
      for (const call of calls) {
        let anchor = Infinity;
        for (const o of call.offsets) anchor = Math.min(anchor, o);
        for (const o of call.offsets) late.record(o - anchor);
        const loss = call.loss();
        packets += loss.expected;
        lost += loss.lost;
        call.close();
      }
      send(
        {
          type: 'result',
          result: {
            calls: calls.map((c) => c.info),
            late: {
              count: late.count,
              p50: late.percentile(50),
              p99: late.percentile(99),
              p999: late.percentile(99.9),
              max: late.max,
              over5: late.above(5),
            },
            packets,
            lost,
            reordered: calls.reduce((n, c) => n + c.reordered, 0),
            duplicates: calls.reduce((n, c) => n + c.duplicates, 0),
            gapsInLines: calls.reduce((n, c) => n + c.gapsInLines, 0),
            framesSent: window.framesSent,
            cpuPct,
            tickLate: { p99: tickLate.percentile(99), max: tickLate.max },
          },
        },
        () => process.exit(0),
      );
    }
  });
  send({ type: 'ready' });
}

if (process.argv.includes('--sip-peer') && process.send) await child();
